//===- rules/detectors/ElementwiseChain.cpp - L005 unfused elementwise ----===//
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
// time minus its longest kernel (one pass stays).
//
//===----------------------------------------------------------------------===//
#include "rules/BuiltinDetectors.h"
#include "rules/detectors/DetectorSupport.h"
#include "rules/detectors/KernelNames.h"
#include "rules/detectors/Shapes.h"

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
int64_t largestInputElements(const model::Trace &T, const Event &Op) {
  std::optional<std::vector<ArgShapes>> Dims = inputDims(T, Op);
  if (!Dims)
    return -1;
  int64_t Largest = 0;
  for (const ArgShapes &Arg : *Dims)
    if (const Shape *S = Arg.tensor())
      Largest = std::max(Largest, elementCount(*S));
  return Largest;
}

/// True when \p Op runs inside an optimizer step: its kernels are the
/// optimizer rules' subject (foreach or fused optimizers), not this one's.
bool inOptimizer(const model::Trace &T, const Event &Op) {
  for (uint32_t P = T.indexOf(Op); P != model::NoIndex;
       P = T.Events[P].Parent) {
    llvm::StringRef N = T.name(T.Events[P]);
    if (N.startswith("Optimizer.") || N.contains("_single_tensor_") ||
        N.contains("_multi_tensor_") || N.startswith("aten::_foreach_") ||
        N.startswith("aten::_fused_"))
      return true;
  }
  return false;
}

/// One elementwise kernel with the op that launched it.
struct Link {
  uint32_t Kernel;
  uint32_t Op;           ///< the innermost op around its launch
  int64_t Elements = -1; ///< largest input's element count; -1 unknown
};

struct Chain {
  std::vector<uint32_t> Kernels;
  int64_t Start = 0; ///< the first kernel's start
  int64_t SumNs = 0; ///< summed kernel time (one stream: a union)
  int64_t LongestNs = 0;
  bool Shapes = false; ///< every link had a recorded shape
  uint32_t FirstOp = model::NoIndex;
  int64_t saving() const { return SumNs - LongestNs; }
};

} // namespace

