//===- report/IdleSplit.h - Where a device's idle time went -----*- C++ -*-===//
//
// The device idle split (analysis::TargetIdle, from the trace index's one
// idle attribution) written the same way by every command that shows it:
// lint under its target line, `path` in its device table, `stats` under its
// devices. One writer for the text and one for the JSON, so that the three
// commands print the same causes, in the same words and order.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_REPORT_IDLESPLIT_H
#define TRACELINT_REPORT_IDLESPLIT_H

#include "analysis/TraceIndex.h"
#include "rules/Engine.h"

#include "llvm/Support/JSON.h"

#include <string>
#include <vector>

namespace tracelint::report {

/// One cause of a device's idle time and its figure.
struct IdleCause {
  int64_t Ns = 0;
  analysis::IdleCause Cause;
};
/// The causes of \p I with idle time, largest first (ties in the order of
/// analysis::idleCauses()): the one list the text and HTML reports show.
std::vector<IdleCause> idleCauses(const analysis::TargetIdle &I);
/// "launch path (L001)": a cause as the reports name it, with the rule
/// that claims it.
std::string idleCauseLabel(analysis::IdleCause C);

/// "idle 4 ms (40 %): launch path (L001) 3 ms, host waits (S001) 1 ms",
/// causes largest first; empty when the device was never idle or there is
/// no device.
std::string idleSplitText(const analysis::TargetIdle &I);

/// The same with what each cause's rule made of it (lint's target line):
/// a cause of at least ClaimMarkShare of the target \p TargetNs that no
/// finding claims at half its size says why beside its rule: "host work
/// (L002 quiet: under its 10.0 % floor (7.2 %)) 1.2 ms", "(S004 could not
/// judge)", "(S001 claims 200 us)".
std::string idleSplitText(const analysis::TargetIdle &I,
                          llvm::ArrayRef<rules::CauseClaim> Claims,
                          int64_t TargetNs);
/// The share of the target from which the target line says how each
/// cause's rule came out.
constexpr double ClaimMarkShare = 0.05;

/// The claims as a "claims" array member of the object being written: per
/// cause, its figure, rule, status, the claiming finding's fingerprint and
/// figures, or why there is none.
void writeClaimsJson(llvm::json::OStream &J,
                     llvm::ArrayRef<rules::CauseClaim> Claims);

/// The split as a "device_idle" object member of the object being written:
/// device, span_ns, idle_ns and one *_ns figure per cause. Nothing when
/// there is no device.
void writeIdleSplitJson(llvm::json::OStream &J, const analysis::TargetIdle &I);

} // namespace tracelint::report

#endif
