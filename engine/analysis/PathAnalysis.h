//===- analysis/PathAnalysis.h - Completion, its path and bounds -*- C++
//-*-===//
//
// Puts the pieces together for one trace: the target interval of every
// step, the critical path of one step (by default the median steady step)
// with its attribution, each device's busy/idle split, and what-if bounds
// for the categories and the top ops and kernels on the path. PathModel
// keeps the graph so that the rule engine can ask bounds for its findings.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_ANALYSIS_PATHANALYSIS_H
#define TRACELINT_ANALYSIS_PATHANALYSIS_H

#include "analysis/Attribution.h"
#include "analysis/CriticalPath.h"
#include "analysis/DependencyGraph.h"
#include "analysis/TargetInterval.h"
#include "analysis/WhatIf.h"
#include "support/Lazy.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <array>
#include <map>
#include <memory>
#include <optional>
#include <vector>

namespace tracelint::analysis {

struct WhatIfResult {
  WhatIfQuery Query;
  int64_t LengthNs = 0; ///< the path's length without it
  int64_t GainNs = 0;   ///< recorded length minus LengthNs, at least 0
};

struct PathOptions {
  /// Analyse the step with this number instead of the median steady step.
  std::optional<int64_t> StepNumber;
  /// Chains listed (and named what-ifs drawn from them).
  unsigned TopChains = 10;
  /// Extra what-if queries to evaluate (`path --what-if`).
  std::vector<WhatIfQuery> ExtraQueries;
};

struct PathAnalysis {
  std::vector<TargetInterval> Targets;
  /// Path length of every target, parallel to Targets (-1: no path).
  std::vector<int64_t> Lengths;
  size_t Chosen = 0; ///< index into Targets of the analysed step
  StepPath Path;
  std::vector<DeviceAttribution> Devices;
  std::vector<WhatIfResult> WhatIfs; ///< largest gain first
  uint64_t DroppedEdges = 0;
};

/// The graph and path of one trace, built once.
class PathModel {
public:
  /// \p Jobs threads share the per-step path runs of lengths(),
  /// gainSpread() and medianCategories() (0: one per core). Every step's
  /// run is the same on any thread, so the figures do not depend on it.
  explicit PathModel(const TraceIndex &C, unsigned Jobs = 1);
  /// The same, building the graph until \p Stop is set: then the model is
  /// incomplete (stopped()) and must not be asked anything.
  PathModel(const TraceIndex &C, unsigned Jobs, const std::atomic<bool> *Stop);
  bool stopped() const { return G.stopped(); }
  const TraceIndex &context() const { return C; }
  const DependencyGraph &graph() const { return G; }
  const CriticalPath &path() const { return CP; }
  llvm::ArrayRef<TargetInterval> targets() const { return Targets; }
  /// Indices into targets() of the steady steps (TraceIndex::steadySteps)
  /// that have a path.
  std::vector<size_t> steadyTargets() const;
  /// The median over the steady steps of the gain of \p Q; -1 when no step
  /// has a path.
  int64_t medianGain(const WhatIfQuery &Q) const;
  /// The gain of \p Q over the steady steps: its median, quartiles and how
  /// many steps (Steps 0 when no step has a path).
  struct GainSpread {
    int64_t Median = -1, Q1 = -1, Q3 = -1;
    size_t Steps = 0;
  };
  GainSpread gainSpread(const WhatIfQuery &Q) const;
  /// Computes gainSpread() of each of \p Qs, and the steps' lengths if
  /// they are not known yet, from one walk of each step
  /// (CriticalPath::lengthsWithout) instead of one run per step and query;
  /// gainSpread() then answers them from what it kept. lint asks for every
  /// query its findings name at once.
  void prepareGains(llvm::ArrayRef<WhatIfQuery> Qs) const;
  /// The median path length over the steady steps (-1 without a path).
  int64_t medianLength() const;
  /// Per category, the median over the steady steps of the path's time in
  /// it (all zero without a path): where lint says the path shows time
  /// that a capped finding's query does not remove.
  const std::array<int64_t, NumPathCategories> &medianCategories() const;

  PathAnalysis analyze(const PathOptions &Opts) const;

private:
  const TraceIndex &C;
  unsigned Jobs;
  DependencyGraph G;
  CriticalPath CP;
  std::vector<TargetInterval> Targets;
  support::Lazy<std::vector<int64_t>> Lengths; ///< computed on first use
  support::Lazy<std::array<int64_t, NumPathCategories>> Categories;
  const std::vector<int64_t> &lengths() const;
  /// The spread of per-step gains (sorted here).
  static GainSpread spreadOf(std::vector<int64_t> Gains);
  /// prepareGains()'s spreads, by query.
  mutable std::map<std::pair<unsigned long long, std::vector<std::string>>,
                   GainSpread>
      Prepared;
  /// Calls \p Fn(K, Path) for every K in [0, N), shared among up to Jobs
  /// threads, each with a CriticalPath of its own (a run keeps scratch in
  /// it); the calling thread takes a share with CP. A path run takes
  /// microseconds to milliseconds per step, and every finding of lint asks
  /// for one per steady step: on large traces they cost as much as the
  /// graph.
  void
  forEachRun(size_t N,
             llvm::function_ref<void(size_t, const CriticalPath &)> Fn) const;
};

} // namespace tracelint::analysis

#endif
