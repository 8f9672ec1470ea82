//===- analysis/TraceIndex.cpp --------------------------------------------===//
//
// Construction, names, the target, steps and windows, device busy time,
// event descriptions and trace quality. Host submissions and waits are in
// HostWaits.cpp, the idle split in IdleAttribution.cpp, start-up and
// teardown in Startup.cpp.
//
//===----------------------------------------------------------------------===//
#include "analysis/TraceIndex.h"
#include "support/SortRuns.h"

#include "support/Format.h"
#include "support/Statistics.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

using namespace tracelint;
using namespace tracelint::analysis;
using model::Event;
using model::EventKind;
using model::Interval;
using NC = model::NameClass;

llvm::StringRef analysis::busyKindName(BusyKind K) {
  switch (K) {
  case BusyKind::Compute:
    return "compute";
  case BusyKind::Copy:
    return "copy";
  case BusyKind::Memset:
    return "memset";
  case BusyKind::Communication:
    return "communication";
  }
  return "";
}

BusyKind analysis::busyKindOf(EventKind K) {
  switch (K) {
  case EventKind::Memcpy:
    return BusyKind::Copy;
  case EventKind::Memset:
    return BusyKind::Memset;
  case EventKind::Collective:
    return BusyKind::Communication;
  default:
    return BusyKind::Compute;
  }
}

TraceIndex::TraceIndex(const model::Trace &Tr,
                       std::shared_ptr<const model::NameClassifier> N)
    : T(Tr), Names(N ? std::move(N) : model::NameClassifier::builtin()),
      NameBits(Tr.Strings.size()) {
  for (const model::Step &S : T.Steps) {
    Steps.push_back({S.Number, {S.Start, S.End}, false});
    if (S.Event != model::NoIndex)
      StepEvents.insert(S.Event);
  }
  llvm::sort(Steps, [](const StepWindow &A, const StepWindow &B) {
    return A.Range.Begin < B.Range.Begin;
  });
  // A last step much shorter than the others ended where the profiler
  // stopped, not where the step did.
  if (Steps.size() >= 2) {
    std::vector<int64_t> Others;
    for (size_t I = 0; I + 1 < Steps.size(); ++I)
      Others.push_back(Steps[I].Range.length());
    const int64_t Usual = support::medianInPlace(Others);
    LastStepCut =
        double(Steps.back().Range.length()) < CutStepShare * double(Usual);
  }
  if (!Steps.empty()) {
    Steps.front().First = true;
    // The one step time: the median length of the steady steps' host
    // ranges (docs/path.md, "What a step is"); lint, stats, path and diff
    // all print this figure.
    std::vector<int64_t> D;
    for (const StepWindow &S : steadySteps())
      D.push_back(S.Range.length());
    TargetNs = support::medianInPlace(D);
    Target = TargetKind::MedianStep;
  } else {
    TargetNs = T.WindowEnd - T.WindowStart;
    Target = TargetKind::Window;
  }
  computeWindows();

  llvm::DenseMap<int32_t, std::array<std::vector<Interval>, NumBusyKinds>> Work;
  std::map<int32_t, std::vector<Interval>> MigrationParts;
  for (const model::Lane &L : T.Lanes) {
    for (const Event &E : T.events(L)) {
      if (E.Kind == EventKind::Runtime || E.Kind == EventKind::Driver)
        LaunchCalls += is(E, NC::LaunchCall);
      if (E.Kind == EventKind::Migration) {
        MigrationParts[L.Device].push_back({E.Start, E.end()});
        continue;
      }
      if (!model::isDeviceWork(E.Kind))
        continue;
      ++DeviceWork;
      if (E.Correlation && T.launchOf(E) != model::NoIndex)
        ++LinkedDeviceWork;
      int32_t Dev = L.Kind == model::LaneKind::DeviceStream ? L.Device : -1;
      Work[Dev][unsigned(busyKindOf(E.Kind))].push_back({E.Start, E.end()});
    }
  }
  for (auto &Entry : Work)
    DeviceIds.push_back(Entry.first);
  llvm::sort(DeviceIds);
  std::vector<Interval> All;
  for (int32_t D : DeviceIds) {
    DeviceBusy B;
    std::vector<Interval> DeviceAll;
    for (unsigned K = 0; K < NumBusyKinds; ++K) {
      auto &Parts = Work[D][K];
      DeviceAll.insert(DeviceAll.end(), Parts.begin(), Parts.end());
      B.Kind[K] = model::IntervalSet::unionOf(std::move(Parts));
    }
    All.insert(All.end(), DeviceAll.begin(), DeviceAll.end());
    B.All = model::IntervalSet::unionOf(std::move(DeviceAll));
    BusyPerDevice.push_back(std::move(B));
  }
  AllBusy = model::IntervalSet::unionOf(std::move(All));
  for (auto &[Dev, Parts] : MigrationParts) {
    // A migration on a lane of no device (a trace that files them apart)
    // belongs to the one device there is, when there is one.
    int32_t To = Dev < 0 && DeviceIds.size() == 1 ? DeviceIds.front() : Dev;
    std::vector<Interval> All = std::move(Parts);
    if (auto It = Migrating.find(To); It != Migrating.end())
      All.insert(All.end(), It->second.parts().begin(),
                 It->second.parts().end());
    Migrating[To] = model::IntervalSet::unionOf(std::move(All));
  }
  computeQuality();
}

