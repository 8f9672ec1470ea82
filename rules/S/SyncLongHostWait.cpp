//===- rules/S/SyncLongHostWait.cpp - S001 long host waits ----------------===//
//
// A host wait costs completion time only where it leaves the device without
// work. While the host waits, the device either runs the queued work (then
// the wait only reveals device-bound work) or sits idle (then the awaited
// work was elsewhere: another stream, a copy, a peer). After the wait
// returns, the queue is empty and the device idles until the host submits
// again. Removing the waits would let the host submit earlier by at most
// their length, and only device idle time can be saved: the trace index's
// waitsGainBound() is that bound, counting idle time shared by several
// waits once. This detector takes it per steady step and the median; it
// fires on the host time blocked per step, so that a long wait that only
// reveals device-bound work is still shown, with a small impact and an info
// severity that say removing it is not predicted to help. Waits under the
// floor whose bound still reaches min-info-share of the target (they left
// the device idle) are reported at info rather than dropped.
//
// The final synchronization of the window is excluded: U002 reports it.
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
using analysis::HostWait;
using analysis::TraceIndex;
using model::Event;
using model::Interval;

namespace {

/// The waits at one op path.
struct WaitSite {
  WaitTally Waits;
  std::vector<std::vector<HostWait>> PerWindow; ///< parallel to the windows
  int64_t GainPerWindow = 0; ///< mean over the windows of their bound
};

/// The steady steps' waits, collected once.
struct StepWaits {
  std::vector<std::vector<HostWait>> PerWindow; ///< parallel to the windows
  std::map<std::string, WaitSite> Sites;        ///< by op path
  std::map<std::string, int64_t> BlockedByName;
  std::map<analysis::WaitKind, uint64_t> ByKind;
  uint64_t Count = 0, Flushes = 0;
  int64_t Total = 0;
  int64_t BusyDuring = 0; ///< device busy time inside the waits
};

/// Device idle time inside \p Wait on the devices its thread feeds (all of
/// them when it feeds none), the most on any one device.
int64_t idleDuring(const TraceIndex &Ctx, const HostWait &Wait) {
  llvm::ArrayRef<int32_t> Devices = Ctx.devicesFedBy(Wait.Lane);
  if (Devices.empty())
    Devices = Ctx.devices();
  int64_t Most = 0;
  for (int32_t D : Devices)
    if (D >= 0)
      Most = std::max(Most, Ctx.deviceBusy(D).idleWithin(Wait.Range));
  return Most;
}

StepWaits collectWaits(const TraceIndex &Ctx) {
  const model::Trace &T = Ctx.trace();
  const MeasureWindows &Win = Ctx.measureWindows();
  StepWaits S;
  S.PerWindow.resize(Win.Ranges.size());
  S.Flushes = forEachSteadyWait(Ctx, [&](const HostWait &W, size_t Idx) {
    const Event &E = T.Events[W.Event];
    const int64_t Len = W.Range.length();
    S.PerWindow[Idx].push_back(W);
    ++S.Count;
    S.Total += Len;
    S.BusyDuring += Len - std::min(Len, idleDuring(Ctx, W));
    ++S.ByKind[W.Kind];
    S.BlockedByName[T.name(E).str()] += Len;
    WaitSite &Site = S.Sites[Ctx.opPath(E)];
    Site.PerWindow.resize(Win.Ranges.size());
    Site.PerWindow[Idx].push_back(W);
    Site.Waits.add(W);
  });
  return S;
}

/// The per-step figures of the waits: time blocked, the bound on the gain,
/// and how much of the bound is idle time inside the waits.
struct WaitFigures {
  int64_t BlockedMedian = 0, GainMedian = 0;
  std::vector<int64_t> GainPerWindow; ///< the spread of GainMedian
  int64_t IdleDuringMedian = 0, RefillMedian = 0;
  double BusyShare = 0; ///< of the time blocked
};

WaitFigures measureWaits(const TraceIndex &Ctx, StepWaits &S) {
  const MeasureWindows &Win = Ctx.measureWindows();
  std::vector<int64_t> Blocked, Gain, IdleDuring, Refill;
  for (size_t I = 0; I < Win.Ranges.size(); ++I) {
    int64_t Wait = 0, Idle = 0;
    for (const HostWait &W : S.PerWindow[I]) {
      Wait += W.Range.length();
      Idle += std::min(W.Range.length(), idleDuring(Ctx, W));
    }
    int64_t G = Ctx.waitsGainBound(S.PerWindow[I], Win.Ranges[I]);
    Blocked.push_back(Wait);
    Gain.push_back(G);
    IdleDuring.push_back(std::min(Idle, G));
    Refill.push_back(G - std::min(Idle, G));
  }
  for (auto &[Path, Site] : S.Sites) {
    int64_t Sum = 0;
    for (size_t I = 0; I < Win.Ranges.size(); ++I)
      Sum += Ctx.waitsGainBound(Site.PerWindow[I], Win.Ranges[I]);
    Site.GainPerWindow = Sum / int64_t(Win.Ranges.size());
  }
  WaitFigures F;
  F.BlockedMedian = median(Blocked);
  F.GainMedian = std::min(median(Gain), Ctx.targetNs());
  F.GainPerWindow = Gain;
  F.IdleDuringMedian = median(IdleDuring);
  F.RefillMedian = median(Refill);
  F.BusyShare = S.Total ? double(S.BusyDuring) / double(S.Total) : 0;
  return F;
}

/// The finding: the op path that costs the most is its subject; when the
/// waits only reveal device-bound work, the one that blocks the longest,
/// kept at info severity.
Detection describeWaits(const TraceIndex &Ctx, const StepWaits &S,
                        const WaitFigures &F, double MinShare,
                        bool RevealsDeviceWork) {
  const model::Trace &T = Ctx.trace();
  const int64_t Target = Ctx.targetNs();
  const MeasureWindows &Win = Ctx.measureWindows();
  auto Ranked = rankByKey(S.Sites, [&](const WaitSite &Site) {
    return std::make_pair(RevealsDeviceWork ? Site.Waits.Total
                                            : Site.GainPerWindow,
                          Site.Waits.Total);
  });
  const auto *Top = Ranked.front();
  std::vector<std::string> Kinds;
  for (auto &[K, N] : S.ByKind)
    Kinds.push_back(llvm::formatv("{0} {1}", N, analysis::waitKindName(K)));

  Detection Det;
  auto &V = Det.Values;
  addSiteEvidence(
      Det, Ranked, 0, 3, [&](const std::string &Path, const WaitSite &Site) {
        const WaitTally &W = Site.Waits;
        return llvm::formatv(
                   "{0}: {1} wait{2}, {3} in total, the longest {4} at "
                   "{5}; bound on the gain {6} per step",
                   Path, W.Count, W.Count == 1 ? "" : "s", dur(W.Total),
                   dur(W.Max),
                   support::formatOffset(
                       Ctx.traceOffsetNs(T.Events[W.Longest])),
                   dur(Site.GainPerWindow))
            .str();
      });
  V["value"] = dur(F.BlockedMedian);
  V["share"] = pct(double(F.BlockedMedian) / double(Target));
  V["threshold"] = pct(MinShare);
  V["impact"] = dur(F.GainMedian);
  V["impact_share"] = pct(double(F.GainMedian) / double(Target));
  V["count"] = count(int64_t(S.Count));
  V["total"] = dur(S.Total);
  V["top_names"] = joinNames(namesByTime(S.BlockedByName));
  V["kinds"] = joinNames(Kinds, 3);
  V["top_op_path"] = Top->first;
  V["subject"] = Top->first;
  V["device_busy"] = pct(F.BusyShare);
  V["idle_during"] = dur(F.IdleDuringMedian);
  V["refill"] = dur(F.RefillMedian);
  describeWindows(Win, V);
  V["flushes"] = count(int64_t(S.Flushes));
  const Event &Longest = T.Events[Top->second.Waits.Longest];
  V["max"] = dur(Top->second.Waits.Max);
  V["example"] = eventAt(Ctx, Longest);
  Det.Examples.push_back(example(Ctx, Longest));

  if (RevealsDeviceWork) {
    V["verdict"] =
        llvm::formatv("the device was busy for {0} of the wait, so the wait "
                      "mostly reveals device-bound work: removing it is not "
                      "predicted to help by more than {{impact}",
                      pct(F.BusyShare))
            .str();
    Det.SeverityOverride = Severity::Info;
  } else {
    V["verdict"] =
        llvm::formatv("{0} the device sat idle for {1} during the waits "
                      "and for {2} after them (counted up to each wait's "
                      "length) before new work arrived",
                      Win.Steps ? "per step" : "in the window",
                      dur(F.IdleDuringMedian), dur(F.RefillMedian))
            .str();
  }
  if (S.Flushes)
    Det.ExtraEvidence.push_back(
        llvm::formatv("{0} final synchronization{1} {2} excluded as a "
                      "teardown flush (see U002)",
                      S.Flushes, S.Flushes == 1 ? "" : "s",
                      Ctx.hasSteps() ? "after the last step"
                                     : "after the last submission")
            .str());
  Det.ImpactNs = F.GainMedian;
  Det.PerWindowNs = F.GainPerWindow;
  Det.Window = Win.describe();
  Det.Subject = Top->first;
  // Explicit and blocking-copy waits are certain host waits; an op-level
  // implicit wait without its runtime calls is inferred from the op name.
  Det.Confidence =
      S.ByKind.count(analysis::WaitKind::ImplicitOp) && S.ByKind.size() == 1
          ? 0.6
          : 0.75;
  return Det;
}

} // namespace

