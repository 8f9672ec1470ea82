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

Outcome rules::runShortWindow(const TraceIndex &Ctx, const RuleOptions &Opts,
                              std::vector<Detection> &Out) {
  const double MinSteps = Opts.number("min-steps");
  size_t N = Ctx.steps().size();
  if (N == 0 || double(N) >= MinSteps)
    return Outcome::ran();
  Detection D = qualityDetection("short-window");
  D.Values["value"] = count(int64_t(N));
  D.Values["steps"] = llvm::formatv("{0} step{1}", N, N == 1 ? "" : "s").str();
  D.Values["min_steps"] = std::to_string(int64_t(MinSteps));
  D.Values["target"] = Ctx.describeTarget();
  Out.push_back(std::move(D));
  return Outcome::ran();
}
