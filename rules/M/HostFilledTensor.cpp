//===- rules/detectors/HostFilledTensor.cpp - M006 host-filled tensors ----===//
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
  if (E.Kind != EventKind::Op)
    return false;
  for (uint32_t P = E.Parent; P != model::NoIndex; P = T.Events[P].Parent)
    if (T.Events[P].Kind == EventKind::Op)
      return false;
  return true;
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

/// One factory op and the copy op that moved its tensor to the device.
struct Pair {
  uint32_t FactoryOp = model::NoIndex, CopyOp = model::NoIndex;
  FactoryKind Kind = FactoryKind::None;
  bool ShapeConfirmed = false;
  std::vector<uint32_t> Copies; ///< the HtoD device copies it issued
};

/// Pairs grouped by factory, copy op and container: one call site.
struct Site {
  uint64_t Count = 0, Confirmed = 0;
  int64_t HostNs = 0, DeviceNs = 0, Bytes = 0;
  FactoryKind Kind = FactoryKind::None;
  uint32_t First = model::NoIndex; ///< the first factory op
};

} // namespace

Outcome rules::runHostFilledTensor(const TraceIndex &Ctx,
                                   const RuleOptions &Opts,
                                   std::vector<Detection> &Out) {
  const model::Trace &T = Ctx.trace();
  if (!Ctx.hasCorrelation())
    return Outcome::cannotJudge(
        "no device work is linked to a host call "
        "(correlation ids missing), so a copy cannot be traced to the op "
        "that issued it");
  const double MinShare = Opts.number("min-share-of-step");
  const double MinGain = Opts.number("min-gain-share");
  const size_t MaxBetween = size_t(Opts.number("max-ops-between"));
  const int64_t Target = Ctx.targetNs();
  if (Target <= 0)
    return Outcome::ran();
  const MeasureWindows &Win = Ctx.measureWindows();
  const size_t N = Win.Ranges.size();

  // The HtoD device copies a host op issued.
  auto HtoDCopiesOf = [&](uint32_t Op) {
    std::vector<uint32_t> Copies = workLaunchedWithin(T, Op);
    llvm::erase_if(Copies, [&](uint32_t D) {
      const model::EventArgs *A = T.args(T.Events[D]);
      return T.Events[D].Kind != EventKind::Memcpy || !A ||
             A->Copy != model::CopyKind::HtoD;
    });
    return Copies;
  };
  auto Submits = [&](const Event &Op) {
    llvm::ArrayRef<uint32_t> Subs = Ctx.submissions(Op.Lane);
    auto It = llvm::partition_point(
        Subs, [&](uint32_t S) { return T.Events[S].Start < Op.Start; });
    return It != Subs.end() && T.Events[*It].Start < Op.end();
  };

  bool AnyOps = false;
  std::vector<Pair> Pairs;
  for (uint32_t LI = 0; LI < T.Lanes.size(); ++LI) {
    const model::Lane &L = T.Lanes[LI];
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
      if (Kind == FactoryKind::None || Submits(F))
        continue; // not a factory, or it created the tensor on the device
      uint32_t Container = opContainer(T, F);
      for (size_t J = K + 1; J < Ops.size() && J <= K + 1 + MaxBetween; ++J) {
        const Event &C = T.Events[Ops[J]];
        // A batch from the data loader in between is what a copy after it
        // moves.
        if (opContainer(T, C) != Container || Ctx.isDataLoaderRange(C))
          break;
        int Src = copySourceArg(T.name(C));
        if (Src < 0)
          continue;
        std::vector<uint32_t> Copies = HtoDCopiesOf(Ops[J]);
        if (Copies.empty())
          continue;
        // Where both shapes are recorded, they must agree.
        std::optional<Shape> Made = madeShape(T, F, Kind),
                             Moved = argShape(T, C, Src);
        if (Made && Moved && *Made != *Moved)
          continue; // another tensor moves
        Pairs.push_back(
            {Ops[K], Ops[J], Kind, Made && Moved, std::move(Copies)});
        break;
      }
    }
  }
  if (!AnyOps)
    return Outcome::cannotJudge(
        "the trace records no framework ops (aten::...), "
        "so tensor creation cannot be seen; a PyTorch profiler trace "
        "records them");

  // Per window: the host spans (as waits, for the idle bound), the device
  // copies, and the call sites.
  std::vector<std::vector<HostWait>> HostIn(N);
  std::vector<std::vector<Interval>> CopiesIn(N), HostSpansIn(N);
  std::vector<int64_t> CountPer(N, 0), BytesPer(N, 0);
  std::map<std::string, Site> Sites;
  std::vector<uint32_t> Named; // the events the path query removes
  uint64_t Measured = 0, Confirmed = 0;
  bool BytesUnknown = false; // a copy without its size (ROCm)
  for (const Pair &P : Pairs) {
    const Event &F = T.Events[P.FactoryOp], &C = T.Events[P.CopyOp];
    size_t W = Win.indexOf(F.Start);
    if (W == N)
      continue;
    ++Measured;
    Confirmed += P.ShapeConfirmed;
    ++CountPer[W];
    for (const Event *E : {&F, &C}) {
      HostIn[W].push_back({T.indexOf(*E),
                           E->Lane,
                           analysis::WaitKind::None,
                           {E->Start, E->end()}});
      HostSpansIn[W].push_back({E->Start, E->end()});
    }
    int64_t DeviceNs = 0, Bytes = 0;
    for (uint32_t D : P.Copies) {
      const Event &M = T.Events[D];
      CopiesIn[W].push_back({M.Start, M.end()});
      DeviceNs += M.Duration;
      if (T.args(M)->Bytes < 0)
        BytesUnknown = true;
      Bytes += std::max<int64_t>(T.args(M)->Bytes, 0);
    }
    BytesPer[W] += Bytes;
    // A step marker is not a call site (its name changes every step).
    std::string Where = "at the top level";
    uint32_t Ct = opContainer(T, F);
    if (Ct != model::NoIndex &&
        !llvm::any_of(T.Steps,
                      [&](const model::Step &St) { return St.Event == Ct; }))
      Where = ("in " + T.name(T.Events[Ct])).str();
    Site &S =
        Sites[llvm::formatv("{0} then {1} {2}", T.name(F), T.name(C), Where)
                  .str()];
    ++S.Count;
    S.Confirmed += P.ShapeConfirmed;
    S.HostNs += F.Duration + C.Duration;
    S.DeviceNs += DeviceNs;
    S.Bytes += Bytes;
    S.Kind = P.Kind;
    if (S.First == model::NoIndex)
      S.First = P.FactoryOp;
    Named.push_back(P.FactoryOp);
    Named.push_back(P.CopyOp);
  }
  if (!Measured)
    return Outcome::ran();

  std::vector<int64_t> CostPer(N, 0), ImpactPer(N, 0);
  for (size_t W = 0; W < N; ++W) {
    int64_t Copy = model::IntervalSet::unionOf(CopiesIn[W]).length();
    CostPer[W] = model::IntervalSet::unionOf(HostSpansIn[W]).length() + Copy;
    ImpactPer[W] = Ctx.waitsGainBound(HostIn[W], Win.Ranges[W]) + Copy;
  }
  int64_t Cost = median(CostPer);
  if (double(Cost) < MinShare * double(Target))
    return Outcome::ran();
  int64_t Impact = std::min(median(ImpactPer), Target);

  auto Ranked =
      rankByKey(Sites, [](const Site &S) { return S.HostNs + S.DeviceNs; });
  const auto &[TopKey, Top] = *Ranked.front();
  const Event &Example = T.Events[Top.First];

  Detection Det;
  auto &V = Det.Values;
  V["value"] = dur(Cost);
  V["share"] = pct(double(Cost) / double(Target));
  V["threshold"] = pct(MinShare);
  V["count"] = std::to_string(median(CountPer));
  V["bytes"] =
      BytesUnknown ? std::string("size not recorded") : bytes(median(BytesPer));
  V["pairs"] = std::to_string(Measured);
  V["sites"] = std::to_string(Sites.size());
  V["impact"] = dur(Impact);
  V["impact_share"] = pct(double(Impact) / double(Target));
  V["top_site"] = TopKey;
  V["subject"] = TopKey;
  V["factory"] = T.name(Example).str();
  V["example"] = llvm::formatv("{0} at {1:f3} us", T.name(Example),
                               Ctx.traceTimestampUs(Example))
                     .str();
  V["linked"] =
      Confirmed == Measured
          ? std::string("every pair's shapes match")
          : llvm::formatv("{0} of {1} pairs are linked by order alone (no "
                          "shapes to compare: the sizes passed to zeros, "
                          "arange and their kin are never recorded, those of "
                          "torch.tensor need record_shapes=True)",
                          Measured - Confirmed, Measured)
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
  V["target"] = Ctx.describeTarget();
  describeWindows(Win, V);
  double NumWindows = double(N);
  for (size_t I = 0; I < Ranked.size() && I < 3; ++I) {
    const Site &S = Ranked[I]->second;
    Det.ExtraEvidence.push_back(
        llvm::formatv("{0}: {1:f1} {2}, {3} copied, {4} of host time and {5} "
                      "of device copy time {2}",
                      Ranked[I]->first, double(S.Count) / NumWindows,
                      Win.Steps ? "per step" : "in the window",
                      BytesUnknown
                          ? std::string("size not recorded")
                          : bytes(int64_t(double(S.Bytes) / NumWindows)),
                      dur(int64_t(double(S.HostNs) / NumWindows)),
                      dur(int64_t(double(S.DeviceNs) / NumWindows)))
            .str());
  }
  Det.Examples.push_back(example(Ctx, Example));
  Det.ImpactNs = Impact;
  Det.Window = Win.describe();
  Det.Subject = TopKey;
  Det.PathQuery = namesQuery(T, Named);
  if (double(Impact) < MinGain * double(Target)) {
    Det.SeverityOverride = Severity::Info;
    V["verdict"] = llvm::formatv("the device stayed busy meanwhile, so "
                                 "creating the tensors on the device is not "
                                 "predicted to shorten the {0} by more than "
                                 "{{impact}",
                                 V["unit"])
                       .str();
  } else {
    V["verdict"] = "the device idled or copied for up to {impact} " +
                   V["per"].text() + " because of it";
  }
  // The link between the two ops is inferred from their order; matching
  // shapes make it firmer.
  Det.Confidence = Confirmed == Measured ? 0.7 : 0.5;
  Out.push_back(std::move(Det));
  return Outcome::ran();
}
