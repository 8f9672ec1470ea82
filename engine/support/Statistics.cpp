//===- support/Statistics.cpp ---------------------------------------------===//
#include "support/Statistics.h"

#include <algorithm>
#include <cmath>

using namespace tracelint;

int64_t support::medianInPlace(std::vector<int64_t> &V) {
  size_t N = V.size();
  if (!N)
    return 0;
  auto Mid = V.begin() + N / 2;
  std::nth_element(V.begin(), Mid, V.end());
  int64_t Upper = *Mid;
  if (N % 2)
    return Upper;
  // nth_element leaves everything before Mid no larger than it: the lower
  // middle value is the largest of them.
  int64_t Lower = *std::max_element(V.begin(), Mid);
  return Lower + (Upper - Lower) / 2;
}

int64_t support::median(std::vector<int64_t> V) { return medianInPlace(V); }

double support::median(std::vector<double> V) {
  size_t N = V.size();
  if (!N)
    return 0;
  auto Mid = V.begin() + N / 2;
  std::nth_element(V.begin(), Mid, V.end());
  if (N % 2)
    return *Mid;
  return (*std::max_element(V.begin(), Mid) + *Mid) / 2;
}

double support::quantileOfSorted(llvm::ArrayRef<int64_t> Sorted, double Q) {
  size_t N = Sorted.size();
  if (!N)
    return 0;
  Q = std::clamp(Q, 0.0, 1.0);
  double Pos = Q * double(N - 1);
  size_t Lo = size_t(std::floor(Pos));
  size_t Hi = std::min(N - 1, Lo + 1);
  double Frac = Pos - double(Lo);
  return double(Sorted[Lo]) + Frac * double(Sorted[Hi] - Sorted[Lo]);
}
