//===- analysis/TraceIndex.h - The one source of facts about a trace -*- C++
//-*-//
//
// Built once per trace and read by every rule, `path`, `stats` and `diff`:
// the target metric (median step time, or the window when there are no
// steps), the steady steps and which of them holds an instant, what each
// name is (model/NameClasses.h, matched once per string), device busy
// unions per device and kind, host submissions and waits, data loading,
// start-up and teardown work, the idle split by cause, and the one bound on
// what removing host waits can gain. A fact is computed here, once, so that
// two readers cannot disagree about it.
//
// The costlier parts are built on first use. Building is thread-safe
// (support::Lazy and a lock for the idle cache), so that the rules can run
// on several threads over one index; everything else is read-only.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_ANALYSIS_TRACEINDEX_H
#define TRACELINT_ANALYSIS_TRACEINDEX_H

#include "analysis/HostTimeline.h"
#include "analysis/PathCategory.h"
#include "analysis/Producer.h"
#include "analysis/RoundTrips.h"
#include "analysis/Startup.h"
#include "model/Intervals.h"
#include "model/NameClasses.h"
#include "model/Trace.h"
#include "support/Lazy.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <array>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace tracelint::analysis {

/// The interval a finding's impact is measured against.
enum class TargetKind : uint8_t {
  MedianStep, ///< the median duration of the steps
  Window,     ///< no steps: the whole profiled window
};

/// A last step shorter than this share of the other steps' median was cut
/// by the profiler (TraceIndex::lastStepCut).
constexpr double CutStepShare = 0.5;

struct StepWindow {
  int64_t Number = -1;
  model::Interval Range; ///< the step's host range
  bool First = false;    ///< the first step of the window
};

/// The intervals a rule measures in: the steady steps (steadySteps()), or
/// the whole window when the trace has no steps.
struct MeasureWindows {
  std::vector<model::Interval> Ranges; ///< sorted and disjoint
  std::vector<int64_t> StepNumbers;    ///< parallel to Ranges; -1: the window
  bool Steps = false;
  /// "steps 3-7", "step 12", or "the whole window".
  std::string describe() const;
  /// The index of the range holding the instant \p At, or Ranges.size()
  /// when none does (a binary search).
  size_t indexOf(int64_t At) const;
};

/// What device work is, for busy time: compute, copies, memsets and
/// communication (a collective's kernels).
enum class BusyKind : uint8_t { Compute, Copy, Memset, Communication };
constexpr unsigned NumBusyKinds = 4;
llvm::StringRef busyKindName(BusyKind K);
BusyKind busyKindOf(model::EventKind K);

/// What a host runtime/driver call does to device memory.
enum class AllocatorCall : uint8_t { None, Malloc, Free };

/// How a host event blocks the host until the device has done some work.
enum class WaitKind : uint8_t {
  None,
  /// An explicit synchronization call: cuda/hip Stream-, Device-, Event-,
  /// Ctx- or ThreadSynchronize and their driver forms.
  Explicit,
  /// A copy call that returns only when the copy is done: cudaMemcpy,
  /// hipMemcpy, hipMemcpyWithStream, cuMemcpyDtoH... (no "Async"), and an
  /// async copy whose device copy reads or writes pageable host memory.
  BlockingCopy,
  /// A framework op that reads a device value on the host, so it waits for
  /// everything queued before it (model::NameClass::DeviceReadOp: aten::item,
  /// aten::nonzero, aten::unique, ...).
  ImplicitOp,
};
llvm::StringRef waitKindName(WaitKind K);

/// One stretch of time a host thread spent blocked on the device.
struct HostWait {
  uint32_t Event = model::NoIndex; ///< the waiting call or op
  uint32_t Lane = model::NoIndex;
  WaitKind Kind = WaitKind::None;
  model::Interval Range;
};

/// Options of attributeIdle().
/// The longest stretch between two parts of a thread's launch path that
/// counts as glue between eager ops (TraceIndex::launchPath): eager
/// frameworks submit an op every 5-50 us, and a Python module boundary adds
/// tens of microseconds; data loading, CPU compute and logging take longer.
constexpr int64_t LaunchGlueBoundNs = 200'000;

