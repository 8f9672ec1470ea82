//===- rules/L/LaunchBoundShortKernels.cpp - L001 launch-bound kernels ----===//
//
// Many short kernels are not a problem by themselves: a device that runs
// them back to back is busy. The launch-bound signature is device idle time
// inside the steps that the host's submission path explains: each idle gap
// ends with work that the host submitted late, and while the device waited
// the launching thread was inside launch calls or in the short stretches
// between them (not blocked in a synchronization, not in a long stretch of
// other host work). TraceIndex::attributeIdle does that split; this detector
// collects it per device and steady step, takes the median on the device
// with the most, and checks that kernels are short against the launch
// cadence (otherwise the host would run ahead). The launch-path idle inside
// a repeated static decode loop that L004 reports (DecodeLoop.h, with L004's
// default thresholds) is left to L004, so the same idle time is never
// claimed by both rules.
//
//===----------------------------------------------------------------------===//
#include "rules/BuiltinDetectors.h"
#include "rules/detectors/DecodeLoop.h"
#include "rules/detectors/DetectorSupport.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <map>
#include <optional>

using namespace tracelint;
using namespace tracelint::rules;
using namespace tracelint::rules::detect;
using analysis::IdleBreakdown;
using analysis::IdleOptions;
using analysis::TraceIndex;
using model::Event;
using model::Interval;

namespace {

/// The idle split of one device in the measured windows.
struct DeviceIdle {
  int32_t Device = -1;
  /// Each measured window's split (its figures only), and their typical
  /// split (analysis::typicalSplit), the figure the rule claims.
  std::vector<IdleBreakdown> PerWindow;
  analysis::TargetIdle Typical;
  IdleBreakdown Total; ///< summed over the windows (for evidence)
  /// Launch-attributed idle per op name (the op that made the late call).
  std::map<std::string, int64_t> ByOp;
  /// The launch-bound decode loop left to L004, if any.
  std::optional<DecodeLoop> Decode;
};

/// The parts of the window \p R that this rule measures: all of it, or what
/// lies outside the decode loop that L004 reports.
std::vector<Interval> measuredParts(Interval R,
                                    const std::optional<DecodeLoop> &Decode) {
  if (!Decode)
    return {R};
  return intervalMinus(R, Decode->Range);
}

/// Adds the launch-attributed idle of \p B's gaps to the op that made each
/// late call (to the call itself when no op encloses it).
void addLaunchIdleByOp(const model::Trace &T, const IdleBreakdown &B,
                       std::map<std::string, int64_t> &ByOp) {
  for (const analysis::AttributedGap &G : B.GapList) {
    if (!G.LaunchNs)
      continue;
    const Event &Launch = T.Events[G.Launch];
    const Event *Op = enclosingOp(T, Launch);
    ByOp[T.name(Op ? *Op : Launch).str()] += G.LaunchNs;
  }
}

DeviceIdle collectIdle(const TraceIndex &Ctx, int32_t Device,
                       const IdleOptions &IO) {
  DeviceIdle F;
  F.Device = Device;
  if (std::optional<DecodeLoop> L =
          findReportedDecodeLoop(Ctx, Device, DecodeLoopOptions{});
      L && L->Reported)
    F.Decode = std::move(L);
  std::vector<int64_t> Spans;
  for (const Interval &R : Ctx.measureWindows().Ranges) {
    IdleBreakdown Window;
    for (const Interval &Part : measuredParts(R, F.Decode)) {
      const IdleBreakdown &B = Ctx.attributeIdle(Device, Part, IO);
      Window.addFigures(B);
      addLaunchIdleByOp(Ctx.trace(), B, F.ByOp);
    }
    Spans.push_back(R.length());
    F.Total.addFigures(Window);
    F.PerWindow.push_back(std::move(Window));
  }
  std::vector<const IdleBreakdown *> Splits;
  for (const IdleBreakdown &B : F.PerWindow)
    Splits.push_back(&B);
  F.Typical = analysis::typicalSplit(Device, Spans, Splits);
  return F;
}

/// How long a device's operations run against how often the host submits
/// them, inside the measured windows.
struct Cadence {
  std::vector<int64_t> WorkNs;     ///< each operation's length
  std::vector<int64_t> IntervalNs; ///< start to start, per thread and window
  std::vector<int64_t> CallNs;     ///< each submission's length
  std::vector<int64_t> WorkPerWindow, CallsPerWindow;
};

/// The cadence of \p Device's work and of the submissions of the host
/// threads that launched it.
Cadence measureCadence(const TraceIndex &Ctx, int32_t Device) {
  const model::Trace &T = Ctx.trace();
  const MeasureWindows &Win = Ctx.measureWindows();
  const size_t N = Win.Ranges.size();
  Cadence C;
  C.WorkPerWindow.assign(N, 0);
  C.CallsPerWindow.assign(N, 0);
  std::vector<uint32_t> Feeders; // the host lanes that launched the work
  for (uint32_t I : Ctx.deviceWork(Device)) {
    const Event &E = T.Events[I];
    size_t W = Ctx.windowOf(I);
    if (W == N)
      continue;
    C.WorkNs.push_back(E.Duration);
    ++C.WorkPerWindow[W];
    if (uint32_t L = T.launchOf(E); L != model::NoIndex)
      Feeders.push_back(T.Events[L].Lane);
  }
  llvm::sort(Feeders);
  Feeders.erase(std::unique(Feeders.begin(), Feeders.end()), Feeders.end());
  for (uint32_t Lane : Feeders) {
    // Intervals run between two submissions of one window.
    size_t PrevWindow = N;
    int64_t PrevStart = 0;
    for (uint32_t S : Ctx.submissions(Lane)) {
      const Event &E = T.Events[S];
      size_t W = Win.indexOf(E.Start);
      if (W == N)
        continue;
      ++C.CallsPerWindow[W];
      C.CallNs.push_back(E.Duration);
      if (W == PrevWindow)
        C.IntervalNs.push_back(E.Start - PrevStart);
      PrevWindow = W;
      PrevStart = E.Start;
    }
  }
  return C;
}

/// The evidence lines on what the figures leave out: the decode loop left
/// to L004, and host waits (S001) when they idle the device too.
void addEvidence(const TraceIndex &Ctx, const DeviceIdle &F, int64_t LaunchIdle,
                 Detection &Det) {
  if (F.Decode)
    Det.ExtraEvidence.push_back(
        llvm::formatv("the repeated decode loop on device {0} ({1} tokens "
                      "of {2} operations from {3}) is left out of "
                      "these figures: L004 reports it",
                      F.Decode->Device, F.Decode->Repeats, F.Decode->Period,
                      support::formatOffset(Ctx.traceOffsetNs(
                          Ctx.trace().Events[F.Decode->FirstWork])))
            .str());
  if (F.Typical.HostWaitNs > LaunchIdle / 2)
    Det.ExtraEvidence.push_back(
        llvm::formatv("host waits also leave the device idle for {0} per "
                      "step (see S001); the launch-path share is counted "
                      "apart from them",
                      Det.Values["wait_idle"])
            .str());
}

Detection describeLaunchBound(const TraceIndex &Ctx, const DeviceIdle &F,
                              const Cadence &C, int64_t LaunchIdle,
                              double MinShare, const IdleOptions &IO) {
  const model::Trace &T = Ctx.trace();
  const int64_t MedWork = median(C.WorkNs), MedInterval = median(C.IntervalNs);
  const analysis::TargetIdle &M = F.Typical;
  Detection Det = impactDetection(Ctx, LaunchIdle, MinShare);
  auto &V = Det.Values;
  V["device"] = deviceName(F.Device);
  V["subject"] = V["device"];
  describeIdleSplit(M, Ctx.targetNs(), V);
  V["launch_idle"] = dur(LaunchIdle);
  V["other_idle"] = dur(M.HostOtherNs);
  V["kernels_per_step"] = count(median(C.WorkPerWindow));
  V["launches_per_step"] = count(median(C.CallsPerWindow));
  V["median_kernel"] = dur(MedWork);
  V["median_interval"] = dur(MedInterval);
  V["launch_cost"] = dur(median(C.CallNs));
  V["gaps"] = count(int64_t(F.Total.LaunchGaps));
  V["max_launch_interval"] = dur(IO.MaxLaunchIntervalNs);
  // The ops whose late submissions left the device idle the longest.
  std::vector<std::string> Top = namesByTotal(F.ByOp);
  V["top_names"] = joinNames(Top);
  V["top_op"] = Top.empty() ? V["device"] : Top.front();
  V["longest_gap"] = dur(F.Total.LongestLaunchGap.length());
  if (F.Total.LongestLaunchGapWork != model::NoIndex) {
    const Event &W = T.Events[F.Total.LongestLaunchGapWork];
    Det.Examples.push_back(example(Ctx, W));
    if (uint32_t L = T.launchOf(W); L != model::NoIndex)
      Det.Examples.push_back(example(Ctx, T.Events[L]));
    V["example"] = eventAt(Ctx, W);
  }
  Det.Subject = V["device"].text();
  // The mechanism is clearest when the typical kernel is shorter than the
  // typical launch interval and most idle is explained.
  Det.Confidence = MedWork <= MedInterval ? 0.8 : 0.65;
  noteUnlinkedIdle(Det, F.Total, "the");
  addEvidence(Ctx, F, LaunchIdle, Det);
  return Det;
}

} // namespace

