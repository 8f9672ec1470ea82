//===- rules/L/SingleTensorOptimizer.cpp - L003 single-tensor optimizer ---===//
//
// torch.optim's single-tensor implementations (`_single_tensor_adam`,
// `_single_tensor_sgd`, and every optimizer of older PyTorch versions) loop
// over the parameters in Python and update each with a few elementwise ops:
// a model with hundreds of parameter tensors launches hundreds to thousands
// of tiny kernels in every optimizer step. The `_foreach_*` implementation
// does the same math with a handful of multi-tensor kernels, and the fused
// one with one or two.
//
// PyTorch records each optimizer step as a host range named
// `Optimizer.step#<Class>.step`. This detector takes those ranges in the
// steady steps, follows the launches made on the range's thread inside it
// to their kernels, and counts the per-tensor elementwise kernels (kernel
// names, or the aten op that launched them) apart from multi-tensor ones.
// The figure is the optimizer's span (the range, extended to its last
// kernel's end) minus the time other device work covers in it: if the
// optimizer took no time at all, the step could not shrink by more.
//
//===----------------------------------------------------------------------===//
#include "rules/BuiltinDetectors.h"
#include "rules/detectors/DetectorSupport.h"
#include "rules/detectors/KernelNames.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <map>

using namespace tracelint;
using namespace tracelint::rules;
using namespace tracelint::rules::detect;
using analysis::TraceIndex;
using model::Event;
using model::EventKind;
using model::Interval;

