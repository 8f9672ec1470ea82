//===- rules/detectors/DetectorSupport.cpp --------------------------------===//
#include "rules/detectors/DetectorSupport.h"

#include "support/Format.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <limits>
#include <map>

using namespace tracelint;
using namespace tracelint::rules;
using namespace tracelint::rules::detect;

double detect::optionOr(const RuleOptions &Opts, llvm::StringRef Name,
                        double Fallback) {
  return Opts.has(Name) ? Opts.number(Name) : Fallback;
}

std::string detect::dur(int64_t Ns) { return support::formatDuration(Ns); }
std::string detect::pct(double F) { return support::formatShare(F); }
std::string detect::bytes(int64_t B) { return support::formatBytes(B); }

size_t MeasureWindows::indexOf(int64_t At) const {
  auto It = llvm::partition_point(
      Ranges, [&](const model::Interval &R) { return R.End <= At; });
  if (It == Ranges.end() || At < It->Begin)
    return Ranges.size();
  return size_t(It - Ranges.begin());
}

std::string MeasureWindows::describe() const {
  if (!Steps || StepNumbers.empty())
    return "the whole window";
  if (StepNumbers.size() == 1)
    return llvm::formatv("step {0}", StepNumbers.front()).str();
  return llvm::formatv("steps {0}-{1}", StepNumbers.front(), StepNumbers.back())
      .str();
}

void MeasureWindows::describeInto(
    std::map<std::string, std::string> &Values) const {
  Values["window"] = describe();
  Values["per"] = Steps ? "per step" : "in the window";
  Values["unit"] = Steps ? "step" : "window";
  Values["metric"] = Steps ? "median step time" : "the window's length";
}

MeasureWindows detect::measureWindows(const analysis::TraceIndex &Ctx) {
  MeasureWindows W;
  if (!Ctx.hasSteps()) {
    W.Ranges.push_back(Ctx.window());
    W.StepNumbers.push_back(-1);
    return W;
  }
  W.Steps = true;
  // The first step often holds start-up work (U001 reports it); with three
  // or more steps the rest are a fairer picture of the steady state.
  llvm::ArrayRef<analysis::StepWindow> Steps = Ctx.steps();
  if (Steps.size() >= 3)
    Steps = Steps.drop_front();
  for (const analysis::StepWindow &S : Steps) {
    W.Ranges.push_back(S.Range);
    W.StepNumbers.push_back(S.Number);
  }
  return W;
}

analysis::WhatIfQuery detect::namesQuery(const model::Trace &T,
                                         llvm::ArrayRef<uint32_t> Events) {
  analysis::WhatIfQuery Q;
  for (uint32_t I : Events)
    Q.Names.push_back(T.name(T.Events[I]).str());
  llvm::sort(Q.Names);
  Q.Names.erase(std::unique(Q.Names.begin(), Q.Names.end()), Q.Names.end());
  return Q;
}

std::vector<uint32_t> detect::workLaunchedWithin(const model::Trace &T,
                                                 uint32_t Op) {
  std::vector<uint32_t> Out;
  const model::Event &E = T.Events[Op];
  const model::Lane &L = T.Lanes[E.Lane];
  for (uint32_t J = Op + 1; J < L.End && T.Events[J].Start < E.end(); ++J) {
    const model::Event &C = T.Events[J];
    if (C.Kind == model::EventKind::Runtime ||
        C.Kind == model::EventKind::Driver)
      for (uint32_t D : T.deviceWorkOf(C))
        Out.push_back(D);
  }
  return Out;
}

std::vector<std::string> detect::namesByCount(const model::Trace &T,
                                              llvm::ArrayRef<uint32_t> Events) {
  std::map<llvm::StringRef, uint64_t> Count;
  for (uint32_t I : Events)
    ++Count[T.name(T.Events[I])];
  std::vector<std::pair<uint64_t, llvm::StringRef>> Sorted;
  for (auto &[N, C] : Count)
    Sorted.push_back({C, N});
  llvm::sort(Sorted, [](const auto &A, const auto &B) {
    return A.first > B.first || (A.first == B.first && A.second < B.second);
  });
  std::vector<std::string> Out;
  for (auto &[C, N] : Sorted)
    Out.push_back(N.str());
  return Out;
}

WorkMeasure detect::measureWork(const analysis::TraceIndex &Ctx,
                                const MeasureWindows &Win,
                                llvm::ArrayRef<uint32_t> Work) {
  const model::Trace &T = Ctx.trace();
  WorkMeasure M;
  std::vector<std::vector<model::Interval>> Parts(Win.Ranges.size());
  for (uint32_t I : Work) {
    const model::Event &E = T.Events[I];
    auto It = llvm::find_if(Win.Ranges, [&](const model::Interval &R) {
      return E.Start >= R.Begin && E.Start < R.End;
    });
    if (It == Win.Ranges.end())
      continue;
    ++M.Count;
    Parts[It - Win.Ranges.begin()].push_back({E.Start, E.end()});
  }
  for (size_t W = 0; W < Win.Ranges.size(); ++W) {
    int64_t Len = model::IntervalSet::unionOf(std::move(Parts[W]))
                      .lengthWithin(Win.Ranges[W]);
    M.PerWindow.push_back(Len);
    M.UnionNs += Len;
    M.BusyNs += Ctx.deviceBusy().lengthWithin(Win.Ranges[W]);
  }
  return M;
}