Outcome rules::runSyncLongHostWait(const TraceIndex &Ctx,
                                   const RuleOptions &Opts,
                                   std::vector<Detection> &Out) {
  const double MinShare = Opts.number("min-share-of-step");
  const double DeviceBound = Opts.number("device-bound-share");
  const double MinInfo = Opts.number("min-info-share");
  const int64_t Target = Ctx.targetNs();
  if (Target <= 0)
    return Outcome::ran();

  StepWaits S = collectWaits(Ctx);
  if (S.Count == 0)
    return Outcome::ran();
  WaitFigures F = measureWaits(Ctx, S);
  // Under the floor, waits that still left the device idle for a
  // measurable share of the target are kept at info: they exposed device
  // work, and a reader looking at the idle time wants to know why.
  const bool UnderFloor = double(F.BlockedMedian) < MinShare * double(Target);
  if (UnderFloor && double(F.GainMedian) < MinInfo * double(Target))
    return quietUnderFloor(F.BlockedMedian, Target, MinShare);

  // Waits that only reveal device-bound work gain little: said, not hidden.
  const bool RevealsDeviceWork =
      F.BusyShare >= DeviceBound &&
      double(F.GainMedian) < MinShare * double(Target);
  Detection Det = describeWaits(Ctx, S, F, MinShare, RevealsDeviceWork);
  if (UnderFloor)
    keepUnderFloor(Det, "min-share-of-step", MinShare, F.BlockedMedian, Target);
  Out.push_back(std::move(Det));
  return Outcome::ran();
}
