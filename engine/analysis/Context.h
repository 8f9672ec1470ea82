//===- analysis/Context.h - What every rule reads ---------------*- C++ -*-===//
//
// Computed once per trace and shared by all rules: the target metric (median
// step time, or the window when there are no steps), step windows, device
// busy unions, exclusive times, and the facts that decide whether a rule can
// judge this trace at all.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_ANALYSIS_CONTEXT_H
#define TRACELINT_ANALYSIS_CONTEXT_H

#include "model/Intervals.h"
#include "model/Trace.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"

#include <optional>
#include <string>
#include <vector>

namespace tracelint::analysis {

/// The interval a finding's impact is measured against.
enum class TargetKind : uint8_t {
  MedianStep, ///< the median duration of the steps
  Window,     ///< no steps: the whole profiled window
};

struct StepWindow {
  int64_t Number = -1;
  model::Interval Range; ///< the step's host range
  bool First = false;    ///< the first step of the window
};

class Context {
public:
  explicit Context(const model::Trace &T);

  const model::Trace &trace() const { return T; }

  // --- Target ------------------------------------------------------------
  TargetKind targetKind() const { return Target; }
  /// Median step duration, or the window length without steps.
  int64_t targetNs() const { return TargetNs; }
  /// "median step time 12.3 ms (6 steps)" or "window 1.2 s (no steps)".
  std::string describeTarget() const;

  // --- Steps -------------------------------------------------------------
  llvm::ArrayRef<StepWindow> steps() const { return Steps; }
  bool hasSteps() const { return !Steps.empty(); }
  /// Index into steps() of the step whose range contains \p Time, or -1.
  int stepAt(int64_t Time) const;
  /// Steps after the first: the steady state, when there are at least two.
  llvm::ArrayRef<StepWindow> steadySteps() const;
  model::Interval window() const { return {T.WindowStart, T.WindowEnd}; }

  // --- Device ------------------------------------------------------------
  bool hasDeviceActivity() const { return DeviceWork > 0; }
  bool hasLaunches() const { return LaunchCalls > 0; }
  /// True when some device work is linked to a host call by correlation.
  bool hasCorrelation() const { return LinkedDeviceWork > 0; }
  /// Devices with recorded work, ascending.
  llvm::ArrayRef<int32_t> devices() const { return DeviceIds; }
  /// Union of device work over all devices (empty without device activity).
  const model::IntervalSet &deviceBusy() const { return AllBusy; }
  const model::IntervalSet &deviceBusy(int32_t Device) const;
  int64_t deviceBusyNs() const { return AllBusy.length(); }

  // --- Events ------------------------------------------------------------
  /// Exclusive (self) time of every event, computed on first use.
  llvm::ArrayRef<int64_t> selfTimes() const;
  /// "thread 123 (python)" / "device 0 stream 7", for evidence lines.
  std::string describeLane(const model::Lane &L) const;
  /// The event's start in the trace file's own clock, in microseconds, so
  /// that users can find it in Perfetto.
  double traceTimestampUs(const model::Event &E) const;
  /// Path of op names from the outermost ancestor to \p E, joined by " > ",
  /// skipping step annotations: "aten::to > aten::_to_copy > aten::copy_".
  std::string opPath(const model::Event &E, unsigned MaxDepth = 6) const;

  // --- Quality -----------------------------------------------------------
  bool truncated() const { return T.Stats.TruncatedAtByte >= 0; }

private:
  const model::Trace &T;
  TargetKind Target = TargetKind::Window;
  int64_t TargetNs = 0;
  std::vector<StepWindow> Steps;
  uint64_t DeviceWork = 0, LaunchCalls = 0, LinkedDeviceWork = 0;
  std::vector<int32_t> DeviceIds;
  std::vector<model::IntervalSet> BusyPerDevice; ///< parallel to DeviceIds
  model::IntervalSet AllBusy;
  mutable std::optional<std::vector<int64_t>> Self;
};

} // namespace tracelint::analysis

#endif