ExampleEvent detect::example(const analysis::TraceIndex &Ctx,
                             const model::Event &E) {
  const model::Trace &T = Ctx.trace();
  ExampleEvent X;
  X.Name = T.name(E).str();
  X.Lane = Ctx.describeLane(T.laneOf(E));
  X.TraceTimestampUs = Ctx.traceTimestampUs(E);
  X.DurationNs = E.Duration;
  return X;
}

const model::Event *detect::enclosingOp(const model::Trace &T,
                                        const model::Event &E) {
  const model::Event *Cur = &E;
  while (Cur) {
    if (Cur->Kind == model::EventKind::Op)
      return Cur;
    Cur = Cur->Parent == model::NoIndex ? nullptr : &T.Events[Cur->Parent];
  }
  return nullptr;
}

std::string detect::joinNames(llvm::ArrayRef<std::string> Names, size_t Max) {
  size_t N = std::min(Names.size(), Max);
  std::string Out;
  for (size_t I = 0; I < N; ++I) {
    if (I)
      Out += I + 1 == N ? " and " : ", ";
    Out += Names[I];
  }
  if (Names.size() > N)
    Out += llvm::formatv(" (+{0} more)", Names.size() - N).str();
  return Out;
}

uint32_t detect::opContainer(const model::Trace &T, const model::Event &E) {
  for (uint32_t P = E.Parent; P != model::NoIndex; P = T.Events[P].Parent) {
    const model::Event &A = T.Events[P];
    if (A.Kind == model::EventKind::Op ||
        A.Kind == model::EventKind::Annotation ||
        (A.Kind == model::EventKind::Python &&
         T.name(A).startswith("nn.Module:")))
      return P;
  }
  return model::NoIndex;
}

bool detect::isFlushWait(const analysis::TraceIndex &Ctx,
                         const analysis::HostWait &W) {
  if (Ctx.hasSteps())
    return W.Range.Begin >= Ctx.steps().back().Range.End;
  const model::Trace &T = Ctx.trace();
  for (uint32_t LI = 0; LI < T.Lanes.size(); ++LI) {
    llvm::ArrayRef<uint32_t> Subs = Ctx.submissions(LI);
    if (!Subs.empty() && T.Events[Subs.back()].Start >= W.Range.End)
      return false;
  }
  return true;
}

bool detect::isDataLoaderRange(const model::Trace &T, const model::Event &E) {
  using model::EventKind;
  if (E.Kind != EventKind::Op && E.Kind != EventKind::Annotation &&
      E.Kind != EventKind::Python)
    return false;
  llvm::StringRef Name = T.name(E);
  if (Name.startswith("enumerate(DataLoader)#") ||
      Name.startswith("enumerate(DataPipe)#"))
    return true;
  // with_stack frames: "torch/utils/data/dataloader.py(631): __next__".
  return E.Kind == EventKind::Python && Name.contains("dataloader.py(") &&
         Name.endswith(": __next__");
}

std::vector<uint32_t> detect::dataLoaderEvents(const analysis::TraceIndex &Ctx) {
  const model::Trace &T = Ctx.trace();
  bool AnyFeeds = false;
  for (uint32_t L = 0; L < T.Lanes.size() && !AnyFeeds; ++L)
    AnyFeeds = T.Lanes[L].Kind == model::LaneKind::HostThread &&
               !Ctx.submissions(L).empty();
  std::vector<uint32_t> Out;
  for (uint32_t L = 0; L < T.Lanes.size(); ++L) {
    const model::Lane &Lane = T.Lanes[L];
    if (Lane.Kind != model::LaneKind::HostThread)
      continue;
    if (AnyFeeds && Ctx.submissions(L).empty())
      continue;
    for (uint32_t I = Lane.Begin; I < Lane.End; ++I)
      if (isDataLoaderRange(T, T.Events[I]))
        Out.push_back(I);
  }
  return Out;
}

model::IntervalSet detect::dataLoaderRanges(const analysis::TraceIndex &Ctx) {
  const model::Trace &T = Ctx.trace();
  std::vector<model::Interval> Parts;
  for (uint32_t I : dataLoaderEvents(Ctx))
    Parts.push_back({T.Events[I].Start, T.Events[I].end()});
  return model::IntervalSet::unionOf(std::move(Parts));
}

