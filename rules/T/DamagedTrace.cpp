//===- rules/T/DamagedTrace.cpp - T003 damaged trace ----------------------===//
//
// What the trace cannot support. A truncated input, events dropped as
// unreadable, durations that had to be adjusted, device work that starts
// before its launch call, and device work and launches without each other
// undermine every rule that reasons from those events and links. This
// detector reports each problem as one finding with no impact: the trace's
// quality is not a cost. The facts come from TraceIndex::quality(); the
// engine lowers other rules' confidence from
// TraceIndex::confidencePenalties(), so the two always agree.
//
//===----------------------------------------------------------------------===//
#include "rules/BuiltinDetectors.h"
#include "rules/detectors/DetectorSupport.h"

#include "support/Count.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <optional>

using namespace tracelint;
using namespace tracelint::rules;
using namespace tracelint::rules::detect;
using analysis::TraceIndex;
using analysis::TraceQuality;
using model::ImportStat;

namespace {

/// One problem of the trace, as its finding says it.
struct Problem {
  std::string Subject, Text, Consequence;
  bool DataLoss = false; ///< events are missing: a warning, not a note
  std::string Where;     ///< its first occurrence, or "" when not recorded
};

std::optional<Problem> truncation(const TraceIndex &Ctx) {
  const TraceQuality &Q = Ctx.quality();
  if (!Q.Truncated)
    return std::nullopt;
  const bool AtByte = Q.TruncatedAtByte >= 0;
  return Problem{
      "truncated",
      AtByte ? llvm::formatv("the input ends early, at byte {0}",
                             Q.TruncatedAtByte)
                   .str()
             : std::string("the input ends early"),
      "events after that point are missing, so the last step and the "
      "window's end are incomplete",
      true,
      AtByte ? llvm::formatv("byte {0}", Q.TruncatedAtByte).str()
             : Ctx.trace().Stats.firstPlace(ImportStat::Truncated).str()};
}

std::optional<Problem> droppedEvents(const TraceIndex &Ctx) {
  const TraceQuality &Q = Ctx.quality();
  if (!Q.DroppedEvents)
    return std::nullopt;
  return Problem{
      "dropped-events",
      llvm::formatv("{0} could not be read and {1} dropped",
                    support::formatCount(Q.DroppedEvents, "event"),
                    Q.DroppedEvents == 1 ? "was" : "were")
          .str(),
      "busy time, counts and links near them may be understated", true,
      Ctx.trace().Stats.firstPlace(ImportStat::MalformedEvent).str()};
}

std::optional<Problem> adjustedDurations(const TraceIndex &Ctx) {
  const TraceQuality &Q = Ctx.quality();
  if (!Q.AdjustedEvents)
    return std::nullopt;
  const model::ImportStats &S = Ctx.trace().Stats;
  llvm::StringRef Negative = S.firstPlace(ImportStat::NegativeDuration);
  return Problem{
      "adjusted-durations",
      llvm::formatv("{0} {1} missing, negative, unclosed or absurd and {1} "
                    "adjusted",
                    support::formatCount(Q.AdjustedEvents, "duration"),
                    Q.AdjustedEvents == 1 ? "was" : "were")
          .str(),
      "those events' lengths are estimates", false,
      (Negative.empty() ? S.firstPlace(ImportStat::AbsurdDuration) : Negative)
          .str()};
}

/// The earliest device event that starts before its launch, for users to
/// find in Perfetto; "" when none is flagged.
std::string firstEarlyEvent(const TraceIndex &Ctx) {
  const model::Trace &T = Ctx.trace();
  const model::Event *Early = nullptr;
  for (const model::Event &E : T.Events)
    if (E.hasFlag(model::FlagBeforeLaunch) &&
        (!Early || E.Start < Early->Start))
      Early = &E;
  return Early ? eventAt(Ctx, *Early) : "";
}

std::optional<Problem> deviceBeforeLaunch(const TraceIndex &Ctx,
                                          double MaxEarly) {
  const TraceQuality &Q = Ctx.quality();
  if (!Q.DeviceBeforeLaunch || Q.DeviceBeforeLaunchShare <= MaxEarly)
    return std::nullopt;
  return Problem{
      "device-before-launch",
      llvm::formatv("{0} device operations ({1}) start before the host "
                    "call that launched them",
                    Q.DeviceBeforeLaunch, pct(Q.DeviceBeforeLaunchShare))
          .str(),
      "host and device clocks disagree: launch gaps and waits measured "
      "across the two are unreliable",
      false, firstEarlyEvent(Ctx)};
}

std::optional<Problem> deviceWithoutLaunch(const TraceIndex &Ctx,
                                           double MaxUnlinked) {
  const TraceQuality &Q = Ctx.quality();
  if (!Q.DeviceWithoutLaunch || !Q.LaunchCalls ||
      Q.DeviceWithoutLaunchShare <= MaxUnlinked)
    return std::nullopt;
  return Problem{
      "device-without-launch",
      llvm::formatv("{0} device operations ({1}) have no host call with "
                    "their correlation id",
                    Q.DeviceWithoutLaunch, pct(Q.DeviceWithoutLaunchShare))
          .str(),
      "their launch path and op cannot be found; idle gaps they end "
      "cannot be attributed",
      false, ""};
}

/// Launches without device work, less those made during a stream capture:
/// a captured launch records into a graph and runs nothing, so a capture
/// window has few kernels for its launches without having lost any.
std::optional<Problem> launchWithoutDevice(const TraceIndex &Ctx,
                                           double MaxUnlinked) {
  const TraceQuality &Q = Ctx.quality();
  const uint64_t Captured =
      std::min(Q.LaunchWithoutDevice, Ctx.startup().CapturedLaunches);
  const uint64_t Lost = Q.LaunchWithoutDevice - Captured;
  const double Share =
      Q.LaunchCalls ? std::min(1.0, double(Lost) / double(Q.LaunchCalls)) : 0;
  if (!Lost || !Q.DeviceWorkEvents || Share <= MaxUnlinked)
    return std::nullopt;
  std::string Text =
      llvm::formatv("{0} launch calls ({1}) have no device operation with "
                    "their correlation id",
                    Lost, pct(Share))
          .str();
  if (Captured > 0)
    Text += llvm::formatv(" (besides {0} launched during graph capture, "
                          "which record into a graph and run nothing)",
                          Captured)
                .str();
  return Problem{
      "launch-without-device", std::move(Text),
      "device activity was lost or not recorded for part of the window", false,
      ""};
}

Detection describeProblem(Problem P) {
  Detection D = qualityDetection(P.Subject);
  D.Values["value"] = P.Text;
  D.Values["problem"] = std::move(P.Text);
  D.Values["consequence"] = std::move(P.Consequence);
  D.Values["example"] =
      P.Where.empty() ? "not recorded by the importer" : std::move(P.Where);
  D.SeverityOverride = P.DataLoss ? Severity::Warning : Severity::Info;
  return D;
}

} // namespace

Outcome rules::runDamagedTrace(const TraceIndex &Ctx, const RuleOptions &Opts,
                               std::vector<Detection> &Out) {
  const double MaxEarly = Opts.number("max-early-share");
  const double MaxUnlinked = Opts.number("max-unlinked-share");
  for (std::optional<Problem> P :
       {truncation(Ctx), droppedEvents(Ctx), adjustedDurations(Ctx),
        deviceBeforeLaunch(Ctx, MaxEarly),
        deviceWithoutLaunch(Ctx, MaxUnlinked),
        launchWithoutDevice(Ctx, MaxUnlinked)})
    if (P)
      Out.push_back(describeProblem(std::move(*P)));
  return Outcome::ran();
}
