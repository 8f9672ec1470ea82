//===- model/Intervals.cpp ------------------------------------------------===//
#include "model/Intervals.h"
#include "model/Trace.h"
#include "support/SortRuns.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>

using namespace tracelint::model;

IntervalSet IntervalSet::unionOf(std::vector<Interval> In) {
  llvm::erase_if(In, [](const Interval &I) { return I.End <= I.Begin; });
  // The intervals usually come as a few runs already in order (each
  // lane's or stream's, one after another).
  support::sortRuns(In, [](const Interval &A, const Interval &B) {
    return A.Begin < B.Begin || (A.Begin == B.Begin && A.End < B.End);
  });
  IntervalSet S;
  for (const Interval &I : In) {
    if (!S.Parts.empty() && I.Begin <= S.Parts.back().End) {
      S.Parts.back().End = std::max(S.Parts.back().End, I.End);
      continue;
    }
    S.Parts.push_back(I);
  }
  return S;
}

int64_t IntervalSet::length() const {
  int64_t N = 0;
  for (const Interval &I : Parts)
    N += I.length();
  return N;
}

/// The first part of \p Parts that ends after \p T: a binary search, so that
/// a question about a short window costs the window's parts, not the set's.
static const Interval *firstEndingAfter(llvm::ArrayRef<Interval> Parts,
                                        int64_t T) {
  return std::upper_bound(
      Parts.begin(), Parts.end(), T,
      [](int64_t V, const Interval &I) { return V < I.End; });
}

int64_t IntervalSet::lengthWithin(Interval W) const {
  int64_t N = 0;
  for (const Interval *It = firstEndingAfter(Parts, W.Begin);
       It != Parts.data() + Parts.size() && It->Begin < W.End; ++It)
    N += std::max<int64_t>(0, std::min(It->End, W.End) -
                                  std::max(It->Begin, W.Begin));
  return N;
}

std::vector<Interval> IntervalSet::gapsWithin(Interval W) const {
  std::vector<Interval> Gaps;
  int64_t Cursor = W.Begin;
  for (const Interval *It = firstEndingAfter(Parts, W.Begin);
       It != Parts.data() + Parts.size() && It->Begin < W.End; ++It) {
    if (It->Begin > Cursor)
      Gaps.push_back({Cursor, It->Begin});
    Cursor = std::max(Cursor, It->End);
  }
  if (Cursor < W.End)
    Gaps.push_back({Cursor, W.End});
  return Gaps;
}

int64_t IntervalSet::coveredWithin(llvm::ArrayRef<const IntervalSet *> Sets,
                                   Interval W) {
  std::vector<Interval> Within;
  for (const IntervalSet *S : Sets)
    for (const Interval *It = firstEndingAfter(S->Parts, W.Begin);
         It != S->Parts.data() + S->Parts.size() && It->Begin < W.End; ++It)
      Within.push_back(
          {std::max(It->Begin, W.Begin), std::min(It->End, W.End)});
  return unionOf(std::move(Within)).length();
}

IntervalSet IntervalSet::intersect(const IntervalSet &Other) const {
  // Walk the smaller set and search the larger one for each of its parts:
  // rules intersect a device's busy union (a part per kernel) with the
  // ranges of one step, once per step.
  const IntervalSet &Small = Parts.size() <= Other.Parts.size() ? *this : Other;
  const IntervalSet &Large = &Small == this ? Other : *this;
  llvm::ArrayRef<Interval> L = Large.Parts;
  IntervalSet Out;
  for (const Interval &S : Small.Parts)
    for (const Interval *It = firstEndingAfter(L, S.Begin);
         It != L.end() && It->Begin < S.End; ++It) {
      int64_t B = std::max(S.Begin, It->Begin);
      int64_t E = std::min(S.End, It->End);
      if (B < E)
        Out.Parts.push_back({B, E});
    }
  return Out;
}

std::vector<int64_t> tracelint::model::exclusiveTimes(const Trace &T) {
  std::vector<int64_t> Self(T.Events.size());
  for (size_t I = 0; I < T.Events.size(); ++I)
    Self[I] = T.Events[I].Duration;
  for (const Event &E : T.Events) {
    if (E.Parent == NoIndex)
      continue;
    const Event &P = T.Events[E.Parent];
    int64_t Clipped = std::max<int64_t>(0, std::min(E.end(), P.end()) -
                                               std::max(E.Start, P.Start));
    Self[E.Parent] -= Clipped;
  }
  for (int64_t &S : Self)
    S = std::max<int64_t>(S, 0);
  return Self;
}