Outcome rules::runUnfusedElementwiseChain(const TraceIndex &Ctx,
                                          const RuleOptions &Opts,
                                          std::vector<Detection> &Out) {
  const model::Trace &T = Ctx.trace();
  const double MinLength = std::max(2.0, Opts.number("min-chain"));
  const double MinShare = Opts.number("min-share-of-busy");
  const double MinTargetShare = Opts.number("min-share-of-step");

  // Eager elementwise kernels at all? Without them there is nothing to
  // judge, whatever the trace lacks.
  uint64_t Elementwise = 0;
  std::map<uint32_t, bool> IsElementwise; // by name id
  auto Classify = [&](const Event &E) {
    auto [It, New] = IsElementwise.try_emplace(E.Name, false);
    if (New)
      It->second = isEagerElementwiseKernel(Ctx.names(), T.name(E));
    return It->second;
  };
  for (int32_t D : Ctx.devices())
    for (uint32_t I : Ctx.deviceWork(D))
      Elementwise +=
          T.Events[I].Kind == EventKind::Kernel && Classify(T.Events[I]);
  if (Elementwise == 0)
    return Outcome::ran();
  if (T.countKind(EventKind::Op) == 0)
    return Outcome::cannotJudge(
        "eager elementwise kernels ran, but the trace "
        "records no framework ops (cpu_op), so which op feeds which "
        "cannot be read; profile with ProfilerActivity.CPU as well as the "
        "device");
  if (!Ctx.hasCorrelation())
    return Outcome::cannotJudge(
        "no device work is linked to a host call "
        "(correlation ids), so the elementwise kernels cannot be tied to "
        "the ops that launched them");

  auto LinkOf = [&](uint32_t K) -> std::optional<Link> {
    const Event &E = T.Events[K];
    if (E.Kind != EventKind::Kernel || !Classify(E))
      return std::nullopt;
    uint32_t L = T.launchOf(E);
    if (L == model::NoIndex)
      return std::nullopt;
    const Event *Op = enclosingOp(T, T.Events[L]);
    if (!Op || inOptimizer(T, *Op))
      return std::nullopt;
    Link Out{K, T.indexOf(*Op)};
    if (int64_t N = largestInputElements(T, *Op); N >= 0)
      Out.Elements = N;
    return Out;
  };
  // Does \p B continue the chain that ends with \p A?
  auto Follows = [&](const Link &A, const Link &B) {
    const Event &OA = T.Events[A.Op], &OB = T.Events[B.Op];
    if (A.Op == B.Op || OA.Lane != OB.Lane || OB.Start < OA.end())
      return false; // one op's kernels, or not one after the other
    // Called from the same place (one forward(), one step): a chain does
    // not run across a step boundary or from one module into another.
    if (opContainer(T, OA) != opContainer(T, OB))
      return false;
    // Where both sizes are known they must agree: the second op works on
    // a tensor the size of the first one's output.
    if (A.Elements > 0 && B.Elements > 0 && A.Elements != B.Elements)
      return false;
    return true;
  };

  std::vector<Chain> Chains;
  for (const model::Lane &L : T.Lanes) {
    if (L.Kind != model::LaneKind::DeviceStream)
      continue;
    std::vector<Link> Run;
    auto Close = [&] {
      if (Run.size() >= MinLength) {
        Chain C;
        C.Start = T.Events[Run.front().Kernel].Start;
        C.FirstOp = Run.front().Op;
        C.Shapes =
            llvm::all_of(Run, [](const Link &X) { return X.Elements > 0; });
        for (const Link &X : Run) {
          const Event &K = T.Events[X.Kernel];
          C.Kernels.push_back(X.Kernel);
          C.SumNs += K.Duration;
          C.LongestNs = std::max(C.LongestNs, K.Duration);
        }
        Chains.push_back(std::move(C));
      }
      Run.clear();
    };
    for (uint32_t I = L.Begin; I < L.End; ++I) {
      const Event &E = T.Events[I];
      if (E.Kind != EventKind::Kernel && E.Kind != EventKind::Memcpy &&
          E.Kind != EventKind::Memset && E.Kind != EventKind::Collective)
        continue; // markers and syncs do not separate kernels
      std::optional<Link> X = LinkOf(I);
      if (!X) {
        Close(); // any other device work breaks the chain
        continue;
      }
      if (!Run.empty() && !Follows(Run.back(), *X))
        Close();
      Run.push_back(*X);
    }
    Close();
  }
  if (Chains.empty())
    return Outcome::ran();

  // Savings per window: chains belong to the window their first kernel
  // starts in.
  const MeasureWindows &Win = Ctx.measureWindows();
  std::vector<int64_t> Savings(Win.Ranges.size(), 0);
  std::vector<uint32_t> Work;
  uint64_t InWindows = 0, KernelsIn = 0, WithShapes = 0;
  std::map<std::string, uint64_t> Sequences; // op sequence -> chains
  std::set<std::string> FullNames;
  const Chain *Largest = nullptr;
  for (const Chain &C : Chains) {
    // The window holding the instant (a binary search).
    auto W = Win.Ranges.begin() + Win.indexOf(C.Start);
    if (W == Win.Ranges.end())
      continue;
    Savings[W - Win.Ranges.begin()] += C.saving();
    ++InWindows;
    KernelsIn += C.Kernels.size();
    WithShapes += C.Shapes;
    std::vector<std::string> Ops;
    for (uint32_t K : C.Kernels) {
      Work.push_back(K);
      FullNames.insert(T.name(T.Events[K]).str());
      Ops.push_back(
          T.name(*enclosingOp(T, T.Events[T.launchOf(T.Events[K])])).str());
    }
    ++Sequences[llvm::join(Ops, " -> ")];
    if (!Largest || C.saving() > Largest->saving())
      Largest = &C;
  }
  if (!Largest)
    return Outcome::ran();
  WorkMeasure M = measureWork(Ctx, Win, Work);
  if (M.Count == 0 || M.BusyNs <= 0)
    return Outcome::ran();
  const int64_t Target = Ctx.targetNs();
  int64_t Saving = 0;
  for (int64_t S : Savings)
    Saving += S;
  // Chains on different streams may overlap: never claim more than the
  // union of their kernels, nor more than the target.
  int64_t Impact = std::min({median(Savings), M.medianPerWindow(), Target});
  double Share = double(std::min(Saving, M.UnionNs)) / double(M.BusyNs);
  if (Share < MinShare || double(Impact) < MinTargetShare * double(Target))
    return Outcome::ran();

  std::vector<std::pair<uint64_t, std::string>> Seq;
  for (auto &[S, N] : Sequences)
    Seq.push_back({N, S});
  llvm::sort(Seq, [](const auto &A, const auto &B) {
    return A.first > B.first || (A.first == B.first && A.second < B.second);
  });

  const Event &FirstK = T.Events[Largest->Kernels.front()];
  const Event &FirstOp = T.Events[Largest->FirstOp];
  Detection Det;
  auto &V = Det.Values;
  V["count"] = std::to_string(InWindows);
  V["kernels"] = std::to_string(KernelsIn);
  V["chain_time"] = dur(M.UnionNs);
  V["saving"] = dur(std::min(Saving, M.UnionNs));
  V["busy"] = dur(M.BusyNs);
  V["value"] = pct(Share);
  V["share"] = pct(Share);
  V["threshold"] = pct(MinShare);
  V["per_step"] = dur(M.medianPerWindow());
  V["top_sequence"] = Seq.front().second;
  V["top_count"] = std::to_string(Seq.front().first);
  V["longest"] = std::to_string(Largest->Kernels.size());
  V["longest_time"] = dur(Largest->SumNs);
  V["longest_pass"] = dur(Largest->LongestNs);
  V["path"] = Ctx.opPath(FirstOp);
  V["example"] =
      llvm::formatv("{0} at {1:f3} us", shortKernelName(T.name(FirstK)),
                    Ctx.traceTimestampUs(FirstK))
          .str();
  V["shapes"] = WithShapes == InWindows
                    ? "recorded for every link: each op works on a tensor "
                      "the size of the previous one's"
                : WithShapes
                    ? llvm::formatv("recorded for {0} of the {1} chains",
                                    WithShapes, InWindows)
                          .str()
                    : "not recorded (record_shapes=False): the links are "
                      "tied by order only";
  V["impact"] = dur(Impact);
  V["target"] = Ctx.describeTarget();
  describeWindows(Win, V);
  Det.Examples.push_back(example(Ctx, FirstK));
  Det.Examples.push_back(example(Ctx, FirstOp));
  for (size_t I = 1; I < Seq.size() && I < 4; ++I)
    Det.ExtraEvidence.push_back(
        llvm::formatv("also {0}: {1} chains", Seq[I].second, Seq[I].first)
            .str());
  Det.ImpactNs = Impact;
  // On the critical path: the chains' kernels taking no time. Fusion keeps
  // one pass, so the path bound is loose but never below the truth.
  Det.PathQuery.Names.assign(FullNames.begin(), FullNames.end());
  Det.Window = Win.describe();
  Det.Subject = Seq.front().second;
  Det.Confidence = 0.5;
  if (WithShapes < InWindows) {
    Det.Confidence = 0.4;
    Det.ConfidenceNotes.push_back(
        "input shapes are missing for some chains (record_shapes=True "
        "records them), so those links are tied by order only");
  }
  Out.push_back(std::move(Det));
  return Outcome::ran();
}