//===----------------------------------------------------------------------===//
// Names
//===----------------------------------------------------------------------===//

bool TraceIndex::nameIs(model::StringId Name, NC C) const {
  if (Name >= NameBits.size())
    return Names->matches(T.Strings.get(Name), C);
  const uint64_t Known = uint64_t(1) << (2 * unsigned(C));
  const uint64_t Yes = Known << 1;
  std::atomic<uint64_t> &Bits = NameBits[Name];
  uint64_t V = Bits.load(std::memory_order_relaxed);
  if (V & Known)
    return V & Yes;
  // Two threads may both match a new name; they store the same answer.
  bool In = Names->matches(T.Strings.get(Name), C);
  Bits.fetch_or(Known | (In ? Yes : 0), std::memory_order_relaxed);
  return In;
}

bool TraceIndex::isDataLoaderRange(const Event &E) const {
  return (E.Kind == EventKind::Op || E.Kind == EventKind::Annotation ||
          E.Kind == EventKind::Python) &&
         is(E, NC::DataLoader);
}

bool TraceIndex::isDeviceCopy(const Event &E) const {
  if (E.Kind == EventKind::Memcpy) {
    const model::EventArgs *A = T.args(E);
    return A && A->Copy == model::CopyKind::DtoD;
  }
  return E.Kind == EventKind::Kernel && is(E, NC::CopyKernel);
}

AllocatorCall TraceIndex::allocatorCall(const Event &E) const {
  if (E.Kind != EventKind::Runtime && E.Kind != EventKind::Driver)
    return AllocatorCall::None;
  if (is(E, NC::AllocatorMalloc))
    return AllocatorCall::Malloc;
  if (is(E, NC::AllocatorFree))
    return AllocatorCall::Free;
  return AllocatorCall::None;
}

//===----------------------------------------------------------------------===//
// Target, steps and windows
//===----------------------------------------------------------------------===//

std::string TraceIndex::describeTarget() const {
  if (Target != TargetKind::MedianStep)
    return llvm::formatv("window {0} (no step markers)",
                         support::formatDuration(TargetNs))
        .str();
  const size_t Steady = steadySteps().size();
  // The steady steps by number: the first step is left out (start-up).
  std::string Which = Steady == Steps.size()
                          ? llvm::formatv("{0} {1}", Steps.size(),
                                          Steps.size() == 1 ? "step" : "steps")
                                .str()
                          : Windows.describe();
  // Steps tracelint chose say where they came from.
  if (T.StepRangesChosen)
    Which += llvm::formatv(": the repeated '{0}' ranges, taken as steps",
                           support::sanitize(T.StepRangeName, 40))
                 .str();
  return llvm::formatv("median step time {0} ({1})",
                       support::formatDuration(TargetNs), Which)
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
  // A last step the profiler cut is no step's length: it is left out.
  llvm::ArrayRef<StepWindow> All(Steps);
  if (LastStepCut)
    All = All.drop_back();
  // With two steps nothing tells the warm-up from the steady state (the
  // confidence penalty says so); measuring both is the cautious choice.
  if (All.size() < 3)
    return All;
  return All.drop_front();
}

