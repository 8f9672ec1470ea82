//===- rules/detectors/MemoryOpModels.cpp - Elementwise, norms, reductions ===//
//
// The ops whose time is mostly memory traffic: one FLOP per element they
// produce or reduce (normalization: TraceLens's fit, 5 per element plus 6
// per channel), and bytes for each tensor read once and the result written
// once (docs/efficiency.md).
//
//===----------------------------------------------------------------------===//
#include "rules/detectors/OpForms.h"
#include "rules/detectors/OpModels.h"

#include "model/Event.h"

using namespace tracelint;
using namespace tracelint::rules;
using namespace tracelint::rules::detect;

namespace {

double elements(llvm::ArrayRef<int64_t> S) { return double(elementCount(S)); }

/// The element type named by a ScalarType number, as "Concrete Inputs"
/// records a dtype argument ("15": bfloat16); "" when unknown.
llvm::StringRef scalarTypeName(int64_t Code) {
  switch (Code) {
  case 0:
    return "unsigned char";
  case 1:
    return "signed char";
  case 2:
    return "short int";
  case 3:
    return "int";
  case 4:
    return "long int";
  case 5:
    return "c10::Half";
  case 6:
    return "float";
  case 7:
    return "double";
  case 11:
    return "bool";
  case 15:
    return "c10::BFloat16";
  default:
    return "";
  }
}

/// Sums Elements x element size over tensors; once a size is unknown the
/// bytes are unknown too (0), as for the matrix products.
class ByteCount {
public:
  void add(double Elements, int64_t Size) {
    if (Size > 0)
      Total += Elements * double(Size);
    else
      Known = false;
  }
  double bytes() const { return Known ? Total : 0; }

private:
  double Total = 0;
  bool Known = true;
};

/// Every tensor argument read, the result broadcast over them.
bool pointwise(const OpModel &M, const OpArgs &A, OpWork &W) {
  llvm::SmallVector<size_t, 3> Inputs;
  Shape Out;
  ByteCount Bytes;
  for (size_t I = 0; I < A.size(); ++I) {
    const Shape *S = A.tensor(I);
    if (!S)
      continue;
    std::optional<Shape> B = broadcastShapes(Out, *S);
    if (!B)
      return false;
    Out = std::move(*B);
    Inputs.push_back(I);
    Bytes.add(elements(*S), A.elementSize(I));
  }
  if (Inputs.empty())
    return false;
  // An in-place op writes into its first argument, in that one's type.
  const bool InPlace = M.Name.endswith("_");
  std::string OutType = M.Form == form::Comparison ? "bool"
                        : InPlace                  ? A.type(Inputs[0]).str()
                                                   : resultType(A, Inputs);
  Bytes.add(elements(Out), model::scalarTypeSize(OutType));
  W.Category = OpCategory::Elementwise;
  W.Dtype = A.type(Inputs[0]).str();
  W.Params = {{"elements", elementCount(Out)}};
  W.Flops = elements(Out);
  W.Bytes = Bytes.bytes();
  return true;
}

/// The output elements of reducing \p In over the axes \p Axes (negative
/// ones count from the end; none: every axis).
std::optional<double> reducedElements(llvm::ArrayRef<int64_t> In,
                                      llvm::ArrayRef<int64_t> Axes) {
  if (Axes.empty())
    return 1;
  double Out = elements(In);
  llvm::SmallVector<bool, 6> Seen(In.size(), false);
  for (int64_t Axis : Axes) {
    if (Axis < 0)
      Axis += int64_t(In.size());
    if (Axis < 0 || Axis >= int64_t(In.size()))
      return std::nullopt;
    if (!Seen[Axis] && In[Axis])
      Out /= double(In[Axis]);
    Seen[Axis] = true;
  }
  return Out;
}

/// The axes argument \p I of a reduction: a list ("[-1]"), one axis ("1"),
/// or none recorded for "all axes" ("" or "[]"). std::nullopt when the
/// trace records no values at all.
std::optional<Shape> reductionAxes(const OpArgs &A, size_t I) {
  if (!A.hasValues())
    return std::nullopt;
  llvm::StringRef V = A.value(I);
  if (V.empty() || V == "[]" || V == "None")
    return Shape();
  return A.integers(I);
}

} // namespace