struct IdleOptions {
  /// Host time after a wait counts as refilling the drained queue (a
  /// host-wait cost) only when the next submission follows within this;
  /// a longer stretch is other host work. Eager frameworks submit an op
  /// every 5-50 us.
  int64_t MaxLaunchIntervalNs = 200'000;
  /// Work normally starts within a few microseconds of its launch call
  /// returning. Idle time later than this after the call returned is
  /// counted as Unrecorded: the work was submitted and something on the
  /// device side (or missing from the trace) held it back. The critical
  /// path's launch-latency bound is the same (PathCategory.h).
  int64_t MaxLaunchLatencyNs = LaunchLatencyBoundNs;
  /// Keep one AttributedGap per host-late gap in IdleBreakdown::GapList.
  bool KeepGaps = false;
};

/// One idle gap whose ending work the host submitted late.
struct AttributedGap {
  model::Interval Range;
  uint32_t Work = model::NoIndex;   ///< the device work that ends the gap
  uint32_t Launch = model::NoIndex; ///< the call that submitted it
  int64_t LaunchNs = 0, HostWaitNs = 0, HostOtherNs = 0, UntracedNs = 0;
  /// The pieces of the gap counted as host work or untraced host time
  /// (HostCause::Other or Untraced, not refilling after a wait), in order,
  /// each with the innermost event the host timeline names.
  std::vector<HostStretch> HostPieces;
};

/// Device idle time split by what held back the device work that ended each
/// idle gap. For a gap [A, B) on a device, W is the first device work that
/// starts at or after B (after B when the window cut the gap) and L the host
/// call that submitted it (by correlation):
///  - Unrecorded: L had returned before A, so W was already submitted when
///    the device went idle, and nothing recorded held it: a device-side
///    dependency the trace does not show (an event wait, a peer rank,
///    another process on the device, lost records). The device was free,
///    so this is never "queued" (queued work keeps the device busy).
///  - Unlinked: W has no host call in the trace (no correlation);
///  - Tail: the device does no more work after the gap.
///  - otherwise the host was late, and each instant of the gap is attributed
///    to what L's thread was doing then:
///    - HostWait: inside a host wait, or between the end of a wait and the
///      next submission when that is no longer than MaxLaunchIntervalNs
///      (refilling the drained queue);
///    - Profiler: otherwise inside the profiler's own activity on that thread
///      (profilerRanges(): overhead records, the profiler's Python frames);
///    - Startup: otherwise inside one-off start-up work on that thread
///      (startupRanges(): a slow first call that loads modules or creates
///      the context, allocation and pinning, compilation and autotuning,
///      graph capture), even when it is a launch call or a data-loader range;
///    - Launch: inside L itself or up to MaxLaunchLatencyNs after it
///      returned, or elsewhere on the thread's launch path (launchPath():
///      inside an op that submits device work, or a submission call); idle
///      later than MaxLaunchLatencyNs after L returned is Unrecorded;
///    - DataLoading: inside one of that thread's data-loader ranges;
///    - HostOther: inside any other recorded host activity (an op that
///      submits nothing, a Python frame, a runtime call that submits
///      nothing);
///    - Untraced: inside no recorded event at all.
/// Apart from L's own time, the latency after it and the refill after a
/// wait, each instant's cause is the host timeline's (forEachHostStretch),
/// which the critical path (DependencyGraph) reads too, so `path` and the
/// rules agree.
struct IdleBreakdown {
  int64_t IdleNs = 0; ///< the window minus the device's busy union
  int64_t LaunchNs = 0, HostWaitNs = 0, HostOtherNs = 0, UntracedNs = 0,
          DataLoadingNs = 0, StartupNs = 0, ProfilerNs = 0, UnrecordedNs = 0,
          UnlinkedNs = 0;
  /// Idle before the first or after the last host event of the trace
  /// (TraceQuality::HostSpan): the host record does not reach it, so no
  /// host cause can be named (the window was cut; T006).
  int64_t CutNs = 0;
  /// Idle after the device's last work in the trace: nothing was left to
  /// run (no work, so no host call, to blame).
  int64_t TailNs = 0;
  /// Adds \p B's figures (every cause, the gap counts and the longest
  /// launch gap; not its gap list): a split of several ranges as one.
  void addFigures(const IdleBreakdown &B) {
    IdleNs += B.IdleNs;
    LaunchNs += B.LaunchNs;
    HostWaitNs += B.HostWaitNs;
    HostOtherNs += B.HostOtherNs;
    UntracedNs += B.UntracedNs;
    DataLoadingNs += B.DataLoadingNs;
    StartupNs += B.StartupNs;
    ProfilerNs += B.ProfilerNs;
    UnrecordedNs += B.UnrecordedNs;
    UnlinkedNs += B.UnlinkedNs;
    CutNs += B.CutNs;
    TailNs += B.TailNs;
    Gaps += B.Gaps;
    LaunchGaps += B.LaunchGaps;
    if (B.LongestLaunchGap.length() > LongestLaunchGap.length()) {
      LongestLaunchGap = B.LongestLaunchGap;
      LongestLaunchGapWork = B.LongestLaunchGapWork;
    }
  }
  uint64_t Gaps = 0;
  /// Host-late gaps that were mostly launch-attributed, and the longest.
  uint64_t LaunchGaps = 0;
  model::Interval LongestLaunchGap;
  uint32_t LongestLaunchGapWork = model::NoIndex; ///< W of that gap
  std::vector<AttributedGap> GapList; ///< with IdleOptions::KeepGaps
};

