//===- analysis/IdleAttribution.cpp - Device idle time split by cause -----===//
#include "analysis/TraceIndex.h"

#include "support/Statistics.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <array>
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
  const Interval Host = Quality.HostSpan;
  for (Interval Gap : Busy.gapsWithin(Window)) {
    Out.IdleNs += Gap.length();
    ++Out.Gaps;
    // Outside the host record no host cause can be named: the window was
    // cut there (nothing happens to the part inside it).
    if (Host.length() > 0) {
      const Interval In{std::max(Gap.Begin, Host.Begin),
                        std::min(Gap.End, Host.End)};
      const int64_t Inside = std::max<int64_t>(0, In.length());
      Out.CutNs += Gap.length() - Inside;
      if (Inside == 0)
        continue;
      Gap = In;
    }
    // The work that ends the gap: the first to start at or after its end
    // (later when the window cut the gap; none when the device stays idle
    // to the end of the trace).
    uint32_t W = nextDeviceWork(Device, Gap.End);
    if (W == model::NoIndex) {
      Out.TailNs += Gap.length();
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
    // The host was late: walk the gap along the launching thread's host
    // timeline, cut where L's launch latency runs out.
    llvm::ArrayRef<uint32_t> Subs = submissions(L.Lane);
    llvm::ArrayRef<HostWait> Waits = hostWaits(L.Lane);
    const bool LIsWait = waitKind(L) != WaitKind::None;
    const int64_t HeldFrom = L.end() + Opts.MaxLaunchLatencyNs;
    int64_t LaunchBefore = Out.LaunchNs, WaitBefore = Out.HostWaitNs,
            OtherBefore = Out.HostOtherNs, UntracedBefore = Out.UntracedNs;
    std::vector<HostStretch> HostPieces;
    auto Classify = [&](const HostStretch &S) {
      const int64_t P = S.Range.Begin, Ns = S.Range.length();
      // After L returned (plus the usual launch latency) the work was
      // submitted but did not start: the device held it back.
      if (P >= HeldFrom) {
        Out.UnrecordedNs += Ns;
        return;
      }
      switch (S.Cause) {
      case HostCause::Wait:
        Out.HostWaitNs += Ns;
        return;
      case HostCause::Profiler:
        Out.ProfilerNs += Ns;
        return;
      case HostCause::Startup:
        Out.StartupNs += Ns;
        return;
      default:
        break;
      }
      // Inside L or just after it: the device waits for this very call (a
      // blocking copy's own call is a wait, and so is its latency).
      if (P >= L.Start) {
        (LIsWait ? Out.HostWaitNs : Out.LaunchNs) += Ns;
        return;
      }
      switch (S.Cause) {
      case HostCause::Submission:
      case HostCause::LaunchPath:
        Out.LaunchNs += Ns;
        return;
      case HostCause::DataLoading:
        Out.DataLoadingNs += Ns;
        return;
      default:
        break;
      }
      // Host work or untraced time: refilling the queue after a wait when
      // the last event before it was a wait and the next submission follows
      // within a launch interval; otherwise the thread's own work.
      int64_t PrevSub = INT64_MIN, PrevWaitEnd = INT64_MIN;
      auto SIt = llvm::partition_point(
          Subs, [&](uint32_t I) { return T.Events[I].Start <= P; });
      if (SIt != Subs.begin())
        PrevSub = T.Events[*(SIt - 1)].Start;
      auto WIt = llvm::partition_point(
          Waits, [&](const HostWait &HW) { return HW.Range.End <= P; });
      if (WIt != Waits.begin())
        PrevWaitEnd = (WIt - 1)->Range.End;
      int64_t NextSub = SIt == Subs.end() ? L.Start : T.Events[*SIt].Start;
      if (PrevWaitEnd != INT64_MIN && PrevWaitEnd >= PrevSub &&
          NextSub - PrevWaitEnd <= Opts.MaxLaunchIntervalNs) {
        Out.HostWaitNs += Ns;
        return;
      }
      (S.Cause == HostCause::Untraced ? Out.UntracedNs : Out.HostOtherNs) += Ns;
      if (Opts.KeepGaps) {
        if (!HostPieces.empty() && HostPieces.back().Range.End == P &&
            HostPieces.back().Cause == S.Cause &&
            HostPieces.back().Innermost == S.Innermost)
          HostPieces.back().Range.End = S.Range.End;
        else
          HostPieces.push_back(S);
      }
    };
    forEachHostStretch(L.Lane, Gap, [&](const HostStretch &S) {
      if (S.Range.Begin < HeldFrom && HeldFrom < S.Range.End) {
        HostStretch Before = S, After = S;
        Before.Range.End = After.Range.Begin = HeldFrom;
        Classify(Before);
        Classify(After);
        return;
      }
      Classify(S);
    });
    int64_t Launch = Out.LaunchNs - LaunchBefore;
    if (Opts.KeepGaps)
      Out.GapList.push_back({Gap, W, LI, Launch, Out.HostWaitNs - WaitBefore,
                             Out.HostOtherNs - OtherBefore,
                             Out.UntracedNs - UntracedBefore,
                             std::move(HostPieces)});
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

llvm::ArrayRef<IdleCauseInfo> analysis::idleCauses() {
  static const IdleCauseInfo Table[] = {
      {IdleCause::Launch, "launch path", "L001", "L004", "launch",
       "launch_path_ns"},
      {IdleCause::HostOther, "host work", "L002", "", "host", "host_other_ns"},
      {IdleCause::Untraced, "untraced host", "T005", "", "untraced",
       "host_untraced_ns"},
      {IdleCause::HostWait, "host waits", "S001", "", "wait", "host_wait_ns"},
      {IdleCause::DataLoading, "data loading", "D001", "", "data",
       "data_loading_ns"},
      {IdleCause::Startup, "start-up", "U001", "", "startup", "startup_ns"},
      {IdleCause::Profiler, "profiler", "U004", "", "profiler", "profiler_ns"},
      {IdleCause::Unrecorded, "unrecorded dependency", "S004", "M009",
       "unrecorded", "unrecorded_dependency_ns"},
      {IdleCause::Unlinked, "no host call", "", "", "unlinked", "unlinked_ns"},
      {IdleCause::Cut, "outside the host record", "", "", "cut",
       "window_cut_ns"},
      {IdleCause::Tail, "no later work", "", "", "tail", "after_last_work_ns"},
  };
  return Table;
}

const IdleCauseInfo &analysis::idleCauseInfo(IdleCause C) {
  return idleCauses()[unsigned(C)];
}

int64_t analysis::idleCauseNs(const TargetIdle &S, IdleCause C) {
  switch (C) {
  case IdleCause::Launch:
    return S.LaunchNs;
  case IdleCause::HostOther:
    return S.HostOtherNs;
  case IdleCause::Untraced:
    return S.UntracedNs;
  case IdleCause::HostWait:
    return S.HostWaitNs;
  case IdleCause::DataLoading:
    return S.DataLoadingNs;
  case IdleCause::Startup:
    return S.StartupNs;
  case IdleCause::Profiler:
    return S.ProfilerNs;
  case IdleCause::Unrecorded:
    return S.UnrecordedNs;
  case IdleCause::Unlinked:
    return S.UnlinkedNs;
  case IdleCause::Cut:
    return S.CutNs;
  case IdleCause::Tail:
    return S.TailNs;
  }
  return 0;
}

namespace {

/// The causes of a split in one fixed order, so that they can be summed and
/// divided alike.
constexpr unsigned NumIdleCauses = 11;
using IdleCauses = std::array<int64_t, NumIdleCauses>;

template <typename Split> IdleCauses causesOf(const Split &B) {
  return {B.LaunchNs,      B.HostOtherNs, B.UntracedNs, B.HostWaitNs,
          B.DataLoadingNs, B.StartupNs,   B.ProfilerNs, B.UnrecordedNs,
          B.UnlinkedNs,    B.CutNs,       B.TailNs};
}

void setCauses(TargetIdle &Out, const IdleCauses &C) {
  Out.LaunchNs = C[0];
  Out.HostOtherNs = C[1];
  Out.UntracedNs = C[2];
  Out.HostWaitNs = C[3];
  Out.DataLoadingNs = C[4];
  Out.StartupNs = C[5];
  Out.ProfilerNs = C[6];
  Out.UnrecordedNs = C[7];
  Out.UnlinkedNs = C[8];
  Out.CutNs = C[9];
  Out.TailNs = C[10];
}

/// Divides \p Total among the causes in proportion to \p Weights (largest
/// remainder first), so that the parts sum to \p Total exactly.
IdleCauses divide(int64_t Total, const IdleCauses &Weights) {
  IdleCauses Out{};
  __int128 Sum = 0;
  for (int64_t W : Weights)
    Sum += W;
  if (Total <= 0 || Sum <= 0)
    return Out;
  std::array<__int128, NumIdleCauses> Rest{};
  int64_t Given = 0;
  for (unsigned K = 0; K < NumIdleCauses; ++K) {
    __int128 Scaled = __int128(Total) * Weights[K];
    Out[K] = int64_t(Scaled / Sum);
    Rest[K] = Scaled % Sum;
    Given += Out[K];
  }
  for (int64_t Left = Total - Given; Left > 0; --Left) {
    unsigned Best = 0;
    for (unsigned K = 1; K < NumIdleCauses; ++K)
      if (Rest[K] > Rest[Best])
        Best = K;
    ++Out[Best];
    Rest[Best] = -1;
  }
  return Out;
}

/// typicalSplit() over windows of either kind of split.
template <typename Split>
TargetIdle typicalOf(int32_t Device, llvm::ArrayRef<int64_t> SpanNs,
                     llvm::ArrayRef<const Split *> Windows) {
  TargetIdle Out;
  Out.Device = Device;
  if (Windows.empty())
    return Out;
  std::vector<int64_t> Span(SpanNs.begin(), SpanNs.end()), Idle;
  std::array<std::vector<int64_t>, NumIdleCauses> Per;
  IdleCauses Sum{};
  for (const Split *B : Windows) {
    Idle.push_back(B->IdleNs);
    IdleCauses C = causesOf(*B);
    for (unsigned K = 0; K < NumIdleCauses; ++K) {
      Per[K].push_back(C[K]);
      Sum[K] += C[K];
    }
  }
  // Each cause's median over the windows, scaled so that the causes add up
  // to the median idle (medians taken one by one need not); when every
  // median is zero (each window idles for another reason), the windows'
  // total time per cause sets the proportions instead.
  IdleCauses Medians{};
  bool AnyMedian = false;
  for (unsigned K = 0; K < NumIdleCauses; ++K) {
    Medians[K] = support::medianInPlace(Per[K]);
    AnyMedian |= Medians[K] > 0;
  }
  Out.SpanNs = Span.empty() ? 0 : support::medianInPlace(Span);
  Out.IdleNs = support::medianInPlace(Idle);
  setCauses(Out, divide(Out.IdleNs, AnyMedian ? Medians : Sum));
  return Out;
}

} // namespace

TargetIdle
analysis::typicalSplit(int32_t Device, llvm::ArrayRef<int64_t> SpanNs,
                       llvm::ArrayRef<const IdleBreakdown *> Windows) {
  return typicalOf(Device, SpanNs, Windows);
}

TargetIdle analysis::typicalSplit(int32_t Device,
                                  llvm::ArrayRef<const TargetIdle *> Windows) {
  std::vector<int64_t> Spans;
  for (const TargetIdle *W : Windows)
    Spans.push_back(W->SpanNs);
  return typicalOf(Device, Spans, Windows);
}

TargetIdle TraceIndex::typicalIdle(int32_t Device,
                                   const IdleOptions &Opts) const {
  if (Device < 0 || Windows.Ranges.empty()) {
    TargetIdle None;
    None.Device = Device;
    return None;
  }
  std::vector<int64_t> Span;
  std::vector<const IdleBreakdown *> Splits;
  for (const Interval &R : Windows.Ranges) {
    Span.push_back(R.length());
    Splits.push_back(&attributeIdle(Device, R, Opts));
  }
  return typicalSplit(Device, Span, Splits);
}

const TargetIdle &TraceIndex::targetIdle() const {
  return IdleOfTarget.get([&] {
    // The device with the most busy time stands for the target.
    int32_t Device = -1;
    int64_t Most = -1;
    for (int32_t D : devices()) {
      int64_t B = deviceBusy(D).lengthWithin(window());
      if (B > Most) {
        Most = B;
        Device = D;
      }
    }
    if (Device < 0 || Windows.Ranges.empty()) {
      TargetIdle None;
      None.Device = Device;
      return None;
    }
    // With the gaps kept, as the rules that name the host work ask for it:
    // one cached split serves both.
    IdleOptions O;
    O.KeepGaps = true;
    return typicalIdle(Device, O);
  });
}

TargetIdle TraceIndex::idleSplit(int32_t Device, Interval Range) const {
  TargetIdle Out;
  Out.Device = Device;
  Out.SpanNs = Range.length();
  const IdleBreakdown &B = attributeIdle(Device, Range);
  Out.IdleNs = B.IdleNs;
  setCauses(Out, causesOf(B));
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
    // A lane's events are sorted by start: only those starting inside the
    // range are visited, so that asking per step stays linear overall.
    llvm::ArrayRef<Event> Events = T.events(L);
    const uint32_t From =
        L.Begin + uint32_t(llvm::partition_point(Events,
                                                 [&](const Event &E) {
                                                   return E.Start < Range.Begin;
                                                 }) -
                           Events.begin());
    for (uint32_t I = From; I < L.End && T.Events[I].Start < Range.End; ++I) {
      const Event &K = T.Events[I];
      if (!model::isDeviceWork(K.Kind))
        continue;
      int64_t Ready = readyTime(I);
      if (Ready < 0 || K.Start - Ready <= LaunchLatencyBoundNs)
        continue;
      Interval Held{std::max(Range.Begin, Ready + LaunchLatencyBoundNs),
                    K.Start};
      // Outside the host record nothing says what held the work: the
      // window was cut there (T006), which is no stall.
      if (const Interval Host = Quality.HostSpan; Host.length() > 0)
        Held = {std::max(Held.Begin, Host.Begin), std::min(Held.End, Host.End)};
      // Managed-memory pages that migrate before the work starts are a
      // recorded dependency (M009 claims it): the work is ready only once
      // the last of them has arrived, plus the usual latency.
      if (!Migrating.empty()) {
        llvm::ArrayRef<Interval> Parts = migrating(L.Device).parts();
        auto It = llvm::partition_point(
            Parts, [&](const Interval &P) { return P.Begin < K.Start; });
        if (It != Parts.begin() && std::prev(It)->End > Ready)
          Held.Begin =
              std::max(Held.Begin, std::min(std::prev(It)->End, K.Start) +
                                       LaunchLatencyBoundNs);
      }
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
