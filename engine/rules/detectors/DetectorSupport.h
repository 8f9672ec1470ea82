//===- rules/detectors/DetectorSupport.h - Shared detector helpers -*- C++ -*-//
//
// Small helpers that every built-in detector uses, so that they agree on how
// options default, how numbers are written into {placeholders}, how the
// windows of a rule (steady steps, or the whole window) are chosen and how
// example events are described.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_RULES_DETECTORS_DETECTORSUPPORT_H
#define TRACELINT_RULES_DETECTORS_DETECTORSUPPORT_H

#include "analysis/TraceIndex.h"
#include "rules/Finding.h"
#include "rules/RuleSpec.h"
#include "support/Statistics.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace tracelint::rules::detect {

/// The option's configured value, or \p Fallback when the run has no value
/// for it (unit tests, or a user rule that names the detector but omits the
/// option). Fallbacks equal the defaults in the rule's TOML file.
double optionOr(const RuleOptions &Opts, llvm::StringRef Name, double Fallback);

/// "12.3 ms", "41.2 %", "1.5 MB": the report's own formatting.
std::string dur(int64_t Ns);
std::string pct(double Fraction);
std::string bytes(int64_t B);

using support::median;

/// The intervals a rule measures in: the steady steps (all steps after the
/// first when there are at least three, else every step), or the whole
/// window when the trace has no steps.
struct MeasureWindows {
  std::vector<model::Interval> Ranges;
  std::vector<int64_t> StepNumbers; ///< parallel to Ranges; -1: the window
  bool Steps = false;
  /// "steps 3-7", "step 12", or "the whole window".
  std::string describe() const;
  /// The index of the range holding the instant \p At (ranges are sorted
  /// and disjoint), or Ranges.size() when none does.
  size_t indexOf(int64_t At) const;
  /// Sets the placeholders that say what a figure is measured over:
  /// {window} (describe()), {per} ("per step" or "in the window"), {unit}
  /// ("step" or "window") and {metric} ("median step time" or "the
  /// window's length").
  void describeInto(std::map<std::string, std::string> &Values) const;
};
MeasureWindows measureWindows(const analysis::TraceIndex &Ctx);

/// Selected device work measured in a rule's windows: unions, so that
/// concurrent events are never counted twice.
struct WorkMeasure {
  /// The union of the selected work inside each window (parallel to
  /// MeasureWindows::Ranges).
  std::vector<int64_t> PerWindow;
  int64_t UnionNs = 0; ///< the sum of PerWindow
  int64_t BusyNs = 0;  ///< all device work's union inside the windows
  uint64_t Count = 0;  ///< selected events that start inside a window
  int64_t medianPerWindow() const { return median(PerWindow); }
  double shareOfBusy() const {
    return BusyNs > 0 ? double(UnionNs) / double(BusyNs) : 0.0;
  }
};
/// Measures the device events \p Work (indices into the trace) in \p Win.
/// An event belongs to the window that its start falls in; events outside
/// every window are ignored.
WorkMeasure measureWork(const analysis::TraceIndex &Ctx, const MeasureWindows &Win,
                        llvm::ArrayRef<uint32_t> Work);

/// A what-if query naming the events \p Events (indices into the trace), for
/// a finding's critical-path cap: every event of those names taking no time.
/// Other events sharing a name are removed too, which loosens the bound but
/// keeps it an upper bound.
analysis::WhatIfQuery namesQuery(const model::Trace &T,
                                 llvm::ArrayRef<uint32_t> Events);

/// The device work launched from inside the host event \p Op (an index
/// into the trace): the device events of every runtime or driver call on
/// its lane that starts within it, in lane order.
std::vector<uint32_t> workLaunchedWithin(const model::Trace &T, uint32_t Op);

/// The distinct names of \p Events (indices into the trace), the most
/// frequent first (ties by name).
std::vector<std::string> namesByCount(const model::Trace &T,
                                      llvm::ArrayRef<uint32_t> Events);

/// The entries of \p Groups (a finding's sites, by name), the largest
/// \p Key(group) first, ties by name: the order in which findings list
/// their sites and pick their subject.
template <typename Group, typename KeyFn>
std::vector<const std::pair<const std::string, Group> *>
rankByKey(const std::map<std::string, Group> &Groups, KeyFn Key) {
  std::vector<const std::pair<const std::string, Group> *> Ranked;
  Ranked.reserve(Groups.size());
  for (const auto &Entry : Groups)
    Ranked.push_back(&Entry);
  llvm::sort(Ranked, [&](const auto *A, const auto *B) {
    auto KA = Key(A->second), KB = Key(B->second);
    if (KA != KB)
      return KA > KB;
    return A->first < B->first;
  });
  return Ranked;
}

