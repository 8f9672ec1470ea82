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
#include "rules/Detector.h"
#include "rules/Finding.h"
#include "rules/RuleSpec.h"
#include "support/Format.h"
#include "support/Statistics.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

#include <algorithm>
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

/// "a, b and c" from up to \p Max names.
std::string joinNames(llvm::ArrayRef<std::string> Names, size_t Max = 3);

/// A T-family finding: no impact (the trace's quality is not a cost), the
/// whole trace as its window.
Detection qualityDetection(std::string Subject, double Confidence = 0.95);

//===----------------------------------------------------------------------===//
// M family (memory and transfers): helpers its detectors share, so that
// they collect copies, sites and host spans alike and describe them in the
// same words.
//===----------------------------------------------------------------------===//

/// True for a host-to-device memcpy (device work).
bool isHtoDCopy(const model::Trace &T, const model::Event &E);

/// The bytes a copy moved; 0 where the trace does not record them.
int64_t copyBytes(const model::Trace &T, const model::Event &E);

/// True when \p Pred holds for an event enclosing \p E on its lane: its
/// parent, the parent's parent and so on (not \p E itself).
bool anyEnclosing(const model::Trace &T, const model::Event &E,
                  llvm::function_ref<bool(const model::Event &)> Pred);

/// True when a submission (TraceIndex::submissions) on the host lane
/// \p Lane starts inside \p Range.
bool submitsWithin(const analysis::TraceIndex &Ctx, uint32_t Lane,
                   model::Interval Range);

/// A stretch \p Range of host time on \p Lane, named by the event \p Event,
/// as a wait for TraceIndex::waitsGainBound() and idleOpenedBy(): removing
/// it lets the thread submit earlier by at most its length.
analysis::HostWait
asHostWait(uint32_t Event, uint32_t Lane, model::Interval Range,
           analysis::WaitKind Kind = analysis::WaitKind::Explicit);

/// Keeps in \p Longest the longer of itself and the event \p Candidate
/// (indices into the trace; model::NoIndex: none yet). On a tie the one kept
/// first stays, so that a site's example is its earliest longest event.
void keepLongest(const model::Trace &T, uint32_t &Longest, uint32_t Candidate);

/// Sets the placeholders of a finding on a time per window measured against
/// the target: {value} (\p CostNs), {share} (its share of the target),
/// {threshold} (\p MinShare), {impact} and {impact_share} (\p ImpactNs),
/// {target}, and those of describeWindows().
void describeCostPerWindow(const analysis::TraceIndex &Ctx, int64_t CostNs,
                           double MinShare, int64_t ImpactNs,
                           std::map<std::string, Value> &Values);

/// Sets {verdict} from the bound on the gain \p ImpactNs against the host
/// time \p CostNs it is about: \p Busy when the device stayed busy for most
/// of that time (the bound is under half of it: removing the cost frees
/// host time, not device time), else \p Idle. Under \p MinGain of the
/// target the finding is info, whichever sentence applies.
void setGainVerdict(Detection &Det, int64_t ImpactNs, int64_t CostNs,
                    double MinGain, int64_t TargetNs, std::string Busy,
                    std::string Idle);

/// Keeps a detection whose cost (\p CostNs per window) is under the rule's
/// warning floor (option \p Option, \p Floor of the target) as an info
/// finding instead of dropping it: evidence a reader still wants (pageable
/// copies, a wait that left the device idle) is shown with its real, small
/// impact and a line saying why it is only info.
void keepUnderFloor(Detection &Det, llvm::StringRef Option, double Floor,
                    int64_t CostNs, int64_t TargetNs);

/// \p Text, composed by a detector in CUDA's words, in the words of the
/// trace's platform (rules/PlatformWords.h): for prose a detector writes
/// into its values or evidence, never for event names.
std::string inTraceWords(const analysis::TraceIndex &Ctx, llvm::StringRef Text);

/// A site's totals over the measured windows written as means per window,
/// as the sites' evidence lines show them ("2.0 copies per step").
class PerWindowMean {
public:
  explicit PerWindowMean(const MeasureWindows &Win)
      : N(double(Win.Ranges.size())),
        Per(Win.Steps ? "per step" : "in the window") {}
  double count(uint64_t Total) const { return double(Total) / N; }
  Value time(int64_t TotalNs) const {
    return dur(int64_t(double(TotalNs) / N));
  }
  Value size(int64_t TotalBytes) const {
    return bytes(int64_t(double(TotalBytes) / N));
  }
  /// "per step" or "in the window".
  llvm::StringRef per() const { return Per; }

private:
  double N;
  llvm::StringRef Per;
};

