//===- analysis/DependencyGraph.cpp ---------------------------------------===//
#include "analysis/DependencyGraph.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MemAlloc.h"

#include <algorithm>
#include <cassert>
#include <climits>
#include <limits>
#include <new>
#include <optional>

using namespace tracelint;
using namespace tracelint::analysis;
using model::Event;
using model::EventKind;
using model::NoIndex;

static PathCategory deviceCategory(EventKind K) {
  switch (K) {
  case EventKind::Memcpy:
    return PathCategory::Copy;
  case EventKind::Memset:
    return PathCategory::Memset;
  case EventKind::Collective:
    return PathCategory::Communication;
  default:
    return PathCategory::Compute;
  }
}

/// Waits that the graph models as "ends after the awaited work": explicit
/// synchronization and blocking copies. An implicitly synchronizing op
/// without a runtime wait inside stays ordinary host work.
static bool isModelledWait(const HostWait &W) {
  return W.Kind == WaitKind::Explicit || W.Kind == WaitKind::BlockingCopy;
}

DependencyGraph::DependencyGraph(const TraceIndex &Ctx,
                                 const std::atomic<bool> *StopAt)
    : C(Ctx), Stop(StopAt) {
  const model::Trace &T = C.trace();
  HostNodes.resize(T.Lanes.size(), {0, 0});
  WorkNodeOf.assign(T.Events.size(), NoIndex);
  // At most two nodes per event, and about three edges; reserving room for
  // more costs no resident memory (untouched pages), while growing the
  // vectors by doubling would hold the old and the new array at once.
  Time.reserve(2 * T.Events.size());
  PendingTo.reserve(2 * T.Events.size());
  for (const model::Step &S : T.Steps)
    if (S.Event != NoIndex &&
        !llvm::is_contained(StepLanes, T.Events[S.Event].Lane))
      StepLanes.push_back(T.Events[S.Event].Lane);
  for (uint32_t LI = 0; LI < T.Lanes.size(); ++LI)
    if (T.Lanes[LI].Kind == model::LaneKind::HostThread) {
      if (stopped())
        return;
      buildHost(LI);
    }
  for (void (DependencyGraph::*Step)() :
       {&DependencyGraph::addWakeUpEdges, &DependencyGraph::addJoinEdges,
        &DependencyGraph::buildDevice, &DependencyGraph::addLaunchEdges,
        &DependencyGraph::addEventWaitEdges, &DependencyGraph::addHostWaitEdges,
        &DependencyGraph::addQueueEdges, &DependencyGraph::finish}) {
    if (stopped())
      return;
    (this->*Step)();
  }
}

llvm::sys::OwningMemoryBlock DependencyGraph::EdgeBlocks::mapBlock() {
  static_assert(std::is_trivially_copyable_v<GraphEdge>);
  std::error_code EC;
  llvm::sys::MemoryBlock M = llvm::sys::Memory::allocateMappedMemory(
      BlockSize * sizeof(GraphEdge), nullptr,
      llvm::sys::Memory::MF_READ | llvm::sys::Memory::MF_WRITE, EC);
  if (EC || !M.base())
    llvm::report_bad_alloc_error("cannot map memory for the dependency graph");
  return llvm::sys::OwningMemoryBlock(M);
}

uint32_t DependencyGraph::addNode(int64_t T) {
  Time.push_back(T);
  return uint32_t(Time.size() - 1);
}

uint32_t DependencyGraph::hostNodeAt(uint32_t Lane, int64_t T) const {
  auto [B, E] = HostNodes[Lane];
  // Node ids of a host lane ascend with time.
  uint32_t Lo = B, Hi = E;
  while (Lo < Hi) {
    uint32_t Mid = Lo + (Hi - Lo) / 2;
    if (Time[Mid] <= T)
      Lo = Mid + 1;
    else
      Hi = Mid;
  }
  return Lo == B ? NoIndex : Lo - 1;
}

uint32_t DependencyGraph::endNodeOf(uint32_t Event) const {
  if (Event >= WorkNodeOf.size() || WorkNodeOf[Event] == NoIndex)
    return NoIndex;
  return WorkNodeOf[Event] + 1;
}

