//===- rules/T/WindowCut.cpp - T006 window cut ----------------------------===//
//
// The host's events and the device's work should cover the same window.
// When device work runs well past the host's last event (or starts well
// before its first), the profiler cut the host's record: a slice of a
// serving trace, a window stopped before the device drained. The idle time
// there has no host cause the trace can name. The trace index measures the
// host record's span once (TraceQuality::HostSpan), and the idle split
// calls the device's idle time outside it "outside the host record"; this
// rule says that the window was cut, and where. It is a quality finding:
// no impact.
//
//===----------------------------------------------------------------------===//
#include "rules/BuiltinDetectors.h"
#include "rules/detectors/DetectorSupport.h"

#include "llvm/Support/FormatVariadic.h"

using namespace tracelint;
using namespace tracelint::rules;
using namespace tracelint::rules::detect;
using analysis::TraceIndex;
using model::Interval;

namespace {

/// "+0.000000 s .. +2.409000 s": a span as the reports locate times.
std::string span(Interval R) {
  return support::formatOffset(R.Begin) + " .. " + support::formatOffset(R.End);
}

} // namespace

Outcome rules::runWindowCut(const TraceIndex &Ctx, const RuleOptions &Opts,
                            std::vector<Detection> &Out) {
  const analysis::TraceQuality &Q = Ctx.quality();
  const model::IntervalSet &Busy = Ctx.deviceBusy();
  const Interval Host = Q.HostSpan;
  if (Host.length() <= 0 || Busy.empty())
    return Outcome::cannotJudge(
        "the trace has no host events with a duration to compare the "
        "device's work with");
  const Interval Device{Busy.parts().front().Begin, Busy.parts().back().End};
  const int64_t Before = std::max<int64_t>(0, Host.Begin - Device.Begin);
  const int64_t After = std::max<int64_t>(0, Device.End - Host.End);
  const int64_t Window = Ctx.window().length();
  const double MinShare = Opts.number("min-share");
  if (Window <= 0 || double(Before + After) < MinShare * double(Window))
    return quietUnderFloor(Before + After, Window, MinShare);

  // The device's idle time outside the host record: what the idle split
  // cannot give a host cause.
  int64_t CutIdle = 0;
  if (Before > 0)
    CutIdle += Busy.idleWithin({Device.Begin, Host.Begin});
  if (After > 0)
    CutIdle += Busy.idleWithin({Host.End, Device.End});
  // T0 of the reports: offsets count from the trace's first event.
  const int64_t Origin = Ctx.window().Begin;
  auto Offset = [&](Interval R) {
    return span({R.Begin - Origin, R.End - Origin});
  };
  Detection D = qualityDetection("window-cut", 0.9);
  auto &V = D.Values;
  V["outside"] = dur(Before + After);
  V["share"] = pct(double(Before + After) / double(Window));
  V["before"] = dur(Before);
  V["after"] = dur(After);
  V["cut_idle"] = dur(CutIdle);
  V["host_span"] = Offset(Host);
  V["device_span"] = Offset(Device);
  V["threshold"] = pct(MinShare);
  Out.push_back(std::move(D));
  return Outcome::ran();
}
