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

#include "llvm/Support/JSON.h"

#include <string>
#include <vector>

namespace tracelint::report {

/// One cause of a device's idle time, as the reports name it.
struct IdleCause {
  int64_t Ns = 0;
  llvm::StringLiteral Label; ///< "launch path (L001)"
  llvm::StringLiteral Key;   ///< "launch": a class name for the HTML bar
};
/// The causes of \p I with idle time, largest first (ties in a fixed
/// order): the one list the text and HTML reports show.
std::vector<IdleCause> idleCauses(const analysis::TargetIdle &I);

/// "idle 4 ms (40 %): launch path (L001) 3 ms, host waits (S001) 1 ms",
/// causes largest first; empty when the device was never idle or there is
/// no device.
std::string idleSplitText(const analysis::TargetIdle &I);

/// The split as a "device_idle" object member of the object being written:
/// device, span_ns, idle_ns and one *_ns figure per cause. Nothing when
/// there is no device.
void writeIdleSplitJson(llvm::json::OStream &J, const analysis::TargetIdle &I);

} // namespace tracelint::report

#endif
