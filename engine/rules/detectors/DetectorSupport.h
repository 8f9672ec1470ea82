//===- rules/detectors/DetectorSupport.h - Shared detector helpers -*- C++ -*-//
//
// Small helpers that the built-in detectors share, so that they agree on how
// figures become typed values, how the windows of a rule are described, how
// selected device work is measured and how example events are described.
// Facts about the trace itself (windows, waits, data loading, start-up) are
// the trace index's (analysis/TraceIndex.h), not computed here.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_RULES_DETECTORS_DETECTORSUPPORT_H
#define TRACELINT_RULES_DETECTORS_DETECTORSUPPORT_H

#include "analysis/TraceIndex.h"
#include "analysis/WhatIf.h"
#include "rules/Finding.h"
#include "rules/RuleSpec.h"
#include "support/Statistics.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tracelint::rules::detect {

/// Typed values for a finding's {placeholders}: a duration in ns, a share
/// (a fraction), a size in bytes, a count.
inline Value dur(int64_t Ns) { return Value::duration(Ns); }
inline Value pct(double Fraction) { return Value::share(Fraction); }
inline Value bytes(int64_t B) { return Value::bytes(B); }
inline Value count(int64_t N) { return Value::count(N); }

using analysis::AllocatorCall;
using analysis::MeasureWindows;
using analysis::NumStartupCategories;
using analysis::NumTeardownCategories;
using analysis::startupCategoryName;
using analysis::StartupEvent;
using analysis::StartupWork;
using analysis::teardownCategoryName;
using analysis::TeardownEvent;
using analysis::TeardownWork;
using support::median;

/// Sets the placeholders that say what a figure is measured over:
/// {window} (Win.describe()), {per} ("per step" or "in the window"), {unit}
/// ("step" or "window") and {metric} ("median step time" or "the window's
/// length").
void describeWindows(const MeasureWindows &Win,
                     std::map<std::string, Value> &Values);

/// Selected device work measured in a rule's windows: unions, so that
/// concurrent events are never counted twice.
struct WorkMeasure {
  /// The union of the selected work inside each window (parallel to
  /// MeasureWindows::Ranges).
  std::vector<int64_t> PerWindow;
  int64_t UnionNs = 0; ///< the sum of PerWindow
  int64_t BusyNs = 0;  ///< all device work's union inside the windows
  uint64_t Count = 0;  ///< selected events that start inside a window
  int64_t medianPerWindow() const { return median(PerWindow); }
  double shareOfBusy() const {
    return BusyNs > 0 ? double(UnionNs) / double(BusyNs) : 0.0;
  }
};
/// Measures the device events \p Work (indices into the trace) in \p Win.
/// An event belongs to the window that its start falls in; events outside
/// every window are ignored.
WorkMeasure measureWork(const analysis::TraceIndex &Ctx,
                        const MeasureWindows &Win,
                        llvm::ArrayRef<uint32_t> Work);

/// A what-if query naming the events \p Events (indices into the trace), for
/// a finding's critical-path cap: every event of those names taking no time.
/// Other events sharing a name are removed too, which loosens the bound but
/// keeps it an upper bound.
analysis::WhatIfQuery namesQuery(const model::Trace &T,
                                 llvm::ArrayRef<uint32_t> Events);

/// The device work launched from inside the host event \p Op (an index
/// into the trace): the device events of every runtime or driver call on
/// its lane that starts within it, in lane order.
std::vector<uint32_t> workLaunchedWithin(const model::Trace &T, uint32_t Op);

/// The distinct names of \p Events (indices into the trace), the most
/// frequent first (ties by name).
std::vector<std::string> namesByCount(const model::Trace &T,
                                      llvm::ArrayRef<uint32_t> Events);

