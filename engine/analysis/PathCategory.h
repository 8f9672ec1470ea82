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
  Compute,       ///< device kernels (not communication)
  Copy,          ///< device copies
  Memset,        ///< device memsets
  Communication, ///< collective (NCCL/RCCL) kernels
  Launch,        ///< host inside a launch (submission) API call
  Wait,          ///< host blocked in a wait beyond the work it awaited
  DataLoading,   ///< host inside a data-loader range
  HostOther,     ///< other host work, named by the innermost event
  HostUntraced,  ///< host time with no event recorded on the thread
  LaunchLatency, ///< from a launch call's return to its work's start
  DeviceGap,     ///< device work started later than its recorded
                 ///< dependencies allow (an unrecorded dependency)
  Unlinked,      ///< before work that has no recorded dependency at all
};
constexpr unsigned NumPathCategories =
    static_cast<unsigned>(PathCategory::Unlinked) + 1;

/// Short machine name: "compute", "launch", "data-loading", ...
llvm::StringRef pathCategoryName(PathCategory C);
/// Words for reports: "host: submitting (launch API)".
llvm::StringRef pathCategoryTitle(PathCategory C);
/// Parses a machine name; false when \p Name is none.
bool parsePathCategory(llvm::StringRef Name, PathCategory &C);

inline bool isDeviceCategory(PathCategory C) {
  return C <= PathCategory::Communication;
}

} // namespace tracelint::analysis

#endif
