//===- rules/N/RankRepeatedlyLast.cpp - N005 the same rank is last --------===//
//
// A job detector: one rank that arrives last at most of the job's matched
// collectives, whatever the size of each lateness. By chance each of N
// ranks is last at about 1/N of them; a share far above that, over enough
// collectives, is a rank that is systematically behind (an uneven shard, a
// slower node, extra work such as logging). Ranks below min-ranks are not
// judged: with two ranks one of them is always last.
//
// The impact is the rank's lateness summed over the collectives it was
// last at, per step: what the job would gain if it kept up.
//
//===----------------------------------------------------------------------===//
#include "analysis/JobAnalysis.h"
#include "rules/BuiltinDetectors.h"
#include "rules/detectors/DetectorSupport.h"

#include "support/Count.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace tracelint;
using namespace tracelint::rules;
using namespace tracelint::rules::detect;
using analysis::JobAnalysis;
using analysis::JobCollective;

Outcome rules::runRankRepeatedlyLast(const JobAnalysis &J,
                                     const RuleOptions &Opts,
                                     std::vector<Detection> &Out) {
  const auto MinRanks = size_t(Opts.number("min-ranks"));
  if (J.Ranks.size() < MinRanks)
    return Outcome::notApplicable(
        llvm::formatv("the job has {0}; with fewer than {1} one of "
                      "them is last at every collective by necessity",
                      support::formatCount(int64_t(J.Ranks.size()), "rank"),
                      MinRanks)
            .str());
  size_t Judged = llvm::count_if(J.Collectives, [](const JobCollective &M) {
    return M.Last != SIZE_MAX && M.Steady;
  });
  const auto MinCollectives = size_t(Opts.number("min-collectives"));
  if (Judged < MinCollectives)
    return Outcome::cannotJudge(
        llvm::formatv("{0} {1} matched on two or more ranks; "
                      "a repeated order needs at least {2}",
                      support::formatCount(int64_t(Judged), "collective"),
                      Judged == 1 ? "was" : "were", MinCollectives)
            .str());
  const double MinShare = Opts.number("min-share");
  // Lateness the clocks cannot resolve is jitter, not a straggler: a rank
  // counts as last only when it is late by min-late and by more than the
  // clock alignment's spread (and, with min-late 0, by anything at all).
  const int64_t MinLate = std::max<int64_t>(
      {int64_t(Opts.number("min-late")), J.OffsetSpreadNs + 1, int64_t(1)});
  for (size_t Slot = 0; Slot < J.Ranks.size(); ++Slot) {
    // Only the rank the job's path runs through is named (JobAnalysis::
    // mayBlame): a rank last at many collectives by little is not the one
    // the job waits for.
    if (!J.mayBlame(Slot))
      continue;
    const analysis::JobRank &R = J.Ranks[Slot];
    // Last strictly (a tie is nobody's), in the steady steps.
    int64_t Sum = 0, Times = 0;
    const JobCollective *Worst = nullptr;
    for (const JobCollective &M : J.Collectives)
      if (M.Last == Slot && M.Steady && M.LateByNs >= MinLate && !M.Undecided) {
        Sum += M.LateByNs;
        ++Times;
        if (!Worst || M.LateByNs > Worst->LateByNs)
          Worst = &M;
      }
    double Share = double(Times) / double(Judged);
    if (Share < MinShare)
      continue;
    Detection Det;
    auto &V = Det.Values;
    V["rank"] = J.rankName(Slot);
    V["times"] = count(Times);
    V["judged"] = count(int64_t(Judged));
    V["share"] = pct(Share);
    V["chance"] = pct(1.0 / double(J.Ranks.size()));
    V["ranks"] = count(int64_t(J.Ranks.size()));
    V["late"] = dur(J.perStep(Sum));
    V["cause"] = R.S.topIdleCause().empty()
                     ? std::string("its summary has no idle split")
                     : R.S.topIdleCause();
    V["input"] = R.S.Input;
    Det.Subject = J.rankName(Slot);
    Det.Window = J.describeWindow();
    if (Worst)
      Det.Collective = int64_t(Worst - J.Collectives.data());
    Det.ImpactNs = J.perStep(Sum);
    Det.Confidence = std::min(0.9, 0.5 + Share / 2);
    Out.push_back(std::move(Det));
  }
  return Outcome::ran();
}
