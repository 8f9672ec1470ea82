//===- rules/T/ShortWindow.cpp - T004 too few steps -----------------------===//
//
// A steady-state claim needs several steps: with one or two, nothing tells
// the warm-up from the steady state, and every figure measured per step
// rests on them. This detector says so for a window with at least one step
// and fewer than min-steps; below three steps the engine also lowers the
// confidence of the other rules (TraceIndex::confidencePenalties()). A
// trace without steps is T002's. The finding carries no impact: the
// trace's quality is not a cost.
//
//===----------------------------------------------------------------------===//
#include "rules/BuiltinDetectors.h"
#include "rules/detectors/DetectorSupport.h"

#include "llvm/Support/FormatVariadic.h"

using namespace tracelint;
using namespace tracelint::rules;
using namespace tracelint::rules::detect;
using analysis::TraceIndex;

Outcome rules::runShortWindow(const TraceIndex &Ctx, const RuleOptions &Opts,
                              std::vector<Detection> &Out) {
  const double MinSteps = Opts.number("min-steps");
  size_t N = Ctx.steps().size();
  if (N == 0 || double(N) >= MinSteps)
    return Outcome::ran();
  Detection D = qualityDetection("short-window");
  D.Values["value"] = count(int64_t(N));
  D.Values["steps"] = llvm::formatv("{0} step{1}", N, N == 1 ? "" : "s").str();
  D.Values["min_steps"] = count(int64_t(MinSteps));
  D.Values["target"] = Ctx.describeTarget();
  Out.push_back(std::move(D));
  return Outcome::ran();
}