namespace {

/// How torch.optim names its step ranges (the name class optimizer-step
/// matches them), for reading the optimizer's class out of the name.
constexpr llvm::StringLiteral OptimizerPrefix = "Optimizer.step#";

/// True for the host range that torch.optim records around a step.
bool isOptimizerRange(const TraceIndex &Ctx, const Event &E) {
  const model::Trace &T = Ctx.trace();
  if (E.Kind != EventKind::Op && E.Kind != EventKind::Annotation)
    return false;
  if (E.Lane == model::NoIndex ||
      T.Lanes[E.Lane].Kind != model::LaneKind::HostThread)
    return false;
  return Ctx.is(E, model::NameClass::OptimizerStep);
}

/// Elementwise math ops that single-tensor optimizers call per parameter.
bool isPerTensorOp(llvm::StringRef Name) {
  static constexpr llvm::StringLiteral Ops[] = {
      "aten::add",     "aten::add_",     "aten::addcdiv", "aten::addcdiv_",
      "aten::addcmul", "aten::addcmul_", "aten::div",     "aten::div_",
      "aten::lerp",    "aten::lerp_",    "aten::maximum", "aten::mul",
      "aten::mul_",    "aten::neg",      "aten::sqrt",    "aten::sqrt_",
      "aten::sub",     "aten::sub_",     "aten::clamp_",  "aten::sign"};
  return llvm::is_contained(Ops, Name);
}

/// True for a kernel that updates a list of tensors at once: a multi-tensor
/// kernel, or any kernel of a foreach or fused op.
bool isMultiTensor(const TraceIndex &Ctx, const Event &Kernel,
                   llvm::StringRef OpName) {
  return Ctx.is(Kernel, model::NameClass::MultiTensorKernel) ||
         OpName.startswith("aten::_foreach_") ||
         OpName.startswith("aten::_fused_");
}

/// "SGD" from "Optimizer.step#SGD.step".
llvm::StringRef optimizerClass(llvm::StringRef Name) {
  Name.consume_front(OptimizerPrefix);
  Name.consume_back(".step");
  return Name;
}

/// True when the trace has a backward pass: autograd's ops
/// ("autograd::engine::evaluate_function: MulBackward0", "MulBackward0").
/// Without one and without optimizer ranges the trace is inference, where
/// an optimizer step does not occur.
bool hasBackwardPass(const TraceIndex &Ctx) {
  const model::Trace &T = Ctx.trace();
  for (const Event &E : T.Events) {
    if (E.Kind != model::EventKind::Op)
      continue;
    llvm::StringRef Name = T.name(E);
    if (Name.contains("Backward") || Name.startswith("autograd::engine"))
      return true;
  }
  return false;
}

/// The outermost optimizer ranges (a cpu_op and an annotation of the same
/// name may nest).
std::vector<uint32_t> optimizerRanges(const TraceIndex &Ctx) {
  const model::Trace &T = Ctx.trace();
  std::vector<uint32_t> Ranges;
  for (uint32_t I = 0; I < T.Events.size(); ++I) {
    const Event &E = T.Events[I];
    if (!isOptimizerRange(Ctx, E))
      continue;
    bool Nested = false;
    for (uint32_t P = E.Parent; P != model::NoIndex && !Nested;
         P = T.Events[P].Parent)
      Nested = isOptimizerRange(Ctx, T.Events[P]);
    if (!Nested)
      Ranges.push_back(I);
  }
  return Ranges;
}

/// The optimizer steps of one measured window.
struct WindowFigures {
  int64_t PerTensor = 0, Multi = 0, Launches = 0;
  std::vector<Interval> Spans;     ///< optimizer spans in this window
  std::vector<Interval> KernelsAt; ///< its per-tensor kernels
};

/// The optimizer steps of the trace, collected once.
struct OptimizerSteps {
  std::vector<WindowFigures> PerWindow; ///< parallel to the windows
  /// All device work the optimizer ranges launched, inside the windows or
  /// not: it is not "other" device work.
  llvm::DenseSet<uint32_t> Work;
  std::map<std::string, uint64_t> OpsByCount; ///< per-tensor kernels by op
  std::map<std::string, uint64_t> Classes;    ///< measured ranges by class
  std::vector<uint32_t> Measured;             ///< the ranges in the windows
  std::vector<int64_t> KernelDurations;       ///< of the per-tensor kernels
  uint32_t Longest = model::NoIndex;          ///< the longest measured range
};

/// Follows the launches made inside the range \p R on its thread to their
/// device work, counting it into \p F (counts, and kernel durations and op
/// names when \p Measured); returns the span's end, the range's or its last
/// work's.
int64_t followLaunches(const TraceIndex &Ctx, const Event &R, bool Measured,
                       WindowFigures &F, OptimizerSteps &S) {
  const model::Trace &T = Ctx.trace();
  llvm::ArrayRef<uint32_t> Subs = Ctx.submissions(R.Lane);
  auto It = llvm::partition_point(
      Subs, [&](uint32_t I) { return T.Events[I].Start < R.Start; });
  int64_t End = R.end();
  for (; It != Subs.end() && T.Events[*It].Start < R.end(); ++It) {
    const Event &Call = T.Events[*It];
    ++F.Launches;
    const Event *Op = enclosingOp(T, Call);
    llvm::StringRef OpName = Op ? T.name(*Op) : llvm::StringRef();
    for (uint32_t DI : T.deviceWorkOf(Call)) {
      const Event &D = T.Events[DI];
      S.Work.insert(DI);
      End = std::max(End, D.end());
      if (D.Kind != EventKind::Kernel)
        continue;
      if (isMultiTensor(Ctx, D, OpName)) {
        ++F.Multi;
        continue;
      }
      if (!isElementwiseKernel(Ctx.names(), T.name(D)) &&
          !isPerTensorOp(OpName))
        continue;
      ++F.PerTensor;
      F.KernelsAt.push_back({D.Start, D.end()});
      if (Measured) {
        S.KernelDurations.push_back(D.Duration);
        ++S.OpsByCount[OpName.empty() ? std::string("(no op)") : OpName.str()];
      }
    }
  }
  return End;
}

OptimizerSteps collectSteps(const TraceIndex &Ctx,
                            llvm::ArrayRef<uint32_t> Ranges) {
  const model::Trace &T = Ctx.trace();
  const MeasureWindows &Win = Ctx.measureWindows();
  const size_t N = Win.Ranges.size();
  OptimizerSteps S;
  S.PerWindow.resize(N);
  for (uint32_t RI : Ranges) {
    const Event &R = T.Events[RI];
    const size_t W = Win.indexOf(R.Start);
    // A range outside the windows still claims its work (S.Work), but its
    // figures are not counted.
    WindowFigures Unmeasured;
    WindowFigures &F = W == N ? Unmeasured : S.PerWindow[W];
    int64_t End = followLaunches(Ctx, R, W != N, F, S);
    if (W == N)
      continue;
    F.Spans.push_back({R.Start, End});
    ++S.Classes[optimizerClass(T.name(R)).str()];
    S.Measured.push_back(RI);
    if (S.Longest == model::NoIndex ||
        R.Duration > T.Events[S.Longest].Duration)
      S.Longest = RI;
  }
  return S;
}

/// Everything else the devices run: time it covers in the optimizer's span
/// would not be won back.
model::IntervalSet otherDeviceWork(const TraceIndex &Ctx,
                                   const llvm::DenseSet<uint32_t> &Optimizer) {
  const model::Trace &T = Ctx.trace();
  std::vector<Interval> Parts;
  for (int32_t D : Ctx.devices())
    for (uint32_t I : Ctx.deviceWork(D))
      if (!Optimizer.count(I))
        Parts.push_back({T.Events[I].Start, T.Events[I].end()});
  return model::IntervalSet::unionOf(std::move(Parts));
}

/// The optimizer's figures per window, as medians.
struct OptimizerFigures {
  int64_t PerTensor = 0, Multi = 0, Launches = 0;
  int64_t Span = 0, Covered = 0, Cost = 0, KernelTime = 0;
};

OptimizerFigures measureSteps(const TraceIndex &Ctx, OptimizerSteps &S) {
  const model::IntervalSet Other = otherDeviceWork(Ctx, S.Work);
  std::vector<int64_t> PerTensor, Multi, Launches, Spans, Covered, Costs,
      KernelTime;
  for (WindowFigures &F : S.PerWindow) {
    model::IntervalSet Span = model::IntervalSet::unionOf(F.Spans);
    int64_t InOther = Other.intersect(Span).length();
    PerTensor.push_back(F.PerTensor);
    Multi.push_back(F.Multi);
    Launches.push_back(F.Launches);
    Spans.push_back(Span.length());
    Covered.push_back(InOther);
    Costs.push_back(Span.length() - InOther);
    KernelTime.push_back(
        model::IntervalSet::unionOf(std::move(F.KernelsAt)).length());
  }
  OptimizerFigures M;
  M.PerTensor = median(PerTensor);
  M.Multi = median(Multi);
  M.Launches = median(Launches);
  M.Span = median(Spans);
  M.Covered = median(Covered);
  M.Cost = std::min(median(Costs), Ctx.targetNs());
  M.KernelTime = median(KernelTime);
  return M;
}

/// "aten::mul_ (30.0 per step)": the ops of the per-tensor kernels, the
/// most frequent first.
std::vector<std::string> opsPerWindow(const OptimizerSteps &S,
                                      const MeasureWindows &Win) {
  std::vector<std::string> Names;
  for (const auto *Entry :
       rankByKey(S.OpsByCount, [](uint64_t C) { return C; }))
    Names.push_back(
        llvm::formatv("{0} ({1:f1} {2})", Entry->first,
                      double(Entry->second) / double(Win.Ranges.size()),
                      Win.Steps ? "per step" : "in the window")
            .str());
  return Names;
}

Detection describeOptimizer(const TraceIndex &Ctx, const OptimizerSteps &S,
                            const OptimizerFigures &M, double MinKernels,
                            double MinShare) {
  const model::Trace &T = Ctx.trace();
  Detection Det = impactDetection(Ctx, M.Cost, MinShare);
  auto &V = Det.Values;
  // The most frequent optimizer class, ties by name.
  auto Classes = rankByKey(S.Classes, [](uint64_t C) { return C; });
  V["optimizer"] = Classes.empty() ? "the optimizer" : Classes.front()->first;
  V["min_kernels"] = count(int64_t(MinKernels));
  V["per_tensor"] = count(M.PerTensor);
  V["multi"] = count(M.Multi);
  V["launches"] = count(M.Launches);
  V["span"] = dur(M.Span);
  V["covered"] = dur(M.Covered);
  V["kernel_time"] = dur(M.KernelTime);
  V["kernel_median"] = dur(median(S.KernelDurations));
  V["top_ops"] = joinNames(opsPerWindow(S, Ctx.measureWindows()));
  V["example"] = "none";
  if (S.Longest != model::NoIndex) {
    const Event &E = T.Events[S.Longest];
    V["subject"] = T.name(E).str();
    V["example"] = eventWithLengthAt(Ctx, E);
    Det.Examples.push_back(example(Ctx, E));
  }
  // On the critical path: the optimizer steps taking no time, host and
  // device (foreach or fused kernels still take some: a loose but safe cap).
  Det.PathQuery = namesQuery(T, S.Measured);
  Det.Subject = V["subject"].text();
  Det.Confidence = 0.7;
  return Det;
}

} // namespace

