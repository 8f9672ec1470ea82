//===- rules/N/ComputeImbalance.cpp - N007 uneven compute before a collective //
//
// A job detector. Each rank's summary holds, per collective, its device's
// compute time since its previous collective (RankCollective::ComputeBeforeNs,
// analysis/RankSummary.h). When the rank that reaches a collective last ran
// more compute before it than the other ranks did (their median), that
// extra compute explains its lateness, up to the lateness itself: the work
// is unevenly split, or the same work runs slower on that rank's device.
// A late arrival that its compute explains at least half of is this rule's
// (JobCollective::lateFromCompute); the others (host work, data loading, a
// slow node's host) are N004's, so no lateness is reported twice.
//
// The impact is the explained lateness summed over the rank's collectives in
// steady steps, per step. There is no floor beyond min-late, as for N004:
// every arrival that late is reported by exactly one of the two rules.
//
//===----------------------------------------------------------------------===//
#include "analysis/JobAnalysis.h"
#include "rules/BuiltinDetectors.h"
#include "rules/detectors/DetectorSupport.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <map>

using namespace tracelint;
using namespace tracelint::rules;
using namespace tracelint::rules::detect;
using analysis::JobAnalysis;
using analysis::JobCollective;
using analysis::NoTime;

Outcome rules::runComputeImbalance(const JobAnalysis &J,
                                   const RuleOptions &Opts,
                                   std::vector<Detection> &Out) {
  if (J.Ranks.size() < 2)
    return Outcome::notApplicable("the job has fewer than 2 ranks to compare");
  const int64_t MinLate = int64_t(Opts.number("min-late"));
  size_t Judged = 0;
  std::map<size_t, std::vector<const JobCollective *>> ByRank;
  for (const JobCollective &M : J.Collectives) {
    if (M.Last == SIZE_MAX || !M.Steady || M.ComputeExcessNs == NoTime)
      continue;
    ++Judged;
    if (M.LateByNs >= MinLate && M.lateFromCompute() && !M.Undecided)
      ByRank[M.Last].push_back(&M);
  }
  if (!Judged)
    return Outcome::cannotJudge(
        "no collective of a steady step has its compute time on two or more "
        "ranks (older summaries have no compute_ns on their collective "
        "lines)");
  for (auto &[Slot, List] : ByRank) {
    // Only the rank the job's path runs through (JobAnalysis::mayBlame).
    if (!J.mayBlame(Slot))
      continue;
    int64_t Sum = 0, Late = 0;
    const JobCollective *Worst = List.front();
    for (const JobCollective *M : List) {
      Sum += M->computeExplainedNs();
      Late += M->LateByNs;
      if (M->computeExplainedNs() > Worst->computeExplainedNs())
        Worst = M;
    }
    const int64_t Impact = J.perStep(Sum);
    Detection Det;
    auto &V = Det.Values;
    V["rank"] = J.rankName(Slot);
    V["count"] = count(int64_t(List.size()));
    V["collectives"] =
        List.size() == 1 ? std::string("collective") : "collectives";
    V["worst"] = Worst->describe();
    V["own"] = dur(Worst->ComputeBefore[Slot]);
    V["median"] = dur(Worst->ComputeBefore[Slot] - Worst->ComputeExcessNs);
    V["late"] = dur(Worst->LateByNs);
    V["explained"] = dur(Impact);
    V["share"] = pct(double(Sum) / double(std::max<int64_t>(1, Late)));
    V["input"] = J.Ranks[Slot].S.Input;
    Det.Subject = J.rankName(Slot);
    Det.Window = J.describeWindow();
    Det.Collective = int64_t(Worst - J.Collectives.data());
    Det.ImpactNs = Impact;
    // Both figures are measured on the devices; whether the work or the
    // device differs is not in a summary.
    Det.Confidence = 0.7;
    Out.push_back(std::move(Det));
  }
  return Outcome::ran();
}
