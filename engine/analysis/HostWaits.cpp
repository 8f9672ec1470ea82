//===- analysis/HostWaits.cpp - Submissions, waits and what waits gain ----===//
#include "analysis/TraceIndex.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <climits>
#include <limits>
#include <map>

using namespace tracelint;
using namespace tracelint::analysis;
using model::Event;
using model::EventKind;
using model::Interval;
using NC = model::NameClass;

llvm::StringRef analysis::waitKindName(WaitKind K) {
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

bool TraceIndex::isSubmission(const Event &E) const {
  if (E.Kind != EventKind::Runtime && E.Kind != EventKind::Driver)
    return false;
  for (uint32_t D : T.deviceWorkOf(E))
    if (model::isDeviceWork(T.Events[D].Kind))
      return true;
  return is(E, NC::LaunchCall);
}

WaitKind TraceIndex::waitKind(const Event &E) const {
  if (E.Kind == EventKind::Op)
    return is(E, NC::DeviceReadOp) ? WaitKind::ImplicitOp : WaitKind::None;
  if (E.Kind != EventKind::Runtime && E.Kind != EventKind::Driver)
    return WaitKind::None;
  if (is(E, NC::SyncCall))
    return WaitKind::Explicit;
  // hipMemcpyWithStream is documented as synchronous with the host; the
  // plain, 2D/3D, symbol and peer forms are blocking in CUDA and HIP.
  if (is(E, NC::BlockingCopyCall))
    return WaitKind::BlockingCopy;
  if (is(E, NC::CopyCall)) {
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

TraceIndex::HostIndex TraceIndex::buildHostIndex() const {
  HostIndex H;
  H.WaitRange.resize(T.Lanes.size(), {0, 0});
  H.Submissions.resize(T.Lanes.size());
  H.Submission.resize(uint32_t(T.Events.size()));
  H.Fed.resize(T.Lanes.size());
  int64_t LastEnd = INT64_MIN, LastStart = INT64_MIN;
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
        H.Submission.set(I);
        H.Submissions[LI].push_back(I);
        LastEnd = std::max(LastEnd, E.end());
        LastStart = std::max(LastStart, E.Start);
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
    H.AnySubmits |= !H.Submissions[LI].empty();
  }
  buildLaunchPath(H);
  H.LastSubmissionEnd = LastEnd == INT64_MIN ? INT64_MAX : LastEnd;
  H.LastSubmissionStart = LastStart;
  return H;
}

void TraceIndex::buildLaunchPath(HostIndex &H) const {
  // Mark every op that encloses a submission. Walking up stops at an op
  // already marked: its ancestors were marked with it.
  H.SubmittingOps.resize(uint32_t(T.Events.size()));
  for (const std::vector<uint32_t> &Subs : H.Submissions)
    for (uint32_t I : Subs)
      for (uint32_t P = T.Events[I].Parent; P != model::NoIndex;
           P = T.Events[P].Parent) {
        if (T.Events[P].Kind != EventKind::Op)
          continue;
        if (H.SubmittingOps.test(P))
          break;
        H.SubmittingOps.set(P);
      }
  H.LaunchPath.resize(T.Lanes.size());
  for (uint32_t LI = 0; LI < T.Lanes.size(); ++LI) {
    if (H.Submissions[LI].empty())
      continue;
    const model::Lane &L = T.Lanes[LI];
    std::vector<Interval> Parts, OtherOps, OtherCalls;
    for (uint32_t I : H.Submissions[LI])
      Parts.push_back({T.Events[I].Start, T.Events[I].end()});
    for (uint32_t I = L.Begin; I < L.End; ++I) {
      const Event &E = T.Events[I];
      if (E.Duration <= 0)
        continue;
      if (E.Kind == EventKind::Op)
        (H.SubmittingOps.test(I) ? Parts : OtherOps)
            .push_back({E.Start, E.end()});
      else if ((E.Kind == EventKind::Runtime || E.Kind == EventKind::Driver) &&
               !isSubmission(E) &&
               // a driver call inside a launch call is part of the launch
               !(E.Parent != model::NoIndex &&
                 isSubmission(T.Events[E.Parent])))
        OtherCalls.push_back({E.Start, E.end()});
    }
    // A wait ends the launch path too: the stretch after it is the refill
    // of the drained queue (a host-wait cost), not glue.
    auto [WB, WE] = H.WaitRange[LI];
    for (uint32_t W = WB; W < WE; ++W)
      OtherOps.push_back(H.Waits[W].Range);
    model::IntervalSet Core = model::IntervalSet::unionOf(std::move(Parts));
    // Runtime calls inside an op that submit nothing (cudaMalloc, cudaFree,
    // stream and handle creation, lazy set-up) are not dispatch: they stay
    // other host work, which the allocator and start-up rules explain.
    OtherOps.insert(OtherOps.end(), OtherCalls.begin(), OtherCalls.end());
    if (!OtherCalls.empty() && !Core.empty()) {
      model::IntervalSet Calls =
          model::IntervalSet::unionOf(std::move(OtherCalls));
      Interval Span{Core.parts().front().Begin, Core.parts().back().End};
      Core =
          Core.intersect(model::IntervalSet::unionOf(Calls.gapsWithin(Span)));
    }
    model::IntervalSet Cpu = model::IntervalSet::unionOf(std::move(OtherOps));
    // The glue between two stretches of the launch path: a short stretch in
    // which the thread runs no framework op or other runtime call and does
    // not wait (the interpreter between eager ops, or nothing recorded). CUDA
    // graphs and compilers remove it with the dispatch; an op that submits
    // nothing (CPU work) is not glue.
    std::vector<Interval> WithGlue(Core.parts().begin(), Core.parts().end());
    llvm::ArrayRef<Interval> C = Core.parts();
    for (size_t K = 0; K + 1 < C.size(); ++K) {
      Interval Glue{C[K].End, C[K + 1].Begin};
      if (Glue.length() <= LaunchGlueBoundNs && Cpu.lengthWithin(Glue) == 0)
        WithGlue.push_back(Glue);
    }
    H.LaunchPath[LI] = model::IntervalSet::unionOf(std::move(WithGlue));
  }
}

const model::IntervalSet &TraceIndex::launchPath(uint32_t HostLane) const {
  static const model::IntervalSet None;
  const HostIndex &H = hostIndex();
  return HostLane < H.LaunchPath.size() ? H.LaunchPath[HostLane] : None;
}

bool TraceIndex::isSubmissionAt(uint32_t Event) const {
  const HostIndex &H = hostIndex();
  return Event < H.Submission.size() && H.Submission.test(Event);
}

bool TraceIndex::isSubmittingOp(uint32_t Event) const {
  const HostIndex &H = hostIndex();
  return Event < H.SubmittingOps.size() && H.SubmittingOps.test(Event);
}

const TraceIndex::HostIndex &TraceIndex::hostIndex() const {
  return Host.get([&] { return buildHostIndex(); });
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

bool TraceIndex::anyThreadSubmits() const { return hostIndex().AnySubmits; }

int64_t TraceIndex::lastSubmissionEnd() const {
  return hostIndex().LastSubmissionEnd;
}

bool TraceIndex::isFlushWait(const HostWait &W) const {
  if (hasSteps())
    return W.Range.Begin >= Steps.back().Range.End;
  // Without steps: no host call submits device work after the wait returns.
  return hostIndex().LastSubmissionStart < W.Range.End;
}

int64_t TraceIndex::waitsGainBound(llvm::ArrayRef<HostWait> Waits,
                                   Interval Range) const {
  struct Affected {
    Interval Span;      ///< [wait start, next device work start)
    int64_t WaitNs = 0; ///< the wait's length inside the range
  };
  std::map<int32_t, std::vector<Affected>> ByDevice;
  for (const HostWait &W : Waits) {
    Interval In{std::max(W.Range.Begin, Range.Begin),
                std::min(W.Range.End, Range.End)};
    if (In.length() <= 0)
      continue;
    llvm::ArrayRef<int32_t> Devices = devicesFedBy(W.Lane);
    if (Devices.empty())
      Devices = devices();
    for (int32_t D : Devices) {
      if (D < 0)
        continue;
      int64_t End = Range.End;
      uint32_t Next = nextDeviceWork(D, W.Range.End);
      if (Next != model::NoIndex)
        End = std::min(End, T.Events[Next].Start);
      ByDevice[D].push_back({{In.Begin, std::max(End, In.End)}, In.length()});
    }
  }
  int64_t Best = 0;
  for (auto &[D, List] : ByDevice) {
    llvm::sort(List, [](const Affected &A, const Affected &B) {
      return A.Span.Begin < B.Span.Begin;
    });
    const model::IntervalSet &Busy = deviceBusy(D);
    int64_t Claimed = std::numeric_limits<int64_t>::min(), Sum = 0;
    for (size_t I = 0; I < List.size();) {
      // Waits before the same device work form one group: removing all of
      // them moves that work earlier by at most their summed length, and
      // at most by the idle time in front of it.
      size_t J = I;
      int64_t GroupWait = 0, Begin = List[I].Span.Begin;
      for (; J < List.size() && List[J].Span.End == List[I].Span.End; ++J)
        GroupWait += List[J].WaitNs;
      // Idle time that an earlier group already claimed is not counted
      // again.
      Interval Free{std::max(Begin, Claimed), List[I].Span.End};
      int64_t Idle = Free.length() > 0 ? Busy.idleWithin(Free) : 0;
      Sum += std::min(GroupWait, Idle);
      Claimed = std::max(Claimed, List[I].Span.End);
      I = J;
    }
    Best = std::max(Best, Sum);
  }
  return Best;
}

int64_t TraceIndex::idleOpenedBy(llvm::ArrayRef<HostWait> Waits,
                                 Interval Range) const {
  std::map<int32_t, std::vector<Interval>> Opened;
  for (const HostWait &W : Waits) {
    llvm::ArrayRef<int32_t> Devices = devicesFedBy(W.Lane);
    if (Devices.empty())
      Devices = devices();
    for (int32_t D : Devices) {
      if (D < 0)
        continue;
      int64_t End = Range.End;
      uint32_t Next = nextDeviceWork(D, W.Range.End);
      if (Next != model::NoIndex)
        End = std::min(End, T.Events[Next].Start);
      Interval Span{std::max(W.Range.Begin, Range.Begin), End};
      if (Span.length() > 0)
        Opened[D].push_back(Span);
    }
  }
  int64_t Most = 0;
  for (auto &[D, Parts] : Opened) {
    int64_t Idle = 0;
    const model::IntervalSet Spans =
        model::IntervalSet::unionOf(std::move(Parts));
    for (Interval P : Spans.parts())
      Idle += deviceBusy(D).idleWithin(P);
    Most = std::max(Most, Idle);
  }
  return Most;
}

TraceIndex::DataLoading TraceIndex::findDataLoading() const {
  DataLoading Out;
  const bool AnyFeeds = anyThreadSubmits();
  std::vector<Interval> Parts;
  for (uint32_t L = 0; L < T.Lanes.size(); ++L) {
    const model::Lane &Lane = T.Lanes[L];
    if (Lane.Kind != model::LaneKind::HostThread)
      continue;
    if (AnyFeeds && submissions(L).empty())
      continue;
    for (uint32_t I = Lane.Begin; I < Lane.End; ++I)
      if (isDataLoaderRange(T.Events[I])) {
        Out.Events.push_back(I);
        Parts.push_back({T.Events[I].Start, T.Events[I].end()});
      }
  }
  Out.Ranges = model::IntervalSet::unionOf(std::move(Parts));
  return Out;
}

llvm::ArrayRef<uint32_t> TraceIndex::dataLoaderEvents() const {
  return Loading.get([&] { return findDataLoading(); }).Events;
}

const model::IntervalSet &TraceIndex::dataLoaderRanges() const {
  return Loading.get([&] { return findDataLoading(); }).Ranges;
}
