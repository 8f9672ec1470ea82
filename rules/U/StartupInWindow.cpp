//===- rules/U/StartupInWindow.cpp - U001 start-up in the window ----------===//
//
// Start-up is not steady state. Context creation, module loading, allocator
// growth, handle creation, compilation, autotuning and graph capture happen
// once; a window that holds them measures start-up, and a first step that
// holds them is an outlier that the steady-state median should not be
// judged by. The trace index finds the start-up calls inside the window
// (TraceIndex::startup(): by category, without those that recur in most
// later steps, which are steady-state costs that other rules own). This
// detector compares the first step with the median of the later ones and
// says which of the two the target metric measures: start-up (a window
// without steps that captures graphs or is mostly start-up, or steps whose
// median steady step is mostly start-up work such as graph capture), a mix
// of both (a window without steps), or steady state with start-up inside
// it. On a start-up target the impact is the start-up time inside it.
//
//===----------------------------------------------------------------------===//
#include "rules/BuiltinDetectors.h"
#include "rules/detectors/DetectorSupport.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <optional>

using namespace tracelint;
using namespace tracelint::rules;
using namespace tracelint::rules::detect;
using analysis::StepWindow;
using analysis::TraceIndex;
using model::Event;
using model::Interval;

namespace {

/// The first step against the median of the later ones.
struct FirstStep {
  int64_t First = 0, LaterMedian = 0;
  double Ratio = 0;
  /// The leading steps at least MinRatio times the later median.
  unsigned SlowLeading = 0;
  bool Outlier = false; ///< the first step is one of them
};

FirstStep compareFirstStep(const TraceIndex &Ctx, double MinRatio) {
  // A last step the profiler cut is no step to compare with.
  llvm::ArrayRef<StepWindow> Steps = Ctx.steps();
  if (Ctx.lastStepCut())
    Steps = Steps.drop_back();
  FirstStep F;
  if (Steps.size() < 2)
    return F;
  std::vector<int64_t> Later;
  for (const StepWindow &S : Steps.drop_front())
    Later.push_back(S.Range.length());
  F.LaterMedian = median(Later);
  F.First = Steps.front().Range.length();
  F.Ratio = F.LaterMedian > 0 ? double(F.First) / double(F.LaterMedian) : 0;
  for (const StepWindow &S : Steps) {
    if (F.LaterMedian <= 0 ||
        double(S.Range.length()) < MinRatio * double(F.LaterMedian))
      break;
    ++F.SlowLeading;
  }
  F.Outlier = F.Ratio >= MinRatio;
  return F;
}

/// What the target measures, and what start-up costs it.
struct TargetVerdict {
  bool WindowIsStartup = false, WindowMixed = false, FirstOutlier = false;
  /// Start-up work takes most of the median steady step.
  bool StepsAreStartup = false;
  int64_t Impact = 0;
  std::string Classification;
  const char *MetricKind = "";
  /// The finding is about the whole window rather than about steps.
  bool aboutWindow() const { return WindowIsStartup || WindowMixed; }
  /// The target is not steady state: a warning.
  bool notSteady() const { return aboutWindow() || StepsAreStartup; }
};

/// The classification of a target that start-up work distorts: the
/// window is start-up, or (without steps) mixes start-up with steady
/// state; nothing separates the start-up part from the rest, so the window
/// target carries it.
void classifyWindow(const TraceIndex &Ctx, TargetVerdict &V) {
  const StartupWork &Scan = Ctx.startup();
  V.Impact = std::min(Scan.StartupNs, Ctx.targetNs());
  if (V.WindowIsStartup) {
    V.Classification =
        Scan.HasCapture
            ? "the profiled window is start-up, not steady state: it "
              "captures graphs (work is recorded, not run)"
            : llvm::formatv("the profiled window is start-up, not steady "
                            "state: start-up calls take {0} of it",
                            pct(Scan.windowShare()))
                  .str();
    V.MetricKind = "start-up";
    return;
  }
  V.Classification =
      llvm::formatv("the target (the whole window, no steps) mixes "
                    "start-up with steady state: start-up calls take {0} "
                    "of it",
                    pct(Scan.windowShare()))
          .str();
  V.MetricKind = "mixed";
}

/// The classification of steps that are mostly start-up (graph capture,
/// compilation, warm-up): the median steady step measures start-up, and
/// the start-up time inside it is what a warmed-up step would not spend.
void classifyStartupSteps(const TraceIndex &Ctx, TargetVerdict &V) {
  const StartupWork &Scan = Ctx.startup();
  V.Impact = std::min(Scan.TargetStartupNs, Ctx.targetNs());
  V.Classification =
      llvm::formatv("the target ({0}) is start-up, not steady state: {1} "
                    "takes {2} of the median step",
                    Ctx.describeTarget(),
                    Scan.HasCapture ? "graph capture and other start-up work"
                                    : "start-up work",
                    pct(Scan.targetShare()))
          .str();
  V.MetricKind = "start-up";
}

/// The classification of a steady-state target (the median step) whose
/// first step is an outlier or whose steps hold start-up calls.
void classifySteps(const TraceIndex &Ctx, const FirstStep &First,
                   TargetVerdict &V) {
  // The start-up time in the typical steady step: the trace index's one
  // figure (StartupWork::TargetStartupNs).
  V.Impact = std::min(Ctx.startup().TargetStartupNs, Ctx.targetNs());
  // With fewer than three steps the median holds the first step too.
  const bool Measured =
      !Ctx.steadySteps().empty() && Ctx.steadySteps().front().First;
  V.Classification =
      V.FirstOutlier
          ? llvm::formatv("the target ({0}) is steady state; the first "
                          "step is a start-up outlier ({1}x the median of "
                          "the later steps) {2}",
                          Ctx.describeTarget(), Value::number(First.Ratio, 1),
                          Measured ? "that a median of so few steps still "
                                     "holds: profile three or more"
                                   : "that the median leaves out")
                .str()
          : llvm::formatv("the target ({0}) is steady state, but start-up "
                          "calls lie inside the window",
                          Ctx.describeTarget())
                .str();
  V.MetricKind = "steady state";
}

/// Whether start-up distorts the target, and how; nullopt when it does not.
std::optional<TargetVerdict> judgeTarget(const TraceIndex &Ctx,
                                         const FirstStep &First,
                                         double WindowShare, double MinShare) {
  const StartupWork &Scan = Ctx.startup();
  TargetVerdict V;
  V.WindowIsStartup = Scan.windowIsStartup(WindowShare);
  V.WindowMixed = Scan.windowMixed(MinShare) && !V.WindowIsStartup;
  V.StepsAreStartup = !V.aboutWindow() && Scan.stepsAreStartup(WindowShare);
  V.FirstOutlier = First.Outlier;
  const bool StepsHoldStartup =
      Ctx.hasSteps() &&
      double(Scan.StartupNs) >= MinShare * double(Ctx.targetNs());
  if (!V.notSteady() && !V.FirstOutlier && !StepsHoldStartup)
    return std::nullopt;
  if (V.aboutWindow())
    classifyWindow(Ctx, V);
  else if (V.StepsAreStartup)
    classifyStartupSteps(Ctx, V);
  else
    classifySteps(Ctx, First, V);
  return V;
}

/// "first step 4 ms against a median of 1 ms for the later steps (4.0x)",
/// or why there is no comparison.
std::string compareSteps(const TraceIndex &Ctx, const FirstStep &First) {
  switch (Ctx.steps().size()) {
  case 0:
    return "no step markers: the whole window is the target";
  case 1:
    return "one step only: no later step to compare the first with";
  default:
    return llvm::formatv("first step {0} against a median of {1} for the "
                         "later steps ({2}x)",
                         dur(First.First), dur(First.LaterMedian),
                         Value::number(First.Ratio, 1))
        .str();
  }
}

/// Autotuning (cudnn.benchmark, Inductor max-autotune) launches many trial
/// kernels in the first step: an evidence line when the first step runs at
/// least twice the device operations of a later one (the median), else "".
std::string trialKernelEvidence(const TraceIndex &Ctx) {
  const model::Trace &T = Ctx.trace();
  std::vector<int64_t> Counts(Ctx.steps().size(), 0);
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
  if (LaterCount <= 0 || Counts[0] < 2 * LaterCount)
    return "";
  return llvm::formatv("the first step runs {0} device operations against a "
                       "median of {1} in the later steps: trial kernels of "
                       "autotuning (cudnn.benchmark, max-autotune) or lazy "
                       "initialisation",
                       Counts[0], LaterCount)
      .str();
}

/// The start-up work: its time by category and by name, and the longest
/// call as the example.
void describeStartup(const TraceIndex &Ctx, Detection &Det) {
  const StartupWork &Scan = Ctx.startup();
  std::vector<std::string> Categories =
      categoryTimes(Scan.ByCategory, startupCategoryName);
  std::vector<std::string> Names = callNamesByTime(Ctx, Scan.Found);
  auto &V = Det.Values;
  V["value"] = dur(Scan.StartupNs);
  V["startup_time"] = dur(Scan.StartupNs);
  V["startup_share"] = pct(Scan.windowShare());
  V["categories"] = Categories.empty()
                        ? "no start-up calls recorded (the first step is "
                          "slow for reasons the trace does not name)"
                        : joinNames(Categories, 5);
  V["top_names"] = Names.empty() ? "none" : joinNames(Names);
  if (const Event *E = longestCall(Ctx, Scan.Found)) {
    V["example"] = eventAt(Ctx, *E);
    Det.Examples.push_back(example(Ctx, *E));
  } else {
    V["example"] = "the first step";
  }
}

/// The first step against the later ones, and how long to warm up.
void describeSteps(const TraceIndex &Ctx, const FirstStep &First,
                   const TargetVerdict &Verdict, Detection &Det) {
  auto &V = Det.Values;
  V["first_step"] = dur(First.First);
  V["median_later"] = dur(First.LaterMedian);
  V["ratio"] = Value::number(First.Ratio, 1);
  V["step_comparison"] = compareSteps(Ctx, First);
  unsigned Warmup = std::max(1u, First.SlowLeading);
  V["warmup"] =
      Verdict.notSteady()
          ? "until capture, compilation and allocation finish (run "
            "every shape once)"
          : llvm::formatv("{0} more step{1}", Warmup, Warmup == 1 ? "" : "s")
                .str();
  if (Verdict.FirstOutlier)
    if (std::string Trials = trialKernelEvidence(Ctx); !Trials.empty())
      Det.ExtraEvidence.push_back(std::move(Trials));
}

} // namespace

