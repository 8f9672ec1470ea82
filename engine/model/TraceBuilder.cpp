//===- model/TraceBuilder.cpp ---------------------------------------------===//
#include "model/TraceBuilder.h"

#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <limits>

using namespace tracelint::model;

// Non-numeric pids/tids get keys far below any real pid, tid or stream id.
static constexpr int64_t NamedLaneBase = std::numeric_limits<int64_t>::min() / 2;

unsigned TraceBuilder::LaneKeyInfo::getHashValue(const LaneKey &K) {
  return static_cast<unsigned>(llvm::hash_combine(K.Pid, K.Tid));
}

TraceBuilder::TraceBuilder() = default;

void TraceBuilder::reserve(size_t Events) {
  T.Events.reserve(Events);
  // Device events and shaped ops carry arguments: a minority of events.
  T.Args.reserve(Events / 3);
}

uint32_t TraceBuilder::lane(int64_t Pid, int64_t Tid) {
  auto [It, Inserted] =
      LaneIndex.try_emplace(LaneKey{Pid, Tid}, uint32_t(T.Lanes.size()));
  if (Inserted) {
    Lane L;
    L.Pid = Pid;
    L.Tid = Tid;
    L.Kind = LaneKind::HostThread;
    T.Lanes.push_back(L);
    OpenBegins.emplace_back();
  }
  return It->second;
}

uint32_t TraceBuilder::namedLane(llvm::StringRef Pid, llvm::StringRef Tid) {
  StringId P = T.Strings.intern(Pid), Q = T.Strings.intern(Tid);
  uint32_t Idx = lane(NamedLaneBase + P, NamedLaneBase + Q);
  Lane &L = T.Lanes[Idx];
  if (L.RawPid == EmptyString && L.RawTid == EmptyString) {
    L.Kind = LaneKind::Other;
    L.RawPid = P;
    L.RawTid = Q;
  }
  return Idx;
}

void TraceBuilder::setDeviceLane(uint32_t LaneIdx, int32_t Device,
                                 int64_t Stream) {
  Lane &L = T.Lanes[LaneIdx];
  L.Kind = LaneKind::DeviceStream;
  L.Device = Device;
  L.Stream = Stream;
}

void TraceBuilder::setLaneName(uint32_t LaneIdx, llvm::StringRef Name) {
  T.Lanes[LaneIdx].Name = T.Strings.intern(Name);
}

void TraceBuilder::setProcessName(int64_t Pid, llvm::StringRef Name) {
  ProcessNames[Pid] = T.Strings.intern(Name);
}

void TraceBuilder::setCorrelationDomain(uint32_t LaneIdx, uint32_t Domain) {
  T.Lanes[LaneIdx].Domain = Domain;
}

void TraceBuilder::addEvent(const Event &E, const EventArgs *A) {
  assert(E.Lane < T.Lanes.size() && "an event needs a lane");
  Event Copy = E;
  if (A)
    Copy.Args = addArgs(*A);
  if (Copy.Duration < 0) {
    T.Stats.add(ImportStat::NegativeDuration);
    Copy.Duration = 0;
    Copy.Flags |= FlagDurationFixed;
  }
  T.Events.push_back(Copy);
}

uint32_t TraceBuilder::addArgs(const EventArgs &A) {
  T.Args.push_back(A);
  return static_cast<uint32_t>(T.Args.size() - 1);
}

void TraceBuilder::beginEvent(const Event &E, const EventArgs *A) {
  Event Copy = E;
  Copy.Flags |= FlagFromBeginEnd;
  Copy.Duration = 0;
  addEvent(Copy, A);
  OpenBegins[E.Lane].push_back(static_cast<uint32_t>(T.Events.size() - 1));
}

void TraceBuilder::endEvent(uint32_t LaneIdx, int64_t Time) {
  auto &Open = OpenBegins[LaneIdx];
  if (Open.empty()) {
    T.Stats.add(ImportStat::UnmatchedEnd);
    return;
  }
  Event &B = T.Events[Open.pop_back_val()];
  B.Duration = Time - B.Start;
  if (B.Duration < 0) {
    T.Stats.add(ImportStat::NegativeDuration);
    B.Duration = 0;
    B.Flags |= FlagDurationFixed;
  }
}