/// Device work that started later than its recorded dependencies and a
/// free device allow: it was ready (launched, its stream predecessor done),
/// the ordinary launch latency passed, and the device sat idle while the
/// work waited. Something the trace does not record held it: another rank,
/// another process on the device, an event wait the profiler missed, lost
/// device records.
struct DeviceStall {
  uint32_t Work = model::NoIndex;   ///< the stalled work
  uint32_t Launch = model::NoIndex; ///< the call that submitted it
  int64_t ReadyNs = 0;              ///< see TraceIndex::readyTime()
  /// Device idle time from ReadyNs + LaunchLatencyBoundNs to the work's
  /// start (the unrecorded-dependency time).
  int64_t IdleNs = 0;
};

/// A split of one device's idle time by cause (IdleBreakdown's figures
/// without the gaps): typical over the measured windows
/// (TraceIndex::typicalIdle, TraceIndex::targetIdle), or of one range
/// (TraceIndex::idleSplit). lint's target line, `path`, `stats` and the
/// rules that claim an idle cause show the same figures.
struct TargetIdle {
  int32_t Device = -1; ///< -1: no device work
  int64_t SpanNs = 0;  ///< the median window's length
  int64_t IdleNs = 0, LaunchNs = 0, HostOtherNs = 0, UntracedNs = 0,
          HostWaitNs = 0, DataLoadingNs = 0, StartupNs = 0, ProfilerNs = 0,
          UnrecordedNs = 0, UnlinkedNs = 0, CutNs = 0, TailNs = 0;
  /// The sum of the causes: IdleNs.
  int64_t causesNs() const {
    return LaunchNs + HostOtherNs + UntracedNs + HostWaitNs + DataLoadingNs +
           StartupNs + ProfilerNs + UnrecordedNs + UnlinkedNs + CutNs + TailNs;
  }
};

/// The typical split of per-window splits \p Windows of \p Device (their
/// windows \p SpanNs long): each cause's median over the windows, scaled so
/// that the causes add up to the median idle time (medians taken one by one
/// need not; when all of them are zero, the windows' total per cause sets
/// the proportions). With one window, or windows alike, each part is that
/// window's own. The one way the reports and the rules make one figure of
/// several windows' splits.
TargetIdle typicalSplit(int32_t Device, llvm::ArrayRef<int64_t> SpanNs,
                        llvm::ArrayRef<const IdleBreakdown *> Windows);
/// The same over splits already reduced to figures (each with its span):
/// the steps of a rank summary.
TargetIdle typicalSplit(int32_t Device,
                        llvm::ArrayRef<const TargetIdle *> Windows);

/// The causes of a split, each with the rule that claims it: the one list
/// the reports (labels, JSON keys, HTML classes) and the rule engine (which
/// finding claims which part of the target line) read.
enum class IdleCause : uint8_t {
  Launch,
  HostOther,
  Untraced,
  HostWait,
  DataLoading,
  Startup,
  Profiler,
  Unrecorded,
  Unlinked,
  Cut,
  Tail,
};
struct IdleCauseInfo {
  IdleCause Cause;
  llvm::StringLiteral Label;   ///< "launch path"
  llvm::StringLiteral Rule;    ///< "L001"; empty: no rule claims it
  llvm::StringLiteral AlsoBy;  ///< another rule that claims part ("L004")
  llvm::StringLiteral Key;     ///< "launch": an HTML class, a JSON name
  llvm::StringLiteral JsonKey; ///< "launch_path_ns" in `device_idle`
};
/// Every cause, in the order the JSON writes them.
llvm::ArrayRef<IdleCauseInfo> idleCauses();
const IdleCauseInfo &idleCauseInfo(IdleCause C);
/// The figure of \p C in \p Split.
int64_t idleCauseNs(const TargetIdle &Split, IdleCause C);

