//===- analysis/TraceIndex.cpp --------------------------------------------===//
#include "analysis/TraceIndex.h"
#include "support/Statistics.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

using namespace tracelint;
using namespace tracelint::analysis;
using model::Event;
using model::EventKind;
using model::Interval;

static std::string formatMs(int64_t Ns) {
  return llvm::formatv("{0:f3} ms", double(Ns) / 1e6).str();
}

TraceIndex::TraceIndex(const model::Trace &Tr) : T(Tr) {
  for (const model::Step &S : T.Steps)
    Steps.push_back({S.Number, {S.Start, S.End}, false});
  llvm::sort(Steps, [](const StepWindow &A, const StepWindow &B) {
    return A.Range.Begin < B.Range.Begin;
  });
  if (!Steps.empty())
    Steps.front().First = true;

  if (!Steps.empty()) {
    std::vector<int64_t> D;
    for (const StepWindow &S : Steps)
      D.push_back(S.Range.length());
    TargetNs = support::medianInPlace(D);
    Target = TargetKind::MedianStep;
  } else {
    TargetNs = T.WindowEnd - T.WindowStart;
    Target = TargetKind::Window;
  }

  llvm::DenseMap<int32_t, std::vector<Interval>> Work;
  for (const model::Lane &L : T.Lanes) {
    for (const Event &E : T.events(L)) {
      if (E.Kind == EventKind::Runtime || E.Kind == EventKind::Driver)
        LaunchCalls += model::isLaunchCallName(T.name(E));
      if (!model::isDeviceWork(E.Kind))
        continue;
      ++DeviceWork;
      if (E.Correlation && T.launchOf(E) != model::NoIndex)
        ++LinkedDeviceWork;
      int32_t Dev = L.Kind == model::LaneKind::DeviceStream ? L.Device : -1;
      Work[Dev].push_back({E.Start, E.end()});
    }
  }
  for (auto &Entry : Work)
    DeviceIds.push_back(Entry.first);
  llvm::sort(DeviceIds);
  std::vector<Interval> All;
  for (int32_t D : DeviceIds) {
    auto &Parts = Work[D];
    All.insert(All.end(), Parts.begin(), Parts.end());
    BusyPerDevice.push_back(model::IntervalSet::unionOf(std::move(Parts)));
  }
  AllBusy = model::IntervalSet::unionOf(std::move(All));
  computeQuality();
}

void TraceIndex::computeQuality() {
  using model::ImportStat;
  const model::ImportStats &S = T.Stats;
  TraceQuality &Q = Quality;
  Q.Truncated = S.TruncatedAtByte >= 0 || S.get(ImportStat::Truncated) > 0;
  Q.TruncatedAtByte = S.TruncatedAtByte;
  Q.DroppedEvents = S.get(ImportStat::MalformedEvent) +
                    S.get(ImportStat::MissingTimestamp) +
                    S.get(ImportStat::UnmatchedEnd);
  Q.AdjustedEvents =
      S.get(ImportStat::NegativeDuration) + S.get(ImportStat::AbsurdDuration) +
      S.get(ImportStat::MissingDuration) + S.get(ImportStat::UnclosedBegin);
  Q.DeviceWorkEvents = DeviceWork;
  Q.LaunchCalls = LaunchCalls;
  uint64_t NoLaunch = 0, BeforeLaunch = 0;
  for (const Event &E : T.Events) {
    if (model::isDeviceWork(E.Kind)) {
      NoLaunch += T.launchOf(E) == model::NoIndex;
      BeforeLaunch += E.hasFlag(model::FlagBeforeLaunch);
    }
    Q.RuntimeCalls +=
        E.Kind == EventKind::Runtime || E.Kind == EventKind::Driver;
  }
  Q.DeviceWithoutLaunch = NoLaunch;
  Q.DeviceBeforeLaunch = BeforeLaunch;
  if (DeviceWork) {
    Q.DeviceWithoutLaunchShare = double(NoLaunch) / double(DeviceWork);
    Q.DeviceBeforeLaunchShare = double(BeforeLaunch) / double(DeviceWork);
  }
  Q.LaunchWithoutDevice = S.get(ImportStat::LaunchWithoutDevice);
  if (LaunchCalls)
    Q.LaunchWithoutDeviceShare =
        std::min(1.0, double(Q.LaunchWithoutDevice) / double(LaunchCalls));
  Q.StepsFrom = T.StepsFrom;
  Q.Steps = Steps.size();
  Q.DeclaredDevices = T.Devices.size();
}

