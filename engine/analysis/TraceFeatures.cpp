//===- analysis/TraceFeatures.cpp -----------------------------------------===//
#include "analysis/TraceFeatures.h"
#include "support/Statistics.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

using namespace tracelint;
using namespace tracelint::analysis;
using model::Event;
using model::EventKind;

static const FeatureInfo Catalogue[] = {
    {Feature::HostWait, "host-wait",
     "host time blocked on the device (sync calls, blocking copies, ops that "
     "read a device value), per step",
     true, true},
    {Feature::Syncs, "syncs",
     "host waits on the device (sync calls, blocking copies, implicit "
     "syncs), per step",
     true, false},
    {Feature::Launches, "launches", "kernel launch calls, per step", true,
     false},
    {Feature::Kernels, "kernels", "kernels and collectives started, per step",
     true, false},
    {Feature::DeviceIdle, "device-idle",
     "step length minus the device busy time within it, per step", true, true},
    {Feature::Copies, "copies", "device copies (memcpy events), per step", true,
     false},
    {Feature::DeviceCopyTime, "device-copy-time",
     "device time of device-to-device copies and copy kernels, per step", true,
     true},
    {Feature::SubjectTime, "subject-time",
     "time in events named like the finding's subject (its last op-path "
     "part), per step",
     true, true},
    {Feature::ExposedCommunication, "exposed-communication",
     "device time in collectives that no compute kernel overlaps, per step",
     true, true},
    {Feature::FirstStepExcess, "first-step-excess",
     "how much longer the first step is than the median of the others", false,
     true},
    {Feature::TeardownWait, "teardown-wait",
     "host time blocked on the device after the last step", false, true},
    {Feature::TeardownTime, "teardown-time",
     "host time in deallocation, unloading and destruction calls after the "
     "last submission",
     false, true},
    {Feature::ProfilerOverhead, "profiler-overhead",
     "time in the profiler's own overhead activity (buffer flushes, "
     "instrumentation), per step",
     true, true},
    {Feature::DeviceEvents, "device-events",
     "device-work events (kernels, copies, memsets, collectives) in the trace",
     false, false},
    {Feature::Steps, "steps", "steps in the trace", false, false},
    {Feature::ImportDamage, "import-damage",
     "events dropped, adjusted or placed before their launch, plus a "
     "truncation",
     false, false},
};

llvm::ArrayRef<FeatureInfo> analysis::featureCatalogue() { return Catalogue; }

const FeatureInfo &analysis::featureInfo(Feature F) {
  return Catalogue[static_cast<unsigned>(F)];
}

std::optional<Feature> analysis::parseFeature(llvm::StringRef Name) {
  for (const FeatureInfo &I : Catalogue)
    if (I.Name == Name)
      return I.Kind;
  return std::nullopt;
}

std::optional<FeatureChange>
analysis::parseFeatureChange(llvm::StringRef Name) {
  return llvm::StringSwitch<std::optional<FeatureChange>>(Name)
      .Case("decrease", FeatureChange::Decrease)
      .Case("vanish", FeatureChange::Vanish)
      .Case("increase", FeatureChange::Increase)
      .Case("appear", FeatureChange::Appear)
      .Default(std::nullopt);
}

llvm::StringRef analysis::featureChangeName(FeatureChange C) {
  switch (C) {
  case FeatureChange::Decrease:
    return "decrease";
  case FeatureChange::Vanish:
    return "vanish";
  case FeatureChange::Increase:
    return "increase";
  case FeatureChange::Appear:
    return "appear";
  }
  return "decrease";
}

namespace {

using support::median;

/// Per-step accumulation over the steady steps, or one bucket for the whole
/// window when the trace has no steps.
class StepBuckets {
public:
  explicit StepBuckets(const TraceIndex &Ctx)
      : Ctx(Ctx), Win(Ctx.measureWindows()) {
    Sums.assign(Win.Ranges.size(), 0.0);
  }
  /// The bucket of time \p T, or -1 outside the measured steps.
  int bucket(int64_t T) const {
    size_t I = Win.indexOf(T);
    return I == Win.Ranges.size() ? -1 : int(I);
  }
  void add(int64_t T, double V) {
    int B = bucket(T);
    if (B >= 0)
      Sums[size_t(B)] += V;
  }
  /// Each bucket's range.
  model::Interval range(size_t B) const { return Win.Ranges[B]; }
  size_t size() const { return Sums.size(); }
  double &operator[](size_t B) { return Sums[B]; }
  FeatureValue result() const {
    FeatureValue V;
    V.Value = median(Sums);
    V.Basis = Ctx.hasSteps()
                  ? llvm::formatv("median of {0} steady step{1}", Sums.size(),
                                  Sums.size() == 1 ? "" : "s")
                        .str()
                  : "whole window (no steps)";
    return V;
  }

private:
  const TraceIndex &Ctx;
  const MeasureWindows &Win;
  std::vector<double> Sums;
};

int64_t overlap(model::Interval A, model::Interval B) {
  return std::max<int64_t>(0,
                           std::min(A.End, B.End) - std::max(A.Begin, B.Begin));
}

FeatureValue unmeasurable(std::string Why) {
  FeatureValue V;
  V.WhyNot = std::move(Why);
  return V;
}

FeatureValue whole(double Value) {
  FeatureValue V;
  V.Value = Value;
  V.Basis = "whole trace";
  return V;
}

} // namespace