/// An example event for the report.
ExampleEvent example(const analysis::TraceIndex &Ctx, const model::Event &E);

/// The innermost framework op enclosing (or equal to) \p E on its lane, or
/// nullptr.
const model::Event *enclosingOp(const model::Trace &T, const model::Event &E);

/// What \p E is called from: its nearest enclosing op, annotation or
/// nn.Module frame, or model::NoIndex. Python frames of the call itself
/// (with_stack wraps every op in "<built-in method ...>" frames) are looked
/// through, so that the ops of one forward() share a container with or
/// without stacks.
uint32_t opContainer(const model::Trace &T, const model::Event &E);

/// True when \p W is the synchronization that flushes queued work at the end
/// of the profiled window: it starts after the last step ends, or, without
/// steps, no host call submits device work after it returns. Such a wait is
/// a profiling/teardown artifact, not an application defect.
bool isFlushWait(const analysis::TraceIndex &Ctx, const analysis::HostWait &W);

/// True for a host range that marks the input pipeline producing a batch:
/// the `enumerate(DataLoader)#<Iter>.__next__` and `enumerate(DataPipe)#...`
/// ranges that PyTorch records around each next() of a loader, and the
/// Python frame of a DataLoader iterator's `__next__` (with_stack=True).
bool isDataLoaderRange(const model::Trace &T, const model::Event &E);

/// The data-loader ranges (isDataLoaderRange) of the host threads that
/// submit device work, or of every host thread when no thread submits (a
/// trace without runtime calls), as event indices in lane order. Ranges on
/// a thread that does not feed the device (a prefetching thread) do not
/// hold the device back and are left out.
std::vector<uint32_t> dataLoaderEvents(const analysis::TraceIndex &Ctx);
/// The union of the ranges of dataLoaderEvents().
model::IntervalSet dataLoaderRanges(const analysis::TraceIndex &Ctx);

/// An upper bound on the gain, inside \p Range, from removing the host waits
/// \p Waits (any lanes; the parts outside the range are ignored). Removing a
/// wait lets its thread submit earlier by at most the wait's length, and the
/// time saved can only be device idle time from the wait's start to the
/// device's next work. The waits before the same device work form a group,
/// credited with min(their summed length, the idle time from the group's
/// first start to that work); idle time that an earlier group already
/// claimed is not counted again. The sum is taken on each device fed by the
/// waiting threads, and the largest is returned.
int64_t waitsGainBound(const analysis::TraceIndex &Ctx,
                       llvm::ArrayRef<analysis::HostWait> Waits,
                       model::Interval Range);

/// True for the host events that can say what a host thread was doing at
/// an instant: ops, Python frames, annotations other than step markers,
/// runtime, driver and OS-runtime calls.
bool isHostActivity(const model::Trace &T, const model::Event &E);

/// Splits \p Piece of host lane \p Lane by the innermost host activity
/// (isHostActivity) covering each instant and calls \p Fn(event index, ns)
/// for each part, with model::NoIndex for time outside any of them.
void forInnermostActivity(const model::Trace &T, uint32_t Lane,
                          model::Interval Piece,
                          llvm::function_ref<void(uint32_t, int64_t)> Fn);

/// What a host runtime/driver call does to device memory.
enum class AllocatorCall : uint8_t { None, Malloc, Free };
/// Classifies device-memory allocation and release calls of the CUDA/HIP
/// runtime and the CUDA driver API: Malloc, MallocAsync,
/// hipExtMallocWithFlags, cuMemAlloc(_v2), cuMemAllocAsync and the
/// FromPool forms; Free, FreeAsync, cuMemFree(_v2), cuMemFreeAsync. Pinned
/// host, managed and pitched allocations are other designs: None.
AllocatorCall allocatorCall(const model::Event &E, llvm::StringRef Name);

/// "a, b and c" from up to \p Max names.
std::string joinNames(llvm::ArrayRef<std::string> Names, size_t Max = 3);

} // namespace tracelint::rules::detect

#endif
