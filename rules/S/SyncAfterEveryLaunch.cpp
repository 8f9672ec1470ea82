//===- rules/S/SyncAfterEveryLaunch.cpp - S002 launch, wait, launch -------===//
//
// The asynchronous model lets the host queue work while the device runs the
// work queued before it, so that a step costs about max(host submission,
// device work). A host thread that waits for the device after (nearly)
// every kernel launch throws that away: the device idles while the host
// prepares and submits the next launch, and the host idles while the device
// runs it, so the step costs about their sum.
//
// This detector walks each host thread's kernel launches in the steady
// steps and calls a launch serialised when the thread waits on the device
// (any host wait: explicit synchronization, blocking copy, value read)
// before its next launch. It fires on the pattern, the share of launches
// that are serialised and how many there are per step, not on the length
// of the waits (S001's subject).
//
// Removing the waits cannot make a step shorter than its device work nor
// shorter than the host's own time without the waits, so the gain per step
// is bounded by min(the waits' time, the step's device idle time); for
// several devices the idle time of the busiest one (a step is never shorter
// than any device's work in it).
//
//===----------------------------------------------------------------------===//
#include "rules/BuiltinDetectors.h"
#include "rules/detectors/DetectorSupport.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <map>
#include <set>

using namespace tracelint;
using namespace tracelint::rules;
using namespace tracelint::rules::detect;
using analysis::HostWait;
using analysis::TraceIndex;
using model::Event;
using model::EventKind;
using model::Interval;