Outcome rules::runStartupInWindow(const TraceIndex &Ctx,
                                  const RuleOptions &Opts,
                                  std::vector<Detection> &Out) {
  const double MinRatio = Opts.number("min-first-step-ratio");
  const double MinShare = Opts.number("min-startup-share");
  const double WindowShare = Opts.number("startup-window-share");
  if (Ctx.targetNs() <= 0)
    return Outcome::ran();

  FirstStep First = compareFirstStep(Ctx, MinRatio);
  std::optional<TargetVerdict> Verdict =
      judgeTarget(Ctx, First, WindowShare, MinShare);
  if (!Verdict)
    return Outcome::ran();

  Detection Det;
  auto &V = Det.Values;
  V["classification"] = Verdict->Classification;
  V["metric_kind"] = Verdict->MetricKind;
  V["subject"] = Verdict->MetricKind;
  V["impact"] = dur(Verdict->Impact);
  V["target"] = Ctx.describeTarget();
  describeStartup(Ctx, Det);
  describeSteps(Ctx, First, *Verdict, Det);
  Det.SeverityOverride =
      Verdict->notSteady() ? Severity::Warning : Severity::Info;
  Det.ImpactNs = Verdict->Impact;
  Det.Window = Verdict->aboutWindow()     ? "whole window"
               : Verdict->StepsAreStartup ? Ctx.measureWindows().describe()
               : Verdict->FirstOutlier
                   ? llvm::formatv("step {0}", Ctx.steps().front().Number).str()
                   : "steps";
  Det.Subject = Verdict->MetricKind;
  // Named start-up calls are direct evidence; a slow first step alone is
  // not (it can be a window boundary, a profiler buffer flush, or data).
  const bool Named = !Ctx.startup().Found.empty();
  Det.Confidence = Named ? 0.8 : 0.5;
  if (!Named)
    Det.ConfidenceNotes.emplace_back(
        "no start-up call is recorded: the slow first step is explained by "
        "its length alone");
  Out.push_back(std::move(Det));
  return Outcome::ran();
}
