//===- rules/L/UnfusedElementwiseChain.cpp - L005 unfused elementwise -----===//
//
// Eager PyTorch runs each elementwise op (an activation, a multiply, an
// add) as its own kernel, which reads its inputs from device memory and
// writes its output back; a chain of them (GeLU then multiply in a gated
// MLP, add then ReLU after a residual) moves the same tensor through memory
// once per op. A fused kernel reads the inputs once and writes once.
//
// The detector walks each device stream in order and collects runs of
// consecutive eager elementwise kernels (KernelNames.h) whose launching ops
// are distinct, follow one another on one host thread, and, where shapes
// were recorded, work on tensors of the same size: the signature of a chain
// whose links read the previous link's output. Optimizer steps are left to
// the optimizer rules. The saving it claims per chain is the chain's device
// time minus its longest kernel (one pass stays); it measures the chains
// per steady step, by the step their first kernel starts in.
//
//===----------------------------------------------------------------------===//
#include "rules/BuiltinDetectors.h"
#include "rules/detectors/DetectorSupport.h"
#include "rules/detectors/KernelNames.h"
#include "rules/detectors/Shapes.h"

#include "support/Count.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

using namespace tracelint;
using namespace tracelint::rules;
using namespace tracelint::rules::detect;
using analysis::TraceIndex;
using model::Event;
using model::EventKind;

namespace {

/// The element count of the largest tensor among an op's inputs (the
/// output of an elementwise op has the broadcast shape of its inputs, the
/// largest of them); 0 when it names no tensor, -1 when its shapes are not
/// recorded or cannot be read.
int64_t largestInputElements(ShapeCache &Shapes, const Event &Op) {
  const std::optional<std::vector<ArgShapes>> &Dims = Shapes.dimsOf(Op);
  if (!Dims)
    return -1;
  int64_t Largest = 0;
  for (const ArgShapes &Arg : *Dims)
    if (const Shape *S = Arg.tensor())
      Largest = std::max(Largest, elementCount(*S));
  return Largest;
}

/// True when \p Op runs inside an optimizer's own work (the name class
/// optimizer-work): its kernels are the optimizer rules' subject (foreach
/// or fused optimizers), not this one's.
bool inOptimizer(const TraceIndex &Ctx, const Event &Op) {
  const model::Trace &T = Ctx.trace();
  for (uint32_t P = T.indexOf(Op); P != model::NoIndex; P = T.Events[P].Parent)
    if (Ctx.is(T.Events[P], model::NameClass::OptimizerWork))
      return true;
  return false;
}

/// One elementwise kernel with the op that launched it.
struct Link {
  uint32_t Kernel;
  uint32_t Op;           ///< the innermost op around its launch
  int64_t Elements = -1; ///< largest input's element count; -1 unknown
};

/// Which device work can be a link of a chain, and which links follow one
/// another. Kernel names are classified once per name.
class Links {
public:
  explicit Links(const TraceIndex &Ctx) : Ctx(Ctx), T(Ctx.trace()) {}

  /// True for an eager elementwise kernel (KernelNames.h).
  bool isElementwise(const Event &E) {
    if (E.Kind != EventKind::Kernel)
      return false;
    auto [It, New] = Elementwise.try_emplace(E.Name, false);
    if (New)
      It->second = isEagerElementwiseKernel(Ctx.names(), T.name(E));
    return It->second;
  }

  /// The link of device event \p K: an eager elementwise kernel launched
  /// from an op outside optimizer steps.
  std::optional<Link> linkOf(uint32_t K) {
    const Event &E = T.Events[K];
    if (!isElementwise(E))
      return std::nullopt;
    uint32_t L = T.launchOf(E);
    if (L == model::NoIndex)
      return std::nullopt;
    const Event *Op = enclosingOp(T, T.Events[L]);
    if (!Op || inOptimizer(Ctx, *Op))
      return std::nullopt;
    Link Out{K, T.indexOf(*Op)};
    if (int64_t N = largestInputElements(Shapes, *Op); N >= 0)
      Out.Elements = N;
    return Out;
  }