int64_t detect::waitsGainBound(const analysis::TraceIndex &Ctx,
                               llvm::ArrayRef<analysis::HostWait> Waits,
                               model::Interval Range) {
  const model::Trace &T = Ctx.trace();
  struct Affected {
    model::Interval Span; ///< [wait start, next device work start)
    int64_t WaitNs = 0;   ///< the wait's length inside the range
  };
  std::map<int32_t, std::vector<Affected>> ByDevice;
  for (const analysis::HostWait &W : Waits) {
    model::Interval In{std::max(W.Range.Begin, Range.Begin),
                       std::min(W.Range.End, Range.End)};
    if (In.length() <= 0)
      continue;
    llvm::ArrayRef<int32_t> Devices = Ctx.devicesFedBy(W.Lane);
    if (Devices.empty())
      Devices = Ctx.devices();
    for (int32_t D : Devices) {
      if (D < 0)
        continue;
      int64_t End = Range.End;
      uint32_t Next = Ctx.nextDeviceWork(D, W.Range.End);
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
    const model::IntervalSet &Busy = Ctx.deviceBusy(D);
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
      model::Interval Free{std::max(Begin, Claimed), List[I].Span.End};
      int64_t Idle = Free.length() ? Busy.idleWithin(Free) : 0;
      Sum += std::min(GroupWait, Idle);
      Claimed = std::max(Claimed, List[I].Span.End);
      I = J;
    }
    Best = std::max(Best, Sum);
  }
  return Best;
}

bool detect::isHostActivity(const model::Trace &T, const model::Event &E) {
  using model::EventKind;
  switch (E.Kind) {
  case EventKind::Op:
  case EventKind::Python:
  case EventKind::Runtime:
  case EventKind::Driver:
  case EventKind::OsRuntime:
    return E.Duration > 0;
  case EventKind::Annotation:
    return E.Duration > 0 && !T.name(E).startswith("ProfilerStep#");
  default:
    return false;
  }
}

/// The innermost host activity on the lane that covers \p Time, or NoIndex.
static uint32_t innermostAt(const model::Trace &T, const model::Lane &L,
                            int64_t Time) {
  llvm::ArrayRef<model::Event> Events = T.events(L);
  auto It = llvm::partition_point(
      Events, [&](const model::Event &E) { return E.Start <= Time; });
  if (It == Events.begin())
    return model::NoIndex;
  // Events nest properly on a lane, so whatever covers Time is the last
  // event starting at or before it or one of its ancestors.
  uint32_t I = T.indexOf(*(It - 1));
  while (I != model::NoIndex) {
    const model::Event &E = T.Events[I];
    if (E.end() > Time && isHostActivity(T, E))
      return I;
    I = E.Parent;
  }
  return model::NoIndex;
}

void detect::forInnermostActivity(
    const model::Trace &T, uint32_t Lane, model::Interval Piece,
    llvm::function_ref<void(uint32_t, int64_t)> Fn) {
  if (Piece.length() <= 0)
    return;
  const model::Lane &L = T.Lanes[Lane];
  llvm::ArrayRef<model::Event> Events = T.events(L);
  // Cut the piece where an event inside it starts or ends, and where an
  // event covering its start ends.
  std::vector<int64_t> Cuts = {Piece.Begin, Piece.End};
  for (uint32_t I = innermostAt(T, L, Piece.Begin); I != model::NoIndex;
       I = T.Events[I].Parent)
    if (T.Events[I].end() < Piece.End)
      Cuts.push_back(T.Events[I].end());
  auto From = llvm::partition_point(
      Events, [&](const model::Event &E) { return E.Start <= Piece.Begin; });
  for (auto It = From; It != Events.end() && It->Start < Piece.End; ++It) {
    if (!isHostActivity(T, *It))
      continue;
    Cuts.push_back(It->Start);
    if (It->end() < Piece.End)
      Cuts.push_back(It->end());
  }
  llvm::sort(Cuts);
  Cuts.erase(std::unique(Cuts.begin(), Cuts.end()), Cuts.end());
  for (size_t C = 0; C + 1 < Cuts.size(); ++C)
    Fn(innermostAt(T, L, Cuts[C]), Cuts[C + 1] - Cuts[C]);
}

detect::AllocatorCall detect::allocatorCall(const model::Event &E,
                                            llvm::StringRef Name) {
  if (E.Kind != model::EventKind::Runtime && E.Kind != model::EventKind::Driver)
    return AllocatorCall::None;
  llvm::StringRef S = Name;
  if (!S.consume_front("cuda") && !S.consume_front("hip") &&
      !S.consume_front("cu"))
    return AllocatorCall::None;
  // The driver API's versioned names: cuMemAlloc_v2, cuMemFree_v2.
  S = S.take_until([](char C) { return C == '_'; });
  if (S == "Malloc" || S == "MallocAsync" || S == "MemAlloc" ||
      S == "MemAllocAsync" || S == "ExtMallocWithFlags" ||
      S == "MallocFromPoolAsync" || S == "MemAllocFromPoolAsync")
    return AllocatorCall::Malloc;
  if (S == "Free" || S == "FreeAsync" || S == "MemFree" || S == "MemFreeAsync")
    return AllocatorCall::Free;
  return AllocatorCall::None;
}
