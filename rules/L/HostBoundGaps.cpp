//===- rules/L/HostBoundGaps.cpp - L002 host-bound gaps -------------------===//
//
// Device idle time that the host explains, but not through launches: each
// idle gap ends with work that the host submitted late, and while the device
// waited the launching thread was inside recorded host work that submits
// nothing (Python logic, CPU ops, logging, a runtime call such as cudaFree,
// host-side preprocessing). That is the "host work" cause of the trace
// index's idle split (TraceIndex::attributeIdle, over the host timeline of
// TraceIndex::forEachHostStretch), the same split that the target line,
// L001 (launch path), S001 (waits), D001 (data loading) and T005 (host time
// nothing records) read: L002 claims exactly the split's figure, the
// typical split over the steady steps of the device with the most, and
// names the innermost recorded activity of the launching thread at each
// instant, so that the finding names the op that occupied the host.
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

struct OpShare {
  int64_t Ns = 0;
  uint32_t Example = model::NoIndex; ///< the longest such event
};
using OpShares = std::map<std::string, OpShare>;

/// The host work of one device in the measured windows.
struct DeviceHostTime {
  int32_t Device = -1;
  analysis::TargetIdle Typical; ///< the split the rule claims from
  uint64_t Gaps = 0;            ///< gaps with host work
  Interval LongestGap;
  uint32_t LongestGapWork = model::NoIndex;
  int64_t LongestGapHost = 0;
  OpShares ByOp; ///< host work by the innermost event's name
  int64_t HostTotal = 0;
};

DeviceHostTime collectHostTime(const TraceIndex &Ctx, int32_t Device,
                               const IdleOptions &IO) {
  const model::Trace &T = Ctx.trace();
  DeviceHostTime F;
  F.Device = Device;
  F.Typical = Ctx.typicalIdle(Device, IO);
  for (const Interval &R : Ctx.measureWindows().Ranges) {
    const IdleBreakdown &B = Ctx.attributeIdle(Device, R, IO);
    for (const analysis::AttributedGap &G : B.GapList) {
      int64_t Host = 0;
      for (const analysis::HostStretch &P : G.HostPieces) {
        if (P.Cause != analysis::HostCause::Other)
          continue; // untraced time is T005's
        OpShare &S = F.ByOp[T.name(T.Events[P.Innermost]).str()];
        S.Ns += P.Range.length();
        if (S.Example == model::NoIndex ||
            T.Events[P.Innermost].Duration > T.Events[S.Example].Duration)
          S.Example = P.Innermost;
        Host += P.Range.length();
      }
      F.HostTotal += Host;
      if (Host > 0)
        ++F.Gaps;
      if (Host > F.LongestGapHost) {
        F.LongestGapHost = Host;
        F.LongestGap = G.Range;
        F.LongestGapWork = G.Work;
      }
    }
  }
  return F;
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
  const analysis::TargetIdle &M = F.Typical;
  describeIdleSplit(M, Ctx.targetNs(), V);
  V["launch_idle"] = dur(M.LaunchNs);
  V["top_names"] = joinNames(Top);
  V["top_op"] = TopName;
  V["top_op_share"] = pct(double(TopShare.Ns) / double(F.HostTotal));
  V["top_op_path"] = Ctx.opPath(T.Events[TopShare.Example]);
  V["gaps"] = count(int64_t(F.Gaps));
  V["max_launch_interval"] = dur(IO.MaxLaunchIntervalNs);
  V["longest_gap"] = dur(F.LongestGap.length());
  V["example"] = "none";
  if (F.LongestGapWork != model::NoIndex) {
    const Event &W = T.Events[F.LongestGapWork];
    V["example"] = eventAt(Ctx, W);
    Det.Examples.push_back(example(Ctx, W));
  }
  Det.Examples.push_back(example(Ctx, T.Events[TopShare.Example]));
  Det.Subject = TopName;
  Det.Confidence = 0.7;
  if (M.LaunchNs > HostIdle)
    Det.ExtraEvidence.push_back(
        llvm::formatv("the launch path leaves the device idle longer, {0} "
                      "{1} (see L001); it is counted apart from this",
                      V["launch_idle"], V["per"])
            .str());
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

  std::vector<DeviceHostTime> Devices;
  for (int32_t D : streamDevices(Ctx))
    Devices.push_back(collectHostTime(Ctx, D, IO));
  const DeviceHostTime *F = largestBy(Devices, [](const DeviceHostTime &D) {
    return D.Typical.HostOtherNs;
  });
  if (!F || F->ByOp.empty())
    return Outcome::ran();
  const int64_t HostIdle = std::min(F->Typical.HostOtherNs, Target);
  if (!reachesShareOfTarget(HostIdle, Target, MinShare))
    return quietUnderFloor(HostIdle, Target, MinShare);

  Out.push_back(describeHostBound(Ctx, *F, HostIdle, MinShare, IO));
  return Outcome::ran();
}
