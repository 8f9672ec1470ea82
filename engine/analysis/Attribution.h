//===- analysis/Attribution.h - Device busy/idle by cause -------*- C++ -*-===//
//
// Inside a target interval, each device is busy (the union of its work, and
// the union of each kind of work: overlap counts once) or idle. Idle time is
// split by the trace index's one idle attribution (TraceIndex::idleSplit,
// the split lint and stats show), and the other host work that ran while
// the device idled is named from the dependency graph's host stretches.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_ANALYSIS_ATTRIBUTION_H
#define TRACELINT_ANALYSIS_ATTRIBUTION_H

#include "analysis/DependencyGraph.h"
#include "analysis/TargetInterval.h"

#include <array>
#include <string>
#include <vector>

namespace tracelint::analysis {

struct DeviceAttribution {
  int32_t Device = -1;
  uint32_t HostLane = model::NoIndex; ///< the thread that feeds it most
  int64_t BusyNs = 0;                 ///< union of all its work
  std::array<int64_t, NumBusyKinds> BusyByKind{}; ///< union per kind
  int64_t IdleNs = 0;
  /// The idle time by cause: TraceIndex::idleSplit over the range.
  TargetIdle Split;
  /// Idle time while the feeding thread ran other host work (the graph's
  /// host-other stretches), by innermost event name, longest first (at
  /// most 5): the names behind the split's other host work.
  std::vector<std::pair<model::StringId, int64_t>> IdleOtherWork;
};

/// Each device's busy and idle time inside a range, from the trace index's
/// busy unions and the graph's host stretches.
class BusyAttribution {
public:
  BusyAttribution(const TraceIndex &C, const DependencyGraph &G);
  std::vector<DeviceAttribution> attribute(model::Interval Range) const;

private:
  const TraceIndex &C;
  const DependencyGraph &G;
};

} // namespace tracelint::analysis

#endif
