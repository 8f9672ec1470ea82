//===- analysis/Teardown.h - Teardown calls at the end of a window -*- C++ -*-//
//
// What a program does after its last submission to release what it holds:
// deallocation, module unloading, context and handle destruction. U003
// reports it, U001 leaves it out of start-up, and `tracelint diff` measures
// it as the teardown-time feature.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_ANALYSIS_TEARDOWN_H
#define TRACELINT_ANALYSIS_TEARDOWN_H

#include "analysis/TraceIndex.h"

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace tracelint::analysis {

enum TeardownCategory : unsigned {
  ModuleUnload,
  Deallocation,
  ContextDestruction,
  HandleDestruction,
  NumTeardownCategories
};
const char *teardownCategoryName(unsigned C);

/// The teardown category of a runtime or driver call by name: module and
/// library unloading, deallocation (not the stream-ordered Async forms),
/// context and device destruction, and stream, event and graph destruction.
std::optional<TeardownCategory> teardownCategory(llvm::StringRef Name);

/// The end of the window's last submission (a launch or copy call) on any
/// host thread; INT64_MAX when no thread submits.
int64_t lastSubmissionEnd(const TraceIndex &Ctx);

/// The runtime and driver calls of a teardown category that start at or
/// after lastSubmissionEnd(), as event indices in lane order.
std::vector<uint32_t> teardownCalls(const TraceIndex &Ctx);

} // namespace tracelint::analysis

#endif
