//===- analysis/Startup.cpp -----------------------------------------------===//
#include "analysis/Startup.h"

#include "analysis/TraceIndex.h"
#include "support/Statistics.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <map>
#include <optional>

using namespace tracelint;
using namespace tracelint::analysis;
using model::Event;
using model::EventKind;
using model::Interval;
using NC = model::NameClass;

const char *analysis::startupCategoryName(unsigned C) {
  static const char *const Names[] = {"context and module loading",
                                      "allocator calls",
                                      "stream/event/handle creation",
                                      "compilation or autotuning",
                                      "graph capture",
                                      "first-call set-up"};
  return C < NumStartupCategories ? Names[C] : "";
}

const char *analysis::teardownCategoryName(unsigned C) {
  static const char *const Names[] = {"module unloading", "deallocation",
                                      "context destruction",
                                      "stream/event/graph destruction"};
  return C < NumTeardownCategories ? Names[C] : "";
}

static bool isApiCall(const Event &E) {
  return E.Kind == EventKind::Runtime || E.Kind == EventKind::Driver;
}

/// How many times slower than its kernel's other launches a slow launch
/// must be to count as loading the kernel's module.
constexpr int64_t ModuleLoadLaunchRatio = 10;

/// The launch calls that load their kernel's module: at least
/// SlowStartupCallNs long, the kernel's first launch in the trace, and
/// ModuleLoadLaunchRatio times the median of the kernel's other launches
/// (of every other launch call in the trace when the kernel is launched
/// once).
/// Lazy loading (CUDA's, HIP's code objects) slows only a kernel's first
/// launch; launches that all take a millisecond pay for their submission
/// every time, which is the launch path, not start-up. A slow launch with
/// no device work cannot be tied to a kernel and counts as start-up.
static llvm::DenseSet<uint32_t> moduleLoadingLaunches(const TraceIndex &Ctx) {
  const model::Trace &T = Ctx.trace();
  auto IsSlowLaunch = [&](const Event &E) {
    return isApiCall(E) && E.Duration >= SlowStartupCallNs &&
           Ctx.is(E, NC::LaunchCall);
  };
  llvm::DenseSet<uint32_t> Slow;
  for (const model::Lane &L : T.Lanes)
    if (L.Kind == model::LaneKind::HostThread)
      for (uint32_t I = L.Begin; I < L.End; ++I)
        if (IsSlowLaunch(T.Events[I]))
          Slow.insert(I);
  if (Slow.empty())
    return Slow;
  // Each launch call's first device work names its kernel.
  llvm::DenseSet<uint32_t> Tied;
  std::vector<int64_t> AllLaunches;
  llvm::DenseMap<model::StringId, std::vector<uint32_t>> Launches;
  for (const Event &E : T.Events) {
    if (!model::isDeviceWork(E.Kind))
      continue;
    uint32_t L = T.launchOf(E);
    if (L != model::NoIndex && Tied.insert(L).second) {
      Launches[E.Name].push_back(L);
      AllLaunches.push_back(T.Events[L].Duration);
    }
  }
  // The median of every launch but one of length D (a kernel launched once
  // against all the others), from one sort: -1 when there is no other.
  llvm::sort(AllLaunches);
  auto MedianOfOthers = [&](int64_t D) -> int64_t {
    const size_t N = AllLaunches.size() - 1;
    if (!N)
      return -1;
    const size_t Skip =
        std::lower_bound(AllLaunches.begin(), AllLaunches.end(), D) -
        AllLaunches.begin();
    auto At = [&](size_t K) { return AllLaunches[K < Skip ? K : K + 1]; };
    if (N % 2)
      return At(N / 2);
    const int64_t Lower = At(N / 2 - 1), Upper = At(N / 2);
    return Lower + (Upper - Lower) / 2;
  };
  llvm::DenseSet<uint32_t> Loading;
  for (uint32_t I : Slow)
    if (!Tied.contains(I))
      Loading.insert(I);
  // Only a kernel's first launch can load its module.
  for (auto &[Kernel, Calls] : Launches) {
    auto Earlier = [&](uint32_t A, uint32_t B) {
      return std::pair(T.Events[A].Start, A) < std::pair(T.Events[B].Start, B);
    };
    const uint32_t First =
        *std::min_element(Calls.begin(), Calls.end(), Earlier);
    if (!Slow.contains(First))
      continue;
    const int64_t D = T.Events[First].Duration;
    std::vector<int64_t> Others;
    for (uint32_t J : Calls)
      if (J != First)
        Others.push_back(T.Events[J].Duration);
    const int64_t Usual =
        Others.empty() ? MedianOfOthers(D) : support::medianInPlace(Others);
    // Nothing to compare with: a lone slow launch is start-up.
    if (Usual < 0 || D >= ModuleLoadLaunchRatio * Usual)
      Loading.insert(First);
  }
  return Loading;
}