size_t DependencyGraph::numHostSegments(uint32_t L) const {
  if (L >= HostNodes.size() || HostNodes[L].second == HostNodes[L].first)
    return 0;
  return HostNodes[L].second - HostNodes[L].first - 1;
}

HostSegment DependencyGraph::hostSegment(uint32_t L, size_t K) const {
  uint32_t To = HostNodes[L].first + uint32_t(K) + 1;
  HostSegment S;
  S.Range = {Time[To - 1], Time[To]};
  for (const GraphEdge &E : inEdges(To))
    if (E.Type == EdgeType::Work) {
      S.Category = E.Category;
      S.Subject = E.Subject;
    }
  return S;
}

size_t DependencyGraph::firstHostSegmentAfter(uint32_t L, int64_t T) const {
  // Segment K ends at node begin + K + 1.
  size_t N = numHostSegments(L);
  size_t Lo = 0, Hi = N;
  while (Lo < Hi) {
    size_t Mid = Lo + (Hi - Lo) / 2;
    if (Time[HostNodes[L].first + Mid + 1] <= T)
      Lo = Mid + 1;
    else
      Hi = Mid;
  }
  return Lo;
}

/// The path category of a host stretch's cause.
static PathCategory categoryOf(HostCause C) {
  switch (C) {
  case HostCause::Wait:
    return PathCategory::Wait;
  case HostCause::Profiler:
    return PathCategory::Profiler;
  case HostCause::Startup:
    return PathCategory::Startup;
  case HostCause::Submission:
  case HostCause::LaunchPath:
    return PathCategory::Launch;
  case HostCause::DataLoading:
    return PathCategory::DataLoading;
  case HostCause::Other:
    return PathCategory::HostOther;
  case HostCause::Untraced:
    return PathCategory::HostUntraced;
  }
  return PathCategory::HostOther;
}

void DependencyGraph::buildHost(uint32_t LI) {
  const model::Trace &T = C.trace();
  const model::Lane &L = T.Lanes[LI];
  if (L.End == L.Begin)
    return;
  model::Interval Span{T.Events[L.Begin].Start, T.Events[L.Begin].end()};
  for (uint32_t I = L.Begin; I < L.End; ++I)
    Span.End = std::max(Span.End, T.Events[I].end());
  llvm::ArrayRef<HostWait> AllWaits = C.hostWaits();

  // Another thread than the steps' own: its start and its resumptions after
  // idle stretches wait for the step thread (addWakeUpEdges).
  const bool StepThread = llvm::is_contained(StepLanes, LI);
  const bool Helper = !StepLanes.empty() && !StepThread;
  const uint32_t First = uint32_t(Time.size());
  if (Helper)
    Starts.push_back(First);

  // One node per boundary of the thread's host timeline and one edge per
  // stretch, added as the timeline is walked (no copy of it is kept). A
  // modelled wait is one stretch that ends after the awaited work: its
  // inner instants are not separate steps of the thread.
  std::optional<HostStretch> Held;
  auto Flush = [&] {
    const HostStretch &S = *Held;
    const int64_t Length = S.Range.length();
    GraphEdge E;
    E.From = addNode(S.Range.Begin);
    E.Carries = true;
    E.Type = EdgeType::Work;
    // The cause the host timeline gives the stretch: the same order of
    // precedence as the idle split (TraceIndex::forEachHostStretch).
    E.Category = categoryOf(S.Cause);
    E.Subject = S.Innermost;
    // Idle long enough to have waited for the step thread: decided in
    // addWakeUpEdges.
    if (S.Cause == HostCause::Untraced && Helper && Length >= MinJoinNs)
      IdleStretches.push_back(Pending.size());
    // Nothing of the step thread's own open: maybe a wait for a helper.
    if (StepThread && Length >= MinJoinNs &&
        (E.Category == PathCategory::HostUntraced ||
         (E.Category == PathCategory::HostOther &&
          E.Subject != model::NoIndex &&
          T.Events[E.Subject].Kind == EventKind::Annotation)))
      Joins.push_back(Pending.size());
    addEdge(E.From + 1, E);
  };
  C.forEachHostStretch(LI, Span, [&](const HostStretch &S) {
    if (stopped())
      return; // the graph will be thrown away: skip the rest cheaply
    if (Held && S.Cause == HostCause::Wait && Held->Cause == HostCause::Wait &&
        Held->Wait == S.Wait && isModelledWait(AllWaits[S.Wait])) {
      Held->Range.End = S.Range.End;
      return;
    }
    if (Held)
      Flush();
    Held = S;
  });
  if (Held) {
    Flush();
    addNode(Held->Range.End);
  } else {
    addNode(Span.Begin); // only instants: one node
  }
  HostNodes[LI] = {First, uint32_t(Time.size())};
  Runs.push_back(HostNodes[LI]);
  RunLane.push_back(LI);
}

