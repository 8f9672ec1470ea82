//===- rules/detectors/OpRates.h - Achieved rates per op and shapes -*- C++
//-*-//
//
// For each framework op call with recorded shapes (record_shapes=True) whose
// work tracelint can count, the FLOPs and bytes its shapes imply and the
// kernel time of the device work it launched, grouped by op and argument
// set: matrix products, convolutions, attention, elementwise,
// normalization and reduction ops. The conventions are TraceLens's where it
// has one (docs/efficiency.md), so that the two can be compared.
//
// One kernel set is counted once: a call nested in another counted call
// (aten::add_ inside aten::convolution, aten::native_layer_norm inside
// aten::layer_norm) adds nothing, and a composite op (aten::linear,
// aten::matmul, aten::scaled_dot_product_attention) is counted only when no
// op below it is.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_RULES_DETECTORS_OPRATES_H
#define TRACELINT_RULES_DETECTORS_OPRATES_H

#include "model/Trace.h"

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tracelint::rules::detect {

enum class OpCategory {
  Gemm,
  Conv,
  Attention,
  Elementwise,
  Normalization,
  Reduction
};

/// The name of a category in tables and JSON: "GEMM", "CONV", "SDPA",
/// "elementwise", "normalization", "reduce".
llvm::StringRef categoryName(OpCategory C);

/// One op and argument set, over its calls.
struct OpRate {
  OpCategory Category = OpCategory::Gemm;
  std::string Op;    ///< "aten::bmm"
  std::string Dtype; ///< the first tensor input's element type, as recorded
  /// What the shapes say, in a fixed order per category (JSON keys):
  /// GEMM B, M, N, K, bias; attention B, H_Q, H_KV, N_Q, N_KV, d_qk, d_v,
  /// causal; the others in docs/efficiency.md.
  std::vector<std::pair<std::string, int64_t>> Params;
  bool MatrixUnits = false;    ///< runs on tensor/matrix cores
  double Flops = 0, Bytes = 0; ///< per call
  uint64_t Calls = 0;          ///< calls whose kernels ran
  int64_t KernelNsMedian = 0, KernelNsTotal = 0;
  /// The median over calls of FLOPs / kernel time and bytes / kernel time.
  double TflopsMedian = 0, TbpsMedian = 0;
  std::vector<uint32_t> CallOps; ///< the op event of each counted call
  /// The argument set as recorded: "Input Dims", "Input type" and
  /// "Concrete Inputs" (JSON arrays; empty when the trace has none).
  std::string InputDims, InputTypes, ConcreteInputs;

  double flopsPerByte() const { return Bytes > 0 ? Flops / Bytes : 0; }
  /// The value of parameter \p Key, or \p Default.
  int64_t param(llvm::StringRef Key, int64_t Default = 0) const;
  /// A short shape for prose: "[96, 3137, 3137, 64]" (GEMM: B, M, N, K),
  /// "[16, 16, 559, 559, 64] causal" (attention: B, H_Q, N_Q, N_KV, d_qk),
  /// "[4, 3, 224, 224] * [768, 3, 16, 16] stride 16" (convolution: input
  /// and weight), "[16, 559, 1024], [1024]" (the others: the tensor
  /// inputs).
  std::string shapeText() const;
};

/// Every counted op and argument set of \p T, most kernel time first.
std::vector<OpRate> opRates(const model::Trace &T);

} // namespace tracelint::rules::detect

#endif