/// The device time of the work \p Index submitted: a call's own device
/// work, or an op's through the calls nested in it.
static int64_t ownDeviceWorkNs(const model::Trace &T, uint32_t Index) {
  const Event &E = T.Events[Index];
  int64_t Ns = 0;
  auto Add = [&](const Event &Call) {
    for (uint32_t D : T.deviceWorkOf(Call))
      Ns += T.Events[D].Duration;
  };
  if (isApiCall(E))
    Add(E);
  const model::Lane &L = T.laneOf(E);
  for (uint32_t I = Index + 1; I < L.End && T.Events[I].Start < E.end(); ++I)
    if (isApiCall(T.Events[I]))
      Add(T.Events[I]);
  return Ns;
}

/// True when \p Index is long because of the device work it waits for (a
/// blocking copy of a large buffer): not one-off set-up.
static bool longForItsOwnWork(const model::Trace &T, uint32_t Index) {
  return 2 * ownDeviceWorkNs(T, Index) >= T.Events[Index].Duration;
}

/// The calls that create a process's device context: the first runtime or
/// driver call of each process absorbs context creation, whatever its name
/// (a 29.9 s cudaDeviceGetStreamPriorityRange, a 2.17 s
/// cudaStreamIsCapturing inside the first aten::zeros, a 338 ms first
/// hipMemcpy). The tell is its length against the same API's later calls:
/// at least SlowStartupCallNs and ModuleLoadLaunchRatio times their median
/// (of every other call of the process when the API is called once), and
/// not long because of its own device work (a blocking copy).
static llvm::DenseSet<uint32_t> contextCreatingCalls(const TraceIndex &Ctx) {
  const model::Trace &T = Ctx.trace();
  struct Process {
    uint32_t First = model::NoIndex;
    std::vector<int64_t> All; ///< every call's length
  };
  llvm::DenseMap<int64_t, Process> ByPid;
  for (const model::Lane &L : T.Lanes) {
    if (L.Kind != model::LaneKind::HostThread)
      continue;
    Process &P = ByPid[L.Pid];
    for (uint32_t I = L.Begin; I < L.End; ++I) {
      const Event &E = T.Events[I];
      if (!isApiCall(E))
        continue;
      P.All.push_back(E.Duration);
      if (P.First == model::NoIndex ||
          std::pair(E.Start, I) < std::pair(T.Events[P.First].Start, P.First))
        P.First = I;
    }
  }
  llvm::DenseSet<uint32_t> Out;
  for (auto &[Pid, P] : ByPid) {
    if (P.First == model::NoIndex)
      continue;
    const Event &First = T.Events[P.First];
    if (First.Duration < SlowStartupCallNs)
      continue;
    // A call that is long because its own device work is (a blocking copy
    // of a large buffer) is not creating a context.
    if (longForItsOwnWork(T, P.First))
      continue;
    // The same API's later calls, else every other call of the process.
    std::vector<int64_t> Same;
    const model::Lane &L = T.laneOf(First);
    for (uint32_t I = L.Begin; I < L.End; ++I)
      if (I != P.First && isApiCall(T.Events[I]) &&
          T.Events[I].Name == First.Name)
        Same.push_back(T.Events[I].Duration);
    std::vector<int64_t> &Others = Same.empty() ? P.All : Same;
    if (&Others == &P.All) {
      // Leave the first call itself out of the comparison.
      auto It = std::find(P.All.begin(), P.All.end(), First.Duration);
      if (It != P.All.end())
        P.All.erase(It);
    }
    if (Others.empty() || First.Duration >= ModuleLoadLaunchRatio *
                                                support::medianInPlace(Others))
      Out.insert(P.First);
  }
  return Out;
}

