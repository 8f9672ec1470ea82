//===- analysis/TraceFeatures.h - Measurable trace features -----*- C++ -*-===//
//
// The trace features that a rule's experiment predicts will move (the host
// waits inside the steps, the device idle time, the copy kernels...),
// measured the same way on the trace before and the trace after a change, so
// that `tracelint diff` can tell whether a prediction held. A rule declares
// its feature in the [experiment] section of its TOML file
// (predict-feature, predict-change; see docs/rule-format.md).
//
// Per-step features are the median over the steady steps (every step after
// the first), or the whole window when the trace has no steps; whole-trace
// features are one number for the trace.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_ANALYSIS_TRACEFEATURES_H
#define TRACELINT_ANALYSIS_TRACEFEATURES_H

#include "analysis/TraceIndex.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace tracelint::analysis {

enum class Feature : uint8_t {
  HostWait,       ///< host time blocked on the device, per step
  Syncs,          ///< host waits (sync calls, blocking copies), per step
  Launches,       ///< kernel launch calls, per step
  Kernels,        ///< kernels and collectives started, per step
  DeviceIdle,     ///< step length minus the device busy union, per step
  Copies,         ///< device copies (memcpy), per step
  DeviceCopyTime, ///< device time of DtoD copies and copy kernels, per step
  SubjectTime,    ///< time in events named like the subject's leaf, per step
  ExposedCommunication, ///< collective time no compute kernel overlaps
  FirstStepExcess,      ///< first step minus the median of the others
  TeardownWait,         ///< host waits after the last step
  TeardownTime,         ///< teardown calls after the last submission
  ProfilerOverhead,     ///< profiler overhead activity, per step
  DeviceEvents,         ///< device-work events in the trace
  Steps,                ///< steps in the trace
  ImportDamage,         ///< dropped, adjusted, truncated or misplaced events
};

/// How a rule predicts its feature moves when its experiment works.
enum class FeatureChange : uint8_t {
  Decrease, ///< falls by at least 10 %
  Vanish,   ///< falls to at most 5 % of what it was
  Increase, ///< rises by at least 10 %
  Appear,   ///< absent before, present after
};

struct FeatureInfo {
  Feature Kind;
  llvm::StringRef Name;        ///< as written in rule files
  llvm::StringRef Description; ///< for docs and reports
  bool PerStep;
  bool IsTime; ///< ns; otherwise a count
};

/// Every feature, in the order of the enum.
llvm::ArrayRef<FeatureInfo> featureCatalogue();
const FeatureInfo &featureInfo(Feature F);
std::optional<Feature> parseFeature(llvm::StringRef Name);
std::optional<FeatureChange> parseFeatureChange(llvm::StringRef Name);
llvm::StringRef featureChangeName(FeatureChange C);

struct FeatureValue {
  std::optional<double> Value; ///< unset: cannot be measured here
  std::string Basis;           ///< "median of 4 steady steps", "whole trace"
  std::string WhyNot;          ///< when unset: why
};

/// Measures \p F on a trace. \p Subject is the finding's normalised subject
/// (used by SubjectTime: the part after the last " > ").
FeatureValue measureFeature(const TraceIndex &Ctx, Feature F,
                            llvm::StringRef Subject);

} // namespace tracelint::analysis

#endif
