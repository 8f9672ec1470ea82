//===- rules/K/DimsNotMultipleOf8.cpp - K003 dims not multiple of 8 -----===//
//
// Tensor cores take fp16/bf16 operands in tiles whose inner dimensions are
// multiples of 8 elements (16 bytes); a product whose reduction dimension K
// or output dimension N is not (a vocabulary of 50257, a sequence of 3137)
// leaves the libraries with unaligned leading dimensions: slower kernels,
// or on older libraries no tensor cores at all. M (the rows: batch times
// tokens) sets no leading dimension of the operands and is not checked.
//
// The detector reads the recorded input shapes and types of the matrix
// product ops (mm, addmm, bmm, baddbmm), and measures the device work they
// launched as a union per step.
//
// The steps: read every product op's operands once (collectProducts), keep
// the misaligned reduced-precision ones with the device work they launched,
// measure that work per steady window (workCostAbove), then describe the
// shapes that cost the most device time.
//
//===----------------------------------------------------------------------===//
#include "rules/BuiltinDetectors.h"
#include "rules/detectors/DetectorSupport.h"
#include "rules/detectors/Shapes.h"

#include "support/Count.h"
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

namespace {

/// The operand index of A in a product op's inputs (B follows it), or -1.
int firstOperand(llvm::StringRef N) {
  if (N == "aten::mm" || N == "aten::bmm")
    return 0;
  if (N == "aten::addmm" || N == "aten::baddbmm" ||
      N == "aten::_addmm_activation")
    return 1;
  return -1;
}

/// The misaligned products of one op name and operand shapes.
struct ShapeGroup {
  uint64_t Count = 0;
  int64_t DeviceNs = 0;
  std::string Op, Detail;
};

/// The product ops of the trace, read once.
struct ProductScan {
  uint64_t Products = 0, WithShapes = 0, Reduced = 0;
  std::vector<uint32_t> Work; ///< the misaligned products' device work
  std::map<std::string, ShapeGroup> Groups; ///< by "op [A] x [B]"
  const Event *Example = nullptr;           ///< the longest misaligned op
  ShapeCache Shapes;                        ///< the ops' texts, parsed once
  explicit ProductScan(const model::Trace &T) : Shapes(T) {}
};

/// The two operands of a reduced-precision product op \p E, whose A is
/// input \p A; false when the shapes or types cannot be read or the
/// product is not in reduced precision.
bool reducedOperands(const model::Trace &T, const Event &E, int A,
                     ProductScan &S, Shape &DA, Shape &DB) {
  const model::EventArgs *Args = T.args(E);
  if (!Args || Args->InputDims == model::EmptyString)
    return false;
  ++S.WithShapes;
  const auto &Dims = S.Shapes.dims(Args->InputDims);
  const auto &Types = S.Shapes.types(Args->InputTypes);
  if (!Dims || int(Dims->size()) < A + 2 || int(Types.size()) < A + 1 ||
      !isReducedPrecision(Types[A]))
    return false;
  ++S.Reduced;
  const Shape *SA = (*Dims)[A].tensor(), *SB = (*Dims)[A + 1].tensor();
  if (!SA || !SB || SA->size() < 2 || SB->size() < 2)
    return false;
  DA = *SA;
  DB = *SB;
  return true;
}

/// Reads product op \p I; a misaligned one that launched device work joins
/// its shape group.
void scanProduct(const model::Trace &T, uint32_t I, int A, int64_t Multiple,
                 ProductScan &S) {
  const Event &E = T.Events[I];
  ++S.Products;
  Shape DA, DB;
  if (!reducedOperands(T, E, A, S, DA, DB))
    return;
  int64_t K = DA.back(), N = DB.back();
  bool BadK = K % Multiple != 0, BadN = N % Multiple != 0;
  if (!BadK && !BadN)
    return;
  std::vector<uint32_t> Mine = workLaunchedWithin(T, I);
  if (Mine.empty())
    return;
  std::string Key =
      llvm::formatv("{0} {1} x {2}", T.name(E), shapeText(DA), shapeText(DB))
          .str();
  ShapeGroup &G = S.Groups[Key];
  ++G.Count;
  for (uint32_t D : Mine)
    G.DeviceNs += T.Events[D].Duration;
  G.Op = T.name(E).str();
  G.Detail = BadK && BadN ? llvm::formatv("K={0} and N={1}", K, N).str()
             : BadK       ? llvm::formatv("K={0}", K).str()
                          : llvm::formatv("N={0}", N).str();
  S.Work.insert(S.Work.end(), Mine.begin(), Mine.end());
  if (!S.Example || E.Duration > S.Example->Duration)
    S.Example = &E;
}

ProductScan collectProducts(const model::Trace &T, int64_t Multiple) {
  ProductScan S(T);
  for (const model::Lane &L : T.Lanes) {
    if (L.Kind != model::LaneKind::HostThread)
      continue;
    for (uint32_t I = L.Begin; I < L.End; ++I) {
      const Event &E = T.Events[I];
      if (E.Kind != EventKind::Op)
        continue;
      int A = firstOperand(T.name(E));
      if (A >= 0)
        scanProduct(T, I, A, Multiple, S);
    }
  }
  return S;
}

/// The shape groups by device time: the top one as {top_*} and the
/// subject, the runners-up as evidence; the longest op as the example.
void describeShapes(const TraceIndex &Ctx, const ProductScan &S,
                    Detection &Det) {
  const model::Trace &T = Ctx.trace();
  auto Ranked =
      rankByKey(S.Groups, [](const ShapeGroup &G) { return G.DeviceNs; });
  const ShapeGroup &Top = Ranked.front()->second;
  auto &V = Det.Values;
  V["shapes"] = count(int64_t(S.Groups.size()));
  V["reduced"] = count(int64_t(S.Reduced));
  V["top_shape"] = Ranked.front()->first;
  V["top_dims"] = Top.Detail;
  V["top_count"] = count(int64_t(Top.Count));
  V["top_time"] = dur(Top.DeviceNs);
  V["example"] = nameAt(Ctx, T.name(*S.Example), *S.Example);
  Det.Examples.push_back(example(Ctx, *S.Example));
  addRunnersUp(Det, Ranked, [](const auto &G) {
    return llvm::formatv("also {0} ({1}): {2}, {3} of device time", G.first,
                         G.second.Detail,
                         support::formatCount(G.second.Count, "call"),
                         dur(G.second.DeviceNs))
        .str();
  });
  Det.Subject = Top.Op + " " + Top.Detail;
}

} // namespace

