//===- rules/detectors/OpModels.cpp - The modelled op names ---------------===//
#include "rules/detectors/OpModels.h"
#include "rules/detectors/OpForms.h"

#include "model/Event.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <limits>

using namespace tracelint;
using namespace tracelint::rules;
using namespace tracelint::rules::detect;

namespace {

constexpr OpCategory Gemm = OpCategory::Gemm, Conv = OpCategory::Conv,
                     Attn = OpCategory::Attention,
                     Elem = OpCategory::Elementwise,
                     Norm = OpCategory::Normalization,
                     Reduce = OpCategory::Reduction;
constexpr OpRole Primary = OpRole::Primary, Composite = OpRole::Composite;

/// Every modelled op. The Form numbers are the layouts of OpForms.h.
const OpModel Models[] = {
    // Matrix products: the leaf ops TraceLens reports; aten::matmul and
    // aten::linear dispatch to them.
    {"aten::mm", Gemm, Primary, gemmWork, form::Mm},
    {"aten::addmm", Gemm, Primary, gemmWork, form::Addmm},
    {"aten::_addmm_activation", Gemm, Primary, gemmWork, form::Addmm},
    {"aten::bmm", Gemm, Primary, gemmWork, form::Bmm},
    {"aten::baddbmm", Gemm, Primary, gemmWork, form::Baddbmm},
    {"aten::matmul", Gemm, Composite, gemmWork, form::Matmul},
    {"aten::linear", Gemm, Composite, gemmWork, form::Linear},

    // Convolutions: aten::convolution holds the backend's call and the
    // kernels around it (layout transposes, the bias add).
    {"aten::convolution", Conv, Primary, convWork, form::Convolution},
    {"aten::_convolution", Conv, Primary, convWork, form::Convolution},
    {"aten::cudnn_convolution", Conv, Primary, convWork, form::CudnnConv},
    {"aten::cudnn_convolution_transpose", Conv, Primary, convWork,
     form::CudnnConvTranspose},
    {"aten::miopen_convolution", Conv, Primary, convWork, form::MiopenConv},
    {"aten::miopen_depthwise_convolution", Conv, Primary, convWork,
     form::MiopenConv},
    {"aten::miopen_convolution_transpose", Conv, Primary, convWork,
     form::MiopenConvTranspose},
    {"aten::conv1d", Conv, Composite, convWork, form::ConvNd},
    {"aten::conv2d", Conv, Composite, convWork, form::ConvNd},
    {"aten::conv3d", Conv, Composite, convWork, form::ConvNd},
    {"aten::conv_transpose1d", Conv, Composite, convWork,
     form::ConvTransposeNd},
    {"aten::conv_transpose2d", Conv, Composite, convWork,
     form::ConvTransposeNd},
    {"aten::conv_transpose3d", Conv, Composite, convWork,
     form::ConvTransposeNd},

    // Attention: the fused forms; the dispatcher op only when none of them
    // is below it.
    {"aten::_scaled_dot_product_flash_attention", Attn, Primary, attentionWork,
     form::SdpaFlash},
    {"aten::_scaled_dot_product_efficient_attention", Attn, Primary,
     attentionWork, form::SdpaEfficient},
    {"aten::_scaled_dot_product_cudnn_attention", Attn, Primary, attentionWork,
     form::SdpaCudnn},
    {"aten::_flash_attention_forward", Attn, Primary, attentionWork,
     form::FlashForward},
    {"aten::_efficient_attention_forward", Attn, Primary, attentionWork,
     form::EfficientForward},
    {"aten::scaled_dot_product_attention", Attn, Composite, attentionWork,
     form::Sdpa},

    // Elementwise ops with two or more tensor inputs (broadcast) or one.
    {"aten::add", Elem, Primary, elementwiseWork, form::Pointwise},
    {"aten::add_", Elem, Primary, elementwiseWork, form::Pointwise},
    {"aten::sub", Elem, Primary, elementwiseWork, form::Pointwise},
    {"aten::sub_", Elem, Primary, elementwiseWork, form::Pointwise},
    {"aten::rsub", Elem, Primary, elementwiseWork, form::Pointwise},
    {"aten::mul", Elem, Primary, elementwiseWork, form::Pointwise},
    {"aten::mul_", Elem, Primary, elementwiseWork, form::Pointwise},
    {"aten::div", Elem, Primary, elementwiseWork, form::Pointwise},
    {"aten::div_", Elem, Primary, elementwiseWork, form::Pointwise},
    {"aten::maximum", Elem, Primary, elementwiseWork, form::Pointwise},
    {"aten::minimum", Elem, Primary, elementwiseWork, form::Pointwise},
    {"aten::pow", Elem, Primary, elementwiseWork, form::Pointwise},
    {"aten::pow_", Elem, Primary, elementwiseWork, form::Pointwise},
    {"aten::where", Elem, Primary, elementwiseWork, form::Pointwise},
    {"aten::masked_fill", Elem, Primary, elementwiseWork, form::Pointwise},
    {"aten::masked_fill_", Elem, Primary, elementwiseWork, form::Pointwise},
    {"aten::clamp", Elem, Primary, elementwiseWork, form::Pointwise},
    {"aten::clamp_", Elem, Primary, elementwiseWork, form::Pointwise},
    {"aten::abs", Elem, Primary, elementwiseWork, form::Pointwise},
    {"aten::neg", Elem, Primary, elementwiseWork, form::Pointwise},
    {"aten::exp", Elem, Primary, elementwiseWork, form::Pointwise},
    {"aten::exp_", Elem, Primary, elementwiseWork, form::Pointwise},
    {"aten::log", Elem, Primary, elementwiseWork, form::Pointwise},
    {"aten::sqrt", Elem, Primary, elementwiseWork, form::Pointwise},
    {"aten::rsqrt", Elem, Primary, elementwiseWork, form::Pointwise},
    {"aten::reciprocal", Elem, Primary, elementwiseWork, form::Pointwise},
    {"aten::sin", Elem, Primary, elementwiseWork, form::Pointwise},
    {"aten::cos", Elem, Primary, elementwiseWork, form::Pointwise},
    {"aten::tanh", Elem, Primary, elementwiseWork, form::Pointwise},
    {"aten::tanh_", Elem, Primary, elementwiseWork, form::Pointwise},
    {"aten::erf", Elem, Primary, elementwiseWork, form::Pointwise},
    {"aten::sigmoid", Elem, Primary, elementwiseWork, form::Pointwise},
    {"aten::sigmoid_", Elem, Primary, elementwiseWork, form::Pointwise},
    {"aten::relu", Elem, Primary, elementwiseWork, form::Pointwise},
    {"aten::relu_", Elem, Primary, elementwiseWork, form::Pointwise},
    {"aten::gelu", Elem, Primary, elementwiseWork, form::Pointwise},
    {"aten::gelu_", Elem, Primary, elementwiseWork, form::Pointwise},
    {"aten::silu", Elem, Primary, elementwiseWork, form::Pointwise},
    {"aten::silu_", Elem, Primary, elementwiseWork, form::Pointwise},
    {"aten::hardtanh", Elem, Primary, elementwiseWork, form::Pointwise},
    {"aten::hardtanh_", Elem, Primary, elementwiseWork, form::Pointwise},
    {"aten::leaky_relu", Elem, Primary, elementwiseWork, form::Pointwise},
    {"aten::eq", Elem, Primary, elementwiseWork, form::Comparison},
    {"aten::ne", Elem, Primary, elementwiseWork, form::Comparison},
    {"aten::lt", Elem, Primary, elementwiseWork, form::Comparison},
    {"aten::le", Elem, Primary, elementwiseWork, form::Comparison},
    {"aten::gt", Elem, Primary, elementwiseWork, form::Comparison},
    {"aten::ge", Elem, Primary, elementwiseWork, form::Comparison},
    {"aten::copy_", Elem, Primary, elementwiseWork, form::Copy},
    {"aten::_to_copy", Elem, Composite, elementwiseWork, form::ToCopy},
    {"aten::upsample_nearest1d", Elem, Primary, elementwiseWork,
     form::Upsample},
    {"aten::upsample_nearest2d", Elem, Primary, elementwiseWork,
     form::Upsample},
    {"aten::upsample_nearest3d", Elem, Primary, elementwiseWork,
     form::Upsample},
    {"aten::upsample_linear1d", Elem, Primary, elementwiseWork, form::Upsample},
    {"aten::upsample_bilinear2d", Elem, Primary, elementwiseWork,
     form::Upsample},
    {"aten::upsample_bicubic2d", Elem, Primary, elementwiseWork,
     form::Upsample},
    {"aten::upsample_trilinear3d", Elem, Primary, elementwiseWork,
     form::Upsample},

    // Normalization: the op the model calls; the native_ and backend forms
    // below it are its kernels.
    {"aten::layer_norm", Norm, Primary, normalizationWork, form::LayerNorm},
    {"aten::native_layer_norm", Norm, Primary, normalizationWork,
     form::LayerNorm},
    {"aten::rms_norm", Norm, Primary, normalizationWork, form::LayerNorm},
    {"aten::group_norm", Norm, Primary, normalizationWork, form::GroupNorm},
    {"aten::native_group_norm", Norm, Primary, normalizationWork,
     form::NativeGroupNorm},
    {"aten::batch_norm", Norm, Primary, normalizationWork, form::BatchNorm},
    {"aten::_batch_norm_impl_index", Norm, Primary, normalizationWork,
     form::BatchNorm},
    {"aten::native_batch_norm", Norm, Primary, normalizationWork,
     form::BatchNorm},
    {"aten::_native_batch_norm_legit_no_training", Norm, Primary,
     normalizationWork, form::BatchNorm},
    {"aten::cudnn_batch_norm", Norm, Primary, normalizationWork,
     form::BatchNorm},
    {"aten::miopen_batch_norm", Norm, Primary, normalizationWork,
     form::BatchNorm},

    // Reductions, and softmax (a reduction along one axis followed by an
    // elementwise pass).
    {"aten::sum", Reduce, Primary, reductionWork, form::ReduceDims},
    {"aten::mean", Reduce, Primary, reductionWork, form::ReduceDims},
    {"aten::amax", Reduce, Primary, reductionWork, form::ReduceDims},
    {"aten::amin", Reduce, Primary, reductionWork, form::ReduceDims},
    {"aten::max", Reduce, Primary, reductionWork, form::ReduceMaxMin},
    {"aten::min", Reduce, Primary, reductionWork, form::ReduceMaxMin},
    {"aten::argmax", Reduce, Primary, reductionWork, form::ReduceArg},
    {"aten::argmin", Reduce, Primary, reductionWork, form::ReduceArg},
    {"aten::linalg_norm", Reduce, Primary, reductionWork, form::ReduceNorm},
    {"aten::linalg_vector_norm", Reduce, Primary, reductionWork,
     form::ReduceNorm},
    {"aten::norm", Reduce, Primary, reductionWork, form::ReduceNorm},
    {"aten::softmax", Reduce, Primary, reductionWork, form::Softmax},
    {"aten::_softmax", Reduce, Primary, reductionWork, form::Softmax},
    {"aten::log_softmax", Reduce, Primary, reductionWork, form::Softmax},
    {"aten::_log_softmax", Reduce, Primary, reductionWork, form::Softmax},
};

enum class TypeKind { Unknown, Bool, Integer, Floating, Complex };

TypeKind typeKind(llvm::StringRef Type) {
  Type = Type.trim();
  Type.consume_front("c10::");
  if (Type.equals_insensitive("bool"))
    return TypeKind::Bool;
  if (Type.startswith_insensitive("complex"))
    return TypeKind::Complex;
  if (Type.equals_insensitive("float") || Type.equals_insensitive("double") ||
      Type.equals_insensitive("half") || Type == "BFloat16" ||
      Type.startswith_insensitive("float8"))
    return TypeKind::Floating;
  return model::scalarTypeSize(Type) > 0 ? TypeKind::Integer
                                         : TypeKind::Unknown;
}

} // namespace

