//===- rules/S/UnrecordedDependencyStall.cpp - S004 ----------------------===//
//
// Device work that was ready (its launch call returned, its stream
// predecessor ended) but started long after, while the device sat idle,
// waited for something the trace does not record: a peer rank, another
// process on the device, an event wait the profiler did not capture, or
// device records that were lost. The trace index finds these stalls
// (TraceIndex::unrecordedStalls), with the same ready time and launch
// latency bound that the critical path uses for its unrecorded-dependency
// category; the rule's what-if is that category, so its impact is the time
// the path shows there. Per steady window the figure is the device idle
// time inside the stalls (a union: stalls on several streams at once count
// once), on the device with the most; the finding takes the median.
//
//===----------------------------------------------------------------------===//
#include "rules/BuiltinDetectors.h"
#include "rules/detectors/DetectorSupport.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <map>

using namespace tracelint;
using namespace tracelint::rules;
using namespace tracelint::rules::detect;
using analysis::DeviceStall;
using analysis::TraceIndex;
using model::Event;
using model::Interval;
using model::IntervalSet;

namespace {

struct Stalls {
  /// The idle split's unrecorded-dependency part on the device with the
  /// most: the target line's figure, the same number.
  int64_t Unrecorded = 0;
  std::vector<DeviceStall> All; ///< every window's, longest first
  uint64_t Count = 0;
};

Stalls collect(const TraceIndex &Ctx) {
  const MeasureWindows &Win = Ctx.measureWindows();
  Stalls S;
  analysis::IdleOptions IO;
  IO.KeepGaps = true; // the split the target line and the L rules read
  for (int32_t D : streamDevices(Ctx)) {
    // The idle split calls the device's wait for migrating managed-memory
    // pages an unrecorded dependency too; M009 claims that part, so it is
    // left out here (the median over the windows of the idle time the
    // migrations cover).
    std::vector<int64_t> Migrating;
    if (!Ctx.migrating(D).empty())
      for (const Interval &R : Win.Ranges) {
        int64_t Ns = 0;
        for (const Interval &P : Ctx.migrating(D).parts())
          if (P.Begin < R.End && P.End > R.Begin)
            Ns += Ctx.deviceBusy(D).idleWithin(
                {std::max(P.Begin, R.Begin), std::min(P.End, R.End)});
        Migrating.push_back(Ns);
      }
    S.Unrecorded = std::max(
        S.Unrecorded,
        std::max<int64_t>(0, Ctx.typicalIdle(D, IO).UnrecordedNs -
                                 (Migrating.empty() ? 0 : median(Migrating))));
  }
  for (const Interval &R : Win.Ranges) {
    std::vector<DeviceStall> In = Ctx.unrecordedStalls(R);
    S.Count += In.size();
    S.All.insert(S.All.end(), In.begin(), In.end());
  }
  llvm::sort(S.All, [](const DeviceStall &A, const DeviceStall &B) {
    return A.IdleNs != B.IdleNs ? A.IdleNs > B.IdleNs : A.Work < B.Work;
  });
  return S;
}

/// The host waits that ended after the stalled work did and began before
/// it started: they waited for it (or for work behind it).
std::vector<const analysis::HostWait *> waitsOn(const TraceIndex &Ctx,
                                                const Event &K) {
  std::vector<const analysis::HostWait *> Out;
  for (const analysis::HostWait &W : Ctx.hostWaits())
    if (W.Range.Begin < K.Start && W.Range.End >= K.end())
      Out.push_back(&W);
  return Out;
}

/// What the other streams of the device ran while the work waited.
std::string othersDuring(const TraceIndex &Ctx, const Event &K, Interval Held) {
  const model::Trace &T = Ctx.trace();
  const model::Lane &Own = T.laneOf(K);
  int64_t Busy = Ctx.deviceBusy(Own.Device).lengthWithin(Held);
  uint64_t N = 0;
  for (const model::Lane &L : T.Lanes) {
    if (L.Kind != model::LaneKind::DeviceStream || L.Device != Own.Device ||
        &L == &Own)
      continue;
    for (uint32_t I = L.Begin; I < L.End; ++I) {
      const Event &E = T.Events[I];
      if (model::isDeviceWork(E.Kind) && E.Start < Held.End &&
          E.end() > Held.Begin)
        ++N;
    }
  }
  if (Busy == 0)
    return llvm::formatv("the device ran nothing recorded on any stream "
                         "for the {0} the work waited",
                         dur(Held.length()).text())
        .str();
  return llvm::formatv("the device was busy for {0} of the {1} the work "
                       "waited ({2} work item{3} on other streams)",
                       dur(Busy).text(), dur(Held.length()).text(), N,
                       N == 1 ? "" : "s")
      .str();
}

} // namespace

Outcome rules::runUnrecordedDependencyStall(const TraceIndex &Ctx,
                                            const RuleOptions &Opts,
                                            std::vector<Detection> &Out) {
  const int64_t Target = Ctx.targetNs();
  if (Target <= 0)
    return Outcome::ran();
  const double MinShare = Opts.number("min-share-of-step");
  Stalls S = collect(Ctx);
  if (S.All.empty())
    return Outcome::ran();
  const int64_t Cost = std::min(S.Unrecorded, Target);
  if (!reachesShareOfTarget(Cost, Target, MinShare))
    return quietUnderFloor(Cost, Target, MinShare);

  const model::Trace &T = Ctx.trace();
  const DeviceStall &Top = S.All.front();
  const Event &K = T.Events[Top.Work];
  Detection Det = impactDetection(Ctx, Cost, MinShare);
  auto &V = Det.Values;
  const MeasureWindows &Win = Ctx.measureWindows();
  V["count"] = count(int64_t(S.Count));
  V["work"] = eventWithLengthAt(Ctx, K);
  V["delay"] = dur(K.Start - Top.ReadyNs);
  V["stall_idle"] = dur(Top.IdleNs);
  V["launch"] = Top.Launch != model::NoIndex
                    ? eventAt(Ctx, T.Events[Top.Launch])
                    : std::string("no launch in the trace (ready after the "
                                  "previous work on its stream)");
  Interval Held{Top.ReadyNs + analysis::LaunchLatencyBoundNs, K.Start};
  V["device_state"] = othersDuring(Ctx, K, Held);
  std::vector<const analysis::HostWait *> Waits = waitsOn(Ctx, K);
  if (Waits.empty()) {
    V["waits"] = "no host wait spans it";
  } else {
    const analysis::HostWait *Longest = *std::max_element(
        Waits.begin(), Waits.end(), [](const auto *A, const auto *B) {
          return A->Range.length() < B->Range.length();
        });
    V["waits"] = llvm::formatv("{0} host wait{1} waited for it, the longest "
                               "{2}",
                               Waits.size(), Waits.size() == 1 ? "" : "s",
                               eventWithLengthAt(Ctx, T.Events[Longest->Event]))
                     .str();
  }
  Det.Subject = T.name(K).str();
  Det.Examples.push_back(example(Ctx, K));
  Det.Window = Win.describe();
  // The trace shows that the work was held, not what held it.
  Det.Confidence = 0.6;
  Out.push_back(std::move(Det));
  return Outcome::ran();
}