Outcome rules::runDimsNotMultipleOf8(const TraceIndex &Ctx,
                                     const RuleOptions &Opts,
                                     std::vector<Detection> &Out) {
  const model::Trace &T = Ctx.trace();
  const double MinShare = Opts.number("min-share-of-busy");
  const double MinTargetShare = Opts.number("min-share-of-step");
  const int64_t Multiple =
      std::max<int64_t>(1, int64_t(Opts.number("multiple")));

  ProductScan S = collectProducts(T, Multiple);
  // Other ops' shapes satisfy the rule's need; the products' may still be
  // missing.
  if (S.Products > 0 && S.WithShapes == 0)
    return Outcome::cannotJudge(
        llvm::formatv("{0} matrix-product ops ran, but the "
                      "trace has no input shapes; profile with "
                      "record_shapes=True",
                      S.Products)
            .str());
  if (S.Work.empty())
    return Outcome::ran();
  std::optional<WorkCost> Cost =
      workCostAbove(Ctx, S.Work, MinShare, MinTargetShare);
  if (!Cost)
    return Outcome::ran();
  Detection Det;
  describeShapes(Ctx, S, Det);
  auto &V = Det.Values;
  V["value"] = pct(Cost->Share);
  V["share"] = pct(Cost->Share);
  V["threshold"] = pct(MinShare);
  V["multiple"] = count(Multiple);
  V["misaligned_time"] = dur(Cost->Measure.UnionNs);
  V["busy"] = dur(Cost->Measure.BusyNs);
  V["kernels"] = count(int64_t(Cost->Measure.Count));
  V["per_step"] = dur(Cost->Measure.medianPerWindow());
  V["impact"] = dur(Cost->Impact);
  V["target"] = Ctx.describeTarget();
  const MeasureWindows &Win = Ctx.measureWindows();
  describeWindows(Win, V);
  Det.ImpactNs = Cost->Impact;
  Det.PerWindowNs = Cost->Measure.PerWindow;
  // On the critical path: the misaligned products' kernels taking no time
  // (padding makes them faster, not free: a loose but safe cap).
  Det.PathQuery = namesQuery(T, S.Work);
  Det.Window = Win.describe();
  // The shapes are certain; how much alignment costs depends on the
  // library and device, so the gain is the uncertain part.
  Det.Confidence = 0.5;
  Out.push_back(std::move(Det));
  return Outcome::ran();
}