/// Adds an evidence line for each of the sites \p Ranked (rankByKey's
/// order) from the \p From-th up to, not including, the \p To-th, written by
/// \p Line(site name, group).
template <typename Group, typename LineFn>
void addSiteEvidence(
    Detection &Det,
    const std::vector<const std::pair<const std::string, Group> *> &Ranked,
    size_t From, size_t To, LineFn Line) {
  for (size_t I = From; I < Ranked.size() && I < To; ++I)
    Det.ExtraEvidence.push_back(Line(Ranked[I]->first, Ranked[I]->second));
}

/// "name at 12.345 us", or with \p Detail "name (1.2 ms) at 12.345 us": an
/// event as the texts of a finding name it, with its start in the trace
/// file's clock so that it can be found in Perfetto.
std::string eventAt(const analysis::TraceIndex &Ctx, const model::Event &E,
                    llvm::StringRef Detail = "");

// --- L and D families (launch and host overhead, input pipeline) ---------

/// The devices that have a busy union (device streams), ascending; device
/// work on lanes that are not device streams (-1) has none.
std::vector<int32_t> streamDevices(const analysis::TraceIndex &Ctx);

/// "device 3": the {device} and subject of a per-device finding.
std::string deviceName(int32_t Device);

/// "name (1.2 ms) at 12.345 us": eventAt with the event's length.
std::string eventWithLengthAt(const analysis::TraceIndex &Ctx,
                              const model::Event &E);

/// The names of \p Totals (a figure per name), the largest figure first,
/// ties by name.
template <typename Figure>
std::vector<std::string>
namesByTotal(const std::map<std::string, Figure> &Totals) {
  std::vector<std::string> Names;
  for (const auto *Entry : rankByKey(Totals, [](Figure F) { return F; }))
    Names.push_back(Entry->first);
  return Names;
}

/// The entry of \p Items with the largest \p Figure(item), the first of
/// equals; nullptr when there is none. Per-device rules pick the device
/// they report with it.
template <typename Item, typename FigureFn>
const Item *largestBy(const std::vector<Item> &Items, FigureFn Figure) {
  auto It = std::max_element(
      Items.begin(), Items.end(),
      [&](const Item &A, const Item &B) { return Figure(A) < Figure(B); });
  return It == Items.end() ? nullptr : &*It;
}

/// The idle split that L001 and L002 read (attributeIdle with the rule's
/// max-launch-interval, keeping the gaps): the same options, so that both
/// rules read one cached split.
analysis::IdleOptions launchPathIdleOptions(const RuleOptions &Opts);

/// Sets the placeholders of an idle split that L001, L002 and L004 share:
/// {idle}, {idle_share} (of \p Of), {wait_idle}, {queued_idle},
/// {unlinked_idle} and {more_causes}: ", untraced host time 2 ms (T005),
/// data loading 1 ms (D001), start-up 32 ms (U001), profiler 500 us
/// (U004)" for those that are not zero, so that the parts a finding lists
/// add up to its idle time.
void describeIdleSplit(const analysis::TargetIdle &B, int64_t Of,
                       std::map<std::string, Value> &Values);

/// When more than 30 % of the idle time \p B ends with device work that has
/// no host call in the trace, the attribution of the rest to the host is
/// weaker: lowers \p Det's confidence by a fifth and says so. \p Whose
/// names the idle time in the note ("the", "the loop's").
void noteUnlinkedIdle(Detection &Det, const analysis::IdleBreakdown &B,
                      llvm::StringRef Whose);

/// A finding measured in the rule's windows: ImpactNs, Window, {impact},
/// {threshold} (a share), {target} and the window placeholders
/// (describeWindows).
Detection windowDetection(const analysis::TraceIndex &Ctx, int64_t ImpactNs,
                          double Threshold);
/// windowDetection for a rule whose figure is its impact: {value} is the
/// impact too, and {share} its share of the target.
Detection impactDetection(const analysis::TraceIndex &Ctx, int64_t ImpactNs,
                          double Threshold);

/// The decision of the rules whose figure is time on the target: \p Ns is
/// positive and at least \p MinShare of the target \p TargetNs (> 0).
bool reachesShareOfTarget(int64_t Ns, int64_t TargetNs, double MinShare);
/// A rule that stays quiet because its figure \p Ns is under its floor
/// \p MinShare of the target: "under its 10.0 % floor (7.2 %)", which the
/// target line shows beside the rule's idle cause.
Outcome quietUnderFloor(int64_t Ns, int64_t TargetNs, double MinShare);

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
