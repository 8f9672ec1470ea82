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

Outcome rules::runNoStepMarkers(const TraceIndex &Ctx, const RuleOptions &,
                                std::vector<Detection> &Out) {
  if (Ctx.hasSteps() || Ctx.trace().Events.empty())
    return Outcome::ran();
  Detection D = qualityDetection("no-step-markers");
  D.Values["value"] = dur(Ctx.window().length());
  D.Values["window_length"] = dur(Ctx.window().length());
  D.Values["target"] = Ctx.describeTarget();
  Out.push_back(std::move(D));
  return Outcome::ran();
}
