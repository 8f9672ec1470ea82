//===- rules/detectors/MatrixOpModels.cpp - GEMM, conv and attention ------===//
//
// The ops that run on matrix units: their FLOPs count the multiply-adds of
// the products (2 per multiply-add), their bytes each operand read once and
// the result written once (docs/efficiency.md).
//
//===----------------------------------------------------------------------===//
#include "rules/detectors/OpForms.h"
#include "rules/detectors/OpModels.h"

#include <array>

using namespace tracelint;
using namespace tracelint::rules;
using namespace tracelint::rules::detect;

namespace {

/// The bytes of \p Elements elements of \p Size bytes; 0 for an unknown
/// element size, so that an op of unknown type has FLOPs but no bytes.
double bytesOf(double Elements, int64_t Size) {
  return Size > 0 ? Elements * double(Size) : 0;
}

double elements(llvm::ArrayRef<int64_t> S) { return double(elementCount(S)); }

} // namespace

bool detect::gemmWork(const OpModel &M, const OpArgs &A, OpWork &W) {
  // Argument positions of the bias and the two matrices, and the rank the
  // matrices must have (0: any).
  int Bias = -1, X = 0, Y = 1;
  size_t Rank = 0;
  switch (M.Form) {
  case form::Mm:
    Rank = 2;
    break;
  case form::Addmm:
    Bias = 0, X = 1, Y = 2, Rank = 2;
    break;
  case form::Bmm:
    Rank = 3;
    break;
  case form::Baddbmm:
    Bias = 0, X = 1, Y = 2, Rank = 3;
    break;
  case form::Linear:
    Bias = 2;
    break;
  case form::Matmul:
    break;
  default:
    return false;
  }
  const Shape *XS = A.tensor(X), *YS = A.tensor(Y);
  if (!XS || !YS || XS->empty() || YS->empty())
    return false;
  if (Rank && (XS->size() != Rank || YS->size() != Rank))
    return false;
  int64_t B = 1, Rows, Cols, Inner;
  if (M.Form == form::Linear) {
    // input [..., K] times weight [N, K] transposed.
    if (YS->size() != 2 || YS->back() != XS->back())
      return false;
    Inner = XS->back();
    Cols = (*YS)[0];
    Rows = Inner ? elementCount(*XS) / Inner : 0;
  } else {
    // A vector operand is a matrix of one row (A) or one column (B).
    Rows = XS->size() >= 2 ? (*XS)[XS->size() - 2] : 1;
    Inner = XS->back();
    Cols = YS->size() >= 2 ? YS->back() : 1;
    const int64_t InnerB = YS->size() >= 2 ? (*YS)[YS->size() - 2] : (*YS)[0];
    if (InnerB != Inner)
      return false;
    llvm::ArrayRef<int64_t> XBatch(*XS), YBatch(*YS);
    XBatch = XBatch.drop_back(std::min<size_t>(2, XBatch.size()));
    YBatch = YBatch.drop_back(std::min<size_t>(2, YBatch.size()));
    std::optional<Shape> Batch = broadcastShapes(XBatch, YBatch);
    if (!Batch)
      return false;
    B = elementCount(*Batch);
  }
  double BiasElements = 0;
  if (Bias >= 0)
    if (const Shape *S = A.tensor(Bias))
      BiasElements = elements(*S);
  const bool HasBias = Bias >= 0 && A.tensor(Bias);
  W.Dtype = A.type(X).str();
  W.Params = {
      {"B", B}, {"M", Rows}, {"N", Cols}, {"K", Inner}, {"bias", HasBias}};
  const double Out = double(B) * double(Rows) * double(Cols);
  W.Flops = 2 * Out * double(Inner) + (HasBias ? Out : 0);
  W.Bytes = bytesOf(elements(*XS) + elements(*YS) + Out + BiasElements,
                    A.elementSize(X));
  return true;
}

