//===- support/SortRuns.h - Ordering a few runs by merging -----*- C++ -*-===//
//
// Much of what tracelint orders arrives as a few runs already in order: each
// lane's or stream's work one after another, or the edges of a few interval
// sets. Merging the runs reads each element log(runs) times in order, where
// a sort compares elements scattered over the whole array n log n times.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_SUPPORT_SORTRUNS_H
#define TRACELINT_SUPPORT_SORTRUNS_H

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cstddef>
#include <vector>

namespace tracelint::support {

/// Merges the ordered runs of \p V that end at \p RunEnds (ascending, the
/// last one V.size()) into one, by \p Less: neighbouring runs pairwise
/// until one is left, n log(runs), each merge reading its runs in order.
template <typename T, typename Compare>
void mergeRuns(std::vector<T> &V, std::vector<size_t> RunEnds, Compare Less) {
  if (RunEnds.size() <= 1)
    return;
  std::vector<T> Buffer(V.size());
  while (RunEnds.size() > 1) {
    std::vector<size_t> Merged;
    size_t Begin = 0;
    for (size_t R = 0; R < RunEnds.size(); R += 2) {
      const size_t Mid = RunEnds[R];
      const size_t End = R + 1 < RunEnds.size() ? RunEnds[R + 1] : Mid;
      std::merge(V.begin() + Begin, V.begin() + Mid, V.begin() + Mid,
                 V.begin() + End, Buffer.begin() + Begin, Less);
      Merged.push_back(End);
      Begin = End;
    }
    V.swap(Buffer);
    RunEnds = std::move(Merged);
  }
}

/// Orders \p V by \p Less, as llvm::sort does. Up to \p MaxRuns ordered runs
/// are found and merged (mergeRuns); with more, \p V is sorted instead.
template <typename T, typename Compare>
void sortRuns(std::vector<T> &V, Compare Less, size_t MaxRuns = 64) {
  std::vector<size_t> Ends;
  for (size_t I = 1; I < V.size(); ++I)
    if (Less(V[I], V[I - 1])) {
      if (Ends.size() == MaxRuns) {
        llvm::sort(V, Less);
        return;
      }
      Ends.push_back(I);
    }
  Ends.push_back(V.size());
  mergeRuns(V, std::move(Ends), Less);
}

} // namespace tracelint::support

#endif
