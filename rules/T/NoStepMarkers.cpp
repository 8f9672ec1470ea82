//===- rules/T/NoStepMarkers.cpp - T002 no step markers -------------------===//
//
// Steps separate steady state from start-up and give every impact its unit
// (time per step). Without them the rules measure against the whole
// window, so start-up, steady state and teardown are mixed in every figure.
// This detector says so for any trace with events but no steps; for the
// same fact the engine lowers the confidence of the device and launch rules
// (TraceIndex::confidencePenalties()). The finding carries no impact: the
// trace's quality is not a cost.
//
//===----------------------------------------------------------------------===//
#include "rules/BuiltinDetectors.h"
#include "rules/detectors/DetectorSupport.h"

using namespace tracelint;
using namespace tracelint::rules;
using namespace tracelint::rules::detect;
using analysis::TraceIndex;

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
