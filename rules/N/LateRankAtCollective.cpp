//===- rules/N/LateRankAtCollective.cpp - N004 a rank arrives late --------===//
//
// A job detector (docs/writing-rules.md): it reads the joined ranks of a
// job. A collective cannot complete before its last rank joins it, so the
// other ranks sit inside the collective for that rank. For each rank that
// arrived last at a collective by at least min-late (its start against the
// second-last rank's, in the aligned clocks of analysis/JobAnalysis.h), one
// finding: how many collectives, by how much, the others' wait, and what the
// late rank was doing, read from its own summary (the idle split's largest
// host-side part and its own top finding). A late arrival that the rank's
// extra compute explains (JobCollective::lateFromCompute) is N007's.
//
// The impact is what the late arrivals delay the job by per step: the sum
// of their lateness (not of the others' waits, which overlap in time) over
// the collectives in steady steps, divided by the steady steps.
//
//===----------------------------------------------------------------------===//
#include "analysis/JobAnalysis.h"
#include "rules/BuiltinDetectors.h"
#include "rules/detectors/DetectorSupport.h"

#include "support/Statistics.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <map>

using namespace tracelint;
using namespace tracelint::rules;
using namespace tracelint::rules::detect;
using analysis::JobAnalysis;
using analysis::JobCollective;
using analysis::NoTime;

namespace {

/// "rank 0 waited 5.0 ms, rank 1 4.9 ms and 5 more ranks 4.8 ms or less".
std::string waitsText(const JobAnalysis &J, const JobCollective &M) {
  std::vector<std::pair<int64_t, size_t>> W;
  for (size_t Slot = 0; Slot < M.Start.size(); ++Slot)
    if (Slot != M.Last && M.Start[Slot] != NoTime)
      W.push_back({M.waitOf(Slot), Slot});
  llvm::stable_sort(W, [](auto &A, auto &B) { return A.first > B.first; });
  std::vector<std::string> Parts;
  for (size_t I = 0; I < W.size() && I < 3; ++I)
    Parts.push_back(llvm::formatv("{0} waited {1}", J.rankName(W[I].second),
                                  dur(W[I].first))
                        .str());
  std::string Text = llvm::join(Parts, ", ");
  if (W.size() > 3)
    Text += llvm::formatv(" and {0} more ranks {1} or less", W.size() - 3,
                          dur(W[3].first))
                .str();
  return Text;
}

/// What the late rank's own summary says it was doing.
std::string causeText(const analysis::RankSummary &S) {
  std::string Idle = S.topIdleCause();
  std::string Top;
  for (const analysis::RankFinding &F : S.Findings)
    if (F.ImpactNs > 0 && F.Code.rfind('N', 0) != 0) {
      Top = llvm::formatv("its own top finding is {0} {1} (impact up to {2})",
                          F.Code, F.Name, dur(F.ImpactNs))
                .str();
      break;
    }
  if (Idle.empty() && Top.empty())
    return "its summary records no idle split and no finding of its own";
  if (Idle.empty())
    return Top;
  return Top.empty() ? Idle : Idle + "; " + Top;
}

} // namespace

