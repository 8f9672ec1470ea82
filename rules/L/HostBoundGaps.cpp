//===- rules/detectors/HostBound.cpp - L002 host-bound gaps ---------------===//
//
// Device idle time that the host explains, but not through launches: each
// idle gap ends with work that the host submitted late, and while the device
// waited the launching thread went for longer than max-launch-interval
// without submitting anything (Python logic, CPU ops, logging, host-side
// preprocessing), or sat in one launch call far longer than a launch
// (TraceIndex::attributeIdle counts both as HostOther). L001 owns the
// launch-path share and S001 the host waits; the part that lies inside
// data-loader ranges is left to D001, and the part inside start-up work or
// inside a runtime or driver call (lazy loading in a long launch call,
// allocator and set-up calls) to U001 and the allocator rules. What remains
// is attributed, instant by instant, to the innermost host activity (op,
// Python frame, annotation) of the launching thread, so that the finding
// names the op that occupied the host.
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

struct OpShare {
  int64_t Ns = 0;
  uint32_t Example = model::NoIndex; ///< the longest such event
};

struct DeviceFigures {
  int32_t Device = -1;
  // Per measured window, parallel to MeasureWindows::Ranges.
  std::vector<int64_t> Host, Loader, OneOff, Idle, Launch, Wait, Queued,
      Unlinked;
  uint64_t Gaps = 0; ///< gaps with host time outside the loader
  Interval LongestGap;
  uint32_t LongestGapWork = model::NoIndex;
  int64_t LongestGapHost = 0;
  std::map<std::string, OpShare> ByOp;
  int64_t HostTotal = 0;
};

} // namespace