void TraceIndex::computeWindows() {
  if (Steps.empty()) {
    Windows.Ranges.push_back(window());
    Windows.StepNumbers.push_back(-1);
    return;
  }
  Windows.Steps = true;
  for (const StepWindow &S : steadySteps()) {
    // Steps do not overlap in a sane trace; where one does, the later one
    // starts where the earlier ends, so that each instant has one window.
    Interval R = S.Range;
    if (!Windows.Ranges.empty())
      R.Begin = std::max(R.Begin, Windows.Ranges.back().End);
    if (R.End <= R.Begin)
      continue;
    Windows.Ranges.push_back(R);
    Windows.StepNumbers.push_back(S.Number);
  }
}

size_t MeasureWindows::indexOf(int64_t At) const {
  auto It = llvm::partition_point(
      Ranges, [&](const model::Interval &R) { return R.End <= At; });
  if (It == Ranges.end() || At < It->Begin)
    return Ranges.size();
  return size_t(It - Ranges.begin());
}

size_t TraceIndex::windowOf(uint32_t Index) const {
  const model::Event &E = T.Events[Index];
  if (model::isDeviceWork(E.Kind))
    if (uint32_t L = T.launchOf(E); L != model::NoIndex)
      return Windows.indexOf(T.Events[L].Start);
  return Windows.indexOf(E.Start);
}

std::string MeasureWindows::describe() const {
  if (!Steps || StepNumbers.empty())
    return "the whole window";
  if (StepNumbers.size() == 1)
    return llvm::formatv("step {0}", StepNumbers.front()).str();
  return llvm::formatv("steps {0}-{1}", StepNumbers.front(), StepNumbers.back())
      .str();
}

//===----------------------------------------------------------------------===//
// Device
//===----------------------------------------------------------------------===//

size_t TraceIndex::deviceSlot(int32_t Device) const {
  auto It = llvm::lower_bound(DeviceIds, Device);
  if (It == DeviceIds.end() || *It != Device)
    return std::string::npos;
  return size_t(It - DeviceIds.begin());
}

const model::IntervalSet &TraceIndex::deviceBusy(int32_t Device) const {
  static const model::IntervalSet Empty;
  size_t S = deviceSlot(Device);
  return S == std::string::npos ? Empty : BusyPerDevice[S].All;
}

const model::IntervalSet &TraceIndex::migrating(int32_t Device) const {
  static const model::IntervalSet Empty;
  auto It = Migrating.find(Device);
  return It == Migrating.end() ? Empty : It->second;
}

const model::IntervalSet &TraceIndex::deviceBusy(int32_t Device,
                                                 BusyKind K) const {
  static const model::IntervalSet Empty;
  size_t S = deviceSlot(Device);
  return S == std::string::npos ? Empty : BusyPerDevice[S].Kind[unsigned(K)];
}

