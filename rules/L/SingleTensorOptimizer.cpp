//===- rules/detectors/OptimizerStorm.cpp - L003 single-tensor optimizer --===//
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

/// "SGD" from "Optimizer.step#SGD.step".
llvm::StringRef optimizerClass(llvm::StringRef Name) {
  Name.consume_front(OptimizerPrefix);
  Name.consume_back(".step");
  return Name;
}

struct WindowFigures {
  int64_t PerTensor = 0, Multi = 0, Launches = 0;
  std::vector<Interval> Spans;     ///< optimizer spans in this window
  std::vector<Interval> KernelsAt; ///< its per-tensor kernels
};

} // namespace

Outcome rules::runSingleTensorOptimizer(const TraceIndex &Ctx,
                                        const RuleOptions &Opts,
                                        std::vector<Detection> &Out) {
  const model::Trace &T = Ctx.trace();
  if (!Ctx.hasCorrelation())
    return Outcome::cannotJudge(
        "no device work is linked to a host call "
        "(correlation ids missing), so the optimizer's kernels cannot be "
        "found");
  const double MinKernels = Opts.number("min-kernels");
  const double MinShare = Opts.number("min-share-of-step");
  const int64_t Target = Ctx.targetNs();
  if (Target <= 0)
    return Outcome::ran();
  const MeasureWindows &Win = Ctx.measureWindows();
  const size_t N = Win.Ranges.size();

  // The outermost optimizer ranges (a cpu_op and an annotation of the same
  // name may nest).
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
  if (Ranges.empty())
    return Outcome::cannotJudge(
        "the trace has no optimizer step ranges "
        "(Optimizer.step#...); torch.optim records them when the training "
        "loop runs under torch.profiler, and an inference trace has none");

  std::vector<WindowFigures> Fig(N);
  llvm::DenseSet<uint32_t> OptimizerWork;
  std::map<std::string, uint64_t> OpsByCount;
  std::map<std::string, uint64_t> Classes;
  std::vector<uint32_t> StepRanges; // the optimizer ranges measured
  std::vector<int64_t> KernelDurations;
  uint32_t Longest = model::NoIndex;
  for (uint32_t RI : Ranges) {
    const Event &R = T.Events[RI];
    size_t W = Win.indexOf(R.Start);
    llvm::ArrayRef<uint32_t> Subs = Ctx.submissions(R.Lane);
    auto It = llvm::partition_point(
        Subs, [&](uint32_t S) { return T.Events[S].Start < R.Start; });
    int64_t End = R.end();
    WindowFigures Dummy;
    WindowFigures &F = W == N ? Dummy : Fig[W];
    for (; It != Subs.end() && T.Events[*It].Start < R.end(); ++It) {
      const Event &Call = T.Events[*It];
      ++F.Launches;
      const Event *Op = enclosingOp(T, Call);
      llvm::StringRef OpName = Op ? T.name(*Op) : llvm::StringRef();
      for (uint32_t DI : T.deviceWorkOf(Call)) {
        const Event &D = T.Events[DI];
        OptimizerWork.insert(DI);
        End = std::max(End, D.end());
        if (D.Kind != EventKind::Kernel)
          continue;
        llvm::StringRef Name = T.name(D);
        if (Ctx.is(D, model::NameClass::MultiTensorKernel) ||
            OpName.startswith("aten::_foreach_") ||
            OpName.startswith("aten::_fused_")) {
          ++F.Multi;
          continue;
        }
        if (!isElementwiseKernel(Ctx.names(), Name) && !isPerTensorOp(OpName))
          continue;
        ++F.PerTensor;
        F.KernelsAt.push_back({D.Start, D.end()});
        if (W != N) {
          KernelDurations.push_back(D.Duration);
          ++OpsByCount[OpName.empty() ? std::string("(no op)") : OpName.str()];
        }
      }
    }
    if (W == N)
      continue;
    F.Spans.push_back({R.Start, End});
    ++Classes[optimizerClass(T.name(R)).str()];
    StepRanges.push_back(RI);
    if (Longest == model::NoIndex || R.Duration > T.Events[Longest].Duration)
      Longest = RI;
  }

  // Everything else the devices run: time it covers in the optimizer's
  // span would not be won back.
  std::vector<Interval> OtherParts;
  for (int32_t D : Ctx.devices())
    for (uint32_t I : Ctx.deviceWork(D))
      if (!OptimizerWork.count(I))
        OtherParts.push_back({T.Events[I].Start, T.Events[I].end()});
  model::IntervalSet Other = model::IntervalSet::unionOf(std::move(OtherParts));

  std::vector<int64_t> PerTensor, Multi, Launches, Costs, Spans, KernelTime,
      CoveredPer;
  for (WindowFigures &F : Fig) {
    model::IntervalSet Span = model::IntervalSet::unionOf(F.Spans);
    int64_t Covered = Other.intersect(Span).length();
    PerTensor.push_back(F.PerTensor);
    Multi.push_back(F.Multi);
    Launches.push_back(F.Launches);
    Spans.push_back(Span.length());
    Costs.push_back(Span.length() - Covered);
    CoveredPer.push_back(Covered);
    KernelTime.push_back(
        model::IntervalSet::unionOf(std::move(F.KernelsAt)).length());
  }
  int64_t Count = median(PerTensor);
  int64_t Cost = std::min(median(Costs), Target);
  double Share = double(Cost) / double(Target);
  if (double(Count) < MinKernels || Cost <= 0 || Share < MinShare)
    return Outcome::ran();

  std::vector<std::pair<uint64_t, std::string>> TopOps;
  for (auto &[Name, C] : OpsByCount)
    TopOps.push_back({C, Name});
  llvm::sort(TopOps, [](const auto &A, const auto &B) {
    return A.first > B.first || (A.first == B.first && A.second < B.second);
  });
  std::vector<std::string> OpNames;
  for (auto &[C, Name] : TopOps)
    OpNames.push_back(llvm::formatv("{0} ({1:f1} {2})", Name,
                                    double(C) / double(N),
                                    Win.Steps ? "per step" : "in the window")
                          .str());
  std::string Class = "the optimizer";
  uint64_t MostClass = 0;
  for (auto &[Name, C] : Classes)
    if (C > MostClass) {
      MostClass = C;
      Class = Name;
    }

  Detection Det;
  auto &V = Det.Values;
  V["optimizer"] = Class;
  V["value"] = dur(Cost);
  V["share"] = pct(Share);
  V["impact"] = dur(Cost);
  V["threshold"] = pct(MinShare);
  V["min_kernels"] = std::to_string(int64_t(MinKernels));
  V["per_tensor"] = std::to_string(Count);
  V["multi"] = std::to_string(median(Multi));
  V["launches"] = std::to_string(median(Launches));
  V["span"] = dur(median(Spans));
  V["covered"] = dur(median(CoveredPer));
  V["kernel_time"] = dur(median(KernelTime));
  V["kernel_median"] = dur(median(KernelDurations));
  V["top_ops"] = joinNames(OpNames);
  V["target"] = Ctx.describeTarget();
  describeWindows(Win, V);
  V["example"] = "none";
  if (Longest != model::NoIndex) {
    const Event &E = T.Events[Longest];
    V["subject"] = T.name(E).str();
    V["example"] = llvm::formatv("{0} ({1}) at {2:f3} us", T.name(E),
                                 dur(E.Duration), Ctx.traceTimestampUs(E))
                       .str();
    Det.Examples.push_back(example(Ctx, E));
  }
  Det.ImpactNs = Cost;
  // On the critical path: the optimizer steps taking no time, host and
  // device (foreach or fused kernels still take some: a loose but safe cap).
  Det.PathQuery = namesQuery(T, StepRanges);
  Det.Window = Win.describe();
  Det.Subject = V["subject"].text();
  Det.Confidence = 0.7;
  Out.push_back(std::move(Det));
  return Outcome::ran();
}