/// Facts about a trace's completeness (computed from ImportStats and links).
struct TraceQuality {
  /// From the first host event's start to the last one's end, over every
  /// host thread; empty without host events. Device time outside it is
  /// time the host record cannot explain: the window was cut there.
  model::Interval HostSpan;
  /// Device busy time (all devices, a union) before HostSpan begins and
  /// after it ends.
  int64_t DeviceBeforeHostNs = 0, DeviceAfterHostNs = 0;
  bool Truncated = false;
  int64_t TruncatedAtByte = -1;
  /// Events missing from the model (malformed, no timestamp).
  uint64_t DroppedEvents = 0;
  /// Durations that were clamped or invented (negative, absurd, missing,
  /// unclosed 'B', unmatched 'E').
  uint64_t AdjustedEvents = 0;
  uint64_t DeviceWorkEvents = 0;
  /// Device work without a host call in the trace, and its share.
  uint64_t DeviceWithoutLaunch = 0;
  double DeviceWithoutLaunchShare = 0;
  /// Launch calls without device work, and their share of launch calls.
  uint64_t LaunchCalls = 0, LaunchWithoutDevice = 0;
  double LaunchWithoutDeviceShare = 0;
  /// Device work that starts before the call that launched it.
  uint64_t DeviceBeforeLaunch = 0;
  double DeviceBeforeLaunchShare = 0;
  model::StepSource StepsFrom = model::StepSource::None;
  size_t Steps = 0;
  /// Host runtime/driver calls exist (work was submitted somewhere).
  uint64_t RuntimeCalls = 0;
  /// The trace's metadata names devices (deviceProperties).
  size_t DeclaredDevices = 0;
};

/// A confidence factor that a trace-quality problem calls for.
struct ConfidencePenalty {
  double Factor = 1.0; ///< multiply confidence by this (0 < Factor <= 1)
  std::string Note;    ///< shown with the finding: why it was lowered
  /// Which rule needs it affects, by Need name ("device", "correlation",
  /// "steps"); empty: every rule.
  std::vector<std::string> Affects;
};

/// Event indices gathered lane by lane, each lane's a run ordered by start
/// (as a lane's events are), ordered by start and then index: the runs are
/// merged (\p RunEnds: the end of each run in \p Events, ascending), which
/// reads them in order, where sorting the whole would compare events
/// scattered over the trace. The order of every list of events "sorted by
/// start" that the index keeps.
std::vector<uint32_t> mergeLaneRuns(const model::Trace &T,
                                    std::vector<uint32_t> Events,
                                    llvm::ArrayRef<size_t> RunEnds);

class TraceIndex {
public:
  /// \p Names decides what each name is; the built-in classes by default,
  /// or those of a tracelint.toml [names] table.
  explicit TraceIndex(const model::Trace &T,
                      std::shared_ptr<const model::NameClassifier> Names =
                          model::NameClassifier::builtin());

  const model::Trace &trace() const { return T; }

  // --- Producer ----------------------------------------------------------
  /// What program produced the trace (analysis/Producer.h), decided once:
  /// the rule engine picks the rule texts for it and `stats` shows it.
  const ProducerInfo &producer() const;

  // --- Names ---------------------------------------------------------------
  /// True when \p E's name is in class \p C (matched once per string).
  bool is(const model::Event &E, model::NameClass C) const {
    return nameIs(E.Name, C);
  }
  bool nameIs(model::StringId Name, model::NameClass C) const;
  const model::NameClassifier &names() const { return *Names; }
  /// A host range that marks the input pipeline producing a batch: an op,
  /// annotation or Python frame of class DataLoader.
  bool isDataLoaderRange(const model::Event &E) const;
  /// What a runtime or driver call does to device memory.
  AllocatorCall allocatorCall(const model::Event &E) const;
  /// Device work that copies memory on the device: a device-to-device
  /// memcpy, or a kernel of class CopyKernel.
  bool isDeviceCopy(const model::Event &E) const;

  // --- Target ------------------------------------------------------------
  TargetKind targetKind() const { return Target; }
  /// The step time: the median length of the steady steps' host ranges
  /// (steadySteps()), or the window's length without steps. The one figure
  /// that lint, stats, `path` and `diff` print as the step time.
  int64_t targetNs() const { return TargetNs; }
  /// "median step time 12.3 ms (steps 2-6)" (the steady steps, when the
  /// first is left out), "median step time 1 ms (2 steps)" or "window 1.2 s
  /// (no step markers)".
  std::string describeTarget() const;

