//===- model/TraceBuilder.cpp ---------------------------------------------===//
#include "model/TraceBuilder.h"

#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <limits>
#include <thread>

using namespace tracelint::model;

// Non-numeric pids/tids get keys far below any real pid, tid or stream id.
static constexpr int64_t NamedLaneBase =
    std::numeric_limits<int64_t>::min() / 2;

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

uint32_t TraceBuilder::namedProcessThread(llvm::StringRef Process,
                                          int64_t Tid) {
  StringId P = T.Strings.intern(Process);
  // The same key for every thread of the process, below any real pid.
  uint32_t Idx = lane(NamedLaneBase + P, Tid);
  Lane &L = T.Lanes[Idx];
  // Written back as it was read (report/Annotate.cpp), named as recorded.
  L.RawPid = P;
  L.Process = P;
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

/// A hash of every field of \p A; floats by their bits, so that 0 and -0
/// stay apart.
static uint64_t hashArgs(const EventArgs &A) {
  auto Bits = [](float F) { return llvm::bit_cast<uint32_t>(F); };
  return llvm::hash_combine(
      llvm::hash_combine(A.Bytes, A.Stream, A.WaitOnCorrelation,
                         A.TotalAllocated, A.TotalReserved, A.Device,
                         A.WaitOnStream),
      llvm::hash_combine(A.Grid[0], A.Grid[1], A.Grid[2], A.Block[0],
                         A.Block[1], A.Block[2], A.RegistersPerThread,
                         A.SharedMemory),
      llvm::hash_combine(Bits(A.BlocksPerSM), Bits(A.WarpsPerSM),
                         Bits(A.Occupancy), A.InputDims, A.InputTypes, A.Detail,
                         A.Group, uint8_t(A.Copy), uint8_t(A.Src),
                         uint8_t(A.Dst)));
}

/// Equal fields, and floats equal to the bit.
static bool sameArgs(const EventArgs &A, const EventArgs &B) {
  auto Bits = [](float F) { return llvm::bit_cast<uint32_t>(F); };
  return A == B && Bits(A.BlocksPerSM) == Bits(B.BlocksPerSM) &&
         Bits(A.WarpsPerSM) == Bits(B.WarpsPerSM) &&
         Bits(A.Occupancy) == Bits(B.Occupancy);
}

uint32_t TraceBuilder::addArgs(const EventArgs &A) {
  // Arguments repeat: every step's ops have the shapes of the step before,
  // its kernels the same launch configuration, and its copies the same
  // sizes. One entry per distinct set keeps the model small: at 112 bytes
  // for nearly half of the events, one entry each was its largest table
  // (730 MB of a 5 GB trace's model, against 13 MB shared).
  uint64_t H = hashArgs(A);
  // DenseMap reserves the two largest keys.
  if (H >= llvm::DenseMapInfo<uint64_t>::getTombstoneKey())
    H = 0;
  auto [It, New] = ArgsByHash.try_emplace(H, uint32_t(T.Args.size()));
  if (!New && sameArgs(T.Args[It->second], A))
    return It->second;
  // New, or a different set under the same hash: stored apart (the map
  // keeps the first).
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

void TraceBuilder::closeOpenBegins(int64_t MaxTime) {
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
void TraceBuilder::clampDurations(int64_t MinStart, int64_t MaxStart,
                                  std::optional<int64_t> MaxEnd) {
  if (T.Events.empty())
    return;
  // Overflow-safe: spans are bounded by int64 differences of real starts.
  int64_t Span = MaxStart - MinStart;
  int64_t Slack = std::max<int64_t>(Span, 1'000'000'000);
  int64_t Limit = MaxStart > std::numeric_limits<int64_t>::max() - Slack
                      ? std::numeric_limits<int64_t>::max()
                      : MaxStart + Slack;
  // An event is absurd when it ends past Limit: none does unless the latest
  // end does (closing open begins did not move it). Without a latest end
  // (an end overflowed), each event is checked.
  if (MaxEnd && *MaxEnd <= Limit)
    return;
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

namespace {

// Lane order: by start, longer events first on ties so that parents precede
// children.
bool startsBefore(const Event &A, const Event &B) {
  if (A.Start != B.Start)
    return A.Start < B.Start;
  return A.Duration > B.Duration;
}

// Merges the sorted runs [First, Mid) and [Mid, Last) in place, stably. Only
// the part where the runs overlap moves, through \p Buffer.
void mergeRuns(Event *First, Event *Mid, Event *Last,
               std::vector<Event> &Buffer) {
  // Left events not after the right run's first stay put, as do right
  // events not before the left run's last.
  First = std::upper_bound(First, Mid, *Mid, startsBefore);
  Last = std::lower_bound(Mid, Last, *(Mid - 1), startsBefore);
  if (First == Mid || Mid == Last)
    return;
  if (Mid - First <= Last - Mid) {
    // Forward: the left part waits in the buffer; the output never passes
    // the next unread right event. Ties take the left event (stable).
    Buffer.assign(First, Mid);
    Event *L = Buffer.data(), *LEnd = L + Buffer.size(), *R = Mid;
    Event *Out = First;
    while (L != LEnd && R != Last)
      *Out++ = startsBefore(*R, *L) ? *R++ : *L++;
    std::copy(L, LEnd, Out);
  } else {
    // Backward: the right part waits in the buffer. Ties take the right
    // event, which goes last (stable).
    Buffer.assign(Mid, Last);
    Event *L = Mid, *R = Buffer.data() + Buffer.size(), *REnd = Buffer.data();
    Event *Out = Last;
    while (L != First && R != REnd)
      *--Out = startsBefore(*(R - 1), *(L - 1)) ? *--L : *--R;
    std::copy_backward(REnd, R, Out);
  }
}

// Sorts [First, Last) stably by startsBefore. Producers write a lane's events
// in long sorted runs (a profiler step's host ops, then its runtime calls;
// device work in start order), so a natural merge sort does little more
// than find the runs, where std::stable_sort would move every event about
// log n times through a temporary buffer of fresh memory.
void sortRuns(Event *First, Event *Last, std::vector<Event> &Buffer) {
  std::vector<size_t> Runs; // start offsets of the sorted runs, then the end
  size_t N = size_t(Last - First);
  Runs.push_back(0);
  for (size_t I = 1; I < N; ++I)
    if (startsBefore(First[I], First[I - 1]))
      Runs.push_back(I);
  Runs.push_back(N);
  // Merge neighbouring runs pairwise until one is left: O(n log runs).
  std::vector<size_t> Merged;
  while (Runs.size() > 2) {
    Merged.clear();
    size_t R = 0;
    for (; R + 2 < Runs.size(); R += 2) {
      mergeRuns(First + Runs[R], First + Runs[R + 1], First + Runs[R + 2],
                Buffer);
      Merged.push_back(Runs[R]);
    }
    if (R + 1 < Runs.size()) // an odd run out waits for the next pass
      Merged.push_back(Runs[R]);
    Merged.push_back(N);
    Runs.swap(Merged);
  }
}

} // namespace

// Groups events by lane (a counting sort: stable, linear), rebasing their
// starts on the way, and sorts each lane by start, longer events first on
// ties so that parents precede children. Returns the latest end.
int64_t TraceBuilder::sortByLane(std::vector<uint32_t> &Counts,
                                 int64_t MinStart) {
  // Counts[L + 1] holds lane L's count: make Counts[L] its first index.
  for (size_t I = 1; I < Counts.size(); ++I)
    Counts[I] += Counts[I - 1];
  for (size_t L = 0; L < T.Lanes.size(); ++L) {
    T.Lanes[L].Begin = Counts[L];
    T.Lanes[L].End = Counts[L + 1];
  }
  int64_t MaxEnd = std::numeric_limits<int64_t>::min();
  std::vector<Event> Sorted(T.Events.size());
  for (const Event &E : T.Events) {
    Event &Out = Sorted[Counts[E.Lane]++];
    Out = E;
    Out.Start -= MinStart;
    MaxEnd = std::max(MaxEnd, Out.end());
  }
  T.Events = std::move(Sorted);

  std::vector<Event> Buffer;
  for (const Lane &L : T.Lanes)
    sortRuns(T.Events.data() + L.Begin, T.Events.data() + L.End, Buffer);
  return MaxEnd;
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

void TraceBuilder::collectCorrelations() {
  auto &CI = T.Correlations;
  CI = Trace::CorrelationIndex();
  const uint32_t N = uint32_t(T.Events.size());
  CI.LinkOfEvent.assign(N, NoIndex);
  auto IsCall = [](EventKind K) {
    return K == EventKind::Runtime || K == EventKind::Driver;
  };
  auto IsWork = [](EventKind K) {
    return isDeviceWork(K) || K == EventKind::Sync;
  };
  // A link per key of a call or of device work; the first call with the
  // key is its launch. Links are numbered in event order.
  std::vector<uint32_t> WorkCount;
  bool OtherKinds = false;
  for (uint32_t I = 0; I < N; ++I) {
    const Event &E = T.Events[I];
    if (!E.Correlation)
      continue;
    const bool Call = IsCall(E.Kind);
    if (!Call && !IsWork(E.Kind)) {
      OtherKinds = true;
      continue;
    }
    auto [It, New] = CI.LinkOfKey.try_emplace(
        Trace::correlationKey(T.Lanes[E.Lane].Domain, E.Correlation),
        uint32_t(CI.Launch.size()));
    if (New) {
      CI.Launch.push_back(NoIndex);
      WorkCount.push_back(0);
    }
    const uint32_t Link = It->second;
    CI.LinkOfEvent[I] = Link;
    if (!Call)
      ++WorkCount[Link];
    else if (CI.Launch[Link] == NoIndex)
      CI.Launch[Link] = I;
  }
  // Each link's device work, in event order.
  CI.DeviceBegin.resize(CI.Launch.size() + 1);
  uint32_t Sum = 0;
  for (size_t K = 0; K < WorkCount.size(); ++K) {
    CI.DeviceBegin[K] = Sum;
    Sum += WorkCount[K];
    WorkCount[K] = CI.DeviceBegin[K]; // now the next free place
  }
  CI.DeviceBegin.back() = Sum;
  CI.Device.resize(Sum);
  for (uint32_t I = 0; I < N; ++I)
    if (uint32_t Link = CI.LinkOfEvent[I];
        Link != NoIndex && IsWork(T.Events[I].Kind))
      CI.Device[WorkCount[Link]++] = I;
  // An event of another kind with a correlation (an op that records one)
  // reaches the call and the work with its key, as those do.
  if (OtherKinds)
    for (uint32_t I = 0; I < N; ++I) {
      const Event &E = T.Events[I];
      if (E.Correlation && !IsCall(E.Kind) && !IsWork(E.Kind))
        CI.LinkOfEvent[I] = CI.find(
            Trace::correlationKey(T.Lanes[E.Lane].Domain, E.Correlation));
    }
}

void TraceBuilder::checkCorrelations() {
  const auto &CI = T.Correlations;
  llvm::DenseMap<StringId, bool> IsLaunchName;
  for (uint32_t Link = 0; Link < CI.size(); ++Link) {
    llvm::ArrayRef<uint32_t> Device = CI.deviceOf(Link);
    if (CI.Launch[Link] == NoIndex) {
      T.Stats.add(ImportStat::DeviceWithoutLaunch, Device.size());
      continue;
    }
    const Event &Launch = T.Events[CI.Launch[Link]];
    if (Device.empty()) {
      auto [It, New] = IsLaunchName.try_emplace(Launch.Name, false);
      if (New)
        It->second = isLaunchCallName(T.Strings.get(Launch.Name));
      if (It->second)
        T.Stats.add(ImportStat::LaunchWithoutDevice);
      continue;
    }
    for (uint32_t D : Device) {
      Event &Dev = T.Events[D];
      if (Dev.Start < Launch.Start) {
        Dev.Flags |= FlagBeforeLaunch;
        T.Stats.add(ImportStat::DeviceBeforeLaunch);
      }
    }
  }
}

// The first event of lane L that starts after Time. Flow points come
// roughly in time order on each lane, so the search gallops out from \p Hint,
// the answer for the lane's previous point, rather than bisecting the whole
// lane with a cache miss at every step; it then becomes the new hint.
uint32_t TraceBuilder::firstAfter(const Lane &L, int64_t Time,
                                  uint32_t &Hint) const {
  auto After = [&](uint32_t I) { return Time < T.Events[I].Start; };
  uint32_t Lo = L.Begin, Hi = L.End; // the answer is in [Lo, Hi]
  uint32_t From = std::clamp(Hint, L.Begin, L.End);
  if (From < L.End && !After(From)) {
    Lo = From + 1;
    for (uint32_t Step = 1;; Step *= 2) {
      if (L.End - From <= Step)
        break;
      if (After(From + Step)) {
        Hi = From + Step;
        break;
      }
      Lo = From + Step + 1;
    }
  } else {
    Hi = From;
    for (uint32_t Step = 1;; Step *= 2) {
      if (From - L.Begin < Step)
        break;
      if (!After(From - Step)) {
        Lo = From - Step + 1;
        break;
      }
      Hi = From - Step;
    }
  }
  auto It =
      std::upper_bound(T.Events.begin() + Lo, T.Events.begin() + Hi, Time,
                       [](int64_t V, const Event &E) { return V < E.Start; });
  Hint = static_cast<uint32_t>(It - T.Events.begin());
  return Hint;
}

// The innermost event of lane L that contains Time, given the first event
// that starts after it.
uint32_t TraceBuilder::enclosingEvent(const Lane &L, int64_t Time,
                                      uint32_t FirstAfter) const {
  if (FirstAfter == L.Begin)
    return NoIndex;
  // The last event starting at or before Time; walk up until one contains it.
  uint32_t Idx = FirstAfter - 1;
  while (Idx != NoIndex) {
    const Event &E = T.Events[Idx];
    if (E.Start <= Time && Time <= E.end())
      return Idx;
    Idx = E.Parent;
  }
  return NoIndex;
}

// A flow's start binds to the innermost slice containing it (or else the
// next slice); its end to the next slice, or with "bp": "e" to the slice
// containing it.
void TraceBuilder::bindFlows() {
  llvm::DenseMap<uint64_t, uint32_t> ById[3];
  std::vector<uint32_t> Hints;
  for (const Lane &L : T.Lanes)
    Hints.push_back(L.Begin);
  for (const FlowPoint &P : FlowPoints) {
    const Lane &L = T.Lanes[P.Lane];
    uint32_t Next = firstAfter(L, P.Time, Hints[P.Lane]);
    uint32_t Ev = NoIndex;
    if (P.Enclosing || P.IsStart)
      Ev = enclosingEvent(L, P.Time, Next);
    if (Ev == NoIndex && (P.IsStart || !P.Enclosing) && Next != L.End)
      Ev = Next;
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
  ArgsByHash = decltype(ArgsByHash)(); // no more arguments come: free the map
                                       // before the sort
  // One pass for what the fix-ups below need: where events start, how far
  // they reach, and how many each lane holds.
  int64_t MinStart = std::numeric_limits<int64_t>::max();
  int64_t MaxStart = std::numeric_limits<int64_t>::min();
  int64_t MaxEnd = std::numeric_limits<int64_t>::min();
  bool EndOverflows = false;
  std::vector<uint32_t> Counts(T.Lanes.size() + 1, 0);
  for (const Event &E : T.Events) {
    MinStart = std::min(MinStart, E.Start);
    MaxStart = std::max(MaxStart, E.Start);
    int64_t End; // wraps around as E.end() does
    EndOverflows |= __builtin_add_overflow(E.Start, E.Duration, &End);
    MaxEnd = std::max(MaxEnd, End);
    ++Counts[E.Lane + 1];
  }
  closeOpenBegins(MaxEnd);
  clampDurations(MinStart, MaxStart,
                 EndOverflows ? std::nullopt : std::optional<int64_t>(MaxEnd));

  // Rebase to the earliest event so that model times are small and
  // non-negative; the absolute origin is kept. (The events themselves are
  // rebased as they are grouped by lane.)
  if (T.Events.empty())
    MinStart = 0;
  for (FlowPoint &P : FlowPoints)
    P.Time -= MinStart;
  T.OriginNs = BaseNs + MinStart;
  T.FileBaseNs = BaseNs;
  T.WindowStart = 0;

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

  MaxEnd = sortByLane(Counts, MinStart);
  T.WindowEnd = T.Events.empty() ? 0 : MaxEnd;
  // The correlation map reads only an event's correlation, lane and kind,
  // and the lanes' domains, which nothing below writes; the nesting, the
  // flows and the steps write parents, depths, flows, steps and counts,
  // which it does not read. On a large trace it is built on a second
  // thread meanwhile (the import's decoding thread has finished, so the
  // second core is idle); its checks, which flag events and count, follow.
  const bool Beside = T.Events.size() >= MinEventsForThreads;
  std::thread Correlating;
  if (Beside)
    Correlating = std::thread([this] { collectCorrelations(); });
  else
    collectCorrelations();
  buildNesting();
  bindFlows();
  findSteps();
  if (Beside)
    Correlating.join();
  checkCorrelations();

  Trace Out = std::move(T);
  T = Trace();
  LaneIndex.clear();
  ProcessNames.clear();
  OpenBegins.clear();
  BaseNs = 0;
  return Out;
}