Outcome rules::runLateRankAtCollective(const JobAnalysis &J,
                                       const RuleOptions &Opts,
                                       std::vector<Detection> &Out) {
  if (J.Ranks.size() < 2)
    return Outcome::notApplicable("the job has fewer than 2 ranks to compare");
  if (llvm::none_of(J.Collectives,
                    [](const JobCollective &M) { return M.Present >= 2; }))
    return Outcome::cannotJudge(
        "no collective was matched on two or more ranks, so no arrival "
        "order can be seen");
  const int64_t MinLate = int64_t(Opts.number("min-late"));
  std::map<size_t, std::vector<const JobCollective *>> ByRank;
  uint64_t Undecided = 0;
  for (const JobCollective &M : J.Collectives) {
    if (M.Last == SIZE_MAX || !M.Steady || M.LateByNs < MinLate ||
        M.lateFromCompute())
      continue;
    // An arrival order within the clocks' error names nobody.
    if (M.Undecided) {
      ++Undecided;
      continue;
    }
    ByRank[M.Last].push_back(&M);
  }
  // With the job's path known, only the rank it runs through is named; a
  // path no rank owns names nobody.
  if (J.Path.Collectives && J.Path.Critical == SIZE_MAX && !ByRank.empty())
    return Outcome::cannotJudge(
        "ranks arrived late, but " + J.describeCritical() +
        ", so none of them can be said to delay the job");
  std::vector<size_t> LateRanks;
  for (const auto &[Slot, Late] : ByRank)
    LateRanks.push_back(Slot);
  if (ByRank.empty() && Undecided)
    return Outcome::cannotJudge(
        llvm::formatv("clocks: at {0} collective{1} a rank "
                      "arrived at least {2} after the others, but by less "
                      "than three times the clock alignment's spread (up to "
                      "{3}), so the arrival order cannot be told from clock "
                      "error",
                      Undecided, Undecided == 1 ? "" : "s", dur(MinLate),
                      dur(J.OffsetSpreadNs))
            .str());
  for (auto &[Slot, Late] : ByRank) {
    if (!J.mayBlame(Slot))
      continue;
    std::vector<int64_t> By;
    int64_t Sum = 0, Wait = 0;
    const JobCollective *Worst = Late.front();
    for (const JobCollective *M : Late) {
      By.push_back(M->LateByNs);
      Sum += M->LateByNs;
      Wait += M->WaitNs;
      if (M->LateByNs > Worst->LateByNs)
        Worst = M;
    }
    const analysis::JobRank &R = J.Ranks[Slot];
    Detection Det;
    auto &V = Det.Values;
    V["rank"] = J.rankName(Slot);
    V["count"] = count(int64_t(Late.size()));
    V["collectives"] =
        Late.size() == 1 ? std::string("collective") : "collectives";
    V["late"] = dur(support::median(By));
    V["worst"] = Worst->describe();
    V["max"] = dur(Worst->LateByNs);
    V["wait"] = dur(J.perStep(Wait));
    V["waits"] = waitsText(J, *Worst);
    V["cause"] = causeText(R.S);
    V["input"] = R.S.Input;
    V["min_late"] = dur(MinLate);
    Det.Subject = J.rankName(Slot);
    Det.Window = J.describeWindow();
    Det.Collective = int64_t(Worst - J.Collectives.data());
    Det.ImpactNs = J.perStep(Sum);
    // Said relative to the rank the job's path runs through.
    const analysis::JobPath &P = J.Path;
    if (P.Critical == Slot)
      Det.ExtraEvidence.push_back(
          llvm::formatv("{0} is the job's critical rank: {1} of the job's "
                        "path is its own time before the collectives it "
                        "reaches last",
                        J.rankName(Slot), pct(P.shareOf(Slot)))
              .str());
    if (std::string Others = J.othersOnPath(Slot, LateRanks); !Others.empty())
      Det.ExtraEvidence.push_back(
          "also late at some collectives, with less of the job's path: " +
          Others);
    if (Undecided)
      Det.ExtraEvidence.push_back(
          llvm::formatv("{0} other late arrival{1} within the clocks' error "
                        "(three times the spread, up to {2}) name nobody",
                        Undecided, Undecided == 1 ? "" : "s",
                        dur(J.OffsetSpreadNs))
              .str());
    // The order is measured, after the clocks were aligned; what the late
    // rank did is its own summary's reading, not a proof of cause.
    Det.Confidence = R.OffsetOutliers ? 0.6 : 0.75;
    if (R.OffsetOutliers)
      Det.ConfidenceNotes.push_back(
          llvm::formatv("{0} of {1}'s clock offsets were outliers: its clock "
                        "alignment is less certain",
                        R.OffsetOutliers, J.rankName(Slot))
              .str());
    Out.push_back(std::move(Det));
  }
  return Outcome::ran();
}