const Shape *OpArgs::tensor(size_t I) const {
  static const Shape NoDimensions;
  if (I >= Dims.size())
    return nullptr;
  if (const Shape *S = Dims[I].tensor())
    return S;
  if (!Dims[I].IsList && Dims[I].Tensors.empty() && elementSize(I) > 0)
    return &NoDimensions;
  return nullptr;
}

llvm::StringRef OpArgs::type(size_t I) const {
  return I < Types.size() ? llvm::StringRef(Types[I]) : llvm::StringRef();
}

int64_t OpArgs::elementSize(size_t I) const {
  return model::scalarTypeSize(type(I));
}

llvm::StringRef OpArgs::value(size_t I) const {
  return I < Concrete.size() ? llvm::StringRef(Concrete[I]).trim()
                             : llvm::StringRef();
}

std::optional<int64_t> OpArgs::integer(size_t I) const {
  int64_t N;
  if (value(I).getAsInteger(10, N))
    return std::nullopt;
  return N;
}

std::optional<bool> OpArgs::boolean(size_t I) const {
  llvm::StringRef V = value(I);
  if (V == "True" || V == "true" || V == "1")
    return true;
  if (V == "False" || V == "false" || V == "0")
    return false;
  return std::nullopt;
}

std::optional<Shape> OpArgs::integers(size_t I) const {
  llvm::StringRef V = value(I);
  if (V.empty())
    return std::nullopt;
  const bool List = V.consume_front("[");
  if (List && !V.consume_back("]"))
    return std::nullopt;
  Shape Out;
  llvm::SmallVector<llvm::StringRef, 4> Parts;
  V.split(Parts, ',', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef P : Parts) {
    int64_t N;
    if (P.trim().getAsInteger(10, N))
      return std::nullopt;
    Out.push_back(N);
  }
  if (!List && Out.size() != 1)
    return std::nullopt;
  return Out;
}

