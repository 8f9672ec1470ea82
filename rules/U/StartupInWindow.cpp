//===- rules/detectors/StartupArtifacts.cpp - U001 start-up in the window -===//
//
// Start-up is not steady state. Context creation, module loading, allocator
// growth, handle creation, compilation, autotuning and graph capture happen
// once; a window that holds them measures start-up, and a first step that
// holds them is an outlier that the steady-state median should not be
// judged by. This detector lists the start-up calls inside the window by
// category, drops those that recur in most later steps (they are then
// steady-state costs that other rules own), compares the first step with
// the median of the later ones, and says which of the two the target metric
// measures.
//
//===----------------------------------------------------------------------===//
#include "rules/BuiltinDetectors.h"
#include "rules/detectors/DetectorSupport.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <array>
#include <map>

using namespace tracelint;
using namespace tracelint::rules;
using namespace tracelint::rules::detect;
using analysis::TraceIndex;
using model::Event;
using model::EventKind;
using model::Interval;

Outcome rules::runStartupInWindow(const TraceIndex &Ctx,
                                  const RuleOptions &Opts,
                                  std::vector<Detection> &Out) {
  const model::Trace &T = Ctx.trace();
  const double MinRatio = Opts.number("min-first-step-ratio");
  const double MinShare = Opts.number("min-startup-share");
  const int64_t Target = Ctx.targetNs();
  if (Target <= 0)
    return Outcome::ran();

  const double WindowShare = Opts.number("startup-window-share");
  const StartupWork &Scan = Ctx.startup();
  const std::vector<StartupEvent> &Found = Scan.Found;
  llvm::ArrayRef<analysis::StepWindow> Steps = Ctx.steps();
  int64_t StartupNs = Scan.StartupNs;
  bool HasCapture = Scan.HasCapture;
  std::vector<Interval> SteadyParts;
  std::map<std::string, int64_t> ByName;
  for (const StartupEvent &S : Found) {
    ByName[T.name(T.Events[S.Index]).str()] += S.Range.length();
    if (Steps.size() >= 2 && Ctx.stepAt(S.Range.Begin) > 0)
      SteadyParts.push_back(S.Range);
  }

  // 4. The first step against the later ones.
  int64_t First = 0, LaterMedian = 0;
  double Ratio = 0;
  unsigned SlowLeading = 0;
  if (Steps.size() >= 2) {
    std::vector<int64_t> Later;
    for (const analysis::StepWindow &S : Steps.drop_front())
      Later.push_back(S.Range.length());
    LaterMedian = median(Later);
    First = Steps.front().Range.length();
    Ratio = LaterMedian > 0 ? double(First) / double(LaterMedian) : 0;
    for (const analysis::StepWindow &S : Steps)
      if (LaterMedian > 0 &&
          double(S.Range.length()) >= MinRatio * double(LaterMedian))
        ++SlowLeading;
      else
        break;
  }
  bool FirstOutlier = Steps.size() >= 2 && Ratio >= MinRatio;

  // 5. What the target measures.
  bool WindowIsStartup = Scan.windowIsStartup(WindowShare);
  std::vector<int64_t> SteadyPerStep;
  if (Ctx.hasSteps()) {
    model::IntervalSet SteadyUnion = model::IntervalSet::unionOf(SteadyParts);
    for (const analysis::StepWindow &S : Ctx.steadySteps())
      SteadyPerStep.push_back(SteadyUnion.lengthWithin(S.Range));
  }
  bool StepsHoldStartup =
      Ctx.hasSteps() && double(StartupNs) >= MinShare * double(Target);
  bool WindowMixed = Scan.windowMixed(MinShare) && !WindowIsStartup;
  if (!WindowIsStartup && !WindowMixed && !FirstOutlier && !StepsHoldStartup)
    return Outcome::ran();

  Detection Det;
  auto &V = Det.Values;
  int64_t Impact = 0;
  if (WindowIsStartup) {
    Impact = std::min(StartupNs, Target);
    V["classification"] =
        HasCapture ? "the profiled window is start-up, not steady state: it "
                     "captures graphs (work is recorded, not run)"
                   : llvm::formatv(
                         "the profiled window is start-up, not steady "
                         "state: start-up calls take {0} of it",
                         pct(double(StartupNs) / double(Ctx.window().length())))
                         .str();
    V["metric_kind"] = "start-up";
  } else if (WindowMixed) {
    // Without steps nothing separates the start-up part from the rest, so
    // the window target carries it.
    Impact = std::min(StartupNs, Target);
    V["classification"] =
        llvm::formatv("the target (the whole window, no steps) mixes "
                      "start-up with steady state: start-up calls take {0} "
                      "of it",
                      pct(double(StartupNs) / double(Ctx.window().length())))
            .str();
    V["metric_kind"] = "mixed";
  } else {
    Impact = std::min(median(SteadyPerStep), Target);
    V["classification"] =
        FirstOutlier
            ? llvm::formatv("the target ({0}) is steady state; the first "
                            "step is a start-up outlier ({1}x the median of "
                            "the later steps) that the median leaves out",
                            Ctx.describeTarget(),
                            llvm::formatv("{0:f1}", Ratio).str())
                  .str()
            : llvm::formatv("the target ({0}) is steady state, but start-up "
                            "calls lie inside the window",
                            Ctx.describeTarget())
                  .str();
    V["metric_kind"] = "steady state";
  }
  Det.SeverityOverride =
      WindowIsStartup || WindowMixed ? Severity::Warning : Severity::Info;

  std::vector<std::string> Cats;
  for (unsigned C = 0; C < NumStartupCategories; ++C) {
    const std::vector<Interval> &Parts = Scan.ByCategory[C];
    if (Parts.empty())
      continue;
    int64_t Ns = model::IntervalSet::unionOf(Parts).length();
    Cats.push_back(llvm::formatv("{0} {1} ({2} call{3})",
                                 startupCategoryName(C), dur(Ns), Parts.size(),
                                 Parts.size() == 1 ? "" : "s")
                       .str());
  }
  std::vector<std::pair<int64_t, std::string>> Names;
  for (auto &[N, Ns] : ByName)
    Names.push_back({Ns, N});
  llvm::sort(Names, [](const auto &A, const auto &B) {
    return A.first > B.first || (A.first == B.first && A.second < B.second);
  });
  std::vector<std::string> NameList;
  for (auto &P : Names)
    NameList.push_back(P.second);

  V["value"] = dur(StartupNs);
  V["startup_time"] = dur(StartupNs);
  V["startup_share"] = pct(double(StartupNs) / double(Ctx.window().length()));
  V["categories"] = Cats.empty() ? "no start-up calls recorded (the first "
                                   "step is slow for reasons the trace does "
                                   "not name)"
                                 : joinNames(Cats, 5);
  V["top_names"] = NameList.empty() ? "none" : joinNames(NameList);
  V["first_step"] = dur(First);
  V["median_later"] = dur(LaterMedian);
  V["ratio"] = llvm::formatv("{0:f1}", Ratio).str();
  V["step_comparison"] =
      Steps.size() >= 2
          ? llvm::formatv("first step {0} against a median of {1} for the "
                          "later steps ({2}x)",
                          dur(First), dur(LaterMedian), V["ratio"])
                .str()
      : Steps.size() == 1 ? std::string("one step only: no later step to "
                                        "compare the first with")
                          : std::string("no step markers: the whole "
                                        "window is the target");
  unsigned Warmup = std::max(1u, SlowLeading);
  V["warmup"] =
      WindowIsStartup || WindowMixed
          ? "until capture, compilation and allocation finish (run "
            "every shape once)"
          : llvm::formatv("{0} more step{1}", Warmup, Warmup == 1 ? "" : "s")
                .str();
  V["impact"] = dur(Impact);
  V["target"] = Ctx.describeTarget();
  V["subject"] = V["metric_kind"];
  if (FirstOutlier) {
    // Autotuning (cudnn.benchmark, Inductor max-autotune) launches many
    // trial kernels in the first step: compare kernel counts.
    std::vector<int64_t> Counts(Steps.size(), 0);
    for (int32_t D : Ctx.devices())
      for (uint32_t I : Ctx.deviceWork(D)) {
        uint32_t L = T.launchOf(T.Events[I]);
        int S = Ctx.stepAt(L != model::NoIndex ? T.Events[L].Start
                                               : T.Events[I].Start);
        if (S >= 0)
          ++Counts[size_t(S)];
      }
    int64_t LaterCount =
        median(std::vector<int64_t>(Counts.begin() + 1, Counts.end()));
    if (LaterCount > 0 && Counts[0] >= 2 * LaterCount)
      Det.ExtraEvidence.push_back(
          llvm::formatv("the first step runs {0} device operations against a "
                        "median of {1} in the later steps: trial kernels of "
                        "autotuning (cudnn.benchmark, max-autotune) or lazy "
                        "initialisation",
                        Counts[0], LaterCount)
              .str());
  }
  if (!Found.empty()) {
    const StartupEvent *Longest = &Found.front();
    for (const StartupEvent &S : Found)
      if (S.Range.length() > Longest->Range.length())
        Longest = &S;
    const Event &E = T.Events[Longest->Index];
    V["example"] =
        llvm::formatv("{0} at {1:f3} us", T.name(E), Ctx.traceTimestampUs(E))
            .str();
    Det.Examples.push_back(example(Ctx, E));
  } else {
    V["example"] = "the first step";
  }
  Det.ImpactNs = Impact;
  Det.Window = WindowIsStartup || WindowMixed ? "whole window"
               : FirstOutlier
                   ? llvm::formatv("step {0}", Steps.front().Number).str()
                   : "steps";
  Det.Subject = V["metric_kind"].text();
  // Named start-up calls are direct evidence; a slow first step alone is
  // not (it can be a window boundary, a profiler buffer flush, or data).
  Det.Confidence = Found.empty() ? 0.5 : 0.8;
  if (Found.empty())
    Det.ConfidenceNotes.push_back(
        "no start-up call is recorded: the slow first step is explained by "
        "its length alone");
  Out.push_back(std::move(Det));
  return Outcome::ran();
}