namespace {

/// Where a convolution's arguments are (-1: absent), and whether it is
/// transposed (-1: read from the argument Transposed).
struct ConvLayout {
  int Stride, Padding, Dilation, Groups, OutputPadding, Transposed;
  int IsTransposed;
};

std::optional<ConvLayout> convLayout(int Form) {
  switch (Form) {
  case form::Convolution:
    return ConvLayout{3, 4, 5, 8, 7, 6, -1};
  case form::ConvNd:
    return ConvLayout{3, 4, 5, 6, -1, -1, 0};
  case form::ConvTransposeNd:
    return ConvLayout{3, 4, 7, 6, 5, -1, 1};
  case form::CudnnConv:
    return ConvLayout{3, 2, 4, 5, -1, -1, 0};
  case form::CudnnConvTranspose:
    return ConvLayout{4, 2, 5, 6, 3, -1, 1};
  case form::MiopenConv:
    return ConvLayout{4, 3, 5, 6, -1, -1, 0};
  case form::MiopenConvTranspose:
    return ConvLayout{5, 3, 6, 7, 4, -1, 1};
  default:
    return std::nullopt;
  }
}

/// A per-axis list of \p Axes values from argument \p I: one value stands
/// for every axis. std::nullopt when it is not recorded or does not fit.
std::optional<Shape> perAxis(const OpArgs &A, int I, size_t Axes) {
  if (I < 0)
    return Shape(Axes, 0);
  std::optional<Shape> V = A.integers(I);
  if (V && V->size() == 1)
    V = Shape(Axes, (*V)[0]);
  if (!V || V->size() != Axes)
    return std::nullopt;
  return V;
}

} // namespace

bool detect::convWork(const OpModel &M, const OpArgs &A, OpWork &W) {
  std::optional<ConvLayout> L = convLayout(M.Form);
  const Shape *In = A.tensor(0), *Wt = A.tensor(1);
  if (!L || !In || !Wt || In->size() < 3 || In->size() > 5 ||
      Wt->size() != In->size())
    return false;
  const size_t Axes = In->size() - 2;
  std::optional<Shape> Stride = perAxis(A, L->Stride, Axes),
                       Padding = perAxis(A, L->Padding, Axes),
                       Dilation = perAxis(A, L->Dilation, Axes),
                       OutPadding = perAxis(A, L->OutputPadding, Axes);
  std::optional<int64_t> Groups = A.integer(L->Groups);
  std::optional<bool> Transposed = L->IsTransposed >= 0
                                       ? std::optional<bool>(L->IsTransposed)
                                       : A.boolean(L->Transposed);
  if (!Stride || !Padding || !Dilation || !OutPadding || !Groups ||
      *Groups < 1 || !Transposed)
    return false;
  const int64_t N = (*In)[0], CIn = (*In)[1];
  // The weight is [C_out, C_in / groups, k...], or transposed [C_in,
  // C_out / groups, k...].
  const int64_t COut = *Transposed ? (*Wt)[1] * *Groups : (*Wt)[0];
  if ((*Transposed ? (*Wt)[0] : (*Wt)[1] * *Groups) != CIn)
    return false;
  Shape Out;
  for (size_t I = 0; I < Axes; ++I) {
    const int64_t Size = (*In)[I + 2], K = (*Wt)[I + 2];
    const int64_t S = (*Stride)[I], P = (*Padding)[I], D = (*Dilation)[I];
    if (S < 1 || D < 1 || P < 0)
      return false;
    const int64_t O = *Transposed ? (Size - 1) * S - 2 * P + D * (K - 1) +
                                        (*OutPadding)[I] + 1
                                  : (Size + 2 * P - D * (K - 1) - 1) / S + 1;
    if (O < 1)
      return false;
    Out.push_back(O);
  }
  llvm::ArrayRef<int64_t> Kernel = llvm::ArrayRef<int64_t>(*Wt).drop_front(2);
  static constexpr std::array<const char *, 3> AxisNames[] = {
      {"L", "", ""}, {"H", "W", ""}, {"D", "H", "W"}};
  const auto &Names = AxisNames[Axes - 1];
  W.Dtype = A.type(0).str();
  W.Params = {{"N", N}, {"C_in", CIn}};
  for (size_t I = 0; I < Axes; ++I)
    W.Params.push_back({Names[I], (*In)[I + 2]});
  W.Params.push_back({"C_out", COut});
  auto AddAxes = [&](const char *Prefix, llvm::ArrayRef<int64_t> V) {
    for (size_t I = 0; I < Axes; ++I)
      W.Params.push_back({std::string(Prefix) + Names[I], V[I]});
  };
  AddAxes("kernel_", Kernel);
  AddAxes("stride_", *Stride);
  AddAxes("padding_", *Padding);
  AddAxes("dilation_", *Dilation);
  W.Params.push_back({"groups", *Groups});
  W.Params.push_back({"transposed", *Transposed});
  if (*Transposed)
    AddAxes("output_padding_", *OutPadding);
  AddAxes("out_", Out);
  // Each output element sums C_in / groups x kernel products; a
  // transposed convolution scatters each input element the same way.
  const double Taps = double((*Wt)[1]) * elements(Kernel);
  const double Points =
      *Transposed ? double(N) * double(CIn) *
                        elements(llvm::ArrayRef<int64_t>(*In).drop_front(2))
                  : double(N) * double(COut) * elements(Out);
  W.Flops = 2 * Points * Taps;
  // The bias is left out, as TraceLens leaves it out.
  W.Bytes = bytesOf(elements(*In) + elements(*Wt) +
                        double(N) * double(COut) * elements(Out),
                    A.elementSize(0));
  return true;
}