/// Calls and ops whose first run is a one-off: at least SlowStartupCallNs
/// and ModuleLoadLaunchRatio times the median of the same name's later runs
/// (a 681 ms first cuDNN convolution that creates its handle and loads its
/// kernels, a first library call that initialises the library). The tell is
/// the length against the name's own later runs, never the name; a name run
/// once has nothing to compare with and is left to the other tests.
static llvm::DenseSet<uint32_t> slowFirstRuns(const TraceIndex &Ctx) {
  const model::Trace &T = Ctx.trace();
  auto Candidate = [&](const Event &E) {
    return isApiCall(E) || E.Kind == EventKind::Op;
  };
  // The first run of each name, then the later runs of the slow ones only.
  llvm::DenseMap<model::StringId, uint32_t> First;
  for (const model::Lane &L : T.Lanes)
    if (L.Kind == model::LaneKind::HostThread)
      for (uint32_t I = L.Begin; I < L.End; ++I) {
        const Event &E = T.Events[I];
        if (!Candidate(E))
          continue;
        auto [It, New] = First.try_emplace(E.Name, I);
        if (!New && std::pair(E.Start, I) <
                        std::pair(T.Events[It->second].Start, It->second))
          It->second = I;
      }
  llvm::DenseMap<model::StringId, std::vector<int64_t>> Later;
  for (auto &[Name, I] : First)
    if (T.Events[I].Duration >= SlowStartupCallNs)
      Later[Name];
  if (Later.empty())
    return {};
  for (const model::Lane &L : T.Lanes)
    if (L.Kind == model::LaneKind::HostThread)
      for (uint32_t I = L.Begin; I < L.End; ++I) {
        const Event &E = T.Events[I];
        if (!Candidate(E))
          continue;
        auto It = Later.find(E.Name);
        if (It != Later.end() && First[E.Name] != I)
          It->second.push_back(E.Duration);
      }
  llvm::DenseSet<uint32_t> Out;
  for (auto &[Name, Runs] : Later)
    if (!Runs.empty() &&
        T.Events[First[Name]].Duration >=
            ModuleLoadLaunchRatio * support::medianInPlace(Runs) &&
        !longForItsOwnWork(T, First[Name]))
      Out.insert(First[Name]);
  return Out;
}

/// The start-up category of a runtime or driver call, first match wins.
/// \p Loading holds the launch calls that load their kernel's module.
static std::optional<StartupCategory>
runtimeCategory(const TraceIndex &Ctx, const Event &E, uint32_t Index,
                const llvm::DenseSet<uint32_t> &Loading,
                const llvm::DenseSet<uint32_t> &Context) {
  if (Ctx.is(E, NC::ContextSetup) || Context.contains(Index))
    return ContextAndModules;
  if (Ctx.is(E, NC::DeviceQuery) && E.Duration >= SlowStartupCallNs)
    return ContextAndModules;
  if (Ctx.is(E, NC::StartupAllocation))
    return Allocation;
  // A kernel's first launch that takes milliseconds loads its module (CUDA
  // lazy loading, HIP code objects); a normal launch takes microseconds.
  if (Loading.contains(Index))
    return ContextAndModules;
  if (Ctx.is(E, NC::HandleLifetime))
    return Handles;
  if (Ctx.is(E, NC::GraphCapture))
    return GraphCapture;
  return std::nullopt;
}

static std::optional<TeardownCategory> teardownCategory(const TraceIndex &Ctx,
                                                        const Event &E) {
  if (Ctx.is(E, NC::ModuleUnload))
    return ModuleUnload;
  if (Ctx.is(E, NC::Deallocation))
    return Deallocation;
  if (Ctx.is(E, NC::ContextDestruction))
    return ContextDestruction;
  if (Ctx.is(E, NC::HandleDestruction))
    return HandleDestruction;
  return std::nullopt;
}

/// A call or frame that begins (or ends) a stream capture: the runtime's
/// BeginCapture call, or the framework's capture_begin (torch.cuda.graph,
/// recorded as a Python frame with with_stack=True).
static bool beginsCapture(const TraceIndex &Ctx, const Event &E) {
  return (isApiCall(E) || E.Kind == EventKind::Python ||
          E.Kind == EventKind::Op) &&
         Ctx.is(E, NC::CaptureBegin);
}
static bool endsCapture(const TraceIndex &Ctx, const Event &E) {
  return (isApiCall(E) || E.Kind == EventKind::Python ||
          E.Kind == EventKind::Op) &&
         Ctx.is(E, NC::CaptureEnd);
}

