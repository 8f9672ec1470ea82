//===- analysis/HostTimeline.h - What a host thread was doing ---*- C++ -*-===//
//
// The host timeline: at every instant of a host thread, one cause, decided
// once in one documented order (docs/path.md, "The host timeline"). The idle
// split (TraceIndex::attributeIdle), the critical path's host categories
// (DependencyGraph), and the rules that name host work (L002, T005, D001)
// all read it through TraceIndex::forEachHostStretch, so that no two of them
// can call the same nanosecond by two names. Perfetto's flat slices (the
// innermost slice at each instant, defined once and joined against by every
// analysis) are the model.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_ANALYSIS_HOSTTIMELINE_H
#define TRACELINT_ANALYSIS_HOSTTIMELINE_H

#include "model/Intervals.h"
#include "model/Trace.h"

#include "llvm/ADT/StringRef.h"

#include <cstdint>

namespace tracelint::analysis {

/// What a host thread is doing at an instant. The order is the precedence:
/// the first that applies wins.
enum class HostCause : uint8_t {
  Wait,        ///< inside one of the thread's host waits (hostWaits())
  Profiler,    ///< inside the profiler's own work (profilerRanges())
  Startup,     ///< inside one-off start-up work (startupRanges())
  Submission,  ///< inside a call that submits device work
  DataLoading, ///< inside one of the thread's data-loader ranges
  LaunchPath,  ///< elsewhere on the launch path: op dispatch, glue
  Other,       ///< inside other recorded host activity, or inside no
               ///< recorded event in a host phase whose OS runtime calls
               ///< are traced (TraceIndex::osTracedPhases; no Innermost)
  Untraced,    ///< inside no recorded event (a step range does not count)
};
constexpr unsigned NumHostCauses = unsigned(HostCause::Untraced) + 1;

/// "wait", "profiler", "start-up", "submission", "data loading", "launch
/// path", "host work", "untraced".
llvm::StringRef hostCauseName(HostCause C);

/// One stretch of a host thread with a single cause and innermost event.
struct HostStretch {
  model::Interval Range;
  HostCause Cause = HostCause::Untraced;
  /// The innermost recorded host activity open over the stretch (an op,
  /// Python frame, annotation other than a step range, runtime, driver or
  /// OS call, profiler record), or model::NoIndex (untraced time, and host
  /// work between the OS calls of an OS-traced host phase); for a wait, the
  /// waiting call or op.
  uint32_t Innermost = model::NoIndex;
  /// For Cause == Wait: the index of the wait in TraceIndex::hostWaits().
  uint32_t Wait = model::NoIndex;
};

} // namespace tracelint::analysis

#endif