  // --- Steps -------------------------------------------------------------
  llvm::ArrayRef<StepWindow> steps() const { return Steps; }
  bool hasSteps() const { return !Steps.empty(); }
  /// Index into steps() of the step whose range contains \p Time, or -1.
  int stepAt(int64_t Time) const;
  /// The steady state: every step after the first when there are at least
  /// three (the first holds start-up work, principle 4), else all steps;
  /// a last step the profiler cut (lastStepCut()) is never one. The rules,
  /// `path` and `diff` all measure over these.
  llvm::ArrayRef<StepWindow> steadySteps() const;
  /// True when the last step is shorter than CutStepShare of the median of
  /// the others: the profiler stopped inside it (T006 says so).
  bool lastStepCut() const { return LastStepCut; }
  /// The steady steps' ranges, or the whole window without steps.
  const MeasureWindows &measureWindows() const { return Windows; }
  /// Which measured window an event belongs to (an index into
  /// measureWindows().Ranges, or Ranges.size() for none): device work
  /// belongs to the step whose host range holds the call that launched it,
  /// even when it runs into the next step; an event without a launch (host
  /// events, device work without correlation) to the window holding its
  /// start. The one answer to "which step is this kernel's" that every
  /// rule uses.
  size_t windowOf(uint32_t Event) const;
  model::Interval window() const { return {T.WindowStart, T.WindowEnd}; }

  // --- Device ------------------------------------------------------------
  bool hasDeviceActivity() const { return DeviceWork > 0; }
  bool hasLaunches() const { return LaunchCalls > 0; }
  /// True when some device work is linked to a host call by correlation.
  bool hasCorrelation() const { return LinkedDeviceWork > 0; }
  /// Devices with recorded work, ascending; -1 stands for device work on
  /// lanes that are not device streams.
  llvm::ArrayRef<int32_t> devices() const { return DeviceIds; }
  /// Union of device work over all devices (empty without device activity).
  const model::IntervalSet &deviceBusy() const { return AllBusy; }
  const model::IntervalSet &deviceBusy(int32_t Device) const;
  /// The union of one kind of work on one device.
  const model::IntervalSet &deviceBusy(int32_t Device, BusyKind K) const;
  int64_t deviceBusyNs() const { return AllBusy.length(); }
  /// The time managed-memory pages migrate to or from \p Device
  /// (EventKind::Migration, a union): not device work, but what the
  /// device's faulting kernels and the work behind them wait for. M009
  /// measures it; unrecordedStalls() leaves the idle time it covers out.
  const model::IntervalSet &migrating(int32_t Device) const;
  /// Indices of the device work of one device, sorted by start.
  llvm::ArrayRef<uint32_t> deviceWork(int32_t Device) const;
  /// The first device work on \p Device that starts at or after \p Time,
  /// or model::NoIndex.
  uint32_t nextDeviceWork(int32_t Device, int64_t Time) const;
  /// Every event of kind \p K, sorted by start (then index).
  llvm::ArrayRef<uint32_t> eventsOfKind(model::EventKind K) const;
  /// The host lane that submits the most work to \p Device (ties: the
  /// lower lane), or model::NoIndex.
  uint32_t mainFeeder(int32_t Device) const;

  // --- Events ------------------------------------------------------------
  /// Exclusive (self) time of every event, computed on first use.
  llvm::ArrayRef<int64_t> selfTimes() const;
  /// "thread 123 (python)" / "device 0 stream 7", for evidence lines.
  std::string describeLane(const model::Lane &L) const;
  /// The event's start in the trace file's own clock, in microseconds, so
  /// that users can find it in Perfetto.
  double traceTimestampUs(const model::Event &E) const;
  /// The event's start from the trace's first event, in ns: where Perfetto's
  /// timeline shows it, and what the reports print ("+1.234567 s").
  int64_t traceOffsetNs(const model::Event &E) const;
  /// The trace's first event in the file's own clock, in microseconds: the
  /// point the offsets count from.
  double firstEventTimestampUs() const;
  /// Path of op names from the outermost ancestor to \p E, joined by " > ",
  /// skipping step annotations: "aten::to > aten::_to_copy > aten::copy_".
  std::string opPath(const model::Event &E, unsigned MaxDepth = 6) const;

