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

Outcome rules::runNoDeviceActivity(const TraceIndex &Ctx, const RuleOptions &,
                                   std::vector<Detection> &Out) {
  const TraceQuality &Q = Ctx.quality();
  if (Ctx.hasDeviceActivity() ||
      (Q.RuntimeCalls == 0 && Q.DeclaredDevices == 0))
    return Outcome::ran();
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
  return Outcome::ran();
}