std::vector<ConfidencePenalty> TraceIndex::confidencePenalties() const {
  const TraceQuality &Q = Quality;
  std::vector<ConfidencePenalty> Out;
  // Above a few percent, unlinked or early device work means the links
  // (or the host/device clock alignment) that the rule reasons from are
  // unreliable.
  if (Q.DeviceBeforeLaunchShare > 0.01)
    Out.push_back({0.8,
                   llvm::formatv("{0:f1} % of device work starts before its "
                                 "launch (clock skew between host and device)",
                                 100 * Q.DeviceBeforeLaunchShare)
                       .str(),
                   {"correlation", "launches"}});
  if (Q.DeviceWithoutLaunchShare > 0.05 && Q.LaunchCalls)
    Out.push_back({0.85,
                   llvm::formatv("{0:f1} % of device work has no host call in "
                                 "the trace",
                                 100 * Q.DeviceWithoutLaunchShare)
                       .str(),
                   {"correlation", "launches"}});
  if (Q.Steps == 0 && Q.RuntimeCalls)
    Out.push_back({0.9,
                   "no step markers: impact is measured against the whole "
                   "window, which may mix start-up and steady state",
                   {"device", "launches"}});
  else if (Q.Steps > 0 && Q.Steps < 3)
    Out.push_back(
        {Q.Steps == 1 ? 0.7 : 0.8,
         llvm::formatv("only {0} step{1} in the window: too few to tell "
                       "steady state from one-off behaviour",
                       Q.Steps, Q.Steps == 1 ? "" : "s")
             .str(),
         {}});
  return Out;
}

std::string TraceIndex::describeTarget() const {
  if (Target == TargetKind::MedianStep)
    return llvm::formatv("median step time {0} ({1} steps)", formatMs(TargetNs),
                         Steps.size())
        .str();
  return llvm::formatv("window {0} (no step markers)", formatMs(TargetNs))
      .str();
}

int TraceIndex::stepAt(int64_t Time) const {
  auto It = llvm::upper_bound(Steps, Time, [](int64_t V, const StepWindow &S) {
    return V < S.Range.Begin;
  });
  if (It == Steps.begin())
    return -1;
  --It;
  return Time < It->Range.End ? int(It - Steps.begin()) : -1;
}

llvm::ArrayRef<StepWindow> TraceIndex::steadySteps() const {
  if (Steps.size() < 2)
    return Steps;
  return llvm::ArrayRef<StepWindow>(Steps).drop_front();
}

const model::IntervalSet &TraceIndex::deviceBusy(int32_t Device) const {
  static const model::IntervalSet Empty;
  auto It = llvm::lower_bound(DeviceIds, Device);
  if (It == DeviceIds.end() || *It != Device)
    return Empty;
  return BusyPerDevice[It - DeviceIds.begin()];
}

llvm::ArrayRef<int64_t> TraceIndex::selfTimes() const {
  if (!Self)
    Self = model::exclusiveTimes(T);
  return *Self;
}

std::string TraceIndex::describeLane(const model::Lane &L) const {
  switch (L.Kind) {
  case model::LaneKind::DeviceStream:
    return llvm::formatv("device {0} stream {1}", L.Device, L.Stream).str();
  case model::LaneKind::HostThread: {
    std::string S = llvm::formatv("thread {0}", L.Tid).str();
    if (L.Name == model::EmptyString)
      return S;
    llvm::StringRef Name = T.Strings.get(L.Name);
    // Kineto names threads "thread 4250 (pt_autograd_0)" already.
    if (Name.startswith(S))
      return Name.str();
    return S + " (" + Name.str() + ")";
  }
  case model::LaneKind::Other:
    return llvm::formatv("row {0}/{1}", T.Strings.get(L.RawPid),
                         T.Strings.get(L.RawTid))
        .str();
  }
  return "";
}

double TraceIndex::traceTimestampUs(const Event &E) const {
  // OriginNs is absolute (epoch or the producer's base); the file's ts is
  // relative to baseTimeNanoseconds when it had one, which the model folds
  // into OriginNs, so report absolute microseconds.
  return double(T.OriginNs + E.Start) / 1000.0;
}

std::string TraceIndex::opPath(const Event &E, unsigned MaxDepth) const {
  llvm::SmallVector<llvm::StringRef, 8> Names;
  const Event *Cur = &E;
  while (Cur && Names.size() < MaxDepth) {
    llvm::StringRef N = T.name(*Cur);
    if (!N.startswith("ProfilerStep#") &&
        (Cur->Kind == EventKind::Op || Cur->Kind == EventKind::Annotation ||
         Cur == &E))
      Names.push_back(N);
    Cur = Cur->Parent == model::NoIndex ? nullptr : &T.Events[Cur->Parent];
  }
  std::string Out;
  for (auto It = Names.rbegin(); It != Names.rend(); ++It) {
    if (!Out.empty())
      Out += " > ";
    Out += It->str();
  }
  return Out;
}