bool detect::attentionWork(const OpModel &M, const OpArgs &A, OpWork &W) {
  const Shape *Q = A.tensor(0), *K = A.tensor(1), *V = A.tensor(2);
  if (!Q || !K || !V || Q->size() != 4 || K->size() != 4 || V->size() != 4)
    return false;
  bool HeadsFirst = true;
  int Mask = -1;
  std::optional<bool> Causal;
  switch (M.Form) {
  case form::Sdpa:
    Mask = 3, Causal = A.boolean(5);
    break;
  case form::SdpaFlash:
    Causal = A.boolean(4);
    break;
  case form::SdpaEfficient:
  case form::SdpaCudnn:
    Mask = 3, Causal = A.boolean(6);
    break;
  case form::FlashForward:
    // Sequences of different lengths packed together (cum_seq_q) have no
    // one N to count.
    if (A.tensor(3))
      return false;
    HeadsFirst = false, Causal = A.boolean(8);
    break;
  case form::EfficientForward:
    if (A.tensor(4))
      return false;
    HeadsFirst = false, Mask = 3;
    if (std::optional<int64_t> MaskType = A.integer(9))
      Causal = *MaskType != 0;
    break;
  default:
    return false;
  }
  if (!Causal)
    return false;
  const size_t H = HeadsFirst ? 1 : 2, N = HeadsFirst ? 2 : 1;
  const int64_t B = (*Q)[0], HQ = (*Q)[H], HKV = (*K)[H], NQ = (*Q)[N],
                NKV = (*K)[N], Dqk = (*Q)[3], Dv = (*V)[3];
  if ((*K)[3] != Dqk || (*V)[N] != NKV || (*V)[H] != HKV)
    return false;
  W.Dtype = A.type(0).str();
  W.Params = {{"B", B},      {"H_Q", HQ},   {"H_KV", HKV}, {"N_Q", NQ},
              {"N_KV", NKV}, {"d_qk", Dqk}, {"d_v", Dv},   {"causal", *Causal}};
  // Q K^T and the weights times V; a causal mask skips half the scores.
  const double Scores = double(B) * double(HQ) * double(NQ) * double(NKV);
  W.Flops = 2 * Scores * double(Dqk + Dv) / (*Causal ? 2 : 1);
  const double Q_O = double(B) * double(HQ) * double(NQ) * double(Dqk + Dv);
  const double K_V = double(B) * double(HKV) * double(NKV) * double(Dqk + Dv);
  W.Bytes = bytesOf(Q_O + K_V, A.elementSize(0));
  if (const Shape *S = Mask >= 0 ? A.tensor(Mask) : nullptr)
    W.Bytes += bytesOf(elements(*S), A.elementSize(Mask));
  return true;
}
