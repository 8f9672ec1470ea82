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
#include "support/Format.h"

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

/// What the host timeline calls host work with no innermost event: the
/// thread's own code between the OS runtime calls of a host phase whose OS
/// calls are traced (TraceIndex::osTracedPhases).
constexpr llvm::StringLiteral BetweenOsCalls =
    "code between OS runtime calls (no event names it)";

/// The name under which a host-work stretch counts.
std::string pieceName(const model::Trace &T, const analysis::HostStretch &P) {
  return P.Innermost == model::NoIndex ? BetweenOsCalls.str()
                                       : T.name(T.Events[P.Innermost]).str();
}

/// Adds a stretch to \p Shares, keeping the longest event as the example.
void addPiece(const model::Trace &T, OpShares &Shares,
              const analysis::HostStretch &P) {
  OpShare &S = Shares[pieceName(T, P)];
  S.Ns += P.Range.length();
  if (P.Innermost != model::NoIndex &&
      (S.Example == model::NoIndex ||
       T.Events[P.Innermost].Duration > T.Events[S.Example].Duration))
    S.Example = P.Innermost;
}

/// The host work of one device in the measured windows.
struct DeviceHostTime {
  int32_t Device = -1;
  analysis::TargetIdle Typical; ///< the split the rule claims from
  uint64_t Gaps = 0;            ///< gaps with host work
  Interval LongestGap;
  uint32_t LongestGapWork = model::NoIndex;
  int64_t LongestGapHost = 0;
  /// The longest gap's host phase: its host work from the first stretch to
  /// the last, by name, and the thread that ran it.
  Interval LongestPhase;
  OpShares LongestPhaseByOp;
  uint32_t LongestPhaseLane = model::NoIndex;
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
      OpShares Phase;
      Interval PhaseRange{0, 0};
      for (const analysis::HostStretch &P : G.HostPieces) {
        if (P.Cause != analysis::HostCause::Other)
          continue; // untraced time is T005's
        addPiece(T, F.ByOp, P);
        addPiece(T, Phase, P);
        if (Host == 0)
          PhaseRange.Begin = P.Range.Begin;
        PhaseRange.End = P.Range.End;
        Host += P.Range.length();
      }
      F.HostTotal += Host;
      if (Host > 0)
        ++F.Gaps;
      if (Host > F.LongestGapHost) {
        F.LongestGapHost = Host;
        F.LongestGap = G.Range;
        F.LongestGapWork = G.Work;
        F.LongestPhase = PhaseRange;
        F.LongestPhaseByOp = std::move(Phase);
        F.LongestPhaseLane = T.Events[G.Launch].Lane;
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
  // The recorded event that names the most host work (none when all of it
  // lies between OS runtime calls).
  uint32_t TopEvent = TopShare.Example;
  for (const auto *Entry : Ranked)
    if (TopEvent == model::NoIndex)
      TopEvent = Entry->second.Example;

  Detection Det = impactDetection(Ctx, HostIdle, MinShare);
  auto &V = Det.Values;
  V["device"] = deviceName(F.Device);
  const analysis::TargetIdle &M = F.Typical;
  describeIdleSplit(M, Ctx.targetNs(), V);
  V["launch_idle"] = dur(M.LaunchNs);
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
  if (TopEvent != model::NoIndex)
    Det.Examples.push_back(example(Ctx, T.Events[TopEvent]));
  Det.Subject = TopName;
  Det.Confidence = 0.7;
  // One long host phase holds most of the host work: the finding is about
  // that phase (the host code between two GPU phases), named by what the
  // thread did in it, rather than about the op that leads across gaps.
  if (2 * F.LongestGapHost >= F.HostTotal &&
      F.LongestPhaseLane != model::NoIndex) {
    const Interval P = F.LongestPhase;
    const std::string Thread = Ctx.describeLane(T.Lanes[F.LongestPhaseLane]);
    const std::string From = support::formatOffset(P.Begin - T.WindowStart),
                      To = support::formatOffset(P.End - T.WindowStart);
    V["top_op"] = llvm::formatv("the {0} host phase of {1} ({2} to {3})",
                                dur(F.LongestGapHost).text(), Thread, From, To)
                      .str();
    V["top_op_share"] = pct(double(F.LongestGapHost) / double(F.HostTotal));
    V["top_op_path"] = V["top_op"];
    std::vector<std::string> Inside, Untraced;
    int64_t Between = 0;
    for (const auto *Entry :
         rankByKey(F.LongestPhaseByOp, [](const OpShare &S) { return S.Ns; })) {
      if (Entry->first == BetweenOsCalls) {
        Between = Entry->second.Ns;
        continue;
      }
      Inside.push_back(Entry->first + " " + dur(Entry->second.Ns).text());
    }
    std::string In = Inside.empty() ? "" : "in " + joinNames(Inside, 4);
    if (Between > 0)
      In += llvm::formatv("{0}{1} in its own code between OS runtime calls, "
                          "which no event names",
                          In.empty() ? "" : ", and ", dur(Between).text())
                .str();
    Det.ExtraEvidence.push_back(
        llvm::formatv("the host phase bounds completion: {0} has no work "
                      "from {1} to {2} while {3} runs host code and submits "
                      "nothing; the thread spent it {4}",
                      deviceName(F.Device), From, To, Thread, In)
            .str());
    if (Between > 0)
      Det.ExtraEvidence.push_back(inTraceWords(
          Ctx, llvm::formatv("{0} of the phase lies between OS runtime "
                             "calls: CPU sampling (nsys profile "
                             "--sample=cpu --backtrace=dwarf) or NVTX "
                             "ranges around the phase's parts would name "
                             "that code",
                             dur(Between).text())
                   .str()));
    Det.Subject = "host phase";
  }
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
  const DeviceHostTime *F = largestBy(
      Devices, [](const DeviceHostTime &D) { return D.Typical.HostOtherNs; });
  if (!F || F->ByOp.empty())
    return Outcome::ran();
  const int64_t HostIdle = std::min(F->Typical.HostOtherNs, Target);
  if (!reachesShareOfTarget(HostIdle, Target, MinShare))
    return quietUnderFloor(HostIdle, Target, MinShare);

  Out.push_back(describeHostBound(Ctx, *F, HostIdle, MinShare, IO));
  return Outcome::ran();
}