void TraceBuilder::addFlowPoint(FlowKind Kind, uint64_t Id, bool IsStart,
                                uint32_t LaneIdx, int64_t Time,
                                bool EnclosingSlice) {
  FlowPoints.push_back({Id, Time, LaneIdx, Kind, IsStart, EnclosingSlice});
}

void TraceBuilder::closeOpenBegins() {
  int64_t MaxTime = std::numeric_limits<int64_t>::min();
  for (const Event &E : T.Events)
    MaxTime = std::max(MaxTime, E.end());
  for (auto &Open : OpenBegins) {
    for (uint32_t Idx : Open) {
      Event &B = T.Events[Idx];
      B.Duration = std::max<int64_t>(0, MaxTime - B.Start);
      B.Flags |= FlagUnclosed;
      T.Stats.add(ImportStat::UnclosedBegin);
    }
    Open.clear();
  }
}

// A duration that reaches far beyond every event's start is a producer bug
// (CUPTI reports overflowed end times as huge values). Such an event would
// stretch the window and every busy/idle figure, so it is clamped to the end
// of the other events and counted.
void TraceBuilder::clampDurations() {
  if (T.Events.empty())
    return;
  int64_t MinStart = std::numeric_limits<int64_t>::max();
  int64_t MaxStart = std::numeric_limits<int64_t>::min();
  for (const Event &E : T.Events) {
    MinStart = std::min(MinStart, E.Start);
    MaxStart = std::max(MaxStart, E.Start);
  }
  // Overflow-safe: spans are bounded by int64 differences of real starts.
  int64_t Span = MaxStart - MinStart;
  int64_t Slack = std::max<int64_t>(Span, 1'000'000'000);
  int64_t Limit = MaxStart > std::numeric_limits<int64_t>::max() - Slack
                      ? std::numeric_limits<int64_t>::max()
                      : MaxStart + Slack;
  int64_t MaxSaneEnd = MaxStart;
  bool AnyAbsurd = false;
  for (const Event &E : T.Events) {
    if (E.Duration > Limit - E.Start)
      AnyAbsurd = true;
    else
      MaxSaneEnd = std::max(MaxSaneEnd, E.end());
  }
  if (!AnyAbsurd)
    return;
  for (Event &E : T.Events) {
    if (E.Duration <= Limit - E.Start)
      continue;
    E.Duration = std::max<int64_t>(0, MaxSaneEnd - E.Start);
    E.Flags |= FlagDurationFixed;
    T.Stats.add(ImportStat::AbsurdDuration);
  }
}

// Groups events by lane (a counting sort: stable, linear) and sorts each lane
// by start, longer events first on ties so that parents precede children.
void TraceBuilder::sortByLane() {
  std::vector<uint32_t> Counts(T.Lanes.size() + 1, 0);
  for (const Event &E : T.Events)
    ++Counts[E.Lane + 1];
  for (size_t I = 1; I < Counts.size(); ++I)
    Counts[I] += Counts[I - 1];
  for (size_t L = 0; L < T.Lanes.size(); ++L) {
    T.Lanes[L].Begin = Counts[L];
    T.Lanes[L].End = Counts[L + 1];
  }
  std::vector<Event> Sorted(T.Events.size());
  for (const Event &E : T.Events)
    Sorted[Counts[E.Lane]++] = E;
  T.Events = std::move(Sorted);

  auto Before = [](const Event &A, const Event &B) {
    if (A.Start != B.Start)
      return A.Start < B.Start;
    return A.Duration > B.Duration;
  };
  for (const Lane &L : T.Lanes) {
    auto First = T.Events.begin() + L.Begin, Last = T.Events.begin() + L.End;
    if (!std::is_sorted(First, Last, Before))
      std::stable_sort(First, Last, Before);
  }
}

// Nesting on each lane with a stack of open events: an event is the child of
// the innermost open event that contains it. An event that starts inside
// another but ends after it cannot nest; it is counted and treated as a
// sibling of the events it overlaps.
void TraceBuilder::buildNesting() {
  llvm::SmallVector<uint32_t, 64> Stack;
  for (const Lane &L : T.Lanes) {
    Stack.clear();
    for (uint32_t I = L.Begin; I < L.End; ++I) {
      Event &E = T.Events[I];
      if (E.hasFlag(FlagInstant) || E.Kind == EventKind::Counter) {
        // Instants and counters are points, never parents.
        while (!Stack.empty() && T.Events[Stack.back()].end() <= E.Start &&
               T.Events[Stack.back()].Duration > 0)
          Stack.pop_back();
        E.Parent = Stack.empty() ? NoIndex : Stack.back();
        E.Depth = static_cast<uint16_t>(std::min<size_t>(Stack.size(), 65535));
        continue;
      }
      while (!Stack.empty()) {
        const Event &Top = T.Events[Stack.back()];
        if (Top.end() > E.Start)
          break;
        Stack.pop_back();
      }
      // Drop enclosing candidates that end before this event does.
      bool Conflict = false;
      while (!Stack.empty() && T.Events[Stack.back()].end() < E.end()) {
        Conflict = true;
        Stack.pop_back();
      }
      if (Conflict && L.Kind == LaneKind::HostThread)
        T.Stats.add(ImportStat::NestingConflict);
      E.Parent = Stack.empty() ? NoIndex : Stack.back();
      E.Depth = static_cast<uint16_t>(std::min<size_t>(Stack.size(), 65535));
      Stack.push_back(I);
    }
  }
}

void TraceBuilder::linkCorrelations() {
  auto &Map = T.Correlations;
  llvm::DenseMap<StringId, bool> IsLaunchName;
  for (uint32_t I = 0; I < T.Events.size(); ++I) {
    const Event &E = T.Events[I];
    if (!E.Correlation)
      continue;
    uint64_t Key = Trace::correlationKey(T.Lanes[E.Lane].Domain, E.Correlation);
    if (E.Kind == EventKind::Runtime || E.Kind == EventKind::Driver) {
      auto &Links = Map[Key];
      if (Links.Launch == NoIndex)
        Links.Launch = I;
    } else if (isDeviceWork(E.Kind) || E.Kind == EventKind::Sync) {
      Map[Key].Device.push_back(I);
    }
  }
  for (auto &Entry : Map) {
    auto &Links = Entry.second;
    if (Links.Launch == NoIndex) {
      T.Stats.add(ImportStat::DeviceWithoutLaunch, Links.Device.size());
      continue;
    }
    const Event &Launch = T.Events[Links.Launch];
    if (Links.Device.empty()) {
      auto [It, New] = IsLaunchName.try_emplace(Launch.Name, false);
      if (New)
        It->second = isLaunchCallName(T.Strings.get(Launch.Name));
      if (It->second)
        T.Stats.add(ImportStat::LaunchWithoutDevice);
      continue;
    }
    llvm::sort(Links.Device);
    for (uint32_t D : Links.Device) {
      Event &Dev = T.Events[D];
      if (Dev.Start < Launch.Start) {
        Dev.Flags |= FlagBeforeLaunch;
        T.Stats.add(ImportStat::DeviceBeforeLaunch);
      }
    }
  }
}

// The innermost event of lane L that contains Time (Deepest), or the first
// event that starts at or after Time.
uint32_t TraceBuilder::enclosingEvent(const Lane &L, int64_t Time,
                                      bool Deepest) const {
  auto First = T.Events.begin() + L.Begin, Last = T.Events.begin() + L.End;
  auto It = std::upper_bound(
      First, Last, Time, [](int64_t V, const Event &E) { return V < E.Start; });
  if (!Deepest)
    return It == Last ? NoIndex
                      : static_cast<uint32_t>(It - T.Events.begin());
  if (It == First)
    return NoIndex;
  // The last event starting at or before Time; walk up until one contains it.
  uint32_t Idx = static_cast<uint32_t>((It - 1) - T.Events.begin());
  while (Idx != NoIndex) {
    const Event &E = T.Events[Idx];
    if (E.Start <= Time && Time <= E.end())
      return Idx;
    Idx = E.Parent;
  }
  return NoIndex;
}

void TraceBuilder::bindFlows() {
  llvm::DenseMap<uint64_t, uint32_t> ById[3];
  for (const FlowPoint &P : FlowPoints) {
    const Lane &L = T.Lanes[P.Lane];
    uint32_t Ev = enclosingEvent(L, P.Time, P.Enclosing || P.IsStart);
    if (Ev == NoIndex && P.IsStart)
      Ev = enclosingEvent(L, P.Time, /*Deepest=*/false);
    if (Ev == NoIndex) {
      T.Stats.add(ImportStat::FlowUnbound);
      continue;
    }
    auto [It, Inserted] = ById[unsigned(P.Kind)].try_emplace(
        P.Id, static_cast<uint32_t>(T.Flows.size()));
    if (Inserted) {
      Flow F;
      F.Kind = P.Kind;
      F.Id = P.Id;
      T.Flows.push_back(F);
    }
    Flow &F = T.Flows[It->second];
    (P.IsStart ? F.From : F.To) = Ev;
  }
  FlowPoints.clear();
  FlowPoints.shrink_to_fit();
}

// Steps come from ProfilerStep#N annotations on a host thread. If several
// threads carry them (not expected), the thread with the most wins.
void TraceBuilder::findSteps() {
  llvm::DenseMap<uint32_t, unsigned> PerLane;
  auto StepNumber = [&](const Event &E) -> int64_t {
    llvm::StringRef Name = T.Strings.get(E.Name);
    if (E.Kind != EventKind::Annotation || !Name.consume_front("ProfilerStep#"))
      return -1;
    int64_t N;
    if (Name.getAsInteger(10, N) || N < 0)
      return -1;
    return N;
  };
  for (const Lane &L : T.Lanes) {
    if (L.Kind != LaneKind::HostThread)
      continue;
    for (uint32_t I = L.Begin; I < L.End; ++I)
      if (StepNumber(T.Events[I]) >= 0)
        ++PerLane[uint32_t(&L - T.Lanes.data())];
  }
  if (PerLane.empty())
    return;
  uint32_t Best = NoIndex;
  unsigned BestCount = 0;
  for (auto &[LaneIdx, Count] : PerLane)
    if (Count > BestCount || (Count == BestCount && LaneIdx < Best)) {
      Best = LaneIdx;
      BestCount = Count;
    }
  const Lane &L = T.Lanes[Best];
  for (uint32_t I = L.Begin; I < L.End; ++I) {
    int64_t N = StepNumber(T.Events[I]);
    if (N < 0)
      continue;
    const Event &E = T.Events[I];
    T.Steps.push_back({N, E.Start, E.end(), I});
  }
  T.StepsFrom = StepSource::ProfilerStep;
}

Trace TraceBuilder::finish() {
  closeOpenBegins();
  clampDurations();

  // Rebase to the earliest event so that model times are small and
  // non-negative; the absolute origin is kept.
  int64_t MinStart = 0, MaxEnd = 0;
  if (!T.Events.empty()) {
    MinStart = std::numeric_limits<int64_t>::max();
    MaxEnd = std::numeric_limits<int64_t>::min();
    for (const Event &E : T.Events)
      MinStart = std::min(MinStart, E.Start);
    for (Event &E : T.Events) {
      E.Start -= MinStart;
      MaxEnd = std::max(MaxEnd, E.end());
    }
    for (FlowPoint &P : FlowPoints)
      P.Time -= MinStart;
  }
  T.OriginNs = BaseNs + MinStart;
  T.WindowStart = 0;
  T.WindowEnd = T.Events.empty() ? 0 : MaxEnd;

  for (Lane &L : T.Lanes) {
    if (L.Kind == LaneKind::DeviceStream || L.RawPid != EmptyString)
      continue;
    auto It = ProcessNames.find(L.Pid);
    if (It != ProcessNames.end())
      L.Process = It->second;
  }
  for (Lane &L : T.Lanes) {
    if (L.Kind != LaneKind::DeviceStream)
      continue;
    auto It = ProcessNames.find(L.Pid);
    if (It != ProcessNames.end())
      L.Process = It->second;
  }

  sortByLane();
  buildNesting();
  linkCorrelations();
  bindFlows();
  findSteps();

  Trace Out = std::move(T);
  T = Trace();
  LaneIndex.clear();
  ProcessNames.clear();
  OpenBegins.clear();
  BaseNs = 0;
  return Out;
}