/// The latest instant of the lanes \p Lanes in [Begin, End), or NoIndex.
uint32_t DependencyGraph::latestNodeWithin(llvm::ArrayRef<uint32_t> Lanes,
                                           int64_t Begin, int64_t End) const {
  uint32_t Best = NoIndex;
  for (uint32_t L : Lanes) {
    uint32_t N = hostNodeAt(L, End - 1);
    if (N != NoIndex && Time[N] >= Begin &&
        (Best == NoIndex || Time[N] > Time[Best]))
      Best = N;
  }
  return Best;
}

void DependencyGraph::addWakeUpEdges() {
  auto WakeUp = [&](uint32_t From, uint32_t To) {
    GraphEdge E;
    E.From = From;
    E.Carries = true;
    E.Category = PathCategory::HostUntraced;
    E.Type = EdgeType::Work;
    addEdge(To, E);
  };
  // A helper thread's first instant after the step thread's first.
  for (uint32_t Node : Starts)
    if (uint32_t From = latestNodeWithin(
            StepLanes, std::numeric_limits<int64_t>::min(), Time[Node]);
        From != NoIndex)
      WakeUp(From, Node);
  // A long idle stretch during which the step thread did something: the
  // helper waited for it. It keeps the order; the wake-up edge the time.
  for (size_t I : IdleStretches) {
    uint32_t From = Pending[I].From, To = stretchTarget(I);
    uint32_t Trigger = latestNodeWithin(StepLanes, Time[From], Time[To]);
    if (Trigger == NoIndex)
      continue;
    Pending[I].Carries = false;
    WakeUp(Trigger, To);
  }
}

void DependencyGraph::addJoinEdges() {
  const model::Trace &T = C.trace();
  std::vector<uint32_t> Helpers;
  for (uint32_t LI = 0; LI < T.Lanes.size(); ++LI)
    if (T.Lanes[LI].Kind == model::LaneKind::HostThread &&
        !llvm::is_contained(StepLanes, LI) &&
        HostNodes[LI].second > HostNodes[LI].first)
      Helpers.push_back(LI);
  for (size_t J : Joins) {
    const uint32_t To = stretchTarget(J);
    uint32_t From = latestNodeWithin(Helpers, Time[Pending[J].From], Time[To]);
    if (From == NoIndex)
      continue; // no helper was active: the thread's own untraced time
    GraphEdge E = Pending[J];
    E.From = From;
    E.Carries = true;
    Pending[J].Carries = false;
    addEdge(To, E);
  }
}

void DependencyGraph::buildDevice() {
  const model::Trace &T = C.trace();
  for (uint32_t LI = 0; LI < T.Lanes.size(); ++LI) {
    const model::Lane &L = T.Lanes[LI];
    if (L.Kind != model::LaneKind::DeviceStream)
      continue;
    uint32_t PrevEnd = NoIndex;
    uint32_t First = uint32_t(Time.size());
    for (uint32_t I = L.Begin; I < L.End; ++I) {
      const Event &E = T.Events[I];
      if (!model::isDeviceWork(E.Kind))
        continue;
      uint32_t S = addNode(E.Start);
      addNode(E.end());
      WorkNodeOf[I] = S;
      GraphEdge W;
      W.From = S;
      W.Carries = true; // its end node is E.end(): the work's duration
      W.Subject = I;
      W.Category = deviceCategory(E.Kind);
      W.Type = EdgeType::Work;
      addEdge(S + 1, W);
      if (PrevEnd != NoIndex && Time[PrevEnd] <= E.Start) {
        GraphEdge D;
        D.From = PrevEnd;
        D.Subject = I;
        D.Category = PathCategory::UnrecordedDependency;
        D.Type = EdgeType::Stream;
        addEdge(S, D);
      }
      if (PrevEnd == NoIndex || Time[PrevEnd] <= E.end())
        PrevEnd = S + 1;
    }
    if (Time.size() > First) {
      Runs.push_back({First, uint32_t(Time.size())});
      RunLane.push_back(LI);
    }
  }
}

