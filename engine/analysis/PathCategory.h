//===- analysis/PathCategory.h - What a stretch of the path was -*- C++ -*-===//
//
// Every edge of the dependency graph, and so every nanosecond of a critical
// path, belongs to one category: device work by kind, what the host was
// doing, or a delay that the trace records but does not explain.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_ANALYSIS_PATHCATEGORY_H
#define TRACELINT_ANALYSIS_PATHCATEGORY_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>

namespace tracelint::analysis {

enum class PathCategory : uint8_t {
  Compute,              ///< device kernels (not communication)
  Copy,                 ///< device copies
  Memset,               ///< device memsets
  Communication,        ///< communication kernels (EventKind::Collective)
  Launch,               ///< host on its launch path: inside a launch
                        ///< (submission) call or an op that submits work
  Wait,                 ///< host blocked in a wait beyond the work it awaited
  DataLoading,          ///< host inside a data-loader range
  HostOther,            ///< other host work, named by the innermost event
  HostUntraced,         ///< host time with no event recorded on the thread
  Startup,              ///< host in one-off start-up work (slow first calls,
                        ///< allocation, compilation, graph capture)
  Profiler,             ///< host in the profiler's own activity
  LaunchLatency,        ///< the ordinary delay from ready to start on a free
                        ///< device, up to LaunchLatencyBoundNs
  Queued,               ///< ready work waiting while the device ran other work
  UnrecordedDependency, ///< device work started later than its recorded
                        ///< dependencies and a free device allow
  Unlinked,             ///< before work that has no recorded dependency
};
constexpr unsigned NumPathCategories =
    static_cast<unsigned>(PathCategory::Unlinked) + 1;

/// Short machine name: "compute", "launch", "data-loading", ...
llvm::StringRef pathCategoryName(PathCategory C);
/// Words for reports: "host: submitting (launch API)".
llvm::StringRef pathCategoryTitle(PathCategory C);
/// Parses a machine name; false when \p Name is none.
bool parsePathCategory(llvm::StringRef Name, PathCategory &C);

/// The longest delay between device work becoming ready (its launch call
/// returned, its stream predecessor ended) and its start that counts as
/// ordinary launch latency: submission and scheduling take a few to tens of
/// microseconds. The part of a delay beyond it, on a free device, is an
/// unrecorded dependency. The idle split uses the same bound.
constexpr int64_t LaunchLatencyBoundNs = 50'000;

/// Delay categories: time the path spends between a dependency and the
/// device work that waited for it.
inline bool isDelayCategory(PathCategory C) {
  return C == PathCategory::LaunchLatency || C == PathCategory::Queued ||
         C == PathCategory::UnrecordedDependency;
}

inline bool isDeviceCategory(PathCategory C) {
  return C <= PathCategory::Communication;
}

} // namespace tracelint::analysis

#endif
