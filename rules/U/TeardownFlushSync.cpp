//===- rules/detectors/SyncWait.cpp - S001 long host waits ----------------===//
//
// A host wait costs completion time only where it leaves the device without
// work. While the host waits, the device either runs the queued work (then
// the wait only reveals device-bound work) or sits idle (then the awaited
// work was elsewhere: another stream, a copy, a peer). After the wait
// returns, the queue is empty and the device idles until the host submits
// again. Removing the wait would let the host submit that work earlier by at
// most the wait's length, so the gain of one wait is bounded by
//   min(wait, device idle from the wait's start to the next device work).
// This detector sums that bound per step and takes the median; it fires on
// the host time blocked per step, so that a long wait that only reveals
// device-bound work is still shown, with a small impact and an info
// severity that say removing it is not predicted to help.
//
// The final synchronization of the window is excluded: U002 reports it.
//
//===----------------------------------------------------------------------===//
#include "rules/BuiltinDetectors.h"
#include "rules/detectors/DetectorSupport.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <map>

using namespace tracelint;
using namespace tracelint::rules;
using namespace tracelint::rules::detect;
using analysis::HostWait;
using analysis::TraceIndex;
using model::Event;
using model::Interval;

Outcome rules::runTeardownFlushSync(const TraceIndex &Ctx,
                                    const RuleOptions &Opts,
                                    std::vector<Detection> &Out) {
  const model::Trace &T = Ctx.trace();
  const int64_t MinDuration = int64_t(Opts.number("min-duration"));
  uint64_t Count = 0;
  int64_t Total = 0;
  const HostWait *Longest = nullptr;
  for (const HostWait &W : Ctx.hostWaits()) {
    if (!Ctx.isFlushWait(W) || W.Range.length() < MinDuration)
      continue;
    ++Count;
    Total += W.Range.length();
    if (!Longest || W.Range.length() > Longest->Range.length())
      Longest = &W;
  }
  if (!Longest)
    return Outcome::ran();
  const Event &E = T.Events[Longest->Event];
  Detection Det;
  auto &V = Det.Values;
  V["value"] = dur(Longest->Range.length());
  V["total"] = dur(Total);
  V["count"] = std::to_string(Count);
  V["subject"] = T.name(E).str();
  V["top_names"] = T.name(E).str();
  V["example"] =
      llvm::formatv("{0} at {1:f3} us", T.name(E), Ctx.traceTimestampUs(E))
          .str();
  V["where"] = Ctx.hasSteps() ? "after the last step"
                              : "after the last submission of the window";
  V["impact"] = dur(0);
  Det.Examples.push_back(example(Ctx, E));
  Det.ImpactNs = 0;
  Det.Window = Ctx.hasSteps() ? "after the last step" : "end of window";
  Det.Subject = T.name(E).str();
  Det.Confidence = 0.9;
  Out.push_back(std::move(Det));
  return Outcome::ran();
}