void DependencyGraph::addLaunchEdges() {
  const model::Trace &T = C.trace();
  for (uint32_t LI = 0; LI < T.Lanes.size(); ++LI) {
    if (T.Lanes[LI].Kind != model::LaneKind::HostThread)
      continue;
    for (uint32_t I : C.submissions(LI)) {
      const Event &Call = T.Events[I];
      for (uint32_t W : T.deviceWorkOf(Call)) {
        if (W >= WorkNodeOf.size() || WorkNodeOf[W] == NoIndex)
          continue;
        const Event &Work = T.Events[W];
        GraphEdge D;
        const uint32_t To = WorkNodeOf[W];
        D.Subject = I;
        D.Type = EdgeType::Launch;
        // Work usually starts after its call returns; when it starts while
        // the call is still running, the call's start is the dependency.
        if (Call.end() <= Work.Start) {
          D.From = hostNodeAt(LI, Call.end());
          D.Category = PathCategory::LaunchLatency;
        } else if (Call.Start <= Work.Start) {
          D.From = hostNodeAt(LI, Call.Start);
          D.Category = PathCategory::Launch;
        }
        if (D.From == NoIndex || Time[D.From] > Work.Start) {
          ++Dropped;
          continue;
        }
        addEdge(To, D);
      }
    }
  }
}

static std::pair<int32_t, int64_t> streamKey(int32_t Dev, int64_t Stream) {
  return {Dev, Stream};
}

uint32_t DependencyGraph::awaitedByRecord(uint32_t SyncEvent) {
  const model::Trace &T = C.trace();
  const Event &S = T.Events[SyncEvent];
  const model::EventArgs *A = T.args(S);
  if (S.Kind != EventKind::Sync || !A || A->WaitOnCorrelation <= 0 ||
      A->WaitOnCorrelation > std::numeric_limits<uint32_t>::max() ||
      A->WaitOnStream < 0)
    return NoIndex;
  const model::Lane &L = T.laneOf(S);
  if (StreamLane.empty())
    for (uint32_t LI = 0; LI < T.Lanes.size(); ++LI)
      if (T.Lanes[LI].Kind == model::LaneKind::DeviceStream)
        StreamLane[streamKey(T.Lanes[LI].Device, T.Lanes[LI].Stream)] = LI;
  const uint32_t Link = T.Correlations.find(
      model::Trace::correlationKey(L.Domain, uint32_t(A->WaitOnCorrelation)));
  if (Link == NoIndex || T.Correlations.Launch[Link] == NoIndex)
    return NoIndex;
  int64_t RecordAt = T.Events[T.Correlations.Launch[Link]].Start;
  auto SL = StreamLane.find(streamKey(L.Device, A->WaitOnStream));
  if (SL == StreamLane.end())
    return NoIndex;
  // Work of the recorded stream with the start of the call that launched
  // it: calls are made in stream order, so the starts ascend.
  auto [WI, New] = Launched.try_emplace(SL->second);
  if (New) {
    const model::Lane &RL = T.Lanes[SL->second];
    for (uint32_t I = RL.Begin; I < RL.End; ++I) {
      if (!model::isDeviceWork(T.Events[I].Kind))
        continue;
      uint32_t Call = T.launchOf(T.Events[I]);
      if (Call != NoIndex)
        WI->second.push_back({T.Events[Call].Start, I});
    }
  }
  const auto &Work = WI->second;
  auto It =
      llvm::partition_point(Work, [&](const std::pair<int64_t, uint32_t> &P) {
        return P.first < RecordAt;
      });
  if (It == Work.begin())
    return NoIndex;
  return std::prev(It)->second;
}

