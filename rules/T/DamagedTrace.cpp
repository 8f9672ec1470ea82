//===- rules/detectors/TraceQuality.cpp - T001-T004 trace quality ---------===//
//
// What the trace cannot support. These findings carry no impact: they say
// which other judgements the trace cannot back, and why. The facts come from
// TraceIndex::quality(); the engine lowers other rules' confidence from
// TraceIndex::confidencePenalties(), so the two always agree.
//
//===----------------------------------------------------------------------===//
#include "rules/BuiltinDetectors.h"
#include "rules/detectors/DetectorSupport.h"

#include "llvm/Support/FormatVariadic.h"

using namespace tracelint;
using namespace tracelint::rules;
using namespace tracelint::rules::detect;
using analysis::TraceIndex;
using analysis::TraceQuality;

Outcome rules::runDamagedTrace(const TraceIndex &Ctx, const RuleOptions &Opts,
                               std::vector<Detection> &Out) {
  const TraceQuality &Q = Ctx.quality();
  const model::ImportStats &S = Ctx.trace().Stats;
  const double MaxEarly = Opts.number("max-early-share");
  const double MaxUnlinked = Opts.number("max-unlinked-share");
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
  return Outcome::ran();
}