  // --- Host submission and waits ------------------------------------------
  /// True for a host call that submits device work: a runtime/driver call
  /// linked by correlation to device work, or one named as a launch.
  bool isSubmission(const model::Event &E) const;
  /// How (and whether) a host event blocks the host on the device.
  WaitKind waitKind(const model::Event &E) const;
  /// Every host wait in the trace, outermost only: a wait nested in another
  /// is not listed, and an implicitly synchronizing op whose own runtime
  /// calls are waits is replaced by them (so no wait is counted twice).
  /// Sorted by lane, then start.
  llvm::ArrayRef<HostWait> hostWaits() const;
  /// The host waits of one lane, sorted by start.
  llvm::ArrayRef<HostWait> hostWaits(uint32_t HostLane) const;
  /// Indices of the submissions made on a host lane, sorted by start.
  llvm::ArrayRef<uint32_t> submissions(uint32_t HostLane) const;
  /// The launch path of a host lane: the time inside the submission calls,
  /// inside framework ops that submit device work (an op with a submission
  /// among its descendants, and every op enclosing it: the per-op
  /// dispatch), and the glue between two such stretches when it is at most
  /// LaunchGlueBoundNs long and runs no framework op (the interpreter
  /// between eager ops, or code the trace does not record). That is what
  /// CUDA graphs and compilers remove. Host time outside it (ops that
  /// submit nothing, longer stretches without submitting, data loading) is
  /// other host work. The one definition that the idle split (L001, L002)
  /// and `path` share.
  const model::IntervalSet &launchPath(uint32_t HostLane) const;
  /// True for a framework op (EventKind::Op) on the launch path: it or one
  /// of its descendants submits device work.
  bool isSubmittingOp(uint32_t Event) const;
  /// isSubmission() of an event by its index, looked up (host events only).
  bool isSubmissionAt(uint32_t Event) const;
  /// Devices that receive work submitted from a host lane, ascending.
  llvm::ArrayRef<int32_t> devicesFedBy(uint32_t HostLane) const;
  /// True when some host thread submits device work.
  bool anyThreadSubmits() const;
  /// The end of the window's last submission on any host thread; INT64_MAX
  /// when no thread submits.
  int64_t lastSubmissionEnd() const;
  /// True when \p W is the synchronization that flushes queued work at the
  /// end of the profiled window: it starts after the last step ends, or,
  /// without steps, no host call submits device work after it returns. Such
  /// a wait is a profiling/teardown artifact, not an application defect.
  bool isFlushWait(const HostWait &W) const;
  /// An upper bound on the gain, inside \p Range, from removing the host
  /// waits \p Waits (any lanes; the parts outside the range are ignored).
  /// Removing a wait lets its thread submit earlier by at most the wait's
  /// length, and the time saved can only be device idle time from the
  /// wait's start to the device's next work. The waits before the same
  /// device work form a group, credited with min(their summed length, the
  /// idle time from the group's first start to that work); idle time that
  /// an earlier group already claimed is not counted again. The sum is taken
  /// on each device fed by the waiting threads, and the largest is returned.
  /// Every rule that bounds the gain of removing waits uses this.
  int64_t waitsGainBound(llvm::ArrayRef<HostWait> Waits,
                         model::Interval Range) const;
  /// The device idle time inside \p Range that \p Waits open: the union of
  /// each wait's span from its start to the next device work, minus device
  /// busy time, on the device with the most. The bound above never exceeds
  /// it; rules show it as "the device idled X after them".
  int64_t idleOpenedBy(llvm::ArrayRef<HostWait> Waits,
                       model::Interval Range) const;

  // --- The host timeline (analysis/HostTimeline.h) ---------------------
  /// True for a step range: a ProfilerStep# annotation or the event that
  /// defines a step (--step). It says only that a step ran.
  bool isStepRange(uint32_t Event) const;
  /// True for a host event that says what its thread was doing: any event
  /// with a duration that is not device work, a marker, a counter, a
  /// device-side sync record or a step range.
  bool isRecordedActivity(uint32_t Event) const;
  /// Calls \p Fn for each stretch of host lane \p HostLane inside \p Range,
  /// in time order: the range cut at every boundary of the lane's events,
  /// waits, launch path, profiler work and start-up work, each piece with
  /// the one cause that the order of HostCause gives it and its innermost
  /// recorded event. The one definition of what a host thread was doing:
  /// the idle split, the critical path and the host rules all read it.
  /// A device lane is one untraced stretch.
  void
  forEachHostStretch(uint32_t HostLane, model::Interval Range,
                     llvm::function_ref<void(const HostStretch &)> Fn) const;
  /// The time of \p HostLane inside \p Range whose cause is \p C.
  int64_t hostTimeIn(uint32_t HostLane, HostCause C,
                     model::Interval Range) const;