void DependencyGraph::addEventWaitEdges() {
  const model::Trace &T = C.trace();
  for (uint32_t LI = 0; LI < T.Lanes.size(); ++LI) {
    const model::Lane &L = T.Lanes[LI];
    if (L.Kind != model::LaneKind::DeviceStream)
      continue;
    for (uint32_t I = L.Begin; I < L.End; ++I) {
      if (T.Events[I].Kind != EventKind::Sync)
        continue;
      uint32_t Awaited = awaitedByRecord(I);
      if (Awaited == NoIndex || T.Events[Awaited].Lane == LI)
        continue;
      // The next work on the waiting stream.
      uint32_t Waiter = NoIndex;
      for (uint32_t J = I + 1; J < L.End; ++J)
        if (model::isDeviceWork(T.Events[J].Kind)) {
          Waiter = J;
          break;
        }
      if (Waiter == NoIndex || WorkNodeOf[Awaited] == NoIndex ||
          WorkNodeOf[Waiter] == NoIndex)
        continue;
      GraphEdge D;
      D.From = WorkNodeOf[Awaited] + 1;
      const uint32_t To = WorkNodeOf[Waiter];
      D.Subject = I;
      D.Category = PathCategory::UnrecordedDependency;
      D.Type = EdgeType::EventWait;
      if (Time[D.From] > Time[To]) {
        ++Dropped;
        continue;
      }
      addEdge(To, D);
    }
  }
}

void DependencyGraph::addHostWaitEdges() {
  const model::Trace &T = C.trace();
  constexpr unsigned MaxScan = 64;
  for (uint32_t LI = 0; LI < T.Lanes.size(); ++LI) {
    if (T.Lanes[LI].Kind != model::LaneKind::HostThread)
      continue;
    llvm::ArrayRef<HostWait> Waits = C.hostWaits(LI);
    if (Waits.empty())
      continue;
    llvm::ArrayRef<uint32_t> Subs = C.submissions(LI);
    // Per submission: its latest-ending work, and the running maximum.
    std::vector<std::pair<int64_t, uint32_t>> Own(Subs.size(), {-1, NoIndex});
    std::vector<std::pair<int64_t, uint32_t>> Max(Subs.size(), {-1, NoIndex});
    for (size_t K = 0; K < Subs.size(); ++K) {
      for (uint32_t W : T.deviceWorkOf(T.Events[Subs[K]]))
        if (W < WorkNodeOf.size() && WorkNodeOf[W] != NoIndex &&
            T.Events[W].end() > Own[K].first)
          Own[K] = {T.Events[W].end(), W};
      Max[K] = K && Max[K - 1].first > Own[K].first ? Max[K - 1] : Own[K];
    }
    for (const HostWait &W : Waits) {
      if (!isModelledWait(W) || W.Range.length() <= 0)
        continue;
      int64_t A = W.Range.Begin, B = W.Range.End;
      std::pair<int64_t, uint32_t> Best = {-1, NoIndex};
      // A blocking copy waits for its own copy; an event synchronize whose
      // record names the event waits for the work recorded before it.
      for (uint32_t D : T.deviceWorkOf(T.Events[W.Event])) {
        uint32_t Work = D;
        if (T.Events[D].Kind == EventKind::Sync)
          Work = awaitedByRecord(D);
        if (Work < WorkNodeOf.size() && WorkNodeOf[Work] != NoIndex &&
            T.Events[Work].end() <= B && T.Events[Work].end() > Best.first)
          Best = {T.Events[Work].end(), Work};
      }
      if (Best.second == NoIndex) {
        // Otherwise the latest work this thread submitted before the wait
        // began that ended by the time the wait did.
        size_t K =
            llvm::partition_point(
                Subs, [&](uint32_t S) { return T.Events[S].Start < A; }) -
            Subs.begin();
        if (K > 0 && Max[K - 1].first <= B) {
          Best = Max[K - 1];
        } else {
          for (size_t J = K, N = 0; J > 0 && N < MaxScan; --J, ++N)
            if (Own[J - 1].first <= B && Own[J - 1].first > Best.first)
              Best = Own[J - 1];
        }
      }
      if (Best.second == NoIndex)
        continue;
      uint32_t To = hostNodeAt(LI, B);
      if (To == NoIndex || Time[To] != B)
        continue;
      GraphEdge D;
      D.From = WorkNodeOf[Best.second] + 1;
      D.Subject = W.Event;
      D.Category = PathCategory::Wait;
      D.Type = EdgeType::HostWait;
      addEdge(To, D);
    }
  }
}