FeatureValue analysis::measureFeature(const TraceIndex &Ctx, Feature F,
                                      llvm::StringRef Subject) {
  const model::Trace &T = Ctx.trace();
  const FeatureInfo &Info = featureInfo(F);
  bool NeedsDevice = F == Feature::DeviceIdle || F == Feature::Kernels ||
                     F == Feature::Copies || F == Feature::DeviceCopyTime ||
                     F == Feature::ExposedCommunication;
  if (NeedsDevice && !Ctx.hasDeviceActivity())
    return unmeasurable("the trace has no device activity");
  if (Info.PerStep) {
    StepBuckets B(Ctx);
    switch (F) {
    case Feature::HostWait:
      for (const HostWait &W : Ctx.hostWaits())
        for (size_t I = 0; I < B.size(); ++I)
          B[I] += double(overlap(W.Range, B.range(I)));
      break;
    case Feature::Syncs:
      for (const HostWait &W : Ctx.hostWaits())
        B.add(W.Range.Begin, 1);
      break;
    case Feature::DeviceIdle:
      for (size_t I = 0; I < B.size(); ++I)
        B[I] = double(Ctx.deviceBusy().idleWithin(B.range(I)));
      break;
    case Feature::ExposedCommunication: {
      std::vector<model::Interval> Comm, Compute;
      for (const Event &E : T.Events) {
        if (E.Kind == EventKind::Collective)
          Comm.push_back({E.Start, E.end()});
        else if (E.Kind == EventKind::Kernel)
          Compute.push_back({E.Start, E.end()});
      }
      model::IntervalSet C = model::IntervalSet::unionOf(std::move(Comm));
      model::IntervalSet Hidden =
          C.intersect(model::IntervalSet::unionOf(std::move(Compute)));
      for (size_t I = 0; I < B.size(); ++I)
        B[I] = double(C.lengthWithin(B.range(I)) -
                      Hidden.lengthWithin(B.range(I)));
      break;
    }
    case Feature::ProfilerOverhead: {
      std::vector<model::Interval> Parts;
      for (const Event &E : T.Events)
        if (E.Kind == EventKind::Overhead)
          Parts.push_back({E.Start, E.end()});
      model::IntervalSet U = model::IntervalSet::unionOf(std::move(Parts));
      for (size_t I = 0; I < B.size(); ++I)
        B[I] = double(U.lengthWithin(B.range(I)));
      break;
    }
    case Feature::SubjectTime: {
      llvm::StringRef Leaf = Subject;
      if (size_t P = Leaf.rfind(" > "); P != llvm::StringRef::npos)
        Leaf = Leaf.drop_front(P + 3);
      if (Leaf.empty() || Leaf == "none")
        return unmeasurable("the finding has no subject");
      for (const Event &E : T.Events)
        if (T.name(E) == Leaf)
          B.add(E.Start, double(E.Duration));
      break;
    }
    default:
      for (const Event &E : T.Events) {
        switch (F) {
        case Feature::Launches:
          if ((E.Kind == EventKind::Runtime || E.Kind == EventKind::Driver) &&
              model::isLaunchCallName(T.name(E)))
            B.add(E.Start, 1);
          break;
        case Feature::Kernels:
          if (E.Kind == EventKind::Kernel || E.Kind == EventKind::Collective)
            B.add(E.Start, 1);
          break;
        case Feature::Copies:
          if (E.Kind == EventKind::Memcpy)
            B.add(E.Start, 1);
          break;
        case Feature::DeviceCopyTime:
          if (Ctx.isDeviceCopy(E))
            B.add(E.Start, double(E.Duration));
          break;
        default:
          break;
        }
      }
    }
    return B.result();
  }
  switch (F) {
  case Feature::FirstStepExcess: {
    llvm::ArrayRef<StepWindow> S = Ctx.steps();
    if (S.size() < 3)
      return unmeasurable("it needs at least three steps");
    std::vector<double> Rest;
    for (const StepWindow &W : S.drop_front())
      Rest.push_back(double(W.Range.length()));
    return whole(
        std::max(0.0, double(S.front().Range.length()) - median(Rest)));
  }
  case Feature::TeardownWait: {
    if (!Ctx.hasSteps())
      return unmeasurable("the trace has no steps");
    int64_t End = Ctx.steps().back().Range.End;
    double Sum = 0;
    for (const HostWait &W : Ctx.hostWaits())
      if (W.Range.Begin >= End)
        Sum += double(W.Range.length());
    return whole(Sum);
  }
  case Feature::TeardownTime: {
    return whole(double(Ctx.teardown().TeardownNs));
  }
  case Feature::DeviceEvents:
    return whole(double(Ctx.quality().DeviceWorkEvents));
  case Feature::Steps:
    return whole(double(Ctx.steps().size()));
  case Feature::ImportDamage: {
    const TraceQuality &Q = Ctx.quality();
    return whole(double(Q.DroppedEvents + Q.AdjustedEvents +
                        Q.DeviceBeforeLaunch + (Q.Truncated ? 1 : 0)));
  }
  default:
    break;
  }
  return unmeasurable("unknown feature");
}
