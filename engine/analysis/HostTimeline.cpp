//===- analysis/HostTimeline.cpp - What a host thread was doing -----------===//
#include "analysis/TraceIndex.h"
#include "support/SortRuns.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <functional>

using namespace tracelint;
using namespace tracelint::analysis;
using model::Event;
using model::EventKind;
using model::Interval;

llvm::StringRef analysis::hostCauseName(HostCause C) {
  switch (C) {
  case HostCause::Wait:
    return "wait";
  case HostCause::Profiler:
    return "profiler";
  case HostCause::Startup:
    return "start-up";
  case HostCause::Submission:
    return "submission";
  case HostCause::DataLoading:
    return "data loading";
  case HostCause::LaunchPath:
    return "launch path";
  case HostCause::Other:
    return "host work";
  case HostCause::Untraced:
    return "untraced";
  }
  return "";
}

bool TraceIndex::isStepRange(uint32_t I) const {
  return is(T.Events[I], model::NameClass::StepMarker) ||
         StepEvents.contains(I);
}

bool TraceIndex::isRecordedActivity(uint32_t I) const {
  const Event &E = T.Events[I];
  if (E.Duration <= 0 || model::isDeviceWork(E.Kind))
    return false;
  switch (E.Kind) {
  case EventKind::Marker:
  case EventKind::Counter:
  case EventKind::Sync:
    return false;
  default:
    break;
  }
  return !isStepRange(I);
}

namespace {

/// Adds the edges of \p Set's parts that lie strictly inside \p Range.
void cutAtEdges(const model::IntervalSet &Set, Interval Range,
                std::vector<int64_t> &Cuts) {
  llvm::ArrayRef<Interval> Parts = Set.parts();
  for (auto It = llvm::partition_point(
           Parts, [&](const Interval &I) { return I.End <= Range.Begin; });
       It != Parts.end() && It->Begin < Range.End; ++It) {
    if (It->Begin > Range.Begin)
      Cuts.push_back(It->Begin);
    if (It->End < Range.End)
      Cuts.push_back(It->End);
  }
}

/// Walks the parts of a set alongside an ascending sweep that starts at
/// \p From: covers(A, B) is true when [A, B) lies inside one part. It
/// starts at the first part ending after From (a binary search), so that a
/// sweep over a short range costs that range's parts, not every part before
/// it: the idle split sweeps once per gap, and a lane's launch path has
/// parts all through the trace.
class SetCursor {
public:
  SetCursor(const model::IntervalSet &S, int64_t From)
      : Parts(S.parts()),
        I(size_t(llvm::partition_point(
                     Parts, [&](const Interval &P) { return P.End <= From; }) -
                 Parts.begin())) {}
  bool covers(int64_t A, int64_t B) {
    while (I < Parts.size() && Parts[I].End <= A)
      ++I;
    return I < Parts.size() && Parts[I].Begin <= A && B <= Parts[I].End;
  }

private:
  llvm::ArrayRef<Interval> Parts;
  size_t I;
};

} // namespace

