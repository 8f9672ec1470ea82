//===- analysis/TargetInterval.h - What completion means --------*- C++ -*-===//
//
// A step is complete when the last device work it submitted has finished,
// not when its host range ends: the host usually runs ahead of the device.
// The target interval of a step runs from the step's host start to the end
// of the last device work launched (by correlation) from inside the step's
// host range. Without steps the whole window is the target, from its first
// event to the end of the last device work.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_ANALYSIS_TARGETINTERVAL_H
#define TRACELINT_ANALYSIS_TARGETINTERVAL_H

#include "analysis/TraceIndex.h"

#include <algorithm>
#include <vector>

namespace tracelint::analysis {

struct TargetInterval {
  int64_t StepNumber = -1; ///< -1: no steps, the window
  bool FromStep = false;
  model::Interval HostRange; ///< the step's host range (or the window)
  model::Interval Range;     ///< host start to the end of its last work
  uint32_t LastWork = model::NoIndex; ///< the work that ends Range
  /// Every device work the step submitted (the window: all device work).
  /// Completion is when the last of them ends, also in a what-if.
  std::vector<uint32_t> Work;
  /// Completion: from the step's host start to the end of its last work.
  int64_t length() const { return Range.length(); }
  /// The step time: the step's host range (TraceIndex::targetNs is the
  /// median of these over the steady steps).
  int64_t stepNs() const { return HostRange.length(); }
  /// How long the step's device work runs on after its host range ends.
  int64_t deviceTailNs() const {
    return std::max<int64_t>(0, Range.End - HostRange.End);
  }
};

/// One target per step in time order, or one for the window without steps.
/// A step that submitted no device work keeps its host range (LastWork is
/// NoIndex).
std::vector<TargetInterval> targetIntervals(const TraceIndex &C);

} // namespace tracelint::analysis

#endif