Outcome rules::runLaunchBoundShortKernels(const TraceIndex &Ctx,
                                          const RuleOptions &Opts,
                                          std::vector<Detection> &Out) {
  const double MinShare = Opts.number("min-idle-share");
  const double MaxRatio = Opts.number("max-kernel-to-interval");
  const IdleOptions IO = launchPathIdleOptions(Opts);
  const int64_t Target = Ctx.targetNs();
  if (Target <= 0)
    return Outcome::ran();

  std::vector<DeviceIdle> Devices;
  for (int32_t D : streamDevices(Ctx))
    Devices.push_back(collectIdle(Ctx, D, IO));
  // The device whose launch-attributed idle per step is largest decides.
  const DeviceIdle *F = largestBy(
      Devices, [](const DeviceIdle &D) { return D.Typical.LaunchNs; });
  if (!F)
    return Outcome::ran();
  const int64_t LaunchIdle = std::min(F->Typical.LaunchNs, Target);
  if (double(LaunchIdle) / double(Target) < MinShare)
    return quietUnderFloor(LaunchIdle, Target, MinShare);

  // Kernel duration against the launch cadence: when the typical kernel
  // outlasts several launch intervals, the host runs ahead and a queue
  // builds, so the idle gaps have another cause.
  const Cadence C = measureCadence(Ctx, F->Device);
  if (C.IntervalNs.empty() || C.WorkNs.empty())
    return Outcome::ran();
  if (double(median(C.WorkNs)) > MaxRatio * double(median(C.IntervalNs)))
    return Outcome::quiet("kernels outlast the launch interval");

  Out.push_back(describeLaunchBound(Ctx, *F, C, LaunchIdle, MinShare, IO));
  return Outcome::ran();
}