//===----------------------------------------------------------------------===//
// Host submission and waits
//===----------------------------------------------------------------------===//

llvm::StringRef tracelint::analysis::waitKindName(WaitKind K) {
  switch (K) {
  case WaitKind::None:
    return "none";
  case WaitKind::Explicit:
    return "explicit synchronization";
  case WaitKind::BlockingCopy:
    return "blocking copy";
  case WaitKind::ImplicitOp:
    return "implicit synchronization";
  }
  return "";
}

/// The API name without its cuda/cu/hip prefix: "cudaStreamSynchronize" ->
/// "StreamSynchronize". Empty when the name has none of these prefixes.
static llvm::StringRef apiStem(llvm::StringRef Name) {
  if (Name.consume_front("cuda") || Name.consume_front("hip") ||
      Name.consume_front("cu"))
    return Name;
  return "";
}

static bool isExplicitWaitName(llvm::StringRef Name) {
  llvm::StringRef Stem = apiStem(Name);
  // Versioned driver entry points: cuCtxSynchronize_v2.
  Stem = Stem.split("_v").first;
  return Stem == "StreamSynchronize" || Stem == "DeviceSynchronize" ||
         Stem == "EventSynchronize" || Stem == "CtxSynchronize" ||
         Stem == "ThreadSynchronize";
}

/// Copy calls that return only when the copy is complete. The Async forms
/// are handled from their device copy's memory kinds instead.
static bool isBlockingCopyName(llvm::StringRef Name) {
  llvm::StringRef Stem = apiStem(Name);
  if (!Stem.startswith("Memcpy") || Stem.contains("Async"))
    return false;
  // hipMemcpyWithStream is documented as synchronous with the host; the
  // plain, 2D/3D, symbol and peer forms are blocking in CUDA and HIP.
  return true;
}

static bool isImplicitSyncOpName(llvm::StringRef Name) {
  return Name == "aten::item" || Name == "aten::_local_scalar_dense" ||
         Name == "aten::nonzero" || Name == "aten::is_nonzero";
}

bool TraceIndex::isSubmission(const Event &E) const {
  if (E.Kind != EventKind::Runtime && E.Kind != EventKind::Driver)
    return false;
  for (uint32_t D : T.deviceWorkOf(E))
    if (model::isDeviceWork(T.Events[D].Kind))
      return true;
  return model::isLaunchCallName(T.name(E));
}

WaitKind TraceIndex::waitKind(const Event &E) const {
  llvm::StringRef Name = T.name(E);
  if (E.Kind == EventKind::Op)
    return isImplicitSyncOpName(Name) ? WaitKind::ImplicitOp : WaitKind::None;
  if (E.Kind != EventKind::Runtime && E.Kind != EventKind::Driver)
    return WaitKind::None;
  if (isExplicitWaitName(Name))
    return WaitKind::Explicit;
  if (isBlockingCopyName(Name))
    return WaitKind::BlockingCopy;
  if (apiStem(Name).startswith("Memcpy")) {
    // An async copy to or from pageable memory is staged through a pinned
    // buffer and returns only when the host side is done.
    for (uint32_t D : T.deviceWorkOf(E))
      if (const model::EventArgs *A = T.args(T.Events[D]))
        if (A->Src == model::MemoryKind::Pageable ||
            A->Dst == model::MemoryKind::Pageable)
          return WaitKind::BlockingCopy;
  }
  return WaitKind::None;
}