Outcome rules::runHostBoundGaps(const TraceIndex &Ctx, const RuleOptions &Opts,
                                std::vector<Detection> &Out) {
  const model::Trace &T = Ctx.trace();
  if (!Ctx.hasCorrelation())
    return Outcome::cannotJudge(
        "no device work is linked to a host call "
        "(correlation ids missing), so idle gaps cannot be attributed");
  const double MinShare = Opts.number("min-idle-share");
  analysis::IdleOptions IO;
  IO.MaxLaunchIntervalNs = int64_t(Opts.number("max-launch-interval"));
  IO.KeepGaps = true;
  const int64_t Target = Ctx.targetNs();
  if (Target <= 0)
    return Outcome::ran();
  const MeasureWindows &Win = Ctx.measureWindows();
  const IntervalSet Loader = Ctx.dataLoaderRanges();
  // One-off start-up work (U001) is not host work between submissions.
  std::vector<Interval> StartupParts;
  for (const StartupEvent &E : Ctx.startup().Found)
    StartupParts.push_back(E.Range);
  const IntervalSet Startup = IntervalSet::unionOf(std::move(StartupParts));

  std::vector<DeviceFigures> Figures;
  for (int32_t D : Ctx.devices()) {
    if (D < 0)
      continue;
    DeviceFigures F;
    F.Device = D;
    for (const Interval &R : Win.Ranges) {
      IdleBreakdown B = Ctx.attributeIdle(D, R, IO);
      int64_t Host = 0, InLoader = 0, OneOff = 0;
      for (const analysis::AttributedGap &G : B.GapList) {
        if (G.OtherPieces.empty())
          continue;
        uint32_t Lane = T.Events[G.Launch].Lane;
        int64_t GapHost = 0;
        for (const Interval &P : G.OtherPieces) {
          IntervalSet Piece = IntervalSet::unionOf({P});
          IntervalSet Covered = Piece.intersect(Loader);
          InLoader += Covered.length();
          // The parts of the piece outside the loader ranges, split by the
          // innermost host activity. Time inside start-up work or inside a
          // runtime or driver call (one-off work such as lazy module
          // loading, allocator calls) is not host work between submissions.
          for (const Interval &Part : Covered.gapsWithin(P)) {
            IntervalSet InStartup =
                IntervalSet::unionOf({Part}).intersect(Startup);
            OneOff += InStartup.length();
            for (const Interval &Rest : InStartup.gapsWithin(Part))
              forInnermostActivity(T, Lane, Rest, [&](uint32_t I, int64_t Ns) {
                if (I != model::NoIndex && isRuntimeCall(T.Events[I].Kind)) {
                  OneOff += Ns;
                  return;
                }
                std::string Name = I == model::NoIndex
                                       ? NoOp.str()
                                       : T.name(T.Events[I]).str();
                OpShare &S = F.ByOp[Name];
                S.Ns += Ns;
                if (I != model::NoIndex &&
                    (S.Example == model::NoIndex ||
                     T.Events[I].Duration > T.Events[S.Example].Duration))
                  S.Example = I;
                GapHost += Ns;
              });
          }
        }
        Host += GapHost;
        if (GapHost > 0)
          ++F.Gaps;
        if (GapHost > F.LongestGapHost) {
          F.LongestGapHost = GapHost;
          F.LongestGap = G.Range;
          F.LongestGapWork = G.Work;
        }
      }
      F.Host.push_back(Host);
      F.Loader.push_back(InLoader);
      F.OneOff.push_back(OneOff);
      F.Idle.push_back(B.IdleNs);
      F.Launch.push_back(B.LaunchNs);
      F.Wait.push_back(B.HostWaitNs);
      F.Queued.push_back(B.QueuedNs);
      F.Unlinked.push_back(B.UnlinkedNs);
      F.HostTotal += Host;
    }
    Figures.push_back(std::move(F));
  }
  if (Figures.empty())
    return Outcome::ran();
  auto Best =
      std::max_element(Figures.begin(), Figures.end(),
                       [](const DeviceFigures &A, const DeviceFigures &B) {
                         return median(A.Host) < median(B.Host);
                       });
  DeviceFigures &F = *Best;
  int64_t HostIdle = std::min(median(F.Host), Target);
  double Share = double(HostIdle) / double(Target);
  if (HostIdle <= 0 || Share < MinShare)
    return Outcome::ran();

  std::vector<std::pair<int64_t, std::string>> Ops;
  for (auto &[Name, S] : F.ByOp)
    Ops.push_back({S.Ns, Name});
  llvm::sort(Ops, [](const auto &A, const auto &B) {
    return A.first > B.first || (A.first == B.first && A.second < B.second);
  });
  std::vector<std::string> Top;
  for (auto &[Ns, Name] : Ops)
    Top.push_back(Name + " (" + pct(double(Ns) / double(F.HostTotal)).text() +
                  ")");
  const std::string &TopName = Ops.front().second;
  const OpShare &TopShare = F.ByOp[TopName];

  Detection Det;
  auto &V = Det.Values;
  V["device"] = llvm::formatv("device {0}", F.Device).str();
  V["value"] = dur(HostIdle);
  V["share"] = pct(Share);
  V["impact"] = dur(HostIdle);
  V["threshold"] = pct(MinShare);
  int64_t Idle = median(F.Idle);
  V["idle"] = dur(Idle);
  V["idle_share"] = pct(double(Idle) / double(Target));
  V["launch_idle"] = dur(median(F.Launch));
  V["wait_idle"] = dur(median(F.Wait));
  V["loader_idle"] = dur(median(F.Loader));
  V["oneoff_idle"] = dur(median(F.OneOff));
  V["queued_idle"] = dur(median(F.Queued));
  V["unlinked_idle"] = dur(median(F.Unlinked));
  V["top_names"] = joinNames(Top);
  V["top_op"] = TopName;
  V["top_op_share"] = pct(double(TopShare.Ns) / double(F.HostTotal));
  V["top_op_path"] = TopShare.Example == model::NoIndex
                         ? TopName
                         : Ctx.opPath(T.Events[TopShare.Example]);
  V["gaps"] = std::to_string(F.Gaps);
  V["max_launch_interval"] = dur(IO.MaxLaunchIntervalNs);
  V["longest_gap"] = dur(F.LongestGap.length());
  V["target"] = Ctx.describeTarget();
  describeWindows(Win, V);
  V["example"] = "none";
  if (F.LongestGapWork != model::NoIndex) {
    const Event &W = T.Events[F.LongestGapWork];
    V["example"] =
        llvm::formatv("{0} at {1:f3} us", T.name(W), Ctx.traceTimestampUs(W))
            .str();
    Det.Examples.push_back(example(Ctx, W));
  }
  if (TopShare.Example != model::NoIndex)
    Det.Examples.push_back(example(Ctx, T.Events[TopShare.Example]));
  Det.ImpactNs = HostIdle;
  Det.Window = Win.describe();
  Det.Subject = TopName;
  Det.Confidence = 0.7;
  auto NoOpIt = F.ByOp.find(NoOp.str());
  if (NoOpIt != F.ByOp.end() && 2 * NoOpIt->second.Ns > F.HostTotal) {
    Det.Confidence = 0.6;
    Det.ConfidenceNotes.push_back(
        "most of the host time lies outside any recorded op (Python between "
        "ops, or work the profiler did not record); with_stack=True shows "
        "the Python frames");
  }
  if (median(F.Launch) > HostIdle)
    Det.ExtraEvidence.push_back(
        llvm::formatv("the launch path leaves the device idle longer, {0} "
                      "{1} (see L001); it is counted apart from this",
                      V["launch_idle"], V["per"])
            .str());
  Out.push_back(std::move(Det));
  return Outcome::ran();
}