const std::vector<uint32_t> &TraceIndex::workOf(int32_t Device) const {
  const auto &All = WorkByDevice.get([&] {
    std::vector<std::vector<uint32_t>> W(DeviceIds.size());
    std::vector<std::vector<size_t>> Ends(DeviceIds.size());
    for (const model::Lane &L : T.Lanes) {
      int32_t Dev = L.Kind == model::LaneKind::DeviceStream ? L.Device : -1;
      size_t S = deviceSlot(Dev);
      if (S == std::string::npos)
        continue;
      for (uint32_t I = L.Begin; I < L.End; ++I)
        if (model::isDeviceWork(T.Events[I].Kind))
          W[S].push_back(I);
      if (Ends[S].empty() ? !W[S].empty() : W[S].size() > Ends[S].back())
        Ends[S].push_back(W[S].size());
    }
    // Streams interleave: order by start, then index, for determinism; each
    // stream's work is a run in that order already.
    for (size_t S = 0; S < W.size(); ++S)
      W[S] = mergeLaneRuns(T, std::move(W[S]), Ends[S]);
    return W;
  });
  static const std::vector<uint32_t> Empty;
  size_t S = deviceSlot(Device);
  return S == std::string::npos ? Empty : All[S];
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

std::vector<uint32_t> analysis::mergeLaneRuns(const model::Trace &T,
                                              std::vector<uint32_t> Events,
                                              llvm::ArrayRef<size_t> RunEnds) {
  auto Before = [&](uint32_t A, uint32_t B) {
    return T.Events[A].Start < T.Events[B].Start ||
           (T.Events[A].Start == T.Events[B].Start && A < B);
  };
  support::mergeRuns(
      Events, std::vector<size_t>(RunEnds.begin(), RunEnds.end()), Before);
  return Events;
}

llvm::ArrayRef<uint32_t> TraceIndex::eventsOfKind(EventKind K) const {
  return ByKind[unsigned(K)].get([&] {
    // Each lane's events of the kind are a run sorted by start.
    std::vector<uint32_t> Out;
    std::vector<size_t> Ends;
    for (const model::Lane &L : T.Lanes) {
      for (uint32_t I = L.Begin; I < L.End; ++I)
        if (T.Events[I].Kind == K)
          Out.push_back(I);
      if (Ends.empty() ? !Out.empty() : Out.size() > Ends.back())
        Ends.push_back(Out.size());
    }
    return mergeLaneRuns(T, std::move(Out), Ends);
  });
}

uint32_t TraceIndex::mainFeeder(int32_t Device) const {
  const auto &Feeders = FeederOf.get([&] {
    std::vector<llvm::DenseMap<uint32_t, uint64_t>> Counts(DeviceIds.size());
    for (uint32_t LI = 0; LI < T.Lanes.size(); ++LI) {
      if (T.Lanes[LI].Kind != model::LaneKind::HostThread)
        continue;
      for (uint32_t I : submissions(LI))
        for (uint32_t W : T.deviceWorkOf(T.Events[I])) {
          const model::Lane &DL = T.laneOf(T.Events[W]);
          if (DL.Kind != model::LaneKind::DeviceStream)
            continue;
          size_t S = deviceSlot(DL.Device);
          if (S != std::string::npos)
            ++Counts[S][LI];
        }
    }
    std::vector<uint32_t> Out(DeviceIds.size(), model::NoIndex);
    for (size_t S = 0; S < Counts.size(); ++S) {
      uint64_t Most = 0;
      for (auto &[Lane, N] : Counts[S])
        if (N > Most || (N == Most && Lane < Out[S])) {
          Most = N;
          Out[S] = Lane;
        }
    }
    return Out;
  });
  size_t S = deviceSlot(Device);
  return S == std::string::npos ? model::NoIndex : Feeders[S];
}

//===----------------------------------------------------------------------===//
// Events
//===----------------------------------------------------------------------===//

llvm::ArrayRef<int64_t> TraceIndex::selfTimes() const {
  return Self.get([&] { return model::exclusiveTimes(T); });
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

int64_t TraceIndex::traceOffsetNs(const Event &E) const {
  return E.Start - T.WindowStart;
}

double TraceIndex::firstEventTimestampUs() const {
  return double(T.OriginNs + T.WindowStart) / 1000.0;
}

std::string TraceIndex::opPath(const Event &E, unsigned MaxDepth) const {
  llvm::SmallVector<llvm::StringRef, 8> Path;
  const Event *Cur = &E;
  while (Cur && Path.size() < MaxDepth) {
    if (!is(*Cur, NC::StepMarker) &&
        (Cur->Kind == EventKind::Op || Cur->Kind == EventKind::Annotation ||
         Cur == &E))
      Path.push_back(T.name(*Cur));
    Cur = Cur->Parent == model::NoIndex ? nullptr : &T.Events[Cur->Parent];
  }
  std::string Out;
  for (auto It = Path.rbegin(); It != Path.rend(); ++It) {
    if (!Out.empty())
      Out += " > ";
    Out += It->str();
  }
  return Out;
}

//===----------------------------------------------------------------------===//
// Start-up and teardown
//===----------------------------------------------------------------------===//

const StartupWork &TraceIndex::startup() const {
  return Startup.get([&] { return findStartupWork(*this); });
}

const TeardownWork &TraceIndex::teardown() const {
  return Teardown.get([&] { return findTeardownWork(*this); });
}

const TraceIndex::HostCauses &TraceIndex::hostCauses() const {
  return Causes.get([&] {
    HostCauses H;
    for (uint32_t I : eventsOfKind(model::EventKind::Overhead))
      if (T.Events[I].Duration > 0)
        H.Profiler.push_back(I);
    for (uint32_t I : eventsOfKind(model::EventKind::Python))
      if (T.Events[I].Duration > 0 &&
          is(T.Events[I], model::NameClass::ProfilerFrame))
        H.Profiler.push_back(I);
    llvm::sort(H.Profiler);
    std::vector<std::vector<model::Interval>> Startup(T.Lanes.size()),
        Profiler(T.Lanes.size());
    for (const StartupEvent &S : startup().Found)
      Startup[T.Events[S.Index].Lane].push_back(S.Range);
    // An overhead record is the profiler's work in its process (a buffer
    // flush, instrumentation), often written on a track of its own rather
    // than on the thread it held up: it counts on every host thread of its
    // process. A profiler frame counts on its own thread.
    llvm::DenseMap<int64_t, llvm::SmallVector<uint32_t, 4>> HostLanesOfPid;
    for (uint32_t L = 0; L < T.Lanes.size(); ++L)
      if (T.Lanes[L].Kind == model::LaneKind::HostThread)
        HostLanesOfPid[T.Lanes[L].Pid].push_back(L);
    for (uint32_t I : H.Profiler) {
      const Event &E = T.Events[I];
      const model::Interval R{E.Start, E.end()};
      if (E.Kind != model::EventKind::Overhead) {
        Profiler[E.Lane].push_back(R);
        continue;
      }
      auto It = HostLanesOfPid.find(T.Lanes[E.Lane].Pid);
      if (It == HostLanesOfPid.end())
        Profiler[E.Lane].push_back(R);
      else
        for (uint32_t L : It->second)
          Profiler[L].push_back(R);
    }
    for (size_t L = 0; L < T.Lanes.size(); ++L) {
      H.StartupByLane.push_back(
          model::IntervalSet::unionOf(std::move(Startup[L])));
      H.ProfilerByLane.push_back(
          model::IntervalSet::unionOf(std::move(Profiler[L])));
    }
    // The host phases of a submitting thread (its time between two device
    // interactions: submissions and host waits) in which the trace records
    // its OS runtime calls. OS runtime tracing (nsys's OSRT) records the
    // thread's blocking calls and I/O, so the instants between them are the
    // thread's own code: host work, however little of it is named.
    std::vector<std::vector<uint32_t>> OsCalls(T.Lanes.size());
    for (uint32_t I : eventsOfKind(model::EventKind::OsRuntime))
      if (T.Events[I].Duration > 0)
        OsCalls[T.Events[I].Lane].push_back(I);
    H.OsTracedByLane.resize(T.Lanes.size());
    for (uint32_t L = 0; L < T.Lanes.size(); ++L) {
      llvm::ArrayRef<uint32_t> Subs = submissions(L);
      if (OsCalls[L].empty() || Subs.empty())
        continue;
      llvm::sort(OsCalls[L], [&](uint32_t A, uint32_t B) {
        return T.Events[A].Start < T.Events[B].Start;
      });
      std::vector<model::Interval> Touch;
      for (uint32_t I : Subs)
        Touch.push_back({T.Events[I].Start, T.Events[I].end()});
      for (const HostWait &W : hostWaits(L))
        Touch.push_back(W.Range);
      const model::IntervalSet Device =
          model::IntervalSet::unionOf(std::move(Touch));
      const model::Lane &Lane = T.Lanes[L];
      model::Interval Span{T.Events[Lane.Begin].Start,
                           T.Events[Lane.Begin].end()};
      for (uint32_t I = Lane.Begin; I < Lane.End; ++I)
        Span.End = std::max(Span.End, T.Events[I].end());
      std::vector<model::Interval> Phases;
      llvm::ArrayRef<uint32_t> Os = OsCalls[L];
      size_t K = 0;
      for (model::Interval Phase : Device.gapsWithin(Span)) {
        while (K < Os.size() && T.Events[Os[K]].end() <= Phase.Begin)
          ++K;
        // Calls sorted by start: the first that ends inside or after the
        // phase's start opens in it, unless it starts after its end.
        for (size_t J = K; J < Os.size() && T.Events[Os[J]].Start < Phase.End;
             ++J)
          if (T.Events[Os[J]].end() > Phase.Begin) {
            Phases.push_back(Phase);
            break;
          }
      }
      H.OsTracedByLane[L] = model::IntervalSet::unionOf(std::move(Phases));
    }
    return H;
  });
}

const model::IntervalSet &TraceIndex::startupRanges(uint32_t HostLane) const {
  static const model::IntervalSet None;
  const HostCauses &H = hostCauses();
  return HostLane < H.StartupByLane.size() ? H.StartupByLane[HostLane] : None;
}

llvm::ArrayRef<uint32_t> TraceIndex::profilerActivity() const {
  return hostCauses().Profiler;
}

const model::IntervalSet &TraceIndex::osTracedPhases(uint32_t HostLane) const {
  static const model::IntervalSet None;
  const HostCauses &H = hostCauses();
  return HostLane < H.OsTracedByLane.size() ? H.OsTracedByLane[HostLane] : None;
}

const model::IntervalSet &TraceIndex::profilerRanges(uint32_t HostLane) const {
  static const model::IntervalSet None;
  const HostCauses &H = hostCauses();
  return HostLane < H.ProfilerByLane.size() ? H.ProfilerByLane[HostLane] : None;
}

const RoundTrips &TraceIndex::roundTrips() const {
  return Trips.get([&] { return findRoundTrips(*this); });
}

const ProducerInfo &TraceIndex::producer() const {
  return Program.get([&] { return detectProducer(T); });
}

const std::string &TraceIndex::startupWindowReason() const {
  return StartupReason.get([&]() -> std::string {
    const StartupWork &W = startup();
    if (!W.tooLittleSteadyTime())
      return "";
    const char *What =
        W.HasCapture ? "graph capture and start-up work" : "start-up work";
    const std::string Left = support::formatShare(SteadyRemainderShare);
    if (W.HasSteps)
      return llvm::formatv("the steps are start-up, not steady state ({0} "
                           "takes {1} of the median step, leaving under {2} "
                           "to judge; see U001)",
                           What, support::formatShare(W.targetShare()), Left)
          .str();
    return llvm::formatv("the window is start-up, not steady state ({0} "
                         "takes {1} of it, leaving under {2} to judge; see "
                         "U001)",
                         What, support::formatShare(W.windowShare()), Left)
        .str();
  });
}

//===----------------------------------------------------------------------===//
// Quality
//===----------------------------------------------------------------------===//

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
  Q.HostSpan = {INT64_MAX, INT64_MIN};
  for (const model::Lane &L : T.Lanes)
    if (L.Kind == model::LaneKind::HostThread)
      for (const Event &E : T.events(L))
        if (E.Duration > 0) {
          Q.HostSpan.Begin = std::min(Q.HostSpan.Begin, E.Start);
          Q.HostSpan.End = std::max(Q.HostSpan.End, E.end());
        }
  if (Q.HostSpan.Begin > Q.HostSpan.End)
    Q.HostSpan = {};
  else if (Q.HostSpan.length() > 0) {
    Q.DeviceBeforeHostNs =
        AllBusy.lengthWithin({T.WindowStart, Q.HostSpan.Begin});
    Q.DeviceAfterHostNs = AllBusy.lengthWithin({Q.HostSpan.End, T.WindowEnd});
  }
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