  /// Does \p B continue the chain that ends with \p A?
  bool follows(const Link &A, const Link &B) const {
    const Event &OA = T.Events[A.Op], &OB = T.Events[B.Op];
    if (A.Op == B.Op || OA.Lane != OB.Lane || OB.Start < OA.end())
      return false; // one op's kernels, or not one after the other
    // Called from the same place (one forward(), one step): a chain does
    // not run across a step boundary or from one module into another.
    if (opContainer(T, OA) != opContainer(T, OB))
      return false;
    // Where both sizes are known they must agree: the second op works on
    // a tensor the size of the first one's output.
    return A.Elements <= 0 || B.Elements <= 0 || A.Elements == B.Elements;
  }

private:
  const TraceIndex &Ctx;
  const model::Trace &T;
  std::map<model::StringId, bool> Elementwise; ///< by name
  ShapeCache Shapes{T};
};

/// True when some device ran an eager elementwise kernel.
bool anyElementwise(const TraceIndex &Ctx, Links &Finder) {
  for (int32_t D : Ctx.devices())
    for (uint32_t I : Ctx.deviceWork(D))
      if (Finder.isElementwise(Ctx.trace().Events[I]))
        return true;
  return false;
}

struct Chain {
  std::vector<uint32_t> Kernels;
  int64_t Start = 0; ///< the first kernel's start
  int64_t SumNs = 0; ///< summed kernel time (one stream: a union)
  int64_t LongestNs = 0;
  bool Shapes = false; ///< every link had a recorded shape
  uint32_t FirstOp = model::NoIndex;
  int64_t saving() const { return SumNs - LongestNs; }
};

Chain chainOf(const model::Trace &T, llvm::ArrayRef<Link> Run) {
  Chain C;
  C.Start = T.Events[Run.front().Kernel].Start;
  C.FirstOp = Run.front().Op;
  C.Shapes = llvm::all_of(Run, [](const Link &X) { return X.Elements > 0; });
  for (const Link &X : Run) {
    const Event &K = T.Events[X.Kernel];
    C.Kernels.push_back(X.Kernel);
    C.SumNs += K.Duration;
    C.LongestNs = std::max(C.LongestNs, K.Duration);
  }
  return C;
}

/// The chains of at least \p MinLength links on each device stream: runs of
/// links that follow one another, broken by any other device work.
std::vector<Chain> collectChains(const model::Trace &T, Links &Finder,
                                 double MinLength) {
  std::vector<Chain> Chains;
  for (const model::Lane &L : T.Lanes) {
    if (L.Kind != model::LaneKind::DeviceStream)
      continue;
    std::vector<Link> Run;
    auto Close = [&] {
      if (Run.size() >= MinLength)
        Chains.push_back(chainOf(T, Run));
      Run.clear();
    };
    for (uint32_t I = L.Begin; I < L.End; ++I) {
      const Event &E = T.Events[I];
      if (E.Kind != EventKind::Kernel && E.Kind != EventKind::Memcpy &&
          E.Kind != EventKind::Memset && E.Kind != EventKind::Collective)
        continue; // markers and syncs do not separate kernels
      std::optional<Link> X = Finder.linkOf(I);
      if (!X) {
        Close(); // any other device work breaks the chain
        continue;
      }
      if (!Run.empty() && !Finder.follows(Run.back(), *X))
        Close();
      Run.push_back(*X);
    }
    Close();
  }
  return Chains;
}

/// The chains that start in a measured window.
struct WindowChains {
  std::vector<int64_t> Savings; ///< per window
  std::vector<uint32_t> Work;   ///< their kernels
  uint64_t Count = 0, Kernels = 0, WithShapes = 0;
  std::map<std::string, uint64_t> Sequences; ///< op sequence -> chains
  std::set<std::string> KernelNames;
  const Chain *Largest = nullptr; ///< the one that saves the most
};

/// "aten::gelu -> aten::mul": the ops that launched the chain's kernels.
std::string opSequence(const model::Trace &T, const Chain &C) {
  std::vector<std::string> Ops;
  for (uint32_t K : C.Kernels)
    Ops.push_back(
        T.name(*enclosingOp(T, T.Events[T.launchOf(T.Events[K])])).str());
  return llvm::join(Ops, " -> ");
}

WindowChains measureChains(const TraceIndex &Ctx,
                           const std::vector<Chain> &Chains) {
  const model::Trace &T = Ctx.trace();
  const MeasureWindows &Win = Ctx.measureWindows();
  WindowChains W;
  W.Savings.assign(Win.Ranges.size(), 0);
  for (const Chain &C : Chains) {
    size_t Idx = Win.indexOf(C.Start);
    if (Idx == Win.Ranges.size())
      continue;
    W.Savings[Idx] += C.saving();
    ++W.Count;
    W.Kernels += C.Kernels.size();
    W.WithShapes += C.Shapes;
    for (uint32_t K : C.Kernels) {
      W.Work.push_back(K);
      W.KernelNames.insert(T.name(T.Events[K]).str());
    }
    ++W.Sequences[opSequence(T, C)];
    if (!W.Largest || C.saving() > W.Largest->saving())
      W.Largest = &C;
  }
  return W;
}

/// How far the recorded shapes tie the chains' links.
std::string describeShapes(const WindowChains &W) {
  if (W.WithShapes == W.Count)
    return "recorded for every link: each op works on a tensor the size of "
           "the previous one's";
  if (W.WithShapes)
    return llvm::formatv("recorded for {0} of the {1} chains", W.WithShapes,
                         W.Count)
        .str();
  return "not recorded (record_shapes=False): the links are tied by order "
         "only";
}

Detection describeChains(const TraceIndex &Ctx, const WindowChains &W,
                         const WorkMeasure &M, int64_t Saving, int64_t Impact,
                         double MinShare) {
  const model::Trace &T = Ctx.trace();
  const double Share = double(Saving) / double(M.BusyNs);
  auto Seq = rankByKey(W.Sequences, [](uint64_t N) { return N; });
  const Event &FirstK = T.Events[W.Largest->Kernels.front()];
  const Event &FirstOp = T.Events[W.Largest->FirstOp];
  Detection Det = windowDetection(Ctx, Impact, MinShare);
  auto &V = Det.Values;
  V["count"] = count(int64_t(W.Count));
  V["kernels"] = count(int64_t(W.Kernels));
  V["chain_time"] = dur(M.UnionNs);
  V["saving"] = dur(Saving);
  V["busy"] = dur(M.BusyNs);
  V["value"] = pct(Share);
  V["share"] = pct(Share);
  V["per_step"] = dur(M.medianPerWindow());
  V["top_sequence"] = Seq.front()->first;
  V["top_count"] = count(int64_t(Seq.front()->second));
  V["longest"] = count(int64_t(W.Largest->Kernels.size()));
  V["longest_time"] = dur(W.Largest->SumNs);
  V["longest_pass"] = dur(W.Largest->LongestNs);
  V["path"] = Ctx.opPath(FirstOp);
  V["example"] = llvm::formatv("{0} at {1}", shortKernelName(T.name(FirstK)),
                               support::formatOffset(Ctx.traceOffsetNs(FirstK)))
                     .str();
  V["shapes"] = describeShapes(W);
  Det.Examples.push_back(example(Ctx, FirstK));
  Det.Examples.push_back(example(Ctx, FirstOp));
  for (size_t I = 1; I < Seq.size() && I < 4; ++I)
    Det.ExtraEvidence.push_back(
        llvm::formatv("also {0}: {1}", Seq[I]->first,
                      support::formatCount(int64_t(Seq[I]->second), "chain"))
            .str());
  // On the critical path: the chains' kernels taking no time. Fusion keeps
  // one pass, so the path bound is loose but never below the truth.
  Det.PathQuery.Names.assign(W.KernelNames.begin(), W.KernelNames.end());
  Det.Subject = Seq.front()->first;
  Det.Confidence = 0.5;
  if (W.WithShapes < W.Count) {
    Det.Confidence = 0.4;
    Det.ConfidenceNotes.push_back(
        "input shapes are missing for some chains (record_shapes=True "
        "records them), so those links are tied by order only");
  }
  return Det;
}

} // namespace