const TraceIndex::HostIndex &TraceIndex::hostIndex() const {
  if (Host)
    return *Host;
  HostIndex H;
  H.WaitRange.resize(T.Lanes.size(), {0, 0});
  H.Submissions.resize(T.Lanes.size());
  H.Fed.resize(T.Lanes.size());
  for (uint32_t LI = 0; LI < T.Lanes.size(); ++LI) {
    const model::Lane &L = T.Lanes[LI];
    if (L.Kind != model::LaneKind::HostThread)
      continue;
    uint32_t First = uint32_t(H.Waits.size());
    // Waits, outermost first: lane events are sorted by start and parents
    // come before children, so a wait nested in the previous kept wait is
    // skipped. An implicit op is kept only if no runtime wait lies inside
    // it; we find that out when we meet the inner wait, and replace the op.
    for (uint32_t I = L.Begin; I < L.End; ++I) {
      const Event &E = T.Events[I];
      if (isSubmission(E)) {
        H.Submissions[LI].push_back(I);
        for (uint32_t D : T.deviceWorkOf(E)) {
          const model::Lane &DL = T.laneOf(T.Events[D]);
          if (DL.Kind == model::LaneKind::DeviceStream)
            H.Fed[LI].push_back(DL.Device);
        }
      }
      WaitKind K = waitKind(E);
      if (K == WaitKind::None || E.Duration <= 0)
        continue;
      if (H.Waits.size() > First) {
        HostWait &Prev = H.Waits.back();
        if (E.Start < Prev.Range.End) {
          // Nested in (or overlapping) the previous wait.
          if (Prev.Kind == WaitKind::ImplicitOp && K != WaitKind::ImplicitOp) {
            // The op's runtime wait carries the blocked time precisely.
            Prev = {I, LI, K, {E.Start, E.end()}};
          } else if (Prev.Kind != WaitKind::ImplicitOp &&
                     K != WaitKind::ImplicitOp) {
            Prev.Range.End = std::max(Prev.Range.End, E.end());
          }
          continue;
        }
        // A second runtime wait inside the same implicit op (the copy, then
        // the stream synchronize): it follows the replaced one.
      }
      H.Waits.push_back({I, LI, K, {E.Start, E.end()}});
    }
    H.WaitRange[LI] = {First, uint32_t(H.Waits.size())};
    llvm::sort(H.Fed[LI]);
    H.Fed[LI].erase(std::unique(H.Fed[LI].begin(), H.Fed[LI].end()),
                    H.Fed[LI].end());
  }
  Host = std::move(H);
  return *Host;
}

llvm::ArrayRef<HostWait> TraceIndex::hostWaits() const {
  return hostIndex().Waits;
}

llvm::ArrayRef<HostWait> TraceIndex::hostWaits(uint32_t HostLane) const {
  const HostIndex &H = hostIndex();
  if (HostLane >= H.WaitRange.size())
    return {};
  auto [B, E] = H.WaitRange[HostLane];
  return llvm::ArrayRef<HostWait>(H.Waits).slice(B, E - B);
}

llvm::ArrayRef<uint32_t> TraceIndex::submissions(uint32_t HostLane) const {
  const HostIndex &H = hostIndex();
  if (HostLane >= H.Submissions.size())
    return {};
  return H.Submissions[HostLane];
}

llvm::ArrayRef<int32_t> TraceIndex::devicesFedBy(uint32_t HostLane) const {
  const HostIndex &H = hostIndex();
  if (HostLane >= H.Fed.size())
    return {};
  return H.Fed[HostLane];
}

const std::vector<uint32_t> &TraceIndex::workOf(int32_t Device) const {
  if (!WorkByDevice) {
    std::vector<std::vector<uint32_t>> W(DeviceIds.size());
    for (const model::Lane &L : T.Lanes) {
      if (L.Kind != model::LaneKind::DeviceStream)
        continue;
      auto It = llvm::lower_bound(DeviceIds, L.Device);
      if (It == DeviceIds.end() || *It != L.Device)
        continue;
      auto &Out = W[It - DeviceIds.begin()];
      for (uint32_t I = L.Begin; I < L.End; ++I)
        if (model::isDeviceWork(T.Events[I].Kind))
          Out.push_back(I);
    }
    // Streams interleave: order by start, then index, for determinism.
    for (auto &Out : W)
      llvm::sort(Out, [&](uint32_t A, uint32_t B) {
        return T.Events[A].Start < T.Events[B].Start ||
               (T.Events[A].Start == T.Events[B].Start && A < B);
      });
    WorkByDevice = std::move(W);
  }
  static const std::vector<uint32_t> Empty;
  auto It = llvm::lower_bound(DeviceIds, Device);
  if (It == DeviceIds.end() || *It != Device)
    return Empty;
  return (*WorkByDevice)[It - DeviceIds.begin()];
}

llvm::ArrayRef<uint32_t> TraceIndex::deviceWork(int32_t Device) const {
  return workOf(Device);
}

uint32_t TraceIndex::nextDeviceWork(int32_t Device, int64_t Time) const {
  const std::vector<uint32_t> &W = workOf(Device);
  auto It = llvm::partition_point(
      W, [&](uint32_t I) { return T.Events[I].Start < Time; });
  return It == W.end() ? model::NoIndex : *It;
}

//===----------------------------------------------------------------------===//
// Device idle attribution
//===----------------------------------------------------------------------===//

IdleBreakdown TraceIndex::attributeIdle(int32_t Device, Interval Window,
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