  // --- Data loading ----------------------------------------------------------
  /// The data-loader ranges (isDataLoaderRange) of the host threads that
  /// submit device work, or of every host thread when no thread submits (a
  /// trace without runtime calls), as event indices in lane order. Ranges on
  /// a thread that does not feed the device (a prefetching thread) do not
  /// hold the device back and are left out.
  llvm::ArrayRef<uint32_t> dataLoaderEvents() const;
  /// The union of the ranges of dataLoaderEvents().
  const model::IntervalSet &dataLoaderRanges() const;

  // --- Copies ------------------------------------------------------------
  /// Host-to-device and device-to-host copies of the same data repeated in
  /// the measured windows (analysis/RoundTrips.h), found once: M008 reports
  /// them, M003 tells its upload copies apart by them.
  const RoundTrips &roundTrips() const;

  // --- Start-up and teardown
  // ---------------------------------------------------
  /// One-off start-up work in the window (analysis/Startup.h).
  const StartupWork &startup() const;
  /// The "cannot judge" reason for a steady-state rule when start-up work
  /// leaves too little of the target to judge
  /// (StartupWork::tooLittleSteadyTime); empty otherwise: the rules judge
  /// what start-up leaves, beside it.
  const std::string &startupWindowReason() const;
  /// Teardown calls after the last submission (analysis/Startup.h).
  const TeardownWork &teardown() const;
  /// The host time of \p HostLane in startup().Found's work: what the idle
  /// split and the critical path call start-up on that thread.
  const model::IntervalSet &startupRanges(uint32_t HostLane) const;

  // --- The profiler's own activity ---------------------------------------
  /// Overhead records (EventKind::Overhead) and the profiler's own Python
  /// frames (NameClass::ProfilerFrame) with a duration, in trace order. U004
  /// measures them; the idle split and the critical path call the time of
  /// the thread that submits the next work inside them "profiler".
  llvm::ArrayRef<uint32_t> profilerActivity() const;
  /// The profiler's time on \p HostLane: its own Python frames on that
  /// thread, and every overhead record of the thread's process (they are
  /// often written on a track of their own, not on the thread they held up).
  const model::IntervalSet &profilerRanges(uint32_t HostLane) const;
  /// The host phases of \p HostLane in which the trace records its OS
  /// runtime calls (EventKind::OsRuntime, nsys's OSRT_API): the stretches
  /// between two of the thread's device interactions (submissions and host
  /// waits; before the first, after the last) that hold at least one such
  /// call; empty for a thread that submits nothing. The host timeline calls
  /// the time inside no recorded event there host work, not untraced
  /// (docs/path.md, "The host timeline").
  const model::IntervalSet &osTracedPhases(uint32_t HostLane) const;

  // --- Device idle attribution ---------------------------------------------
  /// Splits the idle time of \p Device inside \p Window (the gaps of its busy
  /// union) by what held the next device work back. See IdleBreakdown.
  /// Computed once per device, window and options, and shared by the rules
  /// that ask for the same split.
  const IdleBreakdown &attributeIdle(int32_t Device, model::Interval Window,
                                     const IdleOptions &Opts = {}) const;

  /// When device work \p Work could have started by its recorded
  /// dependencies: its launch call's end (its start, when the work began
  /// inside the call) and the end of the previous work on its stream; -1
  /// when neither is recorded. The dependency graph's queue edges and
  /// delay split and unrecordedStalls() use this one definition.
  int64_t readyTime(uint32_t Work) const;
  /// The stalls (DeviceStall) of device work starting inside \p Range,
  /// longest idle first, each with its idle time clipped to the range.
  std::vector<DeviceStall> unrecordedStalls(model::Interval Range) const;

  /// The typical split of \p Device's idle time over the measured windows
  /// (typicalSplit): the parts add up to the median idle. The rules that
  /// claim an idle cause (L001, L002, T005, D001, ...) read their figure
  /// here.
  TargetIdle typicalIdle(int32_t Device, const IdleOptions &Opts = {}) const;
  /// The target's idle split (see TargetIdle), computed once: typicalIdle()
  /// of the device with the most busy time.
  const TargetIdle &targetIdle() const;
  /// The same split for one device over one range (attributeIdle with the
  /// default options): what `path` shows for its target range.
  TargetIdle idleSplit(int32_t Device, model::Interval Range) const;