bool detect::elementwiseWork(const OpModel &M, const OpArgs &A, OpWork &W) {
  if (M.Form == form::Pointwise || M.Form == form::Comparison)
    return pointwise(M, A, W);
  const Shape *In = A.tensor(0);
  if (!In)
    return false;
  W.Dtype = A.type(0).str();
  ByteCount Bytes;
  Bytes.add(elements(*In), A.elementSize(0));
  double Out = elements(*In);
  switch (M.Form) {
  case form::Copy: {
    // copy_(self, src): src is read, self written.
    const Shape *Src = A.tensor(1);
    if (!Src)
      return false;
    Bytes.add(elements(*Src), A.elementSize(1));
    break;
  }
  case form::ToCopy: {
    llvm::StringRef To = A.type(0);
    if (std::optional<int64_t> Code = A.integer(1))
      To = scalarTypeName(*Code);
    Bytes.add(Out, model::scalarTypeSize(To));
    break;
  }
  case form::Upsample: {
    // The output keeps the batch and channel axes and takes output_size.
    std::optional<Shape> Size = A.integers(1);
    if (!Size || In->size() != Size->size() + 2)
      return false;
    Shape OutShape{(*In)[0], (*In)[1]};
    OutShape.append(Size->begin(), Size->end());
    Out = elements(OutShape);
    Bytes.add(Out, A.elementSize(0));
    W.Params = {{"elements", elementCount(OutShape)},
                {"in_elements", elementCount(*In)}};
    break;
  }
  default:
    return false;
  }
  if (W.Params.empty())
    W.Params = {{"elements", elementCount(*In)}};
  W.Flops = Out;
  W.Bytes = Bytes.bytes();
  return true;
}

bool detect::normalizationWork(const OpModel &M, const OpArgs &A, OpWork &W) {
  const Shape *In = A.tensor(0);
  if (!In || In->empty())
    return false;
  // C: the elements of one normalized slice (layer and RMS norm), or the
  // channels (group and batch norm).
  int64_t C = 0, Groups = 0;
  switch (M.Form) {
  case form::LayerNorm:
    if (std::optional<Shape> Normalized = A.integers(1))
      C = elementCount(*Normalized);
    else if (const Shape *Weight = A.tensor(2))
      C = elementCount(*Weight);
    else
      return false;
    break;
  case form::GroupNorm:
  case form::NativeGroupNorm: {
    std::optional<int64_t> G = A.integer(M.Form == form::GroupNorm ? 1 : 6);
    if (!G)
      return false;
    Groups = *G;
    [[fallthrough]];
  }
  case form::BatchNorm:
    if (In->size() < 2)
      return false;
    C = (*In)[1];
    break;
  default:
    return false;
  }
  const double N = elements(*In);
  W.Dtype = A.type(0).str();
  W.Params = {{"elements", elementCount(*In)}, {"channels", C}};
  if (Groups)
    W.Params.push_back({"groups", Groups});
  W.Flops = 5 * N + 6 * double(C);
  ByteCount Bytes;
  Bytes.add(2 * N + 6 * double(C), A.elementSize(0));
  W.Bytes = Bytes.bytes();
  return true;
}

bool detect::reductionWork(const OpModel &M, const OpArgs &A, OpWork &W) {
  const Shape *In = A.tensor(0);
  if (!In)
    return false;
  const double N = elements(*In);
  ByteCount Bytes;
  Bytes.add(N, A.elementSize(0));
  std::optional<double> Out;
  int64_t OutSize = A.elementSize(0);
  bool Indices = false;
  double Flops = N;
  switch (M.Form) {
  case form::ReduceDims:
    // sum(self, dtype) and mean(self, dtype) reduce every axis.
    if (A.size() < 3)
      Out = 1;
    else if (std::optional<Shape> Axes = reductionAxes(A, 1))
      Out = reducedElements(*In, *Axes);
    break;
  case form::ReduceMaxMin:
    // max(self, other) is elementwise; max(self) reduces every axis.
    if (A.tensor(1))
      return pointwise(M, A, W);
    if (A.size() == 1)
      Out = 1;
    else if (std::optional<int64_t> Axis = A.integer(1))
      Out = reducedElements(*In, {*Axis}), Indices = true;
    break;
  case form::ReduceArg:
    OutSize = 0, Indices = true;
    if (std::optional<Shape> Axes = reductionAxes(A, 1))
      Out = reducedElements(*In, *Axes);
    break;
  case form::ReduceNorm:
    if (std::optional<Shape> Axes = reductionAxes(A, 2))
      Out = reducedElements(*In, *Axes);
    break;
  case form::Softmax:
    // Per element: the running max, the exponential of the difference,
    // the running sum and the division.
    Out = N, Flops = 5 * N;
    if (A.boolean(2).value_or(false) && M.Name.startswith("aten::_"))
      OutSize = 4; // half_to_float
    break;
  default:
    return false;
  }
  if (!Out)
    return false;
  if (OutSize)
    Bytes.add(*Out, OutSize);
  if (Indices)
    Bytes.add(*Out, 8);
  W.Dtype = A.type(0).str();
  W.Params = {{"elements", elementCount(*In)}, {"out_elements", int64_t(*Out)}};
  W.Flops = Flops;
  W.Bytes = Bytes.bytes();
  return true;
}
