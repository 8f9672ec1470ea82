//===- rules/L/HostBoundGaps.cpp - L002 host-bound gaps -------------------===//
//
// Device idle time that the host explains, but not through launches: each
// idle gap ends with work that the host submitted late, and while the device
// waited the launching thread went for longer than max-launch-interval
// without submitting anything (Python logic, CPU ops, logging, host-side
// preprocessing), or sat in one launch call far longer than a launch
// (TraceIndex::attributeIdle counts both as HostOther, in the same split
// that L001 reads). L001 owns the launch-path share and S001 the host waits;
// the part that lies inside data-loader ranges is left to D001, and the part
// inside start-up work or inside a runtime or driver call (lazy loading in a
// long launch call, allocator and set-up calls) to U001 and the allocator
// rules. What remains is attributed, instant by instant, to the innermost
// host activity (op, Python frame, annotation) of the launching thread, so
// that the finding names the op that occupied the host. The detector
// collects that per device and steady step and reports the device with the
// largest median.
//
//===----------------------------------------------------------------------===//
#include "rules/BuiltinDetectors.h"
#include "rules/detectors/DetectorSupport.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <map>

using namespace tracelint;
using namespace tracelint::rules;
using namespace tracelint::rules::detect;
using analysis::IdleBreakdown;
using analysis::IdleOptions;
using analysis::TraceIndex;
using model::Event;
using model::Interval;
using model::IntervalSet;

