//===- rules/M/HostFilledTensor.cpp - M006 host-filled tensors ------------===//
//
// `torch.zeros(n).to("cuda")`, `torch.arange(n).cuda()` and
// `torch.tensor(values).to(device)` build a tensor on the host, then copy it
// to the device. Every step pays the host fill, a host-to-device copy (from
// pageable memory, so the copy call blocks), and the device waits for the
// copy; created on the device, the same tensor costs one fill kernel.
//
// The trace has no tensor identities, so the detector links a factory op to
// the copy that follows it by order: an outermost framework op that creates
// a tensor and launches no device work (it ran on the host), followed on the
// same thread, in the same container (module, annotation or op), within a
// few ops, by an outermost `aten::to`, `aten::_to_copy` or `aten::copy_`
// that issues a host-to-device copy. Where record_shapes gives both tensors'
// shapes (the data constructors and the *_like factories record their
// output's shape as an input), they must match; the sizes of `aten::zeros`
// and its kin are int lists, which "Input Dims" does not record, so those
// pairs are linked by order alone and the finding says so.
//
// The cost is measured per step: the host time of the factory and copy ops
// plus the device copy time. The bound on the gain is the part of that host
// time that left the device idle (waitsGainBound) plus the copy time.
//
//===----------------------------------------------------------------------===//
#include "rules/BuiltinDetectors.h"
#include "rules/detectors/DetectorSupport.h"
#include "rules/detectors/Shapes.h"

#include "support/Count.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <map>

using namespace tracelint;
using namespace tracelint::rules;
using namespace tracelint::rules::detect;
using analysis::HostWait;
using analysis::TraceIndex;
using model::Event;
using model::EventKind;
using model::Interval;

