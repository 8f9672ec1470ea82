//===- report/IdleSplit.cpp -----------------------------------------------===//
#include "report/IdleSplit.h"
#include "support/Format.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <utility>
#include <vector>

using namespace tracelint;
using namespace tracelint::support;

std::vector<report::IdleCause>
report::idleCauses(const analysis::TargetIdle &I) {
  std::vector<IdleCause> Parts;
  for (const analysis::IdleCauseInfo &C : analysis::idleCauses()) {
    int64_t Ns = analysis::idleCauseNs(I, C.Cause);
    if (Ns > 0)
      Parts.push_back({Ns, C.Cause});
  }
  std::stable_sort(
      Parts.begin(), Parts.end(),
      [](const IdleCause &A, const IdleCause &B) { return A.Ns > B.Ns; });
  return Parts;
}

std::string report::idleCauseLabel(analysis::IdleCause C) {
  const analysis::IdleCauseInfo &Info = analysis::idleCauseInfo(C);
  if (Info.Rule.empty())
    return Info.Label.str();
  return (Info.Label + " (" + Info.Rule + ")").str();
}

std::string report::idleSplitText(const analysis::TargetIdle &I) {
  return idleSplitText(I, {}, 0);
}

/// "host work (L002 quiet: ...)": the label of a cause whose rule did not
/// claim it at its size, or the plain label.
static std::string claimedLabel(const report::IdleCause &C,
                                llvm::ArrayRef<rules::CauseClaim> Claims,
                                int64_t TargetNs) {
  std::string Label = report::idleCauseLabel(C.Cause);
  if (TargetNs <= 0 || double(C.Ns) < report::ClaimMarkShare * double(TargetNs))
    return Label;
  const rules::CauseClaim *Claim = nullptr;
  for (const rules::CauseClaim &K : Claims)
    if (K.Cause == C.Cause)
      Claim = &K;
  if (!Claim)
    return Label;
  std::string Why;
  const analysis::IdleCauseInfo &Info = analysis::idleCauseInfo(C.Cause);
  // Another rule than the cause's own may claim it (L004 the launch path,
  // M009 the unrecorded delays that are page migrations): name that one.
  const std::string Rule = Claim->Rule.empty() ? Info.Rule.str() : Claim->Rule;
  if (Rule != Info.Rule)
    Label = (Info.Label + " (" + Rule + ")").str();
  switch (Claim->Status) {
  case rules::ClaimStatus::Claimed:
    return Label;
  case rules::ClaimStatus::ClaimedLess:
    Why = "claims " + formatDuration(Claim->ClaimedNs);
    break;
  case rules::ClaimStatus::Quiet:
    Why = Claim->Why.empty() ? "quiet" : "quiet: " + Claim->Why;
    break;
  case rules::ClaimStatus::CannotJudge:
    Why = "could not judge";
    break;
  case rules::ClaimStatus::NotApplicable:
    Why = "not applicable";
    break;
  case rules::ClaimStatus::NotRun:
    Why = "not run";
    break;
  }
  return (Info.Label + " (" + Rule + " " + Why + ")").str();
}

std::string report::idleSplitText(const analysis::TargetIdle &I,
                                  llvm::ArrayRef<rules::CauseClaim> Claims,
                                  int64_t TargetNs) {
  if (I.Device < 0 || I.SpanNs <= 0 || I.IdleNs <= 0)
    return "";
  std::vector<std::string> Items;
  for (const IdleCause &C : idleCauses(I))
    Items.push_back(claimedLabel(C, Claims, TargetNs) + " " +
                    formatDuration(C.Ns));
  return llvm::formatv("idle {0} ({1}): {2}", formatDuration(I.IdleNs),
                       formatShare(double(I.IdleNs) / double(I.SpanNs)),
                       llvm::join(Items, ", "))
      .str();
}

void report::writeIdleSplitJson(llvm::json::OStream &J,
                                const analysis::TargetIdle &I) {
  if (I.Device < 0)
    return;
  J.attributeObject("device_idle", [&] {
    J.attribute("device", I.Device);
    J.attribute("span_ns", I.SpanNs);
    J.attribute("idle_ns", I.IdleNs);
    for (const analysis::IdleCauseInfo &C : analysis::idleCauses())
      J.attribute(C.JsonKey, analysis::idleCauseNs(I, C.Cause));
  });
}

void report::writeClaimsJson(llvm::json::OStream &J,
                             llvm::ArrayRef<rules::CauseClaim> Claims) {
  J.attributeArray("claims", [&] {
    for (const rules::CauseClaim &C : Claims)
      J.object([&] {
        J.attribute("cause", analysis::idleCauseInfo(C.Cause).Key);
        J.attribute("ns", C.Ns);
        J.attribute("rule", C.Rule);
        J.attribute("status", rules::claimStatusName(C.Status));
        if (!C.Fingerprint.empty()) {
          J.attribute("fingerprint", C.Fingerprint);
          J.attribute("claimed_ns", C.ClaimedNs);
          J.attribute("impact_ns", C.ImpactNs);
        }
        if (!C.Why.empty())
          J.attribute("why", C.Why);
      });
  });
}
