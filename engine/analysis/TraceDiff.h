//===- analysis/TraceDiff.h - Two traces of one workload --------*- C++ -*-===//
//
// `tracelint diff BEFORE AFTER` compares two traces of the same workload,
// recorded before and after one change: the target metric (median step time
// and its spread), the kernel inventory, launches, copies by kind,
// synchronizations and allocations, and warnings about differences that make
// the comparison unfair (device, shapes, dtypes, step count, profiler
// settings). Whether each finding's prediction held is rules/Predictions.h.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_ANALYSIS_TRACEDIFF_H
#define TRACELINT_ANALYSIS_TRACEDIFF_H

#include "analysis/Stats.h"
#include "analysis/TraceIndex.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tracelint::analysis {

/// The target metric of one trace.
struct MetricSummary {
  bool FromSteps = false; ///< false: no steps, the window stands in
  uint64_t Steps = 0;     ///< steady steps measured
  int64_t MedianNs = 0;   ///< median steady step, or the window length
  /// Interquartile range of the steady steps (0 with fewer than 2).
  int64_t SpreadNs = 0;
  int64_t MinNs = 0, MaxNs = 0;
  std::string Description; ///< TraceIndex::describeTarget()
};
MetricSummary summarizeMetric(const TraceIndex &Ctx);

/// One kernel name present in either trace.
struct KernelChange {
  enum class Kind : uint8_t { Added, Removed, Changed };
  Kind Change = Kind::Changed;
  std::string Name;
  uint64_t CountBefore = 0, CountAfter = 0;
  int64_t TimeBefore = 0, TimeAfter = 0; ///< summed device time, ns
};

/// A counted quantity before and after (launches, copies of a kind...).
struct CountChange {
  std::string What;
  int64_t Before = 0, After = 0;
  bool IsTime = false; ///< ns; otherwise a count (or bytes when IsBytes)
  bool IsBytes = false;
};

struct TraceDiff {
  MetricSummary Before, After;
  /// After / before median, when both come from steps.
  std::optional<double> Ratio;
  /// Added, removed and changed kernels (count differs, or time by more than
  /// 10 %), by the size of the time change, largest first.
  std::vector<KernelChange> Kernels;
  uint64_t KernelsUnchanged = 0;
  /// Launches, kernels, copies by kind (count, bytes, time), memsets, host
  /// waits by kind (count, time), allocations: whole-trace totals.
  std::vector<CountChange> Counts;
  /// Why the comparison may be unfair.
  std::vector<std::string> Warnings;
  /// The warnings that make it unfair outright (other devices, another
  /// world size, steps cut at other markers): no finding's prediction can be
  /// judged, each is "not comparable" with the first of these.
  std::vector<std::string> NotComparable;
};

/// \p SB and \p SA must be computed with StatsOptions::TopN = 0 (every
/// kernel), or the inventory only covers the top ones.
TraceDiff diffTraces(const TraceIndex &Before, const TraceStats &SB,
                     const TraceIndex &After, const TraceStats &SA);

} // namespace tracelint::analysis

#endif