Outcome rules::runUnfusedElementwiseChain(const TraceIndex &Ctx,
                                          const RuleOptions &Opts,
                                          std::vector<Detection> &Out) {
  const model::Trace &T = Ctx.trace();
  const double MinLength = std::max(2.0, Opts.number("min-chain"));
  const double MinShare = Opts.number("min-share-of-busy");
  const double MinTargetShare = Opts.number("min-share-of-step");

  // Eager elementwise kernels at all? Without them there is nothing to
  // judge, whether or not the trace records ops.
  Links Finder(Ctx);
  if (!anyElementwise(Ctx, Finder))
    return Outcome::ran();
  if (T.countKind(EventKind::Op) == 0)
    return Outcome::cannotJudge(
        "eager elementwise kernels ran, but the trace "
        "records no framework ops (cpu_op), so which op feeds which "
        "cannot be read; profile with ProfilerActivity.CPU as well as the "
        "device");

  const std::vector<Chain> Chains = collectChains(T, Finder, MinLength);
  const WindowChains W = measureChains(Ctx, Chains);
  if (!W.Largest)
    return Outcome::ran();
  const WorkMeasure M = measureWork(Ctx, Ctx.measureWindows(), W.Work);
  if (M.Count == 0 || M.BusyNs <= 0)
    return Outcome::ran();
  // Chains on different streams may overlap: never claim more than the
  // union of their kernels, nor more than the target.
  const int64_t Target = Ctx.targetNs();
  int64_t Saving = 0;
  for (int64_t S : W.Savings)
    Saving += S;
  Saving = std::min(Saving, M.UnionNs);
  const int64_t Impact =
      std::min({median(W.Savings), M.medianPerWindow(), Target});
  if (double(Saving) / double(M.BusyNs) < MinShare ||
      double(Impact) < MinTargetShare * double(Target))
    return Outcome::ran();

  Out.push_back(describeChains(Ctx, W, M, Saving, Impact, MinShare));
  return Outcome::ran();
}