namespace {

/// A host call that queues a kernel (or a collective kernel) and returns
/// without waiting: a launch, as opposed to a blocking copy.
bool isKernelLaunch(const TraceIndex &Ctx, const Event &E) {
  const model::Trace &T = Ctx.trace();
  if (Ctx.waitKind(E) != analysis::WaitKind::None)
    return false;
  llvm::ArrayRef<uint32_t> Work = T.deviceWorkOf(E);
  if (Work.empty())
    return model::isLaunchCallName(T.name(E));
  return llvm::any_of(Work, [&](uint32_t D) {
    EventKind K = T.Events[D].Kind;
    return K == EventKind::Kernel || K == EventKind::Collective;
  });
}

/// The kernel launches that host lane \p Lane submits, in order.
std::vector<uint32_t> kernelLaunches(const TraceIndex &Ctx, uint32_t Lane) {
  std::vector<uint32_t> Launches;
  for (uint32_t I : Ctx.submissions(Lane))
    if (isKernelLaunch(Ctx, Ctx.trace().Events[I]))
      Launches.push_back(I);
  return Launches;
}

/// The launches of one steady window.
struct WindowLaunches {
  uint64_t Launches = 0, Serial = 0;
  int64_t WaitNs = 0; ///< the serialising waits' time, clipped to the window
};

/// What the walk over every host thread's launches gathers.
struct LaunchWalk {
  std::vector<WindowLaunches> PerWindow;  ///< parallel to the windows
  std::map<std::string, WaitTally> Sites; ///< serialising waits by op path
  std::vector<uint32_t> WaitEvents;       ///< every serialising wait
  std::set<int32_t> Fed; ///< devices fed by threads with serialised launches
  /// The first serialised launch and the wait after it.
  uint32_t ExampleLaunch = model::NoIndex, ExampleWait = model::NoIndex;
};

/// Walks the kernel launches of one host lane: a launch is serialised when
/// the lane waits after it and before its next launch (or the end of its
/// window). Returns whether any was.
bool walkLane(const TraceIndex &Ctx, uint32_t Lane, LaunchWalk &Walk) {
  const model::Trace &T = Ctx.trace();
  const MeasureWindows &Win = Ctx.measureWindows();
  std::vector<uint32_t> Launches = kernelLaunches(Ctx, Lane);
  llvm::ArrayRef<HostWait> Waits = Ctx.hostWaits(Lane);
  size_t WI = 0;
  bool LaneSerial = false;
  for (size_t K = 0; K < Launches.size(); ++K) {
    const Event &L = T.Events[Launches[K]];
    size_t R = Win.indexOf(L.Start);
    if (R == Win.Ranges.size())
      continue;
    WindowLaunches &Per = Walk.PerWindow[R];
    ++Per.Launches;
    int64_t Until = Win.Ranges[R].End;
    if (K + 1 < Launches.size())
      Until = std::min(Until, T.Events[Launches[K + 1]].Start);
    while (WI < Waits.size() && Waits[WI].Range.Begin < L.Start)
      ++WI;
    bool Serial = false;
    for (size_t J = WI; J < Waits.size() && Waits[J].Range.Begin < Until; ++J) {
      const HostWait &W = Waits[J];
      Per.WaitNs +=
          Interval{W.Range.Begin, std::min(W.Range.End, Win.Ranges[R].End)}
              .length();
      Walk.Sites[Ctx.opPath(T.Events[W.Event])].add(W);
      Walk.WaitEvents.push_back(W.Event);
      if (!Serial && Walk.ExampleLaunch == model::NoIndex) {
        Walk.ExampleLaunch = Launches[K];
        Walk.ExampleWait = W.Event;
      }
      Serial = true;
    }
    if (Serial) {
      ++Per.Serial;
      LaneSerial = true;
    }
  }
  return LaneSerial;
}

LaunchWalk collectLaunches(const TraceIndex &Ctx) {
  const model::Trace &T = Ctx.trace();
  LaunchWalk Walk;
  Walk.PerWindow.resize(Ctx.measureWindows().Ranges.size());
  for (uint32_t LI = 0; LI < T.Lanes.size(); ++LI)
    if (T.Lanes[LI].Kind == model::LaneKind::HostThread &&
        walkLane(Ctx, LI, Walk))
      for (int32_t D : Ctx.devicesFedBy(LI))
        Walk.Fed.insert(D);
  return Walk;
}

/// The per-step figures of the pattern and the bound on its gain.
struct LaunchFigures {
  uint64_t Launches = 0, Serial = 0;
  double Share = 0; ///< of the launches, serialised
  int64_t SerialMedian = 0, LaunchMedian = 0, WaitMedian = 0, IdleMedian = 0;
  int64_t Impact = 0;
};

/// The device idle time of window \p R: the window less the busy time of
/// the busiest device that the serialised threads feed, which bounds how
/// short the window can get.
int64_t idleOfBusiest(const TraceIndex &Ctx, const std::set<int32_t> &Fed,
                      Interval R) {
  int64_t Busiest = 0;
  for (int32_t D : Fed)
    if (D >= 0)
      Busiest = std::max(Busiest, Ctx.deviceBusy(D).lengthWithin(R));
  return R.length() - Busiest;
}

LaunchFigures measureLaunches(const TraceIndex &Ctx, const LaunchWalk &Walk) {
  const MeasureWindows &Win = Ctx.measureWindows();
  LaunchFigures F;
  std::vector<int64_t> SerialPer, LaunchPer, WaitPer, IdlePer, ImpactPer;
  for (size_t R = 0; R < Walk.PerWindow.size(); ++R) {
    const WindowLaunches &Per = Walk.PerWindow[R];
    F.Launches += Per.Launches;
    F.Serial += Per.Serial;
    SerialPer.push_back(int64_t(Per.Serial));
    LaunchPer.push_back(int64_t(Per.Launches));
    WaitPer.push_back(Per.WaitNs);
    int64_t Idle = idleOfBusiest(Ctx, Walk.Fed, Win.Ranges[R]);
    IdlePer.push_back(Idle);
    ImpactPer.push_back(std::min(Per.WaitNs, Idle));
  }
  F.Share = F.Launches ? double(F.Serial) / double(F.Launches) : 0;
  F.SerialMedian = median(SerialPer);
  F.LaunchMedian = median(LaunchPer);
  F.WaitMedian = median(WaitPer);
  F.IdleMedian = median(IdlePer);
  F.Impact = std::min(median(ImpactPer), Ctx.targetNs());
  return F;
}

/// The finding: the figures, the sites of the waits and the first
/// launch-wait pair as the example.
Detection describeLaunches(const TraceIndex &Ctx, const LaunchWalk &Walk,
                           const LaunchFigures &F, double MinShare) {
  const model::Trace &T = Ctx.trace();
  auto Ranked =
      rankByKey(Walk.Sites, [](const WaitTally &G) { return G.Count; });
  const Event &EL = T.Events[Walk.ExampleLaunch];
  const Event &EW = T.Events[Walk.ExampleWait];

  Detection Det;
  describeSiteImpact(Ctx, Ranked.front()->first, F.Impact, Det);
  auto &V = Det.Values;
  V["value"] = pct(F.Share);
  V["threshold"] = pct(MinShare);
  V["count"] = count(F.SerialMedian);
  V["launches"] = count(F.LaunchMedian);
  V["serial_total"] = count(int64_t(F.Serial));
  V["launch_total"] = count(int64_t(F.Launches));
  V["wait"] = dur(F.WaitMedian);
  V["idle"] = dur(F.IdleMedian);
  V["top_names"] = joinNames(namesByCount(T, Walk.WaitEvents));
  V["example"] = eventAt(Ctx, EL) + ", then " + eventAt(Ctx, EW);
  addSiteEvidence(
      Det, Ranked, 0, 3, [](const std::string &Path, const WaitTally &G) {
        return llvm::formatv("{0}: {1} wait{2} after a launch, {3} in total",
                             Path, G.Count, G.Count == 1 ? "" : "s",
                             dur(G.Total))
            .str();
      });
  Det.Examples.push_back(example(Ctx, EL));
  Det.Examples.push_back(example(Ctx, EW));
  // The pattern is read directly from the host's own calls; what the
  // trace cannot say is whether each wait is needed.
  Det.Confidence = 0.7;
  return Det;
}

} // namespace

Outcome rules::runSyncAfterEveryLaunch(const TraceIndex &Ctx,
                                       const RuleOptions &Opts,
                                       std::vector<Detection> &Out) {
  const double MinShare = Opts.number("min-serialised-share");
  const double MinPerStep = Opts.number("min-serialised-per-step");
  const double MinGain = Opts.number("min-gain-share");
  const int64_t Target = Ctx.targetNs();
  if (Target <= 0)
    return Outcome::ran();

  LaunchWalk Walk = collectLaunches(Ctx);
  LaunchFigures F = measureLaunches(Ctx, Walk);
  if (F.Launches == 0 || F.Serial == 0)
    return Outcome::ran();
  if (F.Share < MinShare || double(F.SerialMedian) < MinPerStep ||
      double(F.Impact) < MinGain * double(Target))
    return Outcome::ran();

  Out.push_back(describeLaunches(Ctx, Walk, F, MinShare));
  return Outcome::ran();
}