llvm::ArrayRef<OpModel> detect::opModels() { return Models; }

std::optional<OpWork> detect::modelOp(const OpModel &M, const OpArgs &A) {
  OpWork W;
  W.Category = M.Category;
  if (!M.Work(M, A, W) || !(W.Flops >= 0) || !(W.Bytes >= 0))
    return std::nullopt;
  return W;
}

std::string detect::resultType(const OpArgs &A, llvm::ArrayRef<size_t> Inputs) {
  // The highest kind among tensors with dimensions, then among those
  // without when theirs is higher still.
  auto Highest = [&](bool Dimensioned) {
    TypeKind Best = TypeKind::Unknown;
    for (size_t I : Inputs)
      if (const Shape *S = A.tensor(I); S && S->empty() != Dimensioned)
        Best = std::max(Best, typeKind(A.type(I)));
    return Best;
  };
  TypeKind Dim = Highest(true), Zero = Highest(false);
  const bool FromZeroDim = Zero > Dim;
  const TypeKind Kind = FromZeroDim ? Zero : Dim;
  // A Python float or int meeting tensors of a lower kind gives the default
  // type of its kind.
  if (FromZeroDim && Dim != TypeKind::Unknown)
    return Kind == TypeKind::Floating ? "float" : "long int";
  std::string Best;
  int64_t BestSize = 0;
  bool Mixed = false;
  for (size_t I : Inputs) {
    const Shape *S = A.tensor(I);
    if (!S || S->empty() != FromZeroDim || typeKind(A.type(I)) != Kind)
      continue;
    const int64_t Size = A.elementSize(I);
    if (!Best.empty() && A.type(I) != Best && Size == BestSize)
      Mixed = true;
    if (Size > BestSize) {
      Best = A.type(I).str();
      BestSize = Size;
      Mixed = false;
    }
  }
  // Half with bfloat16 promotes to float.
  if (Mixed && Kind == TypeKind::Floating && BestSize == 2)
    return "float";
  return Best;
}

std::optional<Shape> detect::broadcastShapes(llvm::ArrayRef<int64_t> S,
                                             llvm::ArrayRef<int64_t> T) {
  Shape Out(std::max(S.size(), T.size()), 1);
  for (size_t I = 0; I < Out.size(); ++I) {
    const int64_t A = I < S.size() ? S[S.size() - 1 - I] : 1;
    const int64_t B = I < T.size() ? T[T.size() - 1 - I] : 1;
    if (A != B && A != 1 && B != 1)
      return std::nullopt;
    Out[Out.size() - 1 - I] = A == 1 ? B : A;
  }
  return Out;
}

llvm::StringRef detect::categoryName(OpCategory C) {
  switch (C) {
  case OpCategory::Gemm:
    return "GEMM";
  case OpCategory::Conv:
    return "CONV";
  case OpCategory::Attention:
    return "SDPA";
  case OpCategory::Elementwise:
    return "elementwise";
  case OpCategory::Normalization:
    return "normalization";
  case OpCategory::Reduction:
    return "reduce";
  }
  llvm_unreachable("covered switch");
}
