//===- analysis/PathAnalysis.cpp ------------------------------------------===//
#include "analysis/PathAnalysis.h"
#include "support/Statistics.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"

#include <algorithm>
#include <atomic>
#include <cmath>

using namespace tracelint;
using namespace tracelint::analysis;

PathModel::PathModel(const TraceIndex &Ctx, unsigned J)
    : PathModel(Ctx, J, nullptr) {}

PathModel::PathModel(const TraceIndex &Ctx, unsigned J,
                     const std::atomic<bool> *Stop)
    : C(Ctx),
      Jobs(J ? J
             : llvm::heavyweight_hardware_concurrency().compute_thread_count()),
      G(Ctx, Stop), CP(Ctx, G), Targets(targetIntervals(Ctx)) {}

void PathModel::forEachRun(
    size_t N, llvm::function_ref<void(size_t, const CriticalPath &)> Fn) const {
  // Steps are taken a few at a time from a shared counter, so that a
  // thread that drew short steps takes more.
  constexpr size_t Batch = 8;
  const size_t Threads =
      std::min<size_t>(std::max(1u, Jobs), (N + Batch - 1) / Batch);
  std::atomic<size_t> Next{0};
  auto Work = [&](const CriticalPath &P) {
    for (size_t From = Next.fetch_add(Batch); From < N;
         From = Next.fetch_add(Batch))
      for (size_t K = From; K < std::min(N, From + Batch); ++K)
        Fn(K, P);
  };
  if (Threads <= 1) {
    Work(CP);
    return;
  }
  llvm::ThreadPool Pool(llvm::hardware_concurrency(unsigned(Threads - 1)));
  for (size_t I = 1; I < Threads; ++I)
    Pool.async([&] {
      CriticalPath Own(C, G);
      Work(Own);
    });
  Work(CP);
  Pool.wait();
}

const std::vector<int64_t> &PathModel::lengths() const {
  return Lengths.get([&] {
    WhatIfQuery None;
    std::vector<int64_t> Out(Targets.size());
    forEachRun(Targets.size(), [&](size_t I, const CriticalPath &P) {
      Out[I] = P.lengthWithout(Targets[I], None);
    });
    return Out;
  });
}

std::vector<size_t> PathModel::steadyTargets() const {
  const auto &L = lengths();
  std::vector<size_t> Out;
  // The steady steps of the trace index (TraceIndex::steadySteps); without
  // steps the one target is the window.
  size_t First = 0;
  if (Targets.size() == C.steps().size())
    First = C.steps().size() - C.steadySteps().size();
  for (size_t I = First; I < Targets.size(); ++I)
    if (L[I] >= 0)
      Out.push_back(I);
  if (Out.empty())
    for (size_t I = 0; I < First; ++I)
      if (L[I] >= 0)
        Out.push_back(I);
  return Out;
}

/// The median, or -1 when there is nothing to take it of.
static int64_t median(std::vector<int64_t> V) {
  return V.empty() ? -1 : support::medianInPlace(V);
}

int64_t PathModel::medianGain(const WhatIfQuery &Q) const {
  return gainSpread(Q).Median;
}

/// The key of a query in PathModel's prepared spreads.
static std::pair<unsigned long long, std::vector<std::string>>
keyOf(const WhatIfQuery &Q) {
  return {Q.Categories.to_ullong(), Q.Names};
}

void PathModel::prepareGains(llvm::ArrayRef<WhatIfQuery> Qs) const {
  if (Qs.empty())
    return;
  // The step's own length is the empty query's: one walk per target gives
  // it and every query's (CriticalPath::lengthsWithout).
  std::vector<WhatIfQuery> All(1);
  All.insert(All.end(), Qs.begin(), Qs.end());
  std::vector<std::vector<int64_t>> Len(Targets.size());
  forEachRun(Targets.size(), [&](size_t I, const CriticalPath &P) {
    Len[I] = P.lengthsWithout(Targets[I], All);
  });
  const auto &L = Lengths.get([&] {
    std::vector<int64_t> Out;
    for (const std::vector<int64_t> &V : Len)
      Out.push_back(V.front());
    return Out;
  });
  const std::vector<size_t> Steady = steadyTargets();
  for (size_t Q = 0; Q < Qs.size(); ++Q) {
    std::vector<int64_t> Gains;
    for (size_t I : Steady)
      Gains.push_back(std::max<int64_t>(0, L[I] - Len[I][Q + 1]));
    Prepared[keyOf(Qs[Q])] = spreadOf(std::move(Gains));
  }
}

PathModel::GainSpread PathModel::gainSpread(const WhatIfQuery &Q) const {
  if (auto It = Prepared.find(keyOf(Q)); It != Prepared.end())
    return It->second;
  const auto &L = lengths();
  const std::vector<size_t> Steady = steadyTargets();
  std::vector<int64_t> Gains(Steady.size());
  forEachRun(Steady.size(), [&](size_t K, const CriticalPath &P) {
    const size_t I = Steady[K];
    Gains[K] = std::max<int64_t>(0, L[I] - P.lengthWithout(Targets[I], Q));
  });
  return spreadOf(std::move(Gains));
}