/// The launch calls inside \p Captures that have no device work.
static uint64_t countCapturedLaunches(const TraceIndex &Ctx,
                                      llvm::ArrayRef<CaptureSpan> Captures) {
  const model::Trace &T = Ctx.trace();
  std::vector<bool> HasWork(T.Events.size(), false);
  for (const Event &E : T.Events)
    if (model::isDeviceWork(E.Kind))
      if (uint32_t L = T.launchOf(E); L != model::NoIndex)
        HasWork[L] = true;
  uint64_t N = 0;
  for (const CaptureSpan &C : Captures) {
    const model::Lane &L = T.Lanes[C.Lane];
    for (uint32_t I = L.Begin; I < L.End; ++I) {
      const Event &E = T.Events[I];
      if (E.Start >= C.Range.End)
        break;
      N += E.Start >= C.Range.Begin && isApiCall(E) && !HasWork[I] &&
           Ctx.is(E, NC::LaunchCall);
    }
  }
  return N;
}

/// Host events of compilation and autotuning: the compiler's own Python
/// frames, and ops or ranges named for compiling.
static bool isCompilation(const TraceIndex &Ctx, const Event &E) {
  if (E.Kind == EventKind::Python)
    return Ctx.is(E, NC::CompilationFrame);
  if (E.Kind == EventKind::Op || E.Kind == EventKind::Annotation)
    return Ctx.is(E, NC::CompilationRange);
  return false;
}

TeardownWork analysis::findTeardownWork(const TraceIndex &Ctx) {
  const model::Trace &T = Ctx.trace();
  TeardownWork Work;
  Work.Begin = Ctx.lastSubmissionEnd();
  if (Work.Begin == INT64_MAX)
    return Work;
  std::vector<Interval> AllParts;
  for (const model::Lane &L : T.Lanes) {
    if (L.Kind != model::LaneKind::HostThread)
      continue;
    for (uint32_t I = L.Begin; I < L.End; ++I) {
      const Event &E = T.Events[I];
      if (!isApiCall(E) || E.Start < Work.Begin || E.Duration <= 0)
        continue;
      std::optional<TeardownCategory> Cat = teardownCategory(Ctx, E);
      if (!Cat)
        continue;
      Work.Found.push_back({I, *Cat, {E.Start, E.end()}});
      Work.ByCategory[*Cat].push_back({E.Start, E.end()});
      AllParts.push_back({E.Start, E.end()});
    }
  }
  Work.TeardownNs = model::IntervalSet::unionOf(std::move(AllParts))
                        .lengthWithin(Ctx.window());
  return Work;
}