Outcome rules::runSingleTensorOptimizer(const TraceIndex &Ctx,
                                        const RuleOptions &Opts,
                                        std::vector<Detection> &Out) {
  const double MinKernels = Opts.number("min-kernels");
  const double MinShare = Opts.number("min-share-of-step");
  const int64_t Target = Ctx.targetNs();
  if (Target <= 0)
    return Outcome::ran();

  std::vector<uint32_t> Ranges = optimizerRanges(Ctx);
  if (Ranges.empty() && !hasBackwardPass(Ctx))
    return Outcome::notApplicable(
        "the trace has neither a backward pass nor an optimizer step: an "
        "inference trace has no optimizer to judge");
  if (Ranges.empty())
    return Outcome::cannotJudge(
        "the trace has no optimizer step ranges "
        "(Optimizer.step#...); torch.optim records them when the training "
        "loop runs under torch.profiler, and this trace has a backward pass");
  OptimizerSteps S = collectSteps(Ctx, Ranges);
  const OptimizerFigures M = measureSteps(Ctx, S);
  if (double(M.PerTensor) < MinKernels ||
      !reachesShareOfTarget(M.Cost, Target, MinShare))
    return Outcome::ran();

  Out.push_back(describeOptimizer(Ctx, S, M, MinKernels, MinShare));
  return Outcome::ran();
}
