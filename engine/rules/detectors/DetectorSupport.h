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

// --- S, U and T families: host waits, start-up and teardown ---------------

/// Host waits gathered at one site (an op path, or the end of the window):
/// how many, their time, and the longest.
struct WaitTally {
  uint64_t Count = 0;
  int64_t Total = 0, Max = 0;
  uint32_t Longest = model::NoIndex; ///< the longest wait's event
  void add(const analysis::HostWait &W) {
    const int64_t Len = W.Range.length();
    ++Count;
    Total += Len;
    if (Longest == model::NoIndex || Len > Max) {
      Max = Len;
      Longest = W.Event;
    }
  }
};

/// Calls \p Visit(W, Window) for every host wait that a rule about the
/// steady state judges, in hostWaits() order: those that start inside a
/// measure window (Window is its index into MeasureWindows::Ranges), less
/// the final flushes of the window (isFlushWait; U002 reports them).
/// Returns how many flushes it left out.
uint64_t forEachSteadyWait(
    const analysis::TraceIndex &Ctx,
    llvm::function_ref<void(const analysis::HostWait &, size_t)> Visit);

/// Appends one evidence line per site, \p Line(name, group), for the first
/// \p Max entries of \p Ranked (rankByKey's order): the sites that a
/// finding lists after its subject.
template <typename Entry, typename LineFn>
void addSiteEvidence(Detection &Det, const std::vector<const Entry *> &Ranked,
                     LineFn Line, size_t Max = 3) {
  for (size_t I = 0; I < Ranked.size() && I < Max; ++I)
    Det.ExtraEvidence.push_back(Line(Ranked[I]->first, Ranked[I]->second));
}

/// "cudaStreamSynchronize at 1700000010300.000 us": an event's name and its
/// start in the trace file's clock, for users to find it in Perfetto.
std::string nameAndTime(const analysis::TraceIndex &Ctx, const model::Event &E);

/// What a steady-state finding about the waits at op path \p Site says of
/// its subject and cost: {subject} and {top_op_path}, {impact} and
/// {impact_share} (\p ImpactNs of the target), {target} and the window's
/// placeholders (describeWindows), and the finding's impact, window and
/// subject.
void describeSiteImpact(const analysis::TraceIndex &Ctx,
                        const std::string &Site, int64_t ImpactNs,
                        Detection &Det);

/// The final flushes of the window (TraceIndex::isFlushWait) that last at
/// least \p MinNs.
WaitTally flushWaits(const analysis::TraceIndex &Ctx, int64_t MinNs = 0);

/// The names of \p TimeByName, the most time first (ties by name).
std::vector<std::string>
namesByTime(const std::map<std::string, int64_t> &TimeByName);

/// "graph capture 3 ms (3 calls)" for each non-empty category of
/// \p ByCategory (the calls' ranges, by category; their union is the
/// time), in category order, named by \p Name.
std::vector<std::string>
categoryTimes(llvm::ArrayRef<std::vector<model::Interval>> ByCategory,
              const char *(*Name)(unsigned));

/// The longest of \p Found (StartupWork::Found or TeardownWork::Found), or
/// nullptr when it is empty; the first of equal ones.
template <typename Call>
const model::Event *longestCall(const analysis::TraceIndex &Ctx,
                                const std::vector<Call> &Found) {
  const Call *Longest = nullptr;
  for (const Call &C : Found)
    if (!Longest || C.Range.length() > Longest->Range.length())
      Longest = &C;
  return Longest ? &Ctx.trace().Events[Longest->Index] : nullptr;
}

/// The names of \p Found (StartupWork::Found or TeardownWork::Found), the
/// most time first (namesByTime).
template <typename Call>
std::vector<std::string> callNamesByTime(const analysis::TraceIndex &Ctx,
                                         const std::vector<Call> &Found) {
  const model::Trace &T = Ctx.trace();
  std::map<std::string, int64_t> TimeByName;
  for (const Call &C : Found)
    TimeByName[T.name(T.Events[C.Index]).str()] += C.Range.length();
  return namesByTime(TimeByName);
}

} // namespace tracelint::rules::detect

#endif