int32_t DependencyGraph::deviceOfNode(uint32_t Node) const {
  // Runs are made in ascending node order.
  auto It =
      llvm::partition_point(Runs, [&](const std::pair<uint32_t, uint32_t> &R) {
        return R.second <= Node;
      });
  if (It == Runs.end() || It->first > Node)
    return INT32_MIN;
  const model::Lane &L = C.trace().Lanes[RunLane[It - Runs.begin()]];
  return L.Kind == model::LaneKind::DeviceStream ? L.Device : INT32_MIN;
}

void DependencyGraph::addQueueEdges() {
  const model::Trace &T = C.trace();
  // Per device, its work by end time.
  std::map<int32_t, std::vector<std::pair<int64_t, uint32_t>>> ByEnd;
  for (uint32_t LI = 0; LI < T.Lanes.size(); ++LI) {
    const model::Lane &L = T.Lanes[LI];
    if (L.Kind != model::LaneKind::DeviceStream)
      continue;
    auto &V = ByEnd[L.Device];
    for (uint32_t I = L.Begin; I < L.End; ++I)
      if (WorkNodeOf[I] != NoIndex)
        V.push_back({T.Events[I].end(), I});
  }
  for (auto &Entry : ByEnd)
    llvm::sort(Entry.second);
  constexpr unsigned MaxScan = 16;
  for (uint32_t LI = 0; LI < T.Lanes.size(); ++LI) {
    const model::Lane &L = T.Lanes[LI];
    if (L.Kind != model::LaneKind::DeviceStream)
      continue;
    const auto &Ends = ByEnd[L.Device];
    for (uint32_t I = L.Begin; I < L.End; ++I) {
      if (WorkNodeOf[I] == NoIndex)
        continue;
      const Event &K = T.Events[I];
      int64_t Ready = C.readyTime(I);
      if (Ready < 0 || K.Start - Ready <= LaunchLatencyBoundNs)
        continue;
      // The work in front: the latest to end by K's start on another
      // stream of the device, ending after K was ready and just before K
      // started, with the device busy for most of the wait.
      auto It = llvm::partition_point(
          Ends, [&](const std::pair<int64_t, uint32_t> &P) {
            return P.first <= K.Start;
          });
      uint32_t Front = NoIndex;
      for (unsigned N = 0; It != Ends.begin() && N < MaxScan; ++N) {
        --It;
        if (T.Events[It->second].Lane != LI) {
          Front = It->second;
          break;
        }
      }
      if (Front == NoIndex)
        continue;
      int64_t FrontEnd = T.Events[Front].end();
      if (FrontEnd <= Ready || K.Start - FrontEnd > LaunchLatencyBoundNs)
        continue;
      int64_t Idle = C.deviceBusy(L.Device).idleWithin({Ready, K.Start});
      if (Idle > std::max(LaunchLatencyBoundNs, (K.Start - Ready) / 4))
        continue;
      GraphEdge Q;
      Q.From = WorkNodeOf[Front] + 1;
      Q.Subject = Front;
      Q.Category = PathCategory::Queued;
      Q.Type = EdgeType::Queue;
      addEdge(WorkNodeOf[I], Q);
    }
  }
}

int64_t DependencyGraph::readyTime(uint32_t Node) const {
  int64_t Ready = -1;
  for (const GraphEdge &E : inEdges(Node))
    if (E.Type != EdgeType::Queue && E.Type != EdgeType::Work)
      Ready = std::max(Ready, Time[E.From]);
  return Ready;
}