namespace {

constexpr llvm::StringLiteral NoOp = "(no recorded op)";

/// Runtime and driver calls: submissions (one-off work inside a long launch
/// call), allocator and set-up calls, lazy initialisation. Their time is
/// not Python or CPU-op work between submissions; U001 and the allocator
/// rules own it.
bool isRuntimeCall(model::EventKind K) {
  return K == model::EventKind::Runtime || K == model::EventKind::Driver;
}

/// Host time that other rules own: the data-loader ranges (D001). Start-up
/// work (U001) and the profiler's (U004) are causes of the idle split
/// itself, never in its host-other pieces.
struct OtherRulesTime {
  const IntervalSet &Loader;
};

OtherRulesTime otherRulesTime(const TraceIndex &Ctx) {
  return {Ctx.dataLoaderRanges()};
}

struct OpShare {
  int64_t Ns = 0;
  uint32_t Example = model::NoIndex; ///< the longest such event
};
using OpShares = std::map<std::string, OpShare>;

/// The host-other time of one idle gap (or of a window's gaps), split.
struct GapHost {
  int64_t Host = 0;     ///< this rule's: host activity between submissions
  int64_t InLoader = 0; ///< inside data-loader ranges (D001)
  int64_t OneOff = 0;   ///< start-up work and runtime or driver calls
};

/// Splits \p Rest, host time of lane \p Lane, by the innermost host activity
/// covering each instant: time in runtime or driver calls is one-off, the
/// rest is this rule's, by op name.
void attributeToActivity(const model::Trace &T, uint32_t Lane, Interval Rest,
                         OpShares &ByOp, GapHost &H) {
  forInnermostActivity(T, Lane, Rest, [&](uint32_t I, int64_t Ns) {
    if (I != model::NoIndex && isRuntimeCall(T.Events[I].Kind)) {
      H.OneOff += Ns;
      return;
    }
    OpShare &S =
        ByOp[I == model::NoIndex ? NoOp.str() : T.name(T.Events[I]).str()];
    S.Ns += Ns;
    if (I != model::NoIndex &&
        (S.Example == model::NoIndex ||
         T.Events[I].Duration > T.Events[S.Example].Duration))
      S.Example = I;
    H.Host += Ns;
  });
}

/// The host-other pieces of gap \p G: the parts inside the loader ranges,
/// then the host activity of the rest.
GapHost splitGap(const model::Trace &T, const analysis::AttributedGap &G,
                 const OtherRulesTime &Other, OpShares &ByOp) {
  const uint32_t Lane = T.Events[G.Launch].Lane;
  GapHost H;
  for (const Interval &P : G.OtherPieces) {
    IntervalSet Covered = IntervalSet::unionOf({P}).intersect(Other.Loader);
    H.InLoader += Covered.length();
    for (const Interval &Rest : Covered.gapsWithin(P))
      attributeToActivity(T, Lane, Rest, ByOp, H);
  }
  return H;
}

/// The host-other time of one device in the measured windows.
struct DeviceHostTime {
  int32_t Device = -1;
  // Per measured window, parallel to MeasureWindows::Ranges.
  std::vector<int64_t> Host, Loader, OneOff;
  IdleSplits PerWindow;
  uint64_t Gaps = 0; ///< gaps with host time outside the loader
  Interval LongestGap;
  uint32_t LongestGapWork = model::NoIndex;
  int64_t LongestGapHost = 0;
  OpShares ByOp;
  int64_t HostTotal = 0;
};

DeviceHostTime collectHostTime(const TraceIndex &Ctx, int32_t Device,
                               const IdleOptions &IO,
                               const OtherRulesTime &Other) {
  const model::Trace &T = Ctx.trace();
  DeviceHostTime F;
  F.Device = Device;
  for (const Interval &R : Ctx.measureWindows().Ranges) {
    const IdleBreakdown &B = Ctx.attributeIdle(Device, R, IO);
    // The split's start-up and profiler idle, plus the host pieces that lie
    // in runtime calls: what the evidence line names as one-off time.
    GapHost Window;
    Window.OneOff = B.StartupNs + B.ProfilerNs;
    for (const analysis::AttributedGap &G : B.GapList) {
      if (G.OtherPieces.empty())
        continue;
      GapHost H = splitGap(T, G, Other, F.ByOp);
      Window.Host += H.Host;
      Window.InLoader += H.InLoader;
      Window.OneOff += H.OneOff;
      if (H.Host > 0)
        ++F.Gaps;
      if (H.Host > F.LongestGapHost) {
        F.LongestGapHost = H.Host;
        F.LongestGap = G.Range;
        F.LongestGapWork = G.Work;
      }
    }
    F.Host.push_back(Window.Host);
    F.Loader.push_back(Window.InLoader);
    F.OneOff.push_back(Window.OneOff);
    F.PerWindow.add(B);
    F.HostTotal += Window.Host;
  }
  return F;
}

/// The confidence, and the evidence on the launch path when it idles the
/// device longer than host work does.
void judge(const DeviceHostTime &F, int64_t HostIdle, Detection &Det) {
  Det.Confidence = 0.7;
  auto NoOpIt = F.ByOp.find(NoOp.str());
  if (NoOpIt != F.ByOp.end() && 2 * NoOpIt->second.Ns > F.HostTotal) {
    Det.Confidence = 0.6;
    Det.ConfidenceNotes.push_back(
        "most of the host time lies outside any recorded op (Python between "
        "ops, or work the profiler did not record); with_stack=True shows "
        "the Python frames");
  }
  if (median(F.PerWindow.Launch) > HostIdle)
    Det.ExtraEvidence.push_back(
        llvm::formatv("the launch path leaves the device idle longer, {0} "
                      "{1} (see L001); it is counted apart from this",
                      Det.Values["launch_idle"], Det.Values["per"])
            .str());
}

Detection describeHostBound(const TraceIndex &Ctx, const DeviceHostTime &F,
                            int64_t HostIdle, double MinShare,
                            const IdleOptions &IO) {
  const model::Trace &T = Ctx.trace();
  auto Ranked = rankByKey(F.ByOp, [](const OpShare &S) { return S.Ns; });
  std::vector<std::string> Top;
  for (const auto *Entry : Ranked)
    Top.push_back(Entry->first + " (" +
                  pct(double(Entry->second.Ns) / double(F.HostTotal)).text() +
                  ")");
  const std::string &TopName = Ranked.front()->first;
  const OpShare &TopShare = Ranked.front()->second;

  Detection Det = impactDetection(Ctx, HostIdle, MinShare);
  auto &V = Det.Values;
  V["device"] = deviceName(F.Device);
  const IdleBreakdown M = F.PerWindow.medians();
  describeIdleSplit(M, Ctx.targetNs(), V);
  V["launch_idle"] = dur(M.LaunchNs);
  V["loader_idle"] = dur(median(F.Loader));
  V["oneoff_idle"] = dur(median(F.OneOff));
  V["top_names"] = joinNames(Top);
  V["top_op"] = TopName;
  V["top_op_share"] = pct(double(TopShare.Ns) / double(F.HostTotal));
  V["top_op_path"] = TopShare.Example == model::NoIndex
                         ? TopName
                         : Ctx.opPath(T.Events[TopShare.Example]);
  V["gaps"] = count(int64_t(F.Gaps));
  V["max_launch_interval"] = dur(IO.MaxLaunchIntervalNs);
  V["longest_gap"] = dur(F.LongestGap.length());
  V["example"] = "none";
  if (F.LongestGapWork != model::NoIndex) {
    const Event &W = T.Events[F.LongestGapWork];
    V["example"] = eventAt(Ctx, W);
    Det.Examples.push_back(example(Ctx, W));
  }
  if (TopShare.Example != model::NoIndex)
    Det.Examples.push_back(example(Ctx, T.Events[TopShare.Example]));
  Det.Subject = TopName;
  judge(F, HostIdle, Det);
  return Det;
}

} // namespace

Outcome rules::runHostBoundGaps(const TraceIndex &Ctx, const RuleOptions &Opts,
                                std::vector<Detection> &Out) {
  const double MinShare = Opts.number("min-idle-share");
  const IdleOptions IO = launchPathIdleOptions(Opts);
  const int64_t Target = Ctx.targetNs();
  if (Target <= 0)
    return Outcome::ran();

  const OtherRulesTime Other = otherRulesTime(Ctx);
  std::vector<DeviceHostTime> Devices;
  for (int32_t D : streamDevices(Ctx))
    Devices.push_back(collectHostTime(Ctx, D, IO, Other));
  const DeviceHostTime *F = largestBy(
      Devices, [](const DeviceHostTime &D) { return median(D.Host); });
  if (!F)
    return Outcome::ran();
  const int64_t HostIdle = std::min(median(F->Host), Target);
  if (!reachesShareOfTarget(HostIdle, Target, MinShare))
    return Outcome::ran();

  Out.push_back(describeHostBound(Ctx, *F, HostIdle, MinShare, IO));
  return Outcome::ran();
}