namespace {

/// How a factory op makes its values.
enum class FactoryKind : uint8_t {
  None,
  Generated, ///< a rule the device can run: zeros, arange, randn...
  HostData,  ///< values the host supplies: torch.tensor, as_tensor
  Like,      ///< zeros_like & co.: a generated fill shaped like its input
};

FactoryKind factoryKind(llvm::StringRef Name) {
  return llvm::StringSwitch<FactoryKind>(Name)
      .Cases("aten::zeros", "aten::ones", "aten::full", "aten::arange",
             "aten::range", "aten::linspace", "aten::logspace", "aten::eye",
             FactoryKind::Generated)
      .Cases("aten::rand", "aten::randn", "aten::randint", "aten::randperm",
             "aten::normal", "aten::scalar_tensor", "aten::tril_indices",
             "aten::triu_indices", FactoryKind::Generated)
      .Cases("aten::zeros_like", "aten::ones_like", "aten::full_like",
             "aten::rand_like", "aten::randn_like", "aten::randint_like",
             FactoryKind::Like)
      .Cases("aten::lift_fresh", "aten::tensor", "aten::as_tensor",
             "aten::from_numpy", FactoryKind::HostData)
      .Default(FactoryKind::None);
}

/// The ops that move a host tensor to the device, and which argument is
/// the source tensor.
int copySourceArg(llvm::StringRef Name) {
  return llvm::StringSwitch<int>(Name)
      .Cases("aten::to", "aten::_to_copy", 0)
      .Case("aten::copy_", 1)
      .Default(-1);
}

bool isOutermostOp(const model::Trace &T, const Event &E) {
  return E.Kind == EventKind::Op && !anyEnclosing(T, E, [](const Event &Up) {
           return Up.Kind == EventKind::Op;
         });
}

/// The shape of the single-tensor argument \p Arg of \p E, if recorded.
std::optional<Shape> argShape(const model::Trace &T, const Event &E, int Arg) {
  std::optional<std::vector<ArgShapes>> Dims = inputDims(T, E);
  if (!Dims || Arg < 0 || size_t(Arg) >= Dims->size())
    return std::nullopt;
  if (const Shape *S = (*Dims)[Arg].tensor())
    return *S;
  return std::nullopt;
}

/// The shape of the tensor the factory op \p F made, where the trace
/// records it (record_shapes): the data constructors' only tensor argument
/// is their result and the *_like factories' input has its shape. A
/// generated fill's sizes are an int list, which "Input Dims" leaves out,
/// but it fills its result through an op that records it: an in-place fill
/// (aten::zero_, fill_, normal_, uniform_, random_) takes it first, and an
/// out= form of the factory itself (aten::arange.out) takes it last.
std::optional<Shape> madeShape(const model::Trace &T, const Event &F,
                               FactoryKind Kind) {
  if (Kind != FactoryKind::Generated)
    return argShape(T, F, 0);
  const model::Lane &L = T.laneOf(F);
  for (uint32_t I = T.indexOf(F) + 1; I < L.End && T.Events[I].Start < F.end();
       ++I) {
    const Event &Child = T.Events[I];
    if (Child.Kind != EventKind::Op)
      continue;
    llvm::StringRef Name = T.name(Child);
    std::optional<std::vector<ArgShapes>> Dims = inputDims(T, Child);
    if (!Dims || Dims->empty())
      continue;
    if (Name.endswith("_") && !Name.endswith("__"))
      if (const Shape *S = Dims->front().tensor())
        return *S;
    if (Name == T.name(F))
      for (auto It = Dims->rbegin(); It != Dims->rend(); ++It)
        if (const Shape *S = It->tensor())
          return *S;
  }
  return std::nullopt;
}

/// The HtoD device copies the host op \p Op issued.
std::vector<uint32_t> htodCopiesOf(const model::Trace &T, uint32_t Op) {
  std::vector<uint32_t> Copies = workLaunchedWithin(T, Op);
  llvm::erase_if(Copies,
                 [&](uint32_t D) { return !isHtoDCopy(T, T.Events[D]); });
  return Copies;
}

/// One factory op and the copy op that moved its tensor to the device.
struct Pair {
  uint32_t FactoryOp = model::NoIndex, CopyOp = model::NoIndex;
  FactoryKind Kind = FactoryKind::None;
  bool ShapeConfirmed = false;
  std::vector<uint32_t> Copies; ///< the HtoD device copies it issued
};

/// The copy op among the \p MaxBetween + 1 outermost ops after \p Ops[K]
/// (a host factory) that moves the factory's tensor to the device: the
/// first one in the same container that issues an HtoD copy, with the
/// factory's shape where both are recorded.
std::optional<Pair> pairOf(const TraceIndex &Ctx,
                           const std::vector<uint32_t> &Ops, size_t K,
                           FactoryKind Kind, size_t MaxBetween) {
  const model::Trace &T = Ctx.trace();
  const Event &F = T.Events[Ops[K]];
  uint32_t Container = opContainer(T, F);
  for (size_t J = K + 1; J < Ops.size() && J <= K + 1 + MaxBetween; ++J) {
    const Event &C = T.Events[Ops[J]];
    // A batch from the data loader in between is what a copy after it
    // moves.
    if (opContainer(T, C) != Container || Ctx.isDataLoaderRange(C))
      return std::nullopt;
    int Src = copySourceArg(T.name(C));
    if (Src < 0)
      continue;
    std::vector<uint32_t> Copies = htodCopiesOf(T, Ops[J]);
    if (Copies.empty())
      continue;
    // Where both shapes are recorded, they must agree.
    std::optional<Shape> Made = madeShape(T, F, Kind),
                         Moved = argShape(T, C, Src);
    if (Made && Moved && *Made != *Moved)
      continue; // another tensor moves
    return Pair{Ops[K], Ops[J], Kind, Made && Moved, std::move(Copies)};
  }
  return std::nullopt;
}

/// The factory-copy pairs of every host thread; \p AnyOps says whether the
/// trace records framework ops at all.
std::vector<Pair> findPairs(const TraceIndex &Ctx, size_t MaxBetween,
                            bool &AnyOps) {
  const model::Trace &T = Ctx.trace();
  std::vector<Pair> Pairs;
  AnyOps = false;
  for (const model::Lane &L : T.Lanes) {
    if (L.Kind != model::LaneKind::HostThread)
      continue;
    // The outermost ops of this thread, in order.
    std::vector<uint32_t> Ops;
    for (uint32_t I = L.Begin; I < L.End; ++I)
      if (isOutermostOp(T, T.Events[I]))
        Ops.push_back(I);
    AnyOps |= !Ops.empty();
    for (size_t K = 0; K < Ops.size(); ++K) {
      const Event &F = T.Events[Ops[K]];
      FactoryKind Kind = factoryKind(T.name(F));
      // Not a factory, or one that created the tensor on the device.
      if (Kind == FactoryKind::None ||
          submitsWithin(Ctx, F.Lane, {F.Start, F.end()}))
        continue;
      if (std::optional<Pair> P = pairOf(Ctx, Ops, K, Kind, MaxBetween))
        Pairs.push_back(std::move(*P));
    }
  }
  return Pairs;
}

/// Pairs grouped by factory, copy op and container: one call site.
struct Site {
  uint64_t Count = 0, Confirmed = 0;
  int64_t HostNs = 0, DeviceNs = 0, Bytes = 0;
  FactoryKind Kind = FactoryKind::None;
  uint32_t First = model::NoIndex; ///< the first factory op
};

/// "aten::arange then aten::to in nn.Module: Embed": a pair's call site. A
/// step marker is not a call site (its name changes every step).
std::string siteOf(const model::Trace &T, const Event &F, const Event &C) {
  std::string Where = "at the top level";
  uint32_t Ct = opContainer(T, F);
  if (Ct != model::NoIndex &&
      !llvm::any_of(T.Steps,
                    [&](const model::Step &St) { return St.Event == Ct; }))
    Where = ("in " + T.name(T.Events[Ct])).str();
  return llvm::formatv("{0} then {1} {2}", T.name(F), T.name(C), Where).str();
}

/// The pairs of the steady windows, collected once: per window the host
/// spans (as waits, for the idle bound), the device copies, and the call
/// sites.
struct WindowPairs {
  std::vector<std::vector<HostWait>> HostIn;
  std::vector<std::vector<Interval>> CopiesIn, HostSpansIn;
  std::vector<int64_t> CountPer, BytesPer;
  std::map<std::string, Site> Sites;
  std::vector<uint32_t> Named; ///< the events the path query removes
  uint64_t Measured = 0, Confirmed = 0;
  bool BytesUnknown = false; ///< a copy without its size (ROCm)
};

void addPair(const model::Trace &T, const Pair &P, size_t W, WindowPairs &S) {
  const Event &F = T.Events[P.FactoryOp], &C = T.Events[P.CopyOp];
  ++S.Measured;
  S.Confirmed += P.ShapeConfirmed;
  ++S.CountPer[W];
  for (const Event *E : {&F, &C}) {
    S.HostIn[W].push_back(asHostWait(T.indexOf(*E), E->Lane,
                                     {E->Start, E->end()},
                                     analysis::WaitKind::None));
    S.HostSpansIn[W].push_back({E->Start, E->end()});
  }
  int64_t DeviceNs = 0, Bytes = 0;
  for (uint32_t D : P.Copies) {
    const Event &M = T.Events[D];
    S.CopiesIn[W].push_back({M.Start, M.end()});
    DeviceNs += M.Duration;
    S.BytesUnknown |= T.args(M)->Bytes < 0;
    Bytes += copyBytes(T, M);
  }
  S.BytesPer[W] += Bytes;
  Site &St = S.Sites[siteOf(T, F, C)];
  ++St.Count;
  St.Confirmed += P.ShapeConfirmed;
  St.HostNs += F.Duration + C.Duration;
  St.DeviceNs += DeviceNs;
  St.Bytes += Bytes;
  St.Kind = P.Kind;
  if (St.First == model::NoIndex)
    St.First = P.FactoryOp;
  S.Named.push_back(P.FactoryOp);
  S.Named.push_back(P.CopyOp);
}

WindowPairs collectPairs(const TraceIndex &Ctx,
                         const std::vector<Pair> &Pairs) {
  const model::Trace &T = Ctx.trace();
  const MeasureWindows &Win = Ctx.measureWindows();
  const size_t N = Win.Ranges.size();
  WindowPairs S;
  S.HostIn.resize(N);
  S.CopiesIn.resize(N);
  S.HostSpansIn.resize(N);
  S.CountPer.assign(N, 0);
  S.BytesPer.assign(N, 0);
  for (const Pair &P : Pairs) {
    size_t W = Win.indexOf(T.Events[P.FactoryOp].Start);
    if (W != N)
      addPair(T, P, W, S);
  }
  return S;
}

/// Per window: the cost (the host spans' union plus the copies') and the
/// bound on the gain (the host time that left the device idle plus the
/// copies); their medians.
struct PairFigures {
  int64_t CostNs = 0;
  int64_t ImpactNs = 0; ///< at most the target
};

PairFigures measurePairs(const TraceIndex &Ctx, const WindowPairs &S) {
  const MeasureWindows &Win = Ctx.measureWindows();
  std::vector<int64_t> CostPer, ImpactPer;
  for (size_t W = 0; W < Win.Ranges.size(); ++W) {
    int64_t Copy = model::IntervalSet::unionOf(S.CopiesIn[W]).length();
    CostPer.push_back(model::IntervalSet::unionOf(S.HostSpansIn[W]).length() +
                      Copy);
    ImpactPer.push_back(Ctx.waitsGainBound(S.HostIn[W], Win.Ranges[W]) + Copy);
  }
  return {median(CostPer), std::min(median(ImpactPer), Ctx.targetNs())};
}

using RankedSites = std::vector<const std::pair<const std::string, Site> *>;

/// The placeholders beyond the cost's, and the top three call sites.
void describePairs(const TraceIndex &Ctx, const WindowPairs &S,
                   const RankedSites &Ranked, Detection &Det) {
  const model::Trace &T = Ctx.trace();
  const auto &[TopKey, Top] = *Ranked.front();
  const Event &Example = T.Events[Top.First];
  auto &V = Det.Values;
  auto Size = [&](Value Known) {
    return S.BytesUnknown ? Value("size not recorded") : Known;
  };
  V["count"] = count(median(S.CountPer));
  V["bytes"] = Size(bytes(median(S.BytesPer)));
  V["pairs"] = count(int64_t(S.Measured));
  V["sites"] = count(int64_t(S.Sites.size()));
  V["top_site"] = TopKey;
  V["subject"] = TopKey;
  V["factory"] = T.name(Example).str();
  V["example"] = eventAt(Ctx, Example);
  V["linked"] =
      S.Confirmed == S.Measured
          ? std::string("every pair's shapes match")
          : llvm::formatv("{0} of {1} {2} linked by order alone (no "
                          "shapes to compare: the sizes passed to zeros, "
                          "arange and their kin are never recorded, those of "
                          "torch.tensor need record_shapes=True)",
                          S.Measured - S.Confirmed,
                          support::formatCount(int64_t(S.Measured), "pair"),
                          S.Measured - S.Confirmed == 1 ? "is" : "are")
                .str();
  V["remedy"] =
      Top.Kind == FactoryKind::HostData
          ? "the values come from the host: build the tensor once, outside "
            "the step, and reuse it if they are constant; compute them on "
            "the device if they derive from device tensors; else build them "
            "in a reused pinned buffer and copy with non_blocking=True"
          : "create it where it is used: pass device= (and dtype=) to the "
            "factory, e.g. torch.zeros(n, device=x.device), or use the *_like "
            "form of a device tensor";
  PerWindowMean Mean(Ctx.measureWindows());
  addSiteEvidence(
      Det, Ranked, 0, 3, [&](const std::string &Key, const Site &St) {
        return llvm::formatv(
                   "{0}: {1:f1} {2}, {3} copied, {4} of host time and "
                   "{5} of device copy time {2}",
                   Key, Mean.count(St.Count), Mean.per(),
                   Size(Mean.size(St.Bytes)), Mean.time(St.HostNs),
                   Mean.time(St.DeviceNs))
            .str();
      });
  Det.Examples.push_back(example(Ctx, Example));
}

} // namespace

