//===- rules/detectors/GemmRates.h - Achieved rates of matrix products ----===//
//
// For each matrix-product op call with recorded shapes (aten::mm, addmm,
// bmm, baddbmm: the leaf ops that aten::matmul and aten::linear dispatch
// to), the FLOPs and bytes its shapes imply and the kernel time of the
// device work it launched, grouped by op, shapes and element type: the
// figures TraceLens reports per op and argument set, with the same
// conventions (docs/efficiency.md), so that the two can be compared.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_RULES_DETECTORS_GEMMRATES_H
#define TRACELINT_RULES_DETECTORS_GEMMRATES_H

#include "model/Trace.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tracelint::rules::detect {

/// One op and argument set, over its calls.
struct GemmRate {
  std::string Op;    ///< "aten::addmm"
  std::string Dtype; ///< the first input's element type, as recorded
  int64_t B = 1, M = 0, N = 0, K = 0;
  bool Bias = false;
  /// Per call: 2 B M N K, plus B M N for the bias add; the bytes of the
  /// inputs and the output (and the bias) at the element size.
  double Flops = 0, Bytes = 0;
  uint64_t Calls = 0; ///< calls whose kernels ran
  int64_t KernelNsMedian = 0, KernelNsTotal = 0;
  /// The median over calls of FLOPs / kernel time and bytes / kernel time.
  double TflopsMedian = 0, TbpsMedian = 0;
  double flopsPerByte() const { return Bytes > 0 ? Flops / Bytes : 0; }
};

/// The matrix products of \p T with recorded shapes and launched kernels,
/// most kernel time first.
std::vector<GemmRate> gemmRates(const model::Trace &T);

} // namespace tracelint::rules::detect

#endif
