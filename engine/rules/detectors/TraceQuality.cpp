//===- rules/detectors/TraceQuality.cpp - T001-T004 trace quality ---------===//
//
// What the trace cannot support. These findings carry no impact: they say
// which other judgements the trace cannot back, and why. The facts come from
// TraceIndex::quality(); the engine lowers other rules' confidence from
// TraceIndex::confidencePenalties(), so the two always agree.
//
//===----------------------------------------------------------------------===//
#include "rules/detectors/BuiltinDetectors.h"
#include "rules/detectors/DetectorSupport.h"

#include "llvm/Support/FormatVariadic.h"

using namespace tracelint;
using namespace tracelint::rules;
using namespace tracelint::rules::detect;
using analysis::TraceIndex;
using analysis::TraceQuality;

namespace {

Detection qualityDetection(std::string Subject, double Confidence = 0.95) {
  Detection D;
  D.ImpactNs = 0;
  D.Confidence = Confidence;
  D.Subject = Subject;
  D.Window = "whole trace";
  D.Values["subject"] = std::move(Subject);
  D.Values["impact"] = dur(0);
  return D;
}

} // namespace

std::string rules::runTraceNoDevice(const TraceIndex &Ctx, const RuleSpec &,
                                    const RuleOptions &,
                                    std::vector<Detection> &Out) {
  const TraceQuality &Q = Ctx.quality();
  if (Ctx.hasDeviceActivity() ||
      (Q.RuntimeCalls == 0 && Q.DeclaredDevices == 0))
    return "";
  Detection D = qualityDetection("no-device-activity");
  auto &V = D.Values;
  V["runtime_calls"] = std::to_string(Q.RuntimeCalls);
  V["launches"] = std::to_string(Q.LaunchCalls);
  V["declared_devices"] = std::to_string(Q.DeclaredDevices);
  std::string Why;
  if (Q.LaunchCalls)
    Why = llvm::formatv("{0} launch calls", Q.LaunchCalls).str();
  else if (Q.RuntimeCalls)
    Why = llvm::formatv("{0} accelerator runtime calls", Q.RuntimeCalls).str();
  else
    Why = llvm::formatv("metadata naming {0} device{1}", Q.DeclaredDevices,
                        Q.DeclaredDevices == 1 ? "" : "s")
              .str();
  V["value"] = Why;
  V["evidence_of_device"] = Why;
  Out.push_back(std::move(D));
  return "";
}

std::string rules::runTraceNoSteps(const TraceIndex &Ctx, const RuleSpec &,
                                   const RuleOptions &,
                                   std::vector<Detection> &Out) {
  if (Ctx.hasSteps() || Ctx.trace().Events.empty())
    return "";
  Detection D = qualityDetection("no-step-markers");
  D.Values["value"] = dur(Ctx.window().length());
  D.Values["window_length"] = dur(Ctx.window().length());
  D.Values["target"] = Ctx.describeTarget();
  Out.push_back(std::move(D));
  return "";
}