void TraceIndex::forEachHostStretch(
    uint32_t LI, Interval Range,
    llvm::function_ref<void(const HostStretch &)> Fn) const {
  if (Range.length() <= 0 || LI >= T.Lanes.size())
    return;
  const model::Lane &L = T.Lanes[LI];
  if (L.Kind != model::LaneKind::HostThread) {
    Fn({Range, HostCause::Untraced, model::NoIndex, model::NoIndex});
    return;
  }
  llvm::ArrayRef<Event> Events = T.events(L);
  // The events open at Range.Begin: the last event to start at or before it
  // and those of its ancestors that cover it (events nest on a lane).
  auto FromIt = llvm::partition_point(
      Events, [&](const Event &E) { return E.Start <= Range.Begin; });
  std::vector<uint32_t> Stack;
  if (FromIt != Events.begin())
    for (uint32_t I = T.indexOf(*(FromIt - 1)); I != model::NoIndex;
         I = T.Events[I].Parent)
      if (T.Events[I].end() > Range.Begin)
        Stack.push_back(I);
  std::reverse(Stack.begin(), Stack.end());

  // Every boundary of the lane's events inside the range, and the edges of
  // its waits, launch path, profiler work and start-up work. Each source is
  // pushed as a run in order, so that ordering them all is a merge of a few
  // runs (support::sortRuns), not a sort of every boundary of a thread.
  std::vector<int64_t> Cuts = {Range.Begin};
  for (uint32_t I : llvm::reverse(Stack)) // innermost first: ends ascend
    if (T.Events[I].end() < Range.End)
      Cuts.push_back(T.Events[I].end());
  // The events' ends come out of a stack of open ones, each before the
  // first start after it: in order where events nest (a conflict of the
  // nesting only adds a run).
  std::vector<int64_t> OpenEnds;
  auto CloseUntil = [&](int64_t Time) {
    while (!OpenEnds.empty() && OpenEnds.back() <= Time) {
      if (OpenEnds.back() < Range.End)
        Cuts.push_back(OpenEnds.back());
      OpenEnds.pop_back();
    }
  };
  for (auto It = FromIt; It != Events.end() && It->Start < Range.End; ++It) {
    CloseUntil(It->Start);
    Cuts.push_back(It->Start);
    OpenEnds.push_back(It->end());
  }
  for (int64_t End : llvm::reverse(OpenEnds))
    if (End < Range.End)
      Cuts.push_back(End);
  OpenEnds = {};
  Cuts.push_back(Range.End);
  llvm::ArrayRef<HostWait> Waits = hostWaits(LI);
  const uint32_t WaitBase =
      Waits.empty() ? 0 : uint32_t(Waits.data() - hostWaits().data());
  auto WaitFrom = llvm::partition_point(
      Waits, [&](const HostWait &W) { return W.Range.End <= Range.Begin; });
  for (auto It = WaitFrom; It != Waits.end() && It->Range.Begin < Range.End;
       ++It) {
    if (It->Range.Begin > Range.Begin)
      Cuts.push_back(It->Range.Begin);
    if (It->Range.End < Range.End)
      Cuts.push_back(It->Range.End);
  }
  const model::IntervalSet &Path = launchPath(LI);
  const model::IntervalSet &Profiler = profilerRanges(LI);
  const model::IntervalSet &Startup = startupRanges(LI);
  const model::IntervalSet &OsTraced = osTracedPhases(LI);
  cutAtEdges(Path, Range, Cuts);
  cutAtEdges(OsTraced, Range, Cuts);
  cutAtEdges(Profiler, Range, Cuts);
  cutAtEdges(Startup, Range, Cuts);
  support::sortRuns(Cuts, std::less<int64_t>());
  Cuts.erase(std::unique(Cuts.begin(), Cuts.end()), Cuts.end());

  // Sweep the pieces with the stack of open events, counting the open
  // submission calls and data-loader ranges.
  unsigned SubsOpen = 0, LoadersOpen = 0;
  auto Opened = [&](uint32_t I, int Delta) {
    const Event &E = T.Events[I];
    if (isSubmissionAt(I))
      SubsOpen += Delta;
    if (isDataLoaderRange(E))
      LoadersOpen += Delta;
  };
  for (uint32_t I : Stack)
    Opened(I, +1);
  SetCursor OnPath(Path, Range.Begin), InProfiler(Profiler, Range.Begin),
      InStartup(Startup, Range.Begin), InOsTraced(OsTraced, Range.Begin);
  auto Next = FromIt;
  auto WI = WaitFrom;
  for (size_t C = 0; C + 1 < Cuts.size(); ++C) {
    const int64_t A = Cuts[C], B = Cuts[C + 1];
    // Close what ended before opening what starts: an event that starts
    // where its predecessor ends must not sit on top of it.
    auto PopEnded = [&] {
      while (!Stack.empty() && T.Events[Stack.back()].end() <= A) {
        Opened(Stack.back(), -1);
        Stack.pop_back();
      }
    };
    PopEnded();
    for (; Next != Events.end() && Next->Start <= A; ++Next) {
      Stack.push_back(T.indexOf(*Next));
      Opened(Stack.back(), +1);
      PopEnded(); // an instant, or an event over before A
    }
    while (WI != Waits.end() && WI->Range.End <= A)
      ++WI;
    HostStretch S;
    S.Range = {A, B};
    for (auto It = Stack.rbegin(); It != Stack.rend(); ++It)
      if (isRecordedActivity(*It)) {
        S.Innermost = *It;
        break;
      }
    if (WI != Waits.end() && WI->Range.Begin <= A) {
      S.Cause = HostCause::Wait;
      S.Innermost = WI->Event;
      S.Wait = WaitBase + uint32_t(WI - Waits.begin());
    } else if (InProfiler.covers(A, B)) {
      S.Cause = HostCause::Profiler;
    } else if (InStartup.covers(A, B)) {
      S.Cause = HostCause::Startup;
    } else if (SubsOpen > 0) {
      S.Cause = HostCause::Submission;
    } else if (LoadersOpen > 0) {
      S.Cause = HostCause::DataLoading;
    } else if (OnPath.covers(A, B)) {
      S.Cause = HostCause::LaunchPath;
    } else if (S.Innermost != model::NoIndex) {
      S.Cause = HostCause::Other;
    } else if (InOsTraced.covers(A, B)) {
      // Between the OS runtime calls of a host phase whose OS calls are
      // traced: the thread's own code, with no event to name it.
      S.Cause = HostCause::Other;
    } else {
      S.Cause = HostCause::Untraced;
    }
    Fn(S);
  }
}

int64_t TraceIndex::hostTimeIn(uint32_t HostLane, HostCause C,
                               Interval Range) const {
  int64_t Ns = 0;
  forEachHostStretch(HostLane, Range, [&](const HostStretch &S) {
    if (S.Cause == C)
      Ns += S.Range.length();
  });
  return Ns;
}
