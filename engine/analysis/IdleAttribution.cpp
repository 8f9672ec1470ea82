//===- analysis/IdleAttribution.cpp - Device idle time split by cause -----===//
#include "analysis/TraceIndex.h"

#include "support/Statistics.h"

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
      // Submitted before the device went idle: the ordinary latency after
      // the call, then a dependency the trace does not record.
      int64_t Latency = std::clamp<int64_t>(
          L.end() + Opts.MaxLaunchLatencyNs - Gap.Begin, 0, Gap.length());
      Out.LaunchNs += Latency;
      Out.UnrecordedNs += Gap.length() - Latency;
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
    // The edges of the launch path, the profiler's activity and start-up
    // work, so that each piece lies wholly inside each or outside.
    auto CutAtEdges = [&](const model::IntervalSet &Set) {
      llvm::ArrayRef<Interval> Parts = Set.parts();
      for (auto It = llvm::partition_point(
               Parts, [&](const Interval &I) { return I.End <= Gap.Begin; });
           It != Parts.end() && It->Begin < Gap.End; ++It) {
        if (It->Begin > Gap.Begin)
          Cuts.push_back(It->Begin);
        if (It->End < Gap.End)
          Cuts.push_back(It->End);
      }
    };
    const model::IntervalSet &Path = launchPath(L.Lane);
    const model::IntervalSet &Profiler = profilerRanges(L.Lane);
    const model::IntervalSet &Startup = startupRanges(L.Lane);
    CutAtEdges(Path);
    CutAtEdges(Profiler);
    CutAtEdges(Startup);
    llvm::sort(Cuts);
    Cuts.erase(std::unique(Cuts.begin(), Cuts.end()), Cuts.end());

    bool LIsWait = waitKind(L) != WaitKind::None;
    int64_t LaunchBefore = Out.LaunchNs, WaitBefore = Out.HostWaitNs,
            OtherBefore = Out.HostOtherNs + Out.DataLoadingNs;
    std::vector<Interval> OtherPieces;
    const model::IntervalSet &Loading = dataLoaderRanges();
    auto Other = [&](const Interval &Piece) {
      // Other host work inside a data-loader range is data loading (D001's
      // cause), so that the causes stay exclusive.
      int64_t Load = Loading.lengthWithin(Piece);
      Out.DataLoadingNs += Load;
      Out.HostOtherNs += Piece.length() - Load;
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
        Out.UnrecordedNs += Piece.length();
        continue;
      }
      auto WIt = llvm::partition_point(
          Waits, [&](const HostWait &HW) { return HW.Range.End <= P; });
      const bool InWait = (WIt != Waits.end() && WIt->Range.Begin <= P) ||
                          (P >= L.Start && LIsWait);
      // The profiler's own work, then one-off start-up work (a slow first
      // launch that loads its module, a capture that records launches
      // without running them), before the steady-state causes: the same
      // precedence as the critical path's host stretches.
      if (!InWait && Profiler.lengthWithin(Piece) == Piece.length()) {
        Out.ProfilerNs += Piece.length();
        continue;
      }
      if (!InWait && Startup.lengthWithin(Piece) == Piece.length()) {
        Out.StartupNs += Piece.length();
        continue;
      }
      // Inside L or just after it: the device waits for this very call.
      if (P >= L.Start) {
        // A blocking copy's own call stages pageable memory: a wait. Any
        // other submission call is the launch path, however long (the
        // critical path counts it the same way; a slow first launch that
        // loads its module is start-up, above).
        if (LIsWait)
          Out.HostWaitNs += Piece.length();
        else
          Out.LaunchNs += Piece.length();
        continue;
      }
      // Inside a wait?
      if (WIt != Waits.end() && WIt->Range.Begin <= P) {
        Out.HostWaitNs += Piece.length();
        continue;
      }
      // On the launch path: dispatching an op that submits work (data
      // loading when a loader range holds it, as on the critical path).
      if (Path.lengthWithin(Piece) == Piece.length()) {
        int64_t Load = Loading.lengthWithin(Piece);
        Out.DataLoadingNs += Load;
        Out.LaunchNs += Piece.length() - Load;
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
      Other(Piece);
    }
    int64_t Launch = Out.LaunchNs - LaunchBefore;
    if (Opts.KeepGaps)
      Out.GapList.push_back({Gap, W, LI, Launch, Out.HostWaitNs - WaitBefore,
                             Out.HostOtherNs + Out.DataLoadingNs - OtherBefore,
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

const TargetIdle &TraceIndex::targetIdle() const {
  return IdleOfTarget.get([&] {
    TargetIdle Out;
    // The device with the most busy time stands for the target.
    int64_t Most = -1;
    for (int32_t D : devices()) {
      int64_t B = deviceBusy(D).lengthWithin(window());
      if (B > Most) {
        Most = B;
        Out.Device = D;
      }
    }
    if (Out.Device < 0 || Windows.Ranges.empty())
      return Out;
    std::vector<int64_t> Span, Idle, Launch, Other, Wait, Loading, Startup,
        Profiler, Unrec, Unlinked;
    for (const Interval &R : Windows.Ranges) {
      const IdleBreakdown &B = attributeIdle(Out.Device, R);
      Span.push_back(R.length());
      Idle.push_back(B.IdleNs);
      Launch.push_back(B.LaunchNs);
      Other.push_back(B.HostOtherNs);
      Wait.push_back(B.HostWaitNs);
      Loading.push_back(B.DataLoadingNs);
      Startup.push_back(B.StartupNs);
      Profiler.push_back(B.ProfilerNs);
      Unrec.push_back(B.UnrecordedNs);
      Unlinked.push_back(B.UnlinkedNs);
    }
    // The same median as the rules' splits (support::median), so that the
    // target line and L001/L002 print the same figures.
    auto Median = [](std::vector<int64_t> &V) {
      return support::medianInPlace(V);
    };
    Out.SpanNs = Median(Span);
    Out.IdleNs = Median(Idle);
    Out.LaunchNs = Median(Launch);
    Out.HostOtherNs = Median(Other);
    Out.HostWaitNs = Median(Wait);
    Out.DataLoadingNs = Median(Loading);
    Out.StartupNs = Median(Startup);
    Out.ProfilerNs = Median(Profiler);
    Out.UnrecordedNs = Median(Unrec);
    Out.UnlinkedNs = Median(Unlinked);
    return Out;
  });
}

TargetIdle TraceIndex::idleSplit(int32_t Device, Interval Range) const {
  TargetIdle Out;
  Out.Device = Device;
  Out.SpanNs = Range.length();
  const IdleBreakdown &B = attributeIdle(Device, Range);
  Out.IdleNs = B.IdleNs;
  Out.LaunchNs = B.LaunchNs;
  Out.HostOtherNs = B.HostOtherNs;
  Out.HostWaitNs = B.HostWaitNs;
  Out.DataLoadingNs = B.DataLoadingNs;
  Out.StartupNs = B.StartupNs;
  Out.ProfilerNs = B.ProfilerNs;
  Out.UnrecordedNs = B.UnrecordedNs;
  Out.UnlinkedNs = B.UnlinkedNs;
  return Out;
}

int64_t TraceIndex::readyTime(uint32_t Work) const {
  const Event &K = T.Events[Work];
  int64_t Ready = -1;
  uint32_t Call = T.launchOf(K);
  if (Call != model::NoIndex) {
    const Event &CE = T.Events[Call];
    Ready = CE.end() <= K.Start ? CE.end() : CE.Start;
  }
  const model::Lane &L = T.laneOf(K);
  for (uint32_t I = Work; I > L.Begin; --I) {
    const Event &P = T.Events[I - 1];
    if (model::isDeviceWork(P.Kind)) {
      if (P.end() <= K.Start)
        Ready = std::max(Ready, P.end());
      break;
    }
  }
  return Ready;
}

std::vector<DeviceStall> TraceIndex::unrecordedStalls(Interval Range) const {
  std::vector<DeviceStall> Out;
  for (const model::Lane &L : T.Lanes) {
    if (L.Kind != model::LaneKind::DeviceStream)
      continue;
    const model::IntervalSet &Busy = deviceBusy(L.Device);
    for (uint32_t I = L.Begin; I < L.End; ++I) {
      const Event &K = T.Events[I];
      if (!model::isDeviceWork(K.Kind) || K.Start < Range.Begin ||
          K.Start >= Range.End)
        continue;
      int64_t Ready = readyTime(I);
      if (Ready < 0 || K.Start - Ready <= LaunchLatencyBoundNs)
        continue;
      Interval Held{std::max(Range.Begin, Ready + LaunchLatencyBoundNs),
                    K.Start};
      int64_t Idle = Held.length() > 0 ? Busy.idleWithin(Held) : 0;
      if (Idle <= 0)
        continue;
      Out.push_back({I, T.launchOf(K), Ready, Idle});
    }
  }
  llvm::sort(Out, [](const DeviceStall &A, const DeviceStall &B) {
    return A.IdleNs != B.IdleNs ? A.IdleNs > B.IdleNs : A.Work < B.Work;
  });
  return Out;
}