void DependencyGraph::classifyDelays() {
  // A delay edge that binds keeps the time its work waited beyond its
  // recorded dependencies; what the device did meanwhile says why.
  for (size_t V = 0; V + 1 < InBegin.size(); ++V) {
    for (uint32_t K = InBegin[V]; K < InBegin[V + 1]; ++K) {
      GraphEdge &E = Edges[K];
      bool Delay = (E.Type == EdgeType::Launch &&
                    E.Category == PathCategory::LaunchLatency) ||
                   E.Type == EdgeType::Stream || E.Type == EdgeType::EventWait;
      if (!Delay)
        continue;
      const int64_t Weight = weight(uint32_t(V), E);
      if (Weight <= LaunchLatencyBoundNs) {
        E.Category = PathCategory::LaunchLatency;
        continue;
      }
      E.Category = PathCategory::UnrecordedDependency;
      int32_t Dev = deviceOfNode(uint32_t(V));
      DelaySplit S;
      S.LatencyNs = LaunchLatencyBoundNs;
      int64_t Rest = Weight - S.LatencyNs;
      if (Dev != INT32_MIN)
        S.QueuedNs = std::min<int64_t>(
            Rest, C.deviceBusy(Dev).lengthWithin({Time[V] - Rest, Time[V]}));
      S.UnrecordedNs = Rest - S.QueuedNs;
      if (S.QueuedNs > S.UnrecordedNs)
        E.Category = PathCategory::Queued;
      Splits[K] = S;
    }
  }
}

void DependencyGraph::finish() {
  size_t N = Time.size();
  // Group edges by target (counting sort keeps insertion order per node),
  // freeing the pending blocks as they are copied: the edges are the
  // graph's largest part, and a second copy of them would set the peak
  // memory of `lint`.
  InBegin.assign(N + 1, 0);
  for (size_t I = 0, K = 0; I < Pending.size(); ++I) {
    const GraphEdge &E = Pending[I];
    ++InBegin[(E.ToNext ? E.From + 1 : PendingTo[K++]) + 1];
  }
  for (size_t I = 0; I < N; ++I)
    InBegin[I + 1] += InBegin[I];
  static_assert(std::is_trivially_copyable_v<GraphEdge>);
  const size_t NumEdges = Pending.size();
  EdgeStore.reset(static_cast<GraphEdge *>(
      llvm::safe_malloc(std::max<size_t>(1, NumEdges) * sizeof(GraphEdge))));
  Edges = llvm::MutableArrayRef<GraphEdge>(EdgeStore.get(), NumEdges);
  // InBegin itself is the fill cursor (no second array per node): each
  // node's entry advances to the next node's start, then all shift back.
  size_t K = 0;
  Pending.drain([&](size_t, const GraphEdge &E) {
    const uint32_t To = E.ToNext ? E.From + 1 : PendingTo[K++];
    new (&Edges[InBegin[To]++]) GraphEdge(E);
  });
  std::move_backward(InBegin.begin(), InBegin.end() - 1, InBegin.end());
  InBegin[0] = 0;
  PendingTo = {};

  // Weights: the latest predecessor binds and carries whatever delay its
  // recorded time leaves unexplained. Fixed work edges keep their time; a
  // wait stretch is elastic (it lasts only as long as its awaited work).
  // The binding edge's source is the latest, so the delay it carries is
  // all the time from its source: an edge's weight is 0 or its span.
  auto Base = [&](uint32_t V, const GraphEdge &E) {
    return E.Type == EdgeType::Work && E.Category != PathCategory::Wait
               ? weight(V, E)
               : 0;
  };
  auto Elastic = [](const GraphEdge &E) {
    return E.Type != EdgeType::Work || E.Category == PathCategory::Wait;
  };
  for (size_t V = 0; V < N; ++V) {
    uint32_t B = InBegin[V], End = InBegin[V + 1];
    if (B == End)
      continue;
    int64_t Latest = std::numeric_limits<int64_t>::min();
    uint32_t Bind = NoIndex;
    for (uint32_t K = B; K < End; ++K) {
      int64_t At = Time[Edges[K].From] + Base(uint32_t(V), Edges[K]);
      if (At > Latest) {
        Latest = At;
        Bind = K;
      }
    }
    for (uint32_t K = B; K < End; ++K)
      if (Elastic(Edges[K]))
        Edges[K].Carries = false;
    int64_t Rest = Time[V] - Latest;
    if (Rest > 0) {
      if (Elastic(Edges[Bind]))
        Edges[Bind].Carries = true; // Rest: Latest is its source's time
      else {
        // A fixed edge cannot absorb a delay: give it to the latest elastic
        // edge, if any (a host node has none: its time is its stretch).
        for (uint32_t K = B; K < End; ++K)
          if (Elastic(Edges[K]) && Time[Edges[K].From] <= Time[V]) {
            Edges[K].Carries = true;
            break;
          }
      }
    }
  }
  classifyDelays();
}