Outcome rules::runHostFilledTensor(const TraceIndex &Ctx,
                                   const RuleOptions &Opts,
                                   std::vector<Detection> &Out) {
  const double MinShare = Opts.number("min-share-of-step");
  const double MinGain = Opts.number("min-gain-share");
  const double MinInfo = Opts.number("min-info-share");
  const size_t MaxBetween = size_t(Opts.number("max-ops-between"));
  const int64_t Target = Ctx.targetNs();
  if (Target <= 0)
    return Outcome::ran();

  bool AnyOps = false;
  std::vector<Pair> Pairs = findPairs(Ctx, MaxBetween, AnyOps);
  if (!AnyOps)
    return Outcome::cannotJudge(
        "the trace records no framework ops (aten::...), "
        "so tensor creation cannot be seen; a PyTorch profiler trace "
        "records them");
  WindowPairs S = collectPairs(Ctx, Pairs);
  if (!S.Measured)
    return Outcome::ran();
  PairFigures F = measurePairs(Ctx, S);
  // Under the floor the pairs are still reported, at info, while their
  // bound on the gain reaches min-info-share: creating the tensor on the
  // device is a one-line change.
  const bool UnderFloor = double(F.CostNs) < MinShare * double(Target);
  if (F.CostNs <= 0 ||
      (UnderFloor && double(F.ImpactNs) < MinInfo * double(Target)))
    return Outcome::ran();

  auto Ranked = rankByKey(
      S.Sites, [](const Site &St) { return St.HostNs + St.DeviceNs; });
  Detection Det;
  describeCostPerWindow(Ctx, F.CostNs, MinShare, F.ImpactNs, Det.Values);
  describePairs(Ctx, S, Ranked, Det);
  Det.ImpactNs = F.ImpactNs;
  Det.Window = Ctx.measureWindows().describe();
  Det.Subject = Ranked.front()->first;
  Det.PathQuery = namesQuery(Ctx.trace(), S.Named);
  setGainVerdict(Det, F.ImpactNs, F.CostNs, MinGain, Target,
                 llvm::formatv("the device stayed busy meanwhile, so "
                               "creating the tensors on the device is not "
                               "predicted to shorten the {0} by more than "
                               "{{impact}",
                               Det.Values["unit"])
                     .str(),
                 "the device idled or copied for up to {impact} " +
                     Det.Values["per"].text() + " because of it");
  // The link between the two ops is inferred from their order; matching
  // shapes make it firmer.
  Det.Confidence = S.Confirmed == S.Measured ? 0.7 : 0.5;
  if (UnderFloor)
    keepUnderFloor(Det, "min-share-of-step", MinShare, F.CostNs, Target);
  Out.push_back(std::move(Det));
  return Outcome::ran();
}