StartupWork analysis::findStartupWork(const TraceIndex &Ctx) {
  const model::Trace &T = Ctx.trace();
  StartupWork Work;
  // Deallocation and destruction after the last submission is teardown
  // (U003), not start-up.
  const int64_t TeardownBegin = Ctx.lastSubmissionEnd();
  const llvm::DenseSet<uint32_t> Loading = moduleLoadingLaunches(Ctx);
  const llvm::DenseSet<uint32_t> Context = contextCreatingCalls(Ctx);
  const llvm::DenseSet<uint32_t> SlowFirst = slowFirstRuns(Ctx);
  std::vector<StartupEvent> &Found = Work.Found;
  // 1. Start-up events anywhere in the window, and graph-capture spans
  //    (everything a thread submits between BeginCapture and EndCapture is
  //    recorded into a graph, not run).
  for (uint32_t LI = 0; LI < T.Lanes.size(); ++LI) {
    const model::Lane &L = T.Lanes[LI];
    if (L.Kind != model::LaneKind::HostThread)
      continue;
    // A framework's capture_begin frame holds the runtime's BeginCapture
    // call: the capture starts at the first of them and ends with the
    // first end (the frame's end covers the call's).
    int64_t CaptureBegin = -1, LaneEnd = INT64_MIN;
    uint32_t CaptureBeginIndex = model::NoIndex;
    for (uint32_t I = L.Begin; I < L.End; ++I) {
      const Event &E = T.Events[I];
      LaneEnd = std::max(LaneEnd, E.end());
      if (beginsCapture(Ctx, E)) {
        if (CaptureBegin < 0) {
          CaptureBegin = E.Start;
          CaptureBeginIndex = I;
        }
      } else if (endsCapture(Ctx, E) && CaptureBegin >= 0) {
        Found.push_back({I, GraphCapture, {CaptureBegin, E.end()}});
        Work.Captures.push_back({LI, {CaptureBegin, E.end()}});
        CaptureBegin = -1;
        continue;
      }
      std::optional<StartupCategory> Cat;
      if (isApiCall(E)) {
        if (E.Start >= TeardownBegin && teardownCategory(Ctx, E))
          continue;
        Cat = runtimeCategory(Ctx, E, I, Loading, Context);
      } else if (isCompilation(Ctx, E)) {
        Cat = Compilation;
      }
      if (Cat && E.Duration > 0)
        Found.push_back({I,
                         *Cat,
                         {E.Start, E.end()},
                         Context.contains(I) || Loading.contains(I)});
      else if (SlowFirst.contains(I))
        Found.push_back({I, FirstCall, {E.Start, E.end()}, /*ByLength=*/true});
    }
    // The window ended during a capture.
    if (CaptureBegin >= 0 && LaneEnd > CaptureBegin) {
      Found.push_back(
          {CaptureBeginIndex, GraphCapture, {CaptureBegin, LaneEnd}});
      Work.Captures.push_back({LI, {CaptureBegin, LaneEnd}});
    }
  }

  // 2. Drop names that recur in most of the later steps: steady-state work.
  llvm::ArrayRef<StepWindow> Steps = Ctx.steps();
  if (Steps.size() >= 3) {
    size_t Later = Steps.size() - 1;
    std::map<model::StringId, std::vector<bool>> Seen;
    for (const StartupEvent &S : Found) {
      int Step = Ctx.stepAt(S.Range.Begin);
      if (Step <= 0)
        continue;
      auto &V = Seen[T.Events[S.Index].Name];
      V.resize(Later, false);
      V[size_t(Step - 1)] = true;
    }
    llvm::erase_if(Found, [&](const StartupEvent &S) {
      if (S.ByLength)
        return false;
      auto It = Seen.find(T.Events[S.Index].Name);
      if (It == Seen.end())
        return false;
      return 2 * size_t(llvm::count(It->second, true)) > It->second.size();
    });
  }

  // 3. How much host time the start-up work takes, as a union.
  std::vector<Interval> AllParts;
  for (const StartupEvent &S : Found) {
    AllParts.push_back(S.Range);
    Work.ByCategory[S.Cat].push_back(S.Range);
  }
  model::IntervalSet Union = model::IntervalSet::unionOf(std::move(AllParts));
  Work.StartupNs = Union.lengthWithin(Ctx.window());
  // Capture proper: a stream captured between BeginCapture and EndCapture.
  // Instantiating, uploading or destroying graphs alone is start-up work,
  // and a replay (a graph launch) is steady state; neither records work
  // without running it.
  Work.HasCapture = !Work.Captures.empty();
  Work.HasSteps = Ctx.hasSteps();
  Work.WindowNs = Ctx.window().length();
  Work.CapturedLaunches = countCapturedLaunches(Ctx, Work.Captures);

  // 4. What start-up costs the target: per step, and in the median steady
  //    step.
  Work.TargetNs = Ctx.targetNs();
  for (const StepWindow &S : Steps)
    Work.StepStartupNs.push_back(Union.lengthWithin(S.Range));
  if (Steps.empty()) {
    Work.TargetStartupNs = Work.StartupNs;
  } else {
    // The lower median: with two steady steps, one slow first step beside
    // a normal one must not make the pair start-up (their mean would).
    std::vector<int64_t> Steady;
    for (const StepWindow &S : Ctx.steadySteps())
      Steady.push_back(Union.lengthWithin(S.Range));
    llvm::sort(Steady);
    Work.TargetStartupNs =
        Steady.empty()
            ? 0
            : std::min(Steady[(Steady.size() - 1) / 2], Work.TargetNs);
  }
  return Work;
}
