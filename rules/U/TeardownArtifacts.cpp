//===- rules/U/TeardownArtifacts.cpp - U003 teardown in the window --------===//
//
// Teardown is not steady state either. After the last submission a program
// frees its device and pinned host memory (often one cudaFree per tensor,
// each of which synchronizes the device), unloads modules and destroys its
// streams, events, graphs and context. This detector lists those calls
// (TraceIndex::teardown()) by category and says whether they distort the
// target: they stretch the window of a trace without steps, inflate the
// step whose range holds them, or lie after the steps and leave step
// figures alone.
//
//===----------------------------------------------------------------------===//
#include "rules/BuiltinDetectors.h"
#include "rules/detectors/DetectorSupport.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

using namespace tracelint;
using namespace tracelint::rules;
using namespace tracelint::rules::detect;
using analysis::TraceIndex;
using model::Event;
using model::Interval;

namespace {

/// Where the teardown lies, and what it costs the target there.
struct Placement {
  int64_t Impact = 0;
  double Share = 0; ///< of the target
  std::string Classification, MetricKind, Where, Window;
};

/// Without steps the window is the target, and it ends with the teardown.
Placement placeInWindow(const TraceIndex &Ctx, const TeardownWork &Scan) {
  Placement P;
  P.Impact = std::min(Scan.TeardownNs, Ctx.targetNs());
  P.Share = double(P.Impact) / double(Ctx.targetNs());
  P.Classification =
      llvm::formatv("the target (the whole window, no steps) ends with "
                    "teardown that is not steady-state work: it takes {0} "
                    "of the window",
                    pct(P.Share))
          .str();
  P.MetricKind = "window";
  P.Where = "after the last submission of the window";
  P.Window = "end of window";
  return P;
}

/// Teardown inside a step inflates that step; the median moves by at most
/// what one step holds. Teardown after the last step changes no step.
Placement placeInSteps(const TraceIndex &Ctx, const TeardownWork &Scan) {
  std::vector<Interval> Calls;
  for (const TeardownEvent &E : Scan.Found)
    Calls.push_back(E.Range);
  model::IntervalSet Union = model::IntervalSet::unionOf(std::move(Calls));
  int64_t InStep = 0, InStepNumber = -1;
  for (const analysis::StepWindow &S : Ctx.steps()) {
    int64_t Ns = Union.lengthWithin(S.Range);
    if (Ns > InStep) {
      InStep = Ns;
      InStepNumber = S.Number;
    }
  }
  Placement P;
  if (InStep == 0) {
    P.Classification =
        llvm::formatv("the teardown lies after the last step, so the "
                      "target ({0}) leaves it out; it is not step work",
                      Ctx.describeTarget())
            .str();
    P.MetricKind = "after the steps";
    P.Where = "after the last step";
    P.Window = "after the last step";
    return P;
  }
  P.Impact = std::min(InStep, Ctx.targetNs());
  P.Share = double(P.Impact) / double(Ctx.targetNs());
  P.Classification =
      llvm::formatv("step {0} holds {1} of teardown after the last "
                    "submission ({2} of the target, {3}): that step is "
                    "longer for a reason that is not step work",
                    InStepNumber, dur(InStep), pct(P.Share),
                    Ctx.describeTarget())
          .str();
  P.MetricKind = "last step";
  P.Where = llvm::formatv("inside step {0}", InStepNumber).str();
  P.Window = llvm::formatv("step {0}", InStepNumber).str();
  return P;
}

/// The final synchronization is U002's; say how much of it there is so
/// that the two are read together.
std::string describeFlushes(const TraceIndex &Ctx) {
  WaitTally Flushes = flushWaits(Ctx);
  if (Flushes.Count == 0)
    return "no final synchronization follows the last submission";
  const bool One = Flushes.Count == 1;
  return llvm::formatv("{0} final synchronization{1} ({2}) after the last "
                       "submission {3} U002's",
                       Flushes.Count, One ? "" : "s", dur(Flushes.Total),
                       One ? "is" : "are")
      .str();
}

/// The finding: the calls by category and by name, and the longest.
Detection describeTeardown(const TraceIndex &Ctx, const TeardownWork &Scan,
                           Placement P) {
  // Not null: runTeardownArtifacts stops early when nothing is found.
  const Event &Longest = *longestCall(Ctx, Scan.Found);

  Detection Det;
  auto &V = Det.Values;
  V["classification"] = std::move(P.Classification);
  V["metric_kind"] = P.MetricKind;
  V["where"] = std::move(P.Where);
  V["value"] = dur(Scan.TeardownNs);
  V["teardown_time"] = dur(Scan.TeardownNs);
  V["teardown_share"] =
      pct(double(Scan.TeardownNs) / double(Ctx.window().length()));
  V["categories"] =
      joinNames(categoryTimes(Scan.ByCategory, teardownCategoryName), 4);
  V["top_names"] = joinNames(callNamesByTime(Ctx, Scan.Found));
  V["count"] = count(int64_t(Scan.Found.size()));
  V["example"] = eventAt(Ctx, Longest);
  V["flushes"] = describeFlushes(Ctx);
  V["impact"] = dur(P.Impact);
  V["target"] = Ctx.describeTarget();
  V["subject"] = P.MetricKind;
  Det.Examples.push_back(example(Ctx, Longest));
  Det.ImpactNs = P.Impact;
  Det.Window = std::move(P.Window);
  Det.Subject = P.MetricKind;
  return Det;
}

} // namespace

Outcome rules::runTeardownArtifacts(const TraceIndex &Ctx,
                                    const RuleOptions &Opts,
                                    std::vector<Detection> &Out) {
  const int64_t MinDuration = int64_t(Opts.number("min-duration"));
  const double MinShare = Opts.number("min-target-share");
  if (Ctx.targetNs() <= 0)
    return Outcome::ran();
  const TeardownWork &Scan = Ctx.teardown();
  if (Scan.Found.empty() || Scan.TeardownNs < MinDuration)
    return Outcome::ran();

  // Where the teardown lies decides what it distorts.
  Placement P =
      Ctx.hasSteps() ? placeInSteps(Ctx, Scan) : placeInWindow(Ctx, Scan);
  const bool Distorts = P.Impact > 0 && P.Share >= MinShare;
  Detection Det = describeTeardown(Ctx, Scan, std::move(P));
  Det.SeverityOverride = Distorts ? Severity::Warning : Severity::Info;
  // Named calls after the last submission are direct evidence; what they
  // cost is certain, whether a production run pays them is not.
  Det.Confidence = 0.8;
  Out.push_back(std::move(Det));
  return Outcome::ran();
}
