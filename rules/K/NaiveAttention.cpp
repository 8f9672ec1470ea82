//===- rules/K/NaiveAttention.cpp - K002 unfused attention ---------------===//
//
// Attention written as separate operations (a matrix product for the
// scores, scaling and masking, a softmax, a second matrix product with the
// values) writes the whole score matrix to device memory and reads it back
// several times; PyTorch's scaled_dot_product_attention does the same when
// it falls back to its math backend. Fused kernels (FlashAttention,
// memory-efficient attention, cuDNN attention) keep the scores on chip.
//
// The detector reads the framework op sequence: an explicit
// aten::_scaled_dot_product_attention_math op, or a softmax whose sibling
// ops (same parent, same thread) include a matrix product shortly before it
// and another shortly after it. The device work launched from the first
// product to the end of the second is the attention's cost, measured as a
// union per step.
//
// The steps: find the attention regions on every host thread
// (findAttention), gather the device work launched inside them
// (collectWork), measure it per steady window (workCostAbove), then
// describe the regions that start inside the windows.
//
//===----------------------------------------------------------------------===//
#include "rules/BuiltinDetectors.h"
#include "rules/detectors/DetectorSupport.h"
#include "rules/detectors/Shapes.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <map>

using namespace tracelint;
using namespace tracelint::rules;
using namespace tracelint::rules::detect;
using analysis::TraceIndex;
using model::Event;
using model::EventKind;