  // --- Quality -----------------------------------------------------------
  bool truncated() const { return T.Stats.TruncatedAtByte >= 0; }
  /// Facts about the trace's completeness that lower the confidence of
  /// rules, computed once (see TraceQuality).
  const TraceQuality &quality() const { return Quality; }
  /// The confidence penalties these facts call for, one per problem, with
  /// the needs they affect: unreliable links (device work before its launch,
  /// device work without a host call), no step markers, and too few steps
  /// for a steady-state claim. The rule engine applies each to the findings
  /// of rules that have one of those needs (every rule but the T family when
  /// Affects is empty) and shows the note. Truncation and dropped events are
  /// penalised by the engine itself from ImportStats, not listed here.
  std::vector<ConfidencePenalty> confidencePenalties() const;

private:
  const model::Trace &T;
  std::shared_ptr<const model::NameClassifier> Names;
  /// Per string: two bits per name class (bit 2C: known, bit 2C + 1: in
  /// the class), filled on first question.
  mutable std::vector<std::atomic<uint64_t>> NameBits;
  TargetKind Target = TargetKind::Window;
  int64_t TargetNs = 0;
  std::vector<StepWindow> Steps;
  bool LastStepCut = false;
  llvm::DenseSet<uint32_t> StepEvents; ///< the events that define steps
  MeasureWindows Windows;
  uint64_t DeviceWork = 0, LaunchCalls = 0, LinkedDeviceWork = 0;
  std::vector<int32_t> DeviceIds;
  struct DeviceBusy {
    model::IntervalSet All;
    std::array<model::IntervalSet, NumBusyKinds> Kind;
  };
  std::vector<DeviceBusy> BusyPerDevice; ///< parallel to DeviceIds
  model::IntervalSet AllBusy;
  std::map<int32_t, model::IntervalSet> Migrating;
  TraceQuality Quality;

  struct HostIndex {
    std::vector<HostWait> Waits; ///< by lane, then start
    /// Per lane: [begin, end) into Waits, and the lane's submissions.
    std::vector<std::pair<uint32_t, uint32_t>> WaitRange;
    std::vector<std::vector<uint32_t>> Submissions;
    std::vector<std::vector<int32_t>> Fed;
    std::vector<model::IntervalSet> LaunchPath; ///< per lane
    llvm::BitVector SubmittingOps;              ///< per event
    llvm::BitVector Submission;                 ///< per event: isSubmission
    int64_t LastSubmissionEnd = INT64_MAX;
    int64_t LastSubmissionStart = INT64_MIN;
    bool AnySubmits = false;
  };
  struct DataLoading {
    std::vector<uint32_t> Events;
    model::IntervalSet Ranges;
  };
  support::Lazy<std::vector<int64_t>> Self;
  support::Lazy<HostIndex> Host;
  support::Lazy<std::vector<std::vector<uint32_t>>> WorkByDevice;
  support::Lazy<std::vector<uint32_t>> FeederOf; ///< parallel to DeviceIds
  support::Lazy<DataLoading> Loading;
  support::Lazy<StartupWork> Startup;
  support::Lazy<std::string> StartupReason;
  support::Lazy<TeardownWork> Teardown;
  struct HostCauses {
    std::vector<uint32_t> Profiler;
    std::vector<model::IntervalSet> StartupByLane, ProfilerByLane,
        OsTracedByLane;
  };
  support::Lazy<HostCauses> Causes;
  support::Lazy<TargetIdle> IdleOfTarget;
  support::Lazy<ProducerInfo> Program;
  support::Lazy<RoundTrips> Trips;
  mutable std::array<support::Lazy<std::vector<uint32_t>>, model::NumEventKinds>
      ByKind;
  using IdleKey = std::tuple<int32_t, int64_t, int64_t, int64_t, int64_t, bool>;
  mutable std::mutex IdleLock;
  mutable std::map<IdleKey, IdleBreakdown> IdleCache;

  const HostIndex &hostIndex() const;
  HostIndex buildHostIndex() const;
  void buildLaunchPath(HostIndex &H) const;
  DataLoading findDataLoading() const;
  const HostCauses &hostCauses() const;
  void computeQuality();
  void computeWindows();
  const std::vector<uint32_t> &workOf(int32_t Device) const;
  size_t deviceSlot(int32_t Device) const; ///< index into DeviceIds, or npos
  IdleBreakdown computeIdle(int32_t Device, model::Interval Window,
                            const IdleOptions &Opts) const;
};

} // namespace tracelint::analysis

#endif
