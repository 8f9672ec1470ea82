//===- rules/T/NoDeviceActivity.cpp - T001 no device activity -------------===//
//
// Without device events, idle and busy time cannot be computed, and calling
// the device idle would be a guess presented as a measurement. This
// detector says instead that the trace holds no device work although the
// host submitted some (launch or other runtime calls, or metadata naming
// devices), so that the device rules' "cannot judge" has its reason. A
// trace without runtime calls or declared devices is CPU-only and quiet.
// The finding carries no impact: the trace's quality is not a cost. The
// facts come from TraceIndex::quality().
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

namespace {

/// What says that the host meant to use a device, the strongest first.
std::string evidenceOfDevice(const TraceQuality &Q) {
  if (Q.LaunchCalls)
    return llvm::formatv("{0} launch calls", Q.LaunchCalls).str();
  if (Q.RuntimeCalls)
    return llvm::formatv("{0} accelerator runtime calls", Q.RuntimeCalls).str();
  return llvm::formatv("metadata naming {0} device{1}", Q.DeclaredDevices,
                       Q.DeclaredDevices == 1 ? "" : "s")
      .str();
}

} // namespace

Outcome rules::runNoDeviceActivity(const TraceIndex &Ctx, const RuleOptions &,
                                   std::vector<Detection> &Out) {
  const TraceQuality &Q = Ctx.quality();
  if (Ctx.hasDeviceActivity() ||
      (Q.RuntimeCalls == 0 && Q.DeclaredDevices == 0))
    return Outcome::ran();
  Detection D = qualityDetection("no-device-activity");
  auto &V = D.Values;
  V["runtime_calls"] = count(int64_t(Q.RuntimeCalls));
  V["launches"] = count(int64_t(Q.LaunchCalls));
  V["declared_devices"] = count(int64_t(Q.DeclaredDevices));
  V["value"] = evidenceOfDevice(Q);
  V["evidence_of_device"] = V["value"];
  Out.push_back(std::move(D));
  return Outcome::ran();
}
