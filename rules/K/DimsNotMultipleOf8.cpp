//===- rules/detectors/MisalignedMatmul.cpp - K003 dims not multiple of 8 -===//
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
//===----------------------------------------------------------------------===//
#include "rules/BuiltinDetectors.h"
#include "rules/detectors/DetectorSupport.h"
#include "rules/detectors/Shapes.h"

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

bool reducedPrecision(llvm::StringRef Type) {
  return Type.contains("Half") || Type.contains("BFloat16") ||
         Type.contains("half") || Type.contains("bfloat16");
}

struct ShapeGroup {
  uint64_t Count = 0;
  int64_t DeviceNs = 0;
  std::string Op, Detail;
};

} // namespace

Outcome rules::runDimsNotMultipleOf8(const TraceIndex &Ctx,
                                     const RuleOptions &Opts,
                                     std::vector<Detection> &Out) {
  const model::Trace &T = Ctx.trace();
  const double MinShare = Opts.number("min-share-of-busy");
  const double MinTargetShare = Opts.number("min-share-of-step");
  const int64_t Multiple =
      std::max<int64_t>(1, int64_t(Opts.number("multiple")));

  uint64_t Products = 0, WithShapes = 0, Reduced = 0;
  std::vector<uint32_t> Work;
  std::map<std::string, ShapeGroup> Groups;
  const Event *Example = nullptr;
  for (uint32_t LI = 0; LI < T.Lanes.size(); ++LI) {
    const model::Lane &L = T.Lanes[LI];
    if (L.Kind != model::LaneKind::HostThread)
      continue;
    for (uint32_t I = L.Begin; I < L.End; ++I) {
      const Event &E = T.Events[I];
      if (E.Kind != EventKind::Op)
        continue;
      int A = firstOperand(T.name(E));
      if (A < 0)
        continue;
      ++Products;
      const model::EventArgs *Args = T.args(E);
      if (!Args || Args->InputDims == model::EmptyString)
        continue;
      ++WithShapes;
      auto Dims = parseInputDims(T.Strings.get(Args->InputDims));
      auto Types = parseInputTypes(T.Strings.get(Args->InputTypes));
      if (!Dims || int(Dims->size()) < A + 2 || int(Types.size()) < A + 1 ||
          !reducedPrecision(Types[A]))
        continue;
      ++Reduced;
      const Shape *SA = (*Dims)[A].tensor(), *SB = (*Dims)[A + 1].tensor();
      if (!SA || !SB || SA->size() < 2 || SB->size() < 2)
        continue;
      const Shape &DA = *SA, &DB = *SB;
      int64_t K = DA.back(), N = DB.back();
      bool BadK = K % Multiple != 0, BadN = N % Multiple != 0;
      if (!BadK && !BadN)
        continue;
      // The device work this op launched.
      std::vector<uint32_t> Mine = workLaunchedWithin(T, I);
      if (Mine.empty())
        continue;
      std::string Key = llvm::formatv("{0} {1} x {2}", T.name(E), shapeText(DA),
                                      shapeText(DB))
                            .str();
      ShapeGroup &G = Groups[Key];
      ++G.Count;
      for (uint32_t D : Mine)
        G.DeviceNs += T.Events[D].Duration;
      G.Op = T.name(E).str();
      G.Detail = BadK && BadN ? llvm::formatv("K={0} and N={1}", K, N).str()
                 : BadK       ? llvm::formatv("K={0}", K).str()
                              : llvm::formatv("N={0}", N).str();
      Work.insert(Work.end(), Mine.begin(), Mine.end());
      if (!Example || E.Duration > Example->Duration)
        Example = &E;
    }
  }
  if (Products > 0 && WithShapes == 0)
    return Outcome::cannotJudge(
        llvm::formatv("{0} matrix-product ops ran, but the "
                      "trace has no input shapes; profile with "
                      "record_shapes=True",
                      Products)
            .str());
  if (Work.empty())
    return Outcome::ran();

  const MeasureWindows &Win = Ctx.measureWindows();
  WorkMeasure M = measureWork(Ctx, Win, Work);
  if (M.Count == 0 || M.BusyNs <= 0)
    return Outcome::ran();
  double Share = M.shareOfBusy();
  if (Share < MinShare)
    return Outcome::ran();
  const int64_t Target = Ctx.targetNs();
  int64_t Impact = std::min(M.medianPerWindow(), Target);
  if (double(Impact) < MinTargetShare * double(Target))
    return Outcome::ran();

  std::vector<std::pair<const std::string *, const ShapeGroup *>> Sorted;
  for (const auto &G : Groups)
    Sorted.push_back({&G.first, &G.second});
  llvm::sort(Sorted, [](const auto &X, const auto &Y) {
    return X.second->DeviceNs > Y.second->DeviceNs ||
           (X.second->DeviceNs == Y.second->DeviceNs && *X.first < *Y.first);
  });
  const ShapeGroup &Top = *Sorted.front().second;

  Detection Det;
  auto &V = Det.Values;
  V["value"] = pct(Share);
  V["share"] = pct(Share);
  V["threshold"] = pct(MinShare);
  V["multiple"] = std::to_string(Multiple);
  V["misaligned_time"] = dur(M.UnionNs);
  V["busy"] = dur(M.BusyNs);
  V["kernels"] = std::to_string(M.Count);
  V["per_step"] = dur(M.medianPerWindow());
  V["shapes"] = std::to_string(Groups.size());
  V["reduced"] = std::to_string(Reduced);
  V["top_shape"] = *Sorted.front().first;
  V["top_dims"] = Top.Detail;
  V["top_count"] = std::to_string(Top.Count);
  V["top_time"] = dur(Top.DeviceNs);
  V["example"] = llvm::formatv("{0} at {1:f3} us", T.name(*Example),
                               Ctx.traceTimestampUs(*Example))
                     .str();
  V["impact"] = dur(Impact);
  V["target"] = Ctx.describeTarget();
  describeWindows(Win, V);
  Det.Examples.push_back(example(Ctx, *Example));
  for (size_t G = 1; G < Sorted.size() && G < 4; ++G)
    Det.ExtraEvidence.push_back(
        llvm::formatv("also {0} ({1}): {2} calls, {3} of device time",
                      *Sorted[G].first, Sorted[G].second->Detail,
                      Sorted[G].second->Count, dur(Sorted[G].second->DeviceNs))
            .str());
  Det.ImpactNs = Impact;
  // On the critical path: the misaligned products' kernels taking no time
  // (padding makes them faster, not free: a loose but safe cap).
  Det.PathQuery = namesQuery(T, Work);
  Det.Window = Win.describe();
  Det.Subject = Top.Op + " " + Top.Detail;
  // The shapes are certain; how much alignment costs depends on the
  // library and device, so the gain is the uncertain part.
  Det.Confidence = 0.5;
  Out.push_back(std::move(Det));
  return Outcome::ran();
}
