//===- analysis/IdleAttribution.cpp - Device idle time split by cause -----===//
#include "analysis/TraceIndex.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <climits>

using namespace tracelint;
using namespace tracelint::analysis;
using model::Event;
using model::Interval;

const IdleBreakdown &TraceIndex::attributeIdle(int32_t Device, Interval Window,
                                               const IdleOptions &Opts) const {
  IdleKey Key{Device,
              Window.Begin,
              Window.End,
              Opts.MaxLaunchIntervalNs,
              Opts.MaxLaunchLatencyNs,
              Opts.KeepGaps};
  {
    std::lock_guard<std::mutex> Lock(IdleLock);
    auto It = IdleCache.find(Key);
    if (It != IdleCache.end())
      return It->second;
  }
  // Computed outside the lock, so that rules asking for other splits do not
  // wait; a thread that loses the race to insert drops its copy.
  IdleBreakdown B = computeIdle(Device, Window, Opts);
  std::lock_guard<std::mutex> Lock(IdleLock);
  return IdleCache.emplace(Key, std::move(B)).first->second;
}

IdleBreakdown TraceIndex::computeIdle(int32_t Device, Interval Window,
                                      const IdleOptions &Opts) const {
  IdleBreakdown Out;
  const model::IntervalSet &Busy = deviceBusy(Device);
  for (const Interval &Gap : Busy.gapsWithin(Window)) {
    Out.IdleNs += Gap.length();
    ++Out.Gaps;
    // The work that ends the gap: the first to start at or after its end
    // (later when the window cut the gap; none when the device stays idle
    // to the end of the trace).
    uint32_t W = nextDeviceWork(Device, Gap.End);
    if (W == model::NoIndex) {
      Out.UnlinkedNs += Gap.length();
      continue;
    }
    uint32_t LI = T.launchOf(T.Events[W]);
    if (LI == model::NoIndex) {
      Out.UnlinkedNs += Gap.length();
      continue;
    }
    const Event &L = T.Events[LI];
    if (L.end() <= Gap.Begin) {
      Out.QueuedNs += Gap.length();
      continue;
    }
    // The host was late: walk the gap in pieces cut at the launching
    // thread's submission starts and wait boundaries.
    llvm::ArrayRef<uint32_t> Subs = submissions(L.Lane);
    llvm::ArrayRef<HostWait> Waits = hostWaits(L.Lane);
    std::vector<int64_t> Cuts = {Gap.Begin, Gap.End};
    if (L.end() + Opts.MaxLaunchLatencyNs < Gap.End)
      Cuts.push_back(std::max(Gap.Begin, L.end() + Opts.MaxLaunchLatencyNs));
    auto SubFrom = llvm::partition_point(
        Subs, [&](uint32_t I) { return T.Events[I].Start <= Gap.Begin; });
    for (auto It = SubFrom; It != Subs.end() && T.Events[*It].Start < Gap.End;
         ++It)
      Cuts.push_back(T.Events[*It].Start);
    auto WaitFrom = llvm::partition_point(
        Waits, [&](const HostWait &HW) { return HW.Range.End <= Gap.Begin; });
    for (auto It = WaitFrom; It != Waits.end() && It->Range.Begin < Gap.End;
         ++It) {
      if (It->Range.Begin > Gap.Begin)
        Cuts.push_back(It->Range.Begin);
      if (It->Range.End < Gap.End)
        Cuts.push_back(It->Range.End);
    }
    llvm::sort(Cuts);
    Cuts.erase(std::unique(Cuts.begin(), Cuts.end()), Cuts.end());

    bool LIsWait = waitKind(L) != WaitKind::None;
    int64_t LaunchBefore = Out.LaunchNs, WaitBefore = Out.HostWaitNs,
            OtherBefore = Out.HostOtherNs;
    std::vector<Interval> OtherPieces;
    auto Other = [&](const Interval &Piece) {
      Out.HostOtherNs += Piece.length();
      if (Opts.KeepGaps) {
        if (!OtherPieces.empty() && OtherPieces.back().End == Piece.Begin)
          OtherPieces.back().End = Piece.End;
        else
          OtherPieces.push_back(Piece);
      }
    };
    for (size_t C = 0; C + 1 < Cuts.size(); ++C) {
      Interval Piece{Cuts[C], Cuts[C + 1]};
      int64_t P = Piece.Begin;
      // After L returned (plus the usual launch latency) the work was
      // submitted but did not start: the device held it back.
      if (P >= L.end() + Opts.MaxLaunchLatencyNs) {
        Out.QueuedNs += Piece.length();
        continue;
      }
      // Inside L or just after it: the device waits for this very call.
      if (P >= L.Start) {
        // A blocking copy's own call stages pageable memory: a wait. A
        // launch call far longer than a launch interval is not per-launch
        // cost but one-off work inside it (lazy module loading).
        if (LIsWait)
          Out.HostWaitNs += Piece.length();
        else if (L.Duration > Opts.MaxLaunchIntervalNs)
          Other(Piece);
        else
          Out.LaunchNs += Piece.length();
        continue;
      }
      // Inside a wait?
      auto WIt = llvm::partition_point(
          Waits, [&](const HostWait &HW) { return HW.Range.End <= P; });
      if (WIt != Waits.end() && WIt->Range.Begin <= P) {
        Out.HostWaitNs += Piece.length();
        continue;
      }
      // The last submission start and the last wait end at or before P, and
      // the next submission start after it.
      int64_t PrevSub = INT64_MIN, PrevWaitEnd = INT64_MIN;
      auto SIt = llvm::partition_point(
          Subs, [&](uint32_t I) { return T.Events[I].Start <= P; });
      if (SIt != Subs.begin())
        PrevSub = T.Events[*(SIt - 1)].Start;
      if (WIt != Waits.begin())
        PrevWaitEnd = (WIt - 1)->Range.End;
      int64_t NextSub = SIt == Subs.end() ? L.Start : T.Events[*SIt].Start;
      if (PrevWaitEnd != INT64_MIN && PrevWaitEnd >= PrevSub) {
        // Refilling the queue after a wait, unless the host went on to
        // other work for longer than a launch interval first.
        if (NextSub - PrevWaitEnd <= Opts.MaxLaunchIntervalNs)
          Out.HostWaitNs += Piece.length();
        else
          Other(Piece);
        continue;
      }
      if (PrevSub != INT64_MIN && NextSub - PrevSub <= Opts.MaxLaunchIntervalNs)
        Out.LaunchNs += Piece.length();
      else
        Other(Piece);
    }
    int64_t Launch = Out.LaunchNs - LaunchBefore;
    if (Opts.KeepGaps)
      Out.GapList.push_back({Gap, W, LI, Launch, Out.HostWaitNs - WaitBefore,
                             Out.HostOtherNs - OtherBefore,
                             std::move(OtherPieces)});
    if (2 * Launch > Gap.length()) {
      ++Out.LaunchGaps;
      if (Gap.length() > Out.LongestLaunchGap.length()) {
        Out.LongestLaunchGap = Gap;
        Out.LongestLaunchGapWork = W;
      }
    }
  }
  return Out;
}