namespace {

bool isBatchedProduct(llvm::StringRef N) {
  return N == "aten::matmul" || N == "aten::bmm" || N == "aten::baddbmm" ||
         N == "aten::einsum" || N == "aten::mm";
}

bool isMathAttention(llvm::StringRef N) {
  return N.startswith("aten::_scaled_dot_product_attention_math");
}

/// How many sibling ops before and after the softmax may separate it from
/// the products (scale, mask, dropout, casts).
constexpr unsigned SiblingReach = 4;
/// How many lane events to scan for those siblings (their children lie in
/// between).
constexpr unsigned ScanLimit = 2000;

/// The nearest matrix-product sibling (an op with the same container)
/// within SiblingReach ops, scanning backward (Dir = -1) or forward
/// (Dir = +1) from lane event \p From.
const Event *productSibling(const model::Trace &T, const model::Lane &L,
                            uint32_t From, int Dir) {
  uint32_t C = opContainer(T, T.Events[From]);
  unsigned Siblings = 0, Scanned = 0;
  for (int64_t I = int64_t(From) + Dir;
       I >= int64_t(L.Begin) && I < int64_t(L.End) && Scanned < ScanLimit;
       I += Dir, ++Scanned) {
    const Event &E = T.Events[I];
    if (C != model::NoIndex && uint32_t(I) == C)
      return nullptr; // reached the container
    if (C != model::NoIndex && Dir > 0 && E.Start >= T.Events[C].end())
      return nullptr; // past the container
    if (E.Kind != EventKind::Op || opContainer(T, E) != C)
      continue;
    if (isBatchedProduct(T.name(E)))
      return &E;
    if (++Siblings >= SiblingReach)
      return nullptr;
  }
  return nullptr;
}

/// One attention region on a host thread.
struct Instance {
  uint32_t Lane;
  uint32_t First; ///< lane event where the region starts
  int64_t Begin, End;
  uint32_t Softmax = model::NoIndex; ///< the softmax (naive) or math op
  bool Math = false;
};

struct AttentionScan {
  std::vector<Instance> Found;
  uint64_t SoftmaxBackward = 0; ///< aten::_softmax_backward_data ops
};

/// The attention regions of host lane \p LI: math-backend ops, and
/// softmaxes with a product sibling on each side.
void scanLane(const model::Trace &T, uint32_t LI, AttentionScan &S) {
  const model::Lane &L = T.Lanes[LI];
  int64_t CoveredUntil = INT64_MIN; // inside a region already counted
  for (uint32_t I = L.Begin; I < L.End; ++I) {
    const Event &E = T.Events[I];
    if (E.Kind != EventKind::Op)
      continue;
    llvm::StringRef N = T.name(E);
    if (N == "aten::_softmax_backward_data")
      ++S.SoftmaxBackward;
    if (E.Start < CoveredUntil)
      continue;
    if (isMathAttention(N)) {
      S.Found.push_back({LI, I, E.Start, E.end(), I, true});
      CoveredUntil = E.end();
      continue;
    }
    if (!isSoftmaxOp(N))
      continue;
    // The outermost softmax only (aten::softmax holds aten::_softmax).
    if (E.Parent != model::NoIndex && isSoftmaxOp(T.name(T.Events[E.Parent])))
      continue;
    const Event *Before = productSibling(T, L, I, -1);
    const Event *After = Before ? productSibling(T, L, I, +1) : nullptr;
    if (!Before || !After)
      continue;
    S.Found.push_back(
        {LI, T.indexOf(*Before), Before->Start, After->end(), I, false});
    CoveredUntil = After->end();
  }
}

AttentionScan findAttention(const model::Trace &T) {
  AttentionScan S;
  for (uint32_t LI = 0; LI < T.Lanes.size(); ++LI)
    if (T.Lanes[LI].Kind == model::LaneKind::HostThread)
      scanLane(T, LI, S);
  return S;
}

/// The device work launched from inside the regions, and what the regions
/// say about their form and shapes.
struct AttentionWork {
  std::vector<uint32_t> Work, SoftmaxWork;
  uint64_t Math = 0;                      ///< math-backend regions
  std::map<std::string, uint64_t> Shapes; ///< softmax input shapes
};

AttentionWork collectWork(const model::Trace &T,
                          llvm::ArrayRef<Instance> Found) {
  AttentionWork W;
  for (const Instance &In : Found) {
    const model::Lane &L = T.Lanes[In.Lane];
    W.Math += In.Math;
    const Event &Sm = T.Events[In.Softmax];
    if (auto Dims = inputDims(T, Sm); Dims && !Dims->empty())
      if (const Shape *S = Dims->front().tensor())
        ++W.Shapes[shapeText(*S)];
    for (uint32_t I = In.First; I < L.End && T.Events[I].Start < In.End; ++I) {
      const Event &E = T.Events[I];
      if (E.Kind != EventKind::Runtime && E.Kind != EventKind::Driver)
        continue;
      bool InSoftmax = !In.Math && E.Start >= Sm.Start && E.end() <= Sm.end();
      for (uint32_t D : T.deviceWorkOf(E)) {
        W.Work.push_back(D);
        if (InSoftmax)
          W.SoftmaxWork.push_back(D);
      }
    }
  }
  return W;
}

/// How many regions start inside a window, and the longest of them (the
/// first region when none does).
std::pair<uint64_t, const Instance *>
longestInWindows(const MeasureWindows &Win, llvm::ArrayRef<Instance> Found) {
  uint64_t InWindows = 0;
  const Instance *Longest = nullptr;
  for (const Instance &In : Found) {
    if (Win.indexOf(In.Begin) == Win.Ranges.size())
      continue;
    ++InWindows;
    if (!Longest || In.End - In.Begin > Longest->End - Longest->Begin)
      Longest = &In;
  }
  return {InWindows, Longest ? Longest : &Found.front()};
}

/// "[8, 12, 128, 128] and [...]", the most frequent softmax shapes first.
std::string scoreShapes(const std::map<std::string, uint64_t> &Shapes) {
  std::vector<std::string> Names;
  for (const auto *S : rankByKey(Shapes, [](uint64_t N) { return N; }))
    Names.push_back(S->first);
  return Names.empty() ? "not recorded (record_shapes=False)"
                       : joinNames(Names, 3);
}

/// {form}, {path}, {score_shapes} and {backward}: what the attention looks
/// like and where it runs.
void describeForm(const TraceIndex &Ctx, const AttentionScan &Scan,
                  const AttentionWork &W, const Event &Anchor,
                  std::map<std::string, Value> &V) {
  const model::Trace &T = Ctx.trace();
  const bool AllMath = W.Math == Scan.Found.size();
  V["form"] = AllMath  ? "the math backend of scaled_dot_product_attention"
              : W.Math ? "separate ops (and the math backend of "
                         "scaled_dot_product_attention)"
                       : "separate ops: a matrix product, a softmax and a "
                         "second matrix product";
  // Name the module that computes it when stacks recorded one.
  uint32_t C = opContainer(T, Anchor);
  V["path"] = C != model::NoIndex && T.Events[C].Kind == EventKind::Python
                  ? T.name(T.Events[C]).str() + " > " + T.name(Anchor).str()
                  : Ctx.opPath(Anchor);
  V["score_shapes"] = scoreShapes(W.Shapes);
  V["backward"] =
      Scan.SoftmaxBackward
          ? llvm::formatv("{0} softmax backward ops (aten::_softmax_backward_"
                          "data) in the trace: the backward pass materializes "
                          "score-sized gradients too",
                          Scan.SoftmaxBackward)
                .str()
          : "no softmax backward in the trace (inference, or backward not "
            "profiled)";
}

} // namespace

