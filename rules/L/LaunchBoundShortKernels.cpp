//===- rules/detectors/LaunchBound.cpp - L001 launch-bound short kernels --===//
//
// Many short kernels are not a problem by themselves: a device that runs
// them back to back is busy. The launch-bound signature is device idle time
// inside the steps that the host's submission path explains: each idle gap
// ends with work that the host submitted late, and while the device waited
// the launching thread was inside launch calls or in the short stretches
// between them (not blocked in a synchronization, not in a long stretch of
// other host work). TraceIndex::attributeIdle does that split; this detector
// reads it per step, takes the median, and checks that kernels are short
// against the launch cadence (otherwise the host would run ahead). The
// launch-path idle inside a repeated static decode loop that L004 reports
// (DecodeLoop.h, with L004's default thresholds) is left to L004, so the
// same idle time is never claimed by both rules.
//
//===----------------------------------------------------------------------===//
#include "rules/BuiltinDetectors.h"
#include "rules/detectors/DecodeLoop.h"
#include "rules/detectors/DetectorSupport.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <map>
#include <optional>

using namespace tracelint;
using namespace tracelint::rules;
using namespace tracelint::rules::detect;
using analysis::IdleBreakdown;
using analysis::TraceIndex;
using model::Event;
using model::Interval;

namespace {

struct DeviceFigures {
  int32_t Device = -1;
  // Per measured window (step), parallel to MeasureWindows::Ranges.
  std::vector<int64_t> Launch, Idle, Wait, Other, Queued, Unlinked, Work;
  IdleBreakdown Total; ///< summed over the windows (for evidence)
  Interval LongestGap;
  uint32_t LongestGapWork = model::NoIndex;
  /// Launch-attributed idle per op name (the op that made the late call).
  std::map<std::string, int64_t> ByOp;
  /// The launch-bound decode loop left to L004, if any.
  std::optional<DecodeLoop> Decode;
};

/// Adds \p B's figures (and its gaps) to \p Sum.
void addBreakdown(IdleBreakdown &Sum, const IdleBreakdown &B) {
  Sum.IdleNs += B.IdleNs;
  Sum.LaunchNs += B.LaunchNs;
  Sum.HostWaitNs += B.HostWaitNs;
  Sum.HostOtherNs += B.HostOtherNs;
  Sum.QueuedNs += B.QueuedNs;
  Sum.UnlinkedNs += B.UnlinkedNs;
  Sum.Gaps += B.Gaps;
  Sum.LaunchGaps += B.LaunchGaps;
  if (B.LongestLaunchGap.length() > Sum.LongestLaunchGap.length()) {
    Sum.LongestLaunchGap = B.LongestLaunchGap;
    Sum.LongestLaunchGapWork = B.LongestLaunchGapWork;
  }
  Sum.GapList.insert(Sum.GapList.end(), B.GapList.begin(), B.GapList.end());
}

} // namespace

