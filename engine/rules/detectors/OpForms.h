//===- rules/detectors/OpForms.h - Argument layouts of modelled ops -*- C++
//-*-//
//
// The argument layouts that OpModel::Form names: the op table
// (OpModels.cpp) says which layout each op has, and the category models
// read their arguments by it.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_RULES_DETECTORS_OPFORMS_H
#define TRACELINT_RULES_DETECTORS_OPFORMS_H

namespace tracelint::rules::detect::form {

enum : int {
  // GEMM
  Mm,      ///< (A [M, K], B [K, N])
  Addmm,   ///< (bias, A [M, K], B [K, N], ...)
  Bmm,     ///< (A [B, M, K], B [B, K, N])
  Baddbmm, ///< (bias, A [B, M, K], B [B, K, N], ...)
  Matmul,  ///< (A [..., M, K], B [..., K, N]), batch dimensions broadcast
  Linear,  ///< (input [..., K], weight [N, K], bias [N])

  // Convolutions
  Convolution,     ///< (input, weight, bias, stride, padding, dilation,
                   ///< transposed, output_padding, groups, ...)
  ConvNd,          ///< (input, weight, bias, stride, padding, dilation, groups)
  ConvTransposeNd, ///< (input, weight, bias, stride, padding,
                   ///< output_padding, groups, dilation)
  CudnnConv,       ///< (input, weight, padding, stride, dilation, groups, ...)
  CudnnConvTranspose, ///< (input, weight, padding, output_padding, stride,
                      ///< dilation, groups, ...)
  MiopenConv, ///< (input, weight, bias, padding, stride, dilation, groups,
              ///< ...)
  MiopenConvTranspose, ///< (input, weight, bias, padding, output_padding,
                       ///< stride, dilation, groups, ...)

  // Attention: query, key and value first.
  Sdpa,             ///< [B, H, N, d]; (..., attn_mask, dropout_p, is_causal)
  SdpaFlash,        ///< [B, H, N, d]; (..., dropout_p, is_causal, ...)
  SdpaEfficient,    ///< [B, H, N, d]; (..., attn_bias, compute_log_sumexp,
                    ///< dropout_p, is_causal, ...)
  SdpaCudnn,        ///< as SdpaEfficient
  FlashForward,     ///< [B, N, H, d]; (..., cum_seq_q, cum_seq_k, max_q,
                    ///< max_k, dropout_p, is_causal, ...)
  EfficientForward, ///< [B, N, H, d]; (..., bias, cu_seqlens_q,
                    ///< cu_seqlens_k, max_seqlen_q, max_seqlen_k,
                    ///< dropout_p, custom_mask_type, ...)

  // Elementwise
  Pointwise,  ///< every tensor argument is read; the result broadcasts
  Comparison, ///< as Pointwise, with a bool result
  Copy,       ///< copy_(self, src): reads src, writes self
  ToCopy,     ///< _to_copy(self, dtype, ...): a copy into a new type
  Upsample,   ///< (input, output_size, ...)

  // Normalization
  LayerNorm,       ///< (input, normalized_shape, weight, ...): also rms_norm
  GroupNorm,       ///< (input, num_groups, weight, bias, ...)
  NativeGroupNorm, ///< (input, weight, bias, N, C, HxW, group, eps)
  BatchNorm,       ///< (input, weight, bias, running_mean, running_var, ...)

  // Reductions
  ReduceDims,   ///< (self, dim list, keepdim, ...); (self[, dtype]): all
  ReduceMaxMin, ///< (self): all; (self, dim, keepdim); (self, other)
  ReduceArg,    ///< (self, dim, keepdim): indices
  ReduceNorm,   ///< (self, ord, dim list, keepdim, ...)
  Softmax,      ///< (self, dim, ...)
};

} // namespace tracelint::rules::detect::form

#endif