PathModel::GainSpread PathModel::spreadOf(std::vector<int64_t> Gains) {
  GainSpread S;
  S.Steps = Gains.size();
  if (Gains.empty())
    return S;
  llvm::sort(Gains);
  S.Median = support::median(Gains);
  S.Q1 = int64_t(std::llround(support::quantileOfSorted(Gains, 0.25)));
  S.Q3 = int64_t(std::llround(support::quantileOfSorted(Gains, 0.75)));
  return S;
}

int64_t PathModel::medianLength() const {
  const auto &L = lengths();
  std::vector<int64_t> V;
  for (size_t I : steadyTargets())
    V.push_back(L[I]);
  return median(std::move(V));
}

const std::array<int64_t, NumPathCategories> &
PathModel::medianCategories() const {
  return Categories.get([&] {
    const std::vector<size_t> Steady = steadyTargets();
    std::vector<std::array<int64_t, NumPathCategories>> ByStep(Steady.size());
    forEachRun(Steady.size(), [&](size_t S, const CriticalPath &P) {
      ByStep[S] = P.analyze(Targets[Steady[S]]).ByCategory;
    });
    std::array<std::vector<int64_t>, NumPathCategories> Per;
    for (const auto &Step : ByStep)
      for (unsigned K = 0; K < NumPathCategories; ++K)
        Per[K].push_back(Step[K]);
    std::array<int64_t, NumPathCategories> Out{};
    for (unsigned K = 0; K < NumPathCategories; ++K)
      Out[K] = std::max<int64_t>(0, median(std::move(Per[K])));
    return Out;
  });
}

PathAnalysis PathModel::analyze(const PathOptions &Opts) const {
  PathAnalysis A;
  A.Targets = Targets;
  A.Lengths = lengths();
  A.DroppedEdges = G.droppedEdges();
  if (Targets.empty())
    return A;
  if (Opts.StepNumber) {
    A.Chosen = Targets.size();
    for (size_t I = 0; I < Targets.size(); ++I)
      if (Targets[I].StepNumber == *Opts.StepNumber)
        A.Chosen = I;
    if (A.Chosen == Targets.size())
      return A; // the caller reports the unknown step
  } else {
    // The steady step whose step time (its host range, the one step
    // definition) is the median, the lower middle: the step that lint's
    // median step time stands for.
    std::vector<size_t> S = steadyTargets();
    if (S.empty())
      S.push_back(0);
    llvm::stable_sort(S, [&](size_t X, size_t Y) {
      return Targets[X].HostRange.length() < Targets[Y].HostRange.length();
    });
    A.Chosen = S[(S.size() - 1) / 2];
  }
  const TargetInterval &X = Targets[A.Chosen];
  A.Path = CP.analyze(X);
  BusyAttribution B(C, G);
  A.Devices = B.attribute(X.Range);
  if (!A.Path.HasPath)
    return A;

  std::vector<WhatIfQuery> Queries;
  // Categories on the path, and waits always: removing a wait can help
  // even when no waiting is left on the path (the wait delayed the next
  // submission, whose time is on the path as launch or host work).
  for (unsigned I = 0; I < NumPathCategories; ++I)
    if ((A.Path.ByCategory[I] > 0 &&
         PathCategory(I) != PathCategory::Unlinked) ||
        PathCategory(I) == PathCategory::Wait) {
      WhatIfQuery Q;
      Q.Categories.set(I);
      Queries.push_back(Q);
    }
  const model::Trace &T = C.trace();
  auto AddName = [&](model::StringId Id) {
    if (Id == model::EmptyString)
      return;
    std::string N = T.Strings.get(Id).str();
    for (const WhatIfQuery &Q : Queries)
      if (Q.Names.size() == 1 && Q.Names[0] == N)
        return;
    WhatIfQuery Q;
    Q.Names.push_back(N);
    Queries.push_back(Q);
  };
  for (size_t I = 0; I < A.Path.Chains.size() && I < Opts.TopChains; ++I) {
    AddName(A.Path.Chains[I].Op);
    AddName(A.Path.Chains[I].Work);
  }
  for (const WhatIfQuery &Q : Opts.ExtraQueries)
    Queries.push_back(Q);
  for (WhatIfQuery &Q : Queries) {
    WhatIfResult R;
    R.LengthNs = CP.lengthWithout(X, Q);
    R.GainNs = std::max<int64_t>(0, A.Path.LengthNs - R.LengthNs);
    R.Query = std::move(Q);
    A.WhatIfs.push_back(std::move(R));
  }
  llvm::stable_sort(A.WhatIfs,
                    [](const WhatIfResult &P, const WhatIfResult &Q) {
                      return P.GainNs > Q.GainNs;
                    });
  if (A.Path.Chains.size() > Opts.TopChains)
    A.Path.Chains.resize(Opts.TopChains);
  return A;
}