/// The entries of \p Groups (a finding's sites, by name), the largest
/// \p Key(group) first, ties by name: the order in which findings list
/// their sites and pick their subject.
template <typename Group, typename KeyFn>
std::vector<const std::pair<const std::string, Group> *>
rankByKey(const std::map<std::string, Group> &Groups, KeyFn Key) {
  std::vector<const std::pair<const std::string, Group> *> Ranked;
  Ranked.reserve(Groups.size());
  for (const auto &Entry : Groups)
    Ranked.push_back(&Entry);
  llvm::sort(Ranked, [&](const auto *A, const auto *B) {
    auto KA = Key(A->second), KB = Key(B->second);
    if (KA != KB)
      return KA > KB;
    return A->first < B->first;
  });
  return Ranked;
}

/// An example event for the report.
ExampleEvent example(const analysis::TraceIndex &Ctx, const model::Event &E);

/// The innermost framework op enclosing (or equal to) \p E on its lane, or
/// nullptr.
const model::Event *enclosingOp(const model::Trace &T, const model::Event &E);

/// What \p E is called from: its nearest enclosing op, annotation or
/// nn.Module frame, or model::NoIndex. Python frames of the call itself
/// (with_stack wraps every op in "<built-in method ...>" frames) are looked
/// through, so that the ops of one forward() share a container with or
/// without stacks.
uint32_t opContainer(const model::Trace &T, const model::Event &E);

/// True for the host events that can say what a host thread was doing at
/// an instant: ops, Python frames, annotations other than step markers,
/// runtime, driver and OS-runtime calls.
bool isHostActivity(const model::Trace &T, const model::Event &E);

/// Splits \p Piece of host lane \p Lane by the innermost host activity
/// (isHostActivity) covering each instant and calls \p Fn(event index, ns)
/// for each part, with model::NoIndex for time outside any of them.
void forInnermostActivity(const model::Trace &T, uint32_t Lane,
                          model::Interval Piece,
                          llvm::function_ref<void(uint32_t, int64_t)> Fn);

/// "a, b and c" from up to \p Max names.
std::string joinNames(llvm::ArrayRef<std::string> Names, size_t Max = 3);

/// A T-family finding: no impact (the trace's quality is not a cost), the
/// whole trace as its window.
Detection qualityDetection(std::string Subject, double Confidence = 0.95);

//===----------------------------------------------------------------------===//
// K, C and N families: kernel choice, compilation, communication.
//===----------------------------------------------------------------------===//

/// "name at 12.345 us": an event named for an evidence line, with its
/// timestamp on the trace's own clock so that it can be found in Perfetto.
std::string nameAt(const analysis::TraceIndex &Ctx, llvm::StringRef Name,
                   const model::Event &E);

/// The deviceProperties entry of device \p Id, or nullptr.
const model::DeviceInfo *deviceInfo(const model::Trace &T, int32_t Id);

/// What a rule's selected device work costs in its windows.
struct WorkCost {
  WorkMeasure Measure;
  double Share = 0;   ///< of device busy time in the windows
  int64_t Impact = 0; ///< the median per window, at most the target
};

/// Measures \p Work (device events, indices into the trace) in the rule's
/// windows, and returns its cost when the union is at least
/// \p MinShareOfBusy of device busy time and the median per window at least
/// \p MinShareOfTarget of the target; std::nullopt otherwise (or when no
/// selected event lies in a window).
std::optional<WorkCost> workCostAbove(const analysis::TraceIndex &Ctx,
                                      llvm::ArrayRef<uint32_t> Work,
                                      double MinShareOfBusy,
                                      double MinShareOfTarget);

/// Appends to \p Det an evidence line \p Line(entry) for each of the
/// runners-up of \p Ranked (rankByKey's order): the entries after the
/// first, \p Max at most.
template <typename RankedEntries, typename LineFn>
void addRunnersUp(Detection &Det, const RankedEntries &Ranked, LineFn Line,
                  size_t Max = 3) {
  for (size_t G = 1; G < Ranked.size() && G <= Max; ++G)
    Det.ExtraEvidence.push_back(Line(*Ranked[G]));
}

} // namespace tracelint::rules::detect

#endif
