//===- support/Statistics.h - Medians and quantiles -------------*- C++ -*-===//
//
// The one definition of the median and of quantiles that every layer uses,
// so that `stats`, `path`, `diff` and every rule agree on the median step
// time to the nanosecond.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_SUPPORT_STATISTICS_H
#define TRACELINT_SUPPORT_STATISTICS_H

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <vector>

namespace tracelint::support {

/// The middle value of \p V, or for an even count the mean of the two middle
/// values rounded down (never overflowing); 0 when \p V is empty. Reorders
/// \p V (linear time, no full sort).
int64_t medianInPlace(std::vector<int64_t> &V);
/// The same on a copy.
int64_t median(std::vector<int64_t> V);
/// The same for real numbers: the exact mean of the two middle values.
double median(std::vector<double> V);

/// The \p Q quantile (0 <= Q <= 1) of \p Sorted (ascending), by linear
/// interpolation between the order statistics around Q * (N - 1), as
/// NumPy's default does; 0 when \p Sorted is empty.
double quantileOfSorted(llvm::ArrayRef<int64_t> Sorted, double Q);

} // namespace tracelint::support

#endif
