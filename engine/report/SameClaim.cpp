//===- report/SameClaim.cpp - Findings about the same wait or copy --------===//
#include "report/SameClaim.h"

#include <numeric>

using namespace tracelint;
using namespace tracelint::report;
using rules::ExampleEvent;
using rules::Finding;

namespace {

/// Two findings that claim the same kind of thing (their rules'
/// `[signature] claims`), from different rules.
bool claimAlike(const Finding &A, const Finding &B) {
  return !A.Claims.empty() && A.Claims == B.Claims && A.Code != B.Code;
}

bool overlap(const ExampleEvent &A, const ExampleEvent &B) {
  int64_t AEnd = A.OffsetNs + std::max<int64_t>(A.DurationNs, 0);
  int64_t BEnd = B.OffsetNs + std::max<int64_t>(B.DurationNs, 0);
  if (A.OffsetNs == B.OffsetNs)
    return true;
  return A.OffsetNs < BEnd && B.OffsetNs < AEnd;
}

bool sameEvent(const Finding &A, const Finding &B) {
  for (const ExampleEvent &X : A.Examples)
    for (const ExampleEvent &Y : B.Examples)
      if (overlap(X, Y))
        return true;
  return false;
}

size_t root(std::vector<size_t> &Parent, size_t I) {
  while (Parent[I] != I)
    I = Parent[I] = Parent[Parent[I]];
  return I;
}

} // namespace

std::vector<size_t> report::claimLeads(llvm::ArrayRef<Finding> Findings) {
  const size_t N = Findings.size();
  std::vector<size_t> Parent(N);
  std::iota(Parent.begin(), Parent.end(), 0);
  for (size_t I = 0; I < N; ++I)
    for (size_t J = I + 1; J < N; ++J)
      if (claimAlike(Findings[I], Findings[J]) &&
          sameEvent(Findings[I], Findings[J]))
        Parent[root(Parent, J)] = root(Parent, I);
  // The lead of each group: the largest impact, then the better rank.
  std::vector<size_t> Best(N, N);
  for (size_t I = 0; I < N; ++I) {
    size_t &B = Best[root(Parent, I)];
    if (B == N || Findings[I].ImpactNs > Findings[B].ImpactNs)
      B = I;
  }
  std::vector<size_t> Leads(N);
  for (size_t I = 0; I < N; ++I)
    Leads[I] = Best[root(Parent, I)];
  return Leads;
}

std::vector<std::string> report::seeAlso(llvm::ArrayRef<Finding> Findings,
                                         llvm::ArrayRef<size_t> Leads,
                                         size_t I) {
  std::vector<std::string> Out;
  for (size_t J = 0; J < Findings.size(); ++J)
    if (J != I && Leads[J] == Leads[I])
      Out.push_back(Findings[J].Fingerprint);
  return Out;
}
