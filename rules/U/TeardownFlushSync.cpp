//===- rules/U/TeardownFlushSync.cpp - U002 the window's final flush ------===//
//
// Profilers and benchmark harnesses synchronize when they stop, so that
// every queued kernel is finished and recorded. That wait absorbs the
// device's backlog and can be long, so it looks like a stall; it is not part
// of any step and not an application defect. This detector reports the
// final flushes of the window (TraceIndex::isFlushWait: a host wait that
// starts after the last step or, without steps, after the last submission)
// with no impact, so that nobody optimises them. S001 and S003 leave the
// same waits out.
//
//===----------------------------------------------------------------------===//
#include "rules/BuiltinDetectors.h"
#include "rules/detectors/DetectorSupport.h"

using namespace tracelint;
using namespace tracelint::rules;
using namespace tracelint::rules::detect;
using analysis::TraceIndex;

Outcome rules::runTeardownFlushSync(const TraceIndex &Ctx,
                                    const RuleOptions &Opts,
                                    std::vector<Detection> &Out) {
  const int64_t MinDuration = int64_t(Opts.number("min-duration"));
  WaitTally Flushes = flushWaits(Ctx, MinDuration);
  if (Flushes.Count == 0)
    return Outcome::ran();

  const model::Event &E = Ctx.trace().Events[Flushes.Longest];
  const std::string Name = Ctx.trace().name(E).str();
  Detection Det;
  auto &V = Det.Values;
  V["value"] = dur(Flushes.Max);
  V["total"] = dur(Flushes.Total);
  V["count"] = count(int64_t(Flushes.Count));
  V["subject"] = Name;
  V["top_names"] = Name;
  V["example"] = eventAt(Ctx, E);
  V["where"] = Ctx.hasSteps() ? "after the last step"
                              : "after the last submission of the window";
  V["impact"] = dur(0);
  Det.Examples.push_back(example(Ctx, E));
  Det.ImpactNs = 0;
  Det.Window = Ctx.hasSteps() ? "after the last step" : "end of window";
  Det.Subject = Name;
  Det.Confidence = 0.9;
  Out.push_back(std::move(Det));
  return Outcome::ran();
}