Outcome rules::runNaiveAttention(const TraceIndex &Ctx, const RuleOptions &Opts,
                                 std::vector<Detection> &Out) {
  const model::Trace &T = Ctx.trace();
  if (Ctx.eventsOfKind(EventKind::Op).empty())
    return Outcome::cannotJudge(
        "the trace records no framework ops (cpu_op), and "
        "attention is recognised from its op sequence; profile with "
        "ProfilerActivity.CPU as well as the device");
  const double MinShare = Opts.number("min-share-of-busy");
  const double MinTargetShare = Opts.number("min-share-of-step");

  AttentionScan Scan = findAttention(T);
  if (Scan.Found.empty())
    return Outcome::ran();
  AttentionWork W = collectWork(T, Scan.Found);
  std::optional<WorkCost> Cost =
      workCostAbove(Ctx, W.Work, MinShare, MinTargetShare);
  if (!Cost)
    return Outcome::ran();
  const MeasureWindows &Win = Ctx.measureWindows();
  WorkMeasure SoftmaxM = measureWork(Ctx, Win, W.SoftmaxWork);
  auto [InWindows, Longest] = longestInWindows(Win, Scan.Found);
  const Event &Anchor = T.Events[Longest->Softmax];

  Detection Det;
  auto &V = Det.Values;
  describeForm(Ctx, Scan, W, Anchor, V);
  V["value"] = pct(Cost->Share);
  V["share"] = pct(Cost->Share);
  V["threshold"] = pct(MinShare);
  V["count"] = count(int64_t(InWindows));
  V["math_count"] = count(int64_t(W.Math));
  V["attention_time"] = dur(Cost->Measure.UnionNs);
  V["busy"] = dur(Cost->Measure.BusyNs);
  V["kernels"] = count(int64_t(Cost->Measure.Count));
  V["softmax_time"] = dur(SoftmaxM.UnionNs);
  V["per_step"] = dur(Cost->Measure.medianPerWindow());
  V["impact"] = dur(Cost->Impact);
  V["target"] = Ctx.describeTarget();
  V["example"] = nameAt(Ctx, T.name(Anchor), Anchor);
  describeWindows(Win, V);
  Det.Examples.push_back(example(Ctx, Anchor));
  Det.ImpactNs = Cost->Impact;
  Det.PerWindowNs = Cost->Measure.PerWindow;
  // On the critical path: the unfused attention kernels taking no time (a
  // fused kernel still takes some: a loose but safe cap).
  Det.PathQuery = namesQuery(T, W.Work);
  Det.Window = Win.describe();
  const bool AllMath = W.Math == Scan.Found.size();
  Det.Subject = AllMath ? "sdpa math backend" : "matmul-softmax-matmul";
  // An explicit math-backend op is unambiguous; an op pattern may be
  // another computation with the same shape.
  Det.Confidence = AllMath ? 0.7 : 0.6;
  if (W.Shapes.empty()) {
    Det.Confidence -= 0.1;
    Det.ConfidenceNotes.push_back(
        "the trace has no input shapes (record_shapes=True), so the score "
        "matrix's size is unknown");
  }
  Out.push_back(std::move(Det));
  return Outcome::ran();
}