std::string rules::runTraceDamage(const TraceIndex &Ctx, const RuleSpec &,
                                  const RuleOptions &Opts,
                                  std::vector<Detection> &Out) {
  const TraceQuality &Q = Ctx.quality();
  const model::ImportStats &S = Ctx.trace().Stats;
  const double MaxEarly = optionOr(Opts, "max-early-share", 0.01);
  const double MaxUnlinked = optionOr(Opts, "max-unlinked-share", 0.05);
  auto Add = [&](std::string Subject, std::string Problem,
                 std::string Consequence, bool DataLoss,
                 llvm::StringRef Where) {
    Detection D = qualityDetection(Subject);
    D.Values["value"] = Problem;
    D.Values["problem"] = std::move(Problem);
    D.Values["consequence"] = std::move(Consequence);
    D.Values["example"] =
        Where.empty() ? "not recorded by the importer" : Where.str();
    D.SeverityOverride = DataLoss ? Severity::Warning : Severity::Info;
    Out.push_back(std::move(D));
  };
  std::string CutAt = Q.TruncatedAtByte >= 0
                          ? llvm::formatv("byte {0}", Q.TruncatedAtByte).str()
                          : S.firstPlace(model::ImportStat::Truncated).str();
  if (Q.Truncated)
    Add("truncated",
        Q.TruncatedAtByte >= 0
            ? llvm::formatv("the input ends early, at byte {0}",
                            Q.TruncatedAtByte)
                  .str()
            : std::string("the input ends early"),
        "events after that point are missing, so the last step and the "
        "window's end are incomplete",
        true, CutAt);
  if (Q.DroppedEvents)
    Add("dropped-events",
        llvm::formatv("{0} events could not be read and were dropped",
                      Q.DroppedEvents)
            .str(),
        "busy time, counts and links near them may be understated", true,
        S.firstPlace(model::ImportStat::MalformedEvent));
  if (Q.AdjustedEvents)
    Add("adjusted-durations",
        llvm::formatv("{0} durations were missing, negative, unclosed or "
                      "absurd and were adjusted",
                      Q.AdjustedEvents)
            .str(),
        "those events' lengths are estimates", false,
        S.firstPlace(model::ImportStat::NegativeDuration).empty()
            ? S.firstPlace(model::ImportStat::AbsurdDuration)
            : S.firstPlace(model::ImportStat::NegativeDuration));
  // The earliest device event that starts before its launch, for users to
  // find in Perfetto.
  std::string FirstEarly;
  if (Q.DeviceBeforeLaunch) {
    const model::Trace &T = Ctx.trace();
    const model::Event *Early = nullptr;
    for (const model::Event &E : T.Events)
      if (E.hasFlag(model::FlagBeforeLaunch) &&
          (!Early || E.Start < Early->Start))
        Early = &E;
    if (Early)
      FirstEarly = llvm::formatv("{0} at {1:f3} us", T.name(*Early),
                                 Ctx.traceTimestampUs(*Early))
                       .str();
  }
  if (Q.DeviceBeforeLaunch && Q.DeviceBeforeLaunchShare > MaxEarly)
    Add("device-before-launch",
        llvm::formatv("{0} device operations ({1}) start before the host "
                      "call that launched them",
                      Q.DeviceBeforeLaunch, pct(Q.DeviceBeforeLaunchShare))
            .str(),
        "host and device clocks disagree: launch gaps and waits measured "
        "across the two are unreliable",
        false, FirstEarly);
  if (Q.DeviceWithoutLaunch && Q.LaunchCalls &&
      Q.DeviceWithoutLaunchShare > MaxUnlinked)
    Add("device-without-launch",
        llvm::formatv("{0} device operations ({1}) have no host call with "
                      "their correlation id",
                      Q.DeviceWithoutLaunch, pct(Q.DeviceWithoutLaunchShare))
            .str(),
        "their launch path and op cannot be found; idle gaps they end "
        "cannot be attributed",
        false, "");
  if (Q.LaunchWithoutDevice && Q.DeviceWorkEvents &&
      Q.LaunchWithoutDeviceShare > MaxUnlinked)
    Add("launch-without-device",
        llvm::formatv("{0} launch calls ({1}) have no device operation with "
                      "their correlation id",
                      Q.LaunchWithoutDevice, pct(Q.LaunchWithoutDeviceShare))
            .str(),
        "device activity was lost or not recorded for part of the window",
        false, "");
  return "";
}

std::string rules::runTraceShortWindow(const TraceIndex &Ctx, const RuleSpec &,
                                       const RuleOptions &Opts,
                                       std::vector<Detection> &Out) {
  const double MinSteps = optionOr(Opts, "min-steps", 3);
  size_t N = Ctx.steps().size();
  if (N == 0 || double(N) >= MinSteps)
    return "";
  Detection D = qualityDetection("short-window");
  D.Values["value"] = std::to_string(N);
  D.Values["steps"] = llvm::formatv("{0} step{1}", N, N == 1 ? "" : "s");
  D.Values["min_steps"] = std::to_string(int64_t(MinSteps));
  D.Values["target"] = Ctx.describeTarget();
  Out.push_back(std::move(D));
  return "";
}