Outcome rules::runLaunchBoundShortKernels(const TraceIndex &Ctx,
                                          const RuleOptions &Opts,
                                          std::vector<Detection> &Out) {
  const model::Trace &T = Ctx.trace();
  if (!Ctx.hasCorrelation())
    return Outcome::cannotJudge(
        "no device work is linked to a host call "
        "(correlation ids missing), so idle gaps cannot be attributed");
  const double MinShare = Opts.number("min-idle-share");
  const double MaxRatio = Opts.number("max-kernel-to-interval");
  analysis::IdleOptions IO;
  IO.MaxLaunchIntervalNs = int64_t(Opts.number("max-launch-interval"));
  IO.KeepGaps = true;

  const MeasureWindows &Win = Ctx.measureWindows();
  const int64_t Target = Ctx.targetNs();
  if (Target <= 0)
    return Outcome::ran();

  std::vector<DeviceFigures> Figures;
  for (int32_t D : Ctx.devices()) {
    if (D < 0)
      continue; // device work outside device streams: no busy union
    DeviceFigures F;
    F.Device = D;
    if (std::optional<DecodeLoop> L =
            findReportedDecodeLoop(Ctx, D, DecodeLoopOptions{});
        L && L->Reported)
      F.Decode = std::move(L);
    for (const Interval &R : Win.Ranges) {
      IdleBreakdown B;
      if (F.Decode)
        for (const Interval &Piece : intervalMinus(R, F.Decode->Range))
          addBreakdown(B, Ctx.attributeIdle(D, Piece, IO));
      else
        B = Ctx.attributeIdle(D, R, IO);
      F.Launch.push_back(B.LaunchNs);
      F.Idle.push_back(B.IdleNs);
      F.Wait.push_back(B.HostWaitNs);
      F.Other.push_back(B.HostOtherNs);
      F.Queued.push_back(B.QueuedNs);
      F.Unlinked.push_back(B.UnlinkedNs);
      F.Total.IdleNs += B.IdleNs;
      F.Total.LaunchNs += B.LaunchNs;
      F.Total.HostWaitNs += B.HostWaitNs;
      F.Total.HostOtherNs += B.HostOtherNs;
      F.Total.QueuedNs += B.QueuedNs;
      F.Total.UnlinkedNs += B.UnlinkedNs;
      F.Total.Gaps += B.Gaps;
      F.Total.LaunchGaps += B.LaunchGaps;
      if (B.LongestLaunchGap.length() > F.LongestGap.length()) {
        F.LongestGap = B.LongestLaunchGap;
        F.LongestGapWork = B.LongestLaunchGapWork;
      }
      for (const analysis::AttributedGap &G : B.GapList) {
        if (!G.LaunchNs)
          continue;
        const Event *Op = enclosingOp(T, T.Events[G.Launch]);
        std::string Name =
            Op ? T.name(*Op).str() : T.name(T.Events[G.Launch]).str();
        F.ByOp[Name] += G.LaunchNs;
      }
    }
    Figures.push_back(std::move(F));
  }
  if (Figures.empty())
    return Outcome::ran();

  // The device whose launch-attributed idle per step is largest decides.
  auto Best =
      std::max_element(Figures.begin(), Figures.end(),
                       [](const DeviceFigures &A, const DeviceFigures &B) {
                         return median(A.Launch) < median(B.Launch);
                       });
  DeviceFigures &F = *Best;
  int64_t LaunchIdle = std::min(median(F.Launch), Target);
  double Share = double(LaunchIdle) / double(Target);
  if (Share < MinShare)
    return Outcome::ran();

  // Kernel duration against the launch cadence, inside the windows: the
  // durations of F.Device's work, and the start-to-start intervals of the
  // submissions that feed it.
  std::vector<int64_t> WorkDur, Intervals, CallDur;
  llvm::DenseMap<uint32_t, bool> Feeds; // host lane -> feeds F.Device
  std::vector<int64_t> WorkPerWindow(Win.Ranges.size(), 0);
  for (uint32_t I : Ctx.deviceWork(F.Device)) {
    const Event &E = T.Events[I];
    for (size_t W = 0; W < Win.Ranges.size(); ++W)
      if (E.Start >= Win.Ranges[W].Begin && E.Start < Win.Ranges[W].End) {
        WorkDur.push_back(E.Duration);
        ++WorkPerWindow[W];
        uint32_t L = T.launchOf(E);
        if (L != model::NoIndex)
          Feeds[T.Events[L].Lane] = true;
        break;
      }
  }
  std::vector<int64_t> SubsPerWindow(Win.Ranges.size(), 0);
  std::vector<uint32_t> FeedLanes;
  for (auto &Entry : Feeds)
    FeedLanes.push_back(Entry.first);
  llvm::sort(FeedLanes);
  for (uint32_t Lane : FeedLanes) {
    llvm::ArrayRef<uint32_t> Subs = Ctx.submissions(Lane);
    for (size_t W = 0; W < Win.Ranges.size(); ++W) {
      const Interval &R = Win.Ranges[W];
      int64_t Prev = INT64_MIN;
      for (uint32_t S : Subs) {
        const Event &E = T.Events[S];
        if (E.Start < R.Begin || E.Start >= R.End)
          continue;
        ++SubsPerWindow[W];
        CallDur.push_back(E.Duration);
        if (Prev != INT64_MIN)
          Intervals.push_back(E.Start - Prev);
        Prev = E.Start;
      }
    }
  }
  int64_t MedWork = median(WorkDur), MedInterval = median(Intervals);
  if (Intervals.empty() || WorkDur.empty())
    return Outcome::ran();
  if (double(MedWork) > MaxRatio * double(MedInterval))
    return Outcome::ran(); // the host outruns the device on the typical kernel

  Detection Det;
  int64_t Idle = median(F.Idle);
  auto &V = Det.Values;
  V["value"] = dur(LaunchIdle);
  V["share"] = pct(Share);
  V["impact"] = dur(LaunchIdle);
  V["threshold"] = pct(MinShare);
  V["device"] = llvm::formatv("device {0}", F.Device).str();
  V["idle"] = dur(Idle);
  V["idle_share"] = pct(double(Idle) / double(Target));
  V["launch_idle"] = dur(LaunchIdle);
  V["wait_idle"] = dur(median(F.Wait));
  V["other_idle"] = dur(median(F.Other));
  V["queued_idle"] = dur(median(F.Queued));
  V["unlinked_idle"] = dur(median(F.Unlinked));
  V["kernels_per_step"] = std::to_string(median(WorkPerWindow));
  V["launches_per_step"] = std::to_string(median(SubsPerWindow));
  V["median_kernel"] = dur(MedWork);
  V["median_interval"] = dur(MedInterval);
  V["launch_cost"] = dur(median(CallDur));
  V["gaps"] = std::to_string(F.Total.LaunchGaps);
  V["max_launch_interval"] = dur(IO.MaxLaunchIntervalNs);
  V["target"] = Ctx.describeTarget();
  describeWindows(Win, V);
  // The ops whose late submissions left the device idle the longest.
  std::vector<std::pair<int64_t, std::string>> Ops;
  for (auto &[Name, Ns] : F.ByOp)
    Ops.push_back({Ns, Name});
  llvm::sort(Ops, [](const auto &A, const auto &B) {
    return A.first > B.first || (A.first == B.first && A.second < B.second);
  });
  std::vector<std::string> Top;
  for (auto &[Ns, Name] : Ops)
    Top.push_back(Name);
  V["top_names"] = joinNames(Top);
  V["top_op"] = Top.empty() ? V["device"] : Top.front();
  V["subject"] = V["device"];
  int64_t LongestNs = F.LongestGap.length();
  V["longest_gap"] = dur(LongestNs);
  if (F.LongestGapWork != model::NoIndex) {
    const Event &W = T.Events[F.LongestGapWork];
    Det.Examples.push_back(example(Ctx, W));
    uint32_t L = T.launchOf(W);
    if (L != model::NoIndex)
      Det.Examples.push_back(example(Ctx, T.Events[L]));
    V["example"] =
        llvm::formatv("{0} at {1:f3} us", T.name(W), Ctx.traceTimestampUs(W))
            .str();
  }

  Det.ImpactNs = LaunchIdle;
  Det.Window = Win.describe();
  Det.Subject = V["device"].text();
  // Confidence: the mechanism is clearest when the typical kernel is
  // shorter than the typical launch interval and most idle is explained.
  double Conf = MedWork <= MedInterval ? 0.8 : 0.65;
  if (F.Total.IdleNs > 0 &&
      double(F.Total.UnlinkedNs) > 0.3 * double(F.Total.IdleNs)) {
    Conf *= 0.8;
    Det.ConfidenceNotes.push_back(
        llvm::formatv("{0} of the idle time ends with device work that has "
                      "no host call in the trace",
                      pct(double(F.Total.UnlinkedNs) / double(F.Total.IdleNs)))
            .str());
  }
  if (F.Decode)
    Det.ExtraEvidence.push_back(
        llvm::formatv("the repeated decode loop on device {0} ({1} tokens "
                      "of {2} operations from {3:f3} us) is left out of "
                      "these figures: L004 reports it",
                      F.Decode->Device, F.Decode->Repeats, F.Decode->Period,
                      Ctx.traceTimestampUs(T.Events[F.Decode->FirstWork]))
            .str());
  if (median(F.Wait) > LaunchIdle / 2)
    Det.ExtraEvidence.push_back(
        llvm::formatv("host waits also leave the device idle for {0} per "
                      "step (see S001); the launch-path share is counted "
                      "apart from them",
                      V["wait_idle"])
            .str());
  Det.Confidence = Conf;
  Out.push_back(std::move(Det));
  return Outcome::ran();
}
