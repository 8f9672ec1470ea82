//===- rules/C/GraphBreaksInHotPath.cpp - C002 graph breaks, hot path --===//
//
// When Dynamo meets code it cannot trace, it splits the function: the part
// before the break becomes one graph, the offending code runs eagerly, and
// the rest of the function becomes a resume function that Dynamo compiles
// as a frame of its own. In the profiler, running the outer frame's code is
// a "Torch-Compiled Region: F/C" range, and the resume function's region
// (another frame number) runs inside it. Regions of the same frame one
// after another are a compiled function called several times (regional
// compilation, a loop), not a break.
//
// The detector counts, per step, the regions of another frame nested in a
// compiled call, and measures what the breaks can cost: the device idle
// inside those calls and the device work of the eager aten ops that run in
// the call outside any nested region or compiled-graph wrapper.
//
// The steps: walk every host thread once for compiled calls with nested
// regions (collectCalls), gather the calls that start in a steady window
// (collectInWindows), measure what they can cost per window (measureCost),
// then decide on the median breaks and cost, and describe.
//
//===----------------------------------------------------------------------===//
#include "rules/BuiltinDetectors.h"
#include "rules/detectors/DetectorSupport.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <map>

using namespace tracelint;
using namespace tracelint::rules;
using namespace tracelint::rules::detect;
using analysis::TraceIndex;
using model::Event;
using model::EventKind;

namespace {

constexpr llvm::StringLiteral RegionPrefix = "Torch-Compiled Region: ";

/// The frame of a "Torch-Compiled Region: F/C" name, or -1.
int regionFrame(llvm::StringRef N) {
  if (!N.consume_front(RegionPrefix))
    return -1;
  unsigned F;
  if (N.split('/').first.getAsInteger(10, F))
    return -1;
  return int(F);
}

/// Ranges that run a compiled graph (not eager code) inside a region.
bool isGraphRun(llvm::StringRef N) {
  return N.startswith("## Call CompiledFxGraph") || N == "CompiledFunction" ||
         N == "CompiledFunctionBackward";
}

/// One outermost compiled call with breaks.
struct Call {
  uint32_t Outer;
  std::vector<uint32_t> Inner; ///< regions of other frames inside it
  std::vector<uint32_t> Eager; ///< aten ops outside graphs and inner regions
};

/// Adds the compiled calls of host lane \p L (with or without breaks) to
/// \p Calls; returns how many compiled regions the lane runs.
uint64_t scanLane(const model::Trace &T, const model::Lane &L,
                  std::vector<Call> &Calls) {
  uint64_t Regions = 0;
  // Events are sorted by start: a region belongs to the innermost open
  // region that contains it.
  std::vector<uint32_t> Open; // region stack
  std::vector<uint32_t> GraphRuns;
  size_t Current = Calls.size(); // index of the open call; none yet
  for (uint32_t I = L.Begin; I < L.End; ++I) {
    const Event &E = T.Events[I];
    while (!Open.empty() && T.Events[Open.back()].end() <= E.Start)
      Open.pop_back();
    while (!GraphRuns.empty() && T.Events[GraphRuns.back()].end() <= E.Start)
      GraphRuns.pop_back();
    llvm::StringRef N = T.name(E);
    int Frame = regionFrame(N);
    if (Frame >= 0) {
      ++Regions;
      if (Open.empty()) {
        Current = Calls.size();
        Calls.push_back({I, {}, {}});
      } else if (Current < Calls.size() &&
                 regionFrame(T.name(T.Events[Open.back()])) != Frame) {
        Calls[Current].Inner.push_back(I);
      }
      Open.push_back(I);
      continue;
    }
    if (isGraphRun(N)) {
      GraphRuns.push_back(I);
      continue;
    }
    // Eager work of the outer frame: an aten op directly in the outermost
    // region, outside graph runs.
    if (Current < Calls.size() && Open.size() == 1 &&
        Open.front() == Calls[Current].Outer && GraphRuns.empty() &&
        E.Kind == EventKind::Op && N.startswith("aten::"))
      Calls[Current].Eager.push_back(I);
  }
  return Regions;
}

/// The compiled calls with breaks, and how many regions ran in all.
struct CallScan {
  std::vector<Call> Calls;
  uint64_t Regions = 0;
};

CallScan collectCalls(const model::Trace &T) {
  CallScan S;
  for (const model::Lane &L : T.Lanes)
    if (L.Kind == model::LaneKind::HostThread)
      S.Regions += scanLane(T, L, S.Calls);
  llvm::erase_if(S.Calls, [](const Call &C) { return C.Inner.empty(); });
  return S;
}

/// The calls with breaks that start inside a window.
struct WindowCalls {
  std::vector<int64_t> Breaks; ///< per window
  std::map<std::string, uint64_t> Pairs, EagerNames;
  std::vector<model::Interval> CallRanges, EagerWork;
  uint64_t EagerKernels = 0;
  const Call *Example = nullptr; ///< the call with the most breaks
};

/// Adds the device work that eager op \p Op launched to \p W.
void addEagerWork(const model::Trace &T, uint32_t Op, WindowCalls &W) {
  const Event &E = T.Events[Op];
  ++W.EagerNames[T.name(E).str()];
  const model::Lane &L = T.laneOf(E);
  for (uint32_t J = Op + 1; J < L.End && T.Events[J].Start < E.end(); ++J) {
    const Event &R = T.Events[J];
    if (R.Kind == EventKind::Runtime || R.Kind == EventKind::Driver)
      for (uint32_t D : T.deviceWorkOf(R)) {
        W.EagerWork.push_back({T.Events[D].Start, T.Events[D].end()});
        ++W.EagerKernels;
      }
  }
}

WindowCalls collectInWindows(const TraceIndex &Ctx,
                             llvm::ArrayRef<Call> Calls) {
  const model::Trace &T = Ctx.trace();
  const MeasureWindows &Win = Ctx.measureWindows();
  WindowCalls W;
  W.Breaks.assign(Win.Ranges.size(), 0);
  for (const Call &C : Calls) {
    const Event &O = T.Events[C.Outer];
    size_t Idx = Win.indexOf(O.Start);
    if (Idx == Win.Ranges.size())
      continue;
    W.Breaks[Idx] += int64_t(C.Inner.size());
    if (!W.Example || C.Inner.size() > W.Example->Inner.size())
      W.Example = &C;
    W.CallRanges.push_back({O.Start, O.end()});
    for (uint32_t I : C.Inner)
      ++W.Pairs[(T.name(O).drop_front(RegionPrefix.size()) + " -> " +
                 T.name(T.Events[I]).drop_front(RegionPrefix.size()))
                    .str()];
    for (uint32_t I : C.Eager)
      addEagerWork(T, I, W);
  }
  return W;
}

/// What the breaks can cost: device idle inside the calls, and the eager
/// ops' device work (fusing it into the graph may shorten it).
struct BreakCost {
  std::vector<int64_t> PerWindow;
  int64_t IdleNs = 0;  ///< device idle inside the calls
  int64_t EagerNs = 0; ///< the eager ops' device work, a union
};

BreakCost measureCost(const TraceIndex &Ctx, const WindowCalls &W) {
  const MeasureWindows &Win = Ctx.measureWindows();
  model::IntervalSet CallSet = model::IntervalSet::unionOf(W.CallRanges);
  const model::IntervalSet &Busy = Ctx.deviceBusy();
  BreakCost C;
  C.EagerNs = model::IntervalSet::unionOf(W.EagerWork).length();
  std::vector<model::Interval> CostParts = W.EagerWork;
  // Idle parts of the calls: the calls minus device busy time.
  for (const model::Interval &Part : CallSet.parts()) {
    for (const model::Interval &Gap : Busy.gapsWithin(Part))
      CostParts.push_back(Gap);
    C.IdleNs += Busy.idleWithin(Part);
  }
  model::IntervalSet CostSet = model::IntervalSet::unionOf(CostParts);
  for (const model::Interval &R : Win.Ranges)
    C.PerWindow.push_back(CostSet.lengthWithin(R));
  return C;
}

/// "a (3x), b (2x) and c (1x)", the most frequent first, or "none".
std::string mostFrequent(const std::map<std::string, uint64_t> &M, size_t Max) {
  std::vector<std::string> Names;
  for (const auto *E : rankByKey(M, [](uint64_t N) { return N; })) {
    if (Names.size() == Max)
      break;
    Names.push_back(llvm::formatv("{0} ({1}x)", E->first, E->second));
  }
  return Names.empty() ? std::string("none") : joinNames(Names, Max);
}

} // namespace

Outcome rules::runGraphBreaksInHotPath(const TraceIndex &Ctx,
                                       const RuleOptions &Opts,
                                       std::vector<Detection> &Out) {
  const model::Trace &T = Ctx.trace();
  const double MinBreaks = Opts.number("min-breaks-per-step");
  const double MinTargetShare = Opts.number("min-share-of-step");

  CallScan S = collectCalls(T);
  if (S.Calls.empty())
    return Outcome::ran();
  WindowCalls W = collectInWindows(Ctx, S.Calls);
  if (W.CallRanges.empty())
    return Outcome::ran();
  BreakCost Cost = measureCost(Ctx, W);

  const int64_t MedianBreaks = median(W.Breaks);
  if (double(MedianBreaks) < MinBreaks)
    return Outcome::ran();
  const int64_t Target = Ctx.targetNs();
  const int64_t Impact = std::min(median(Cost.PerWindow), Target);
  if (double(Impact) < MinTargetShare * double(Target))
    return Outcome::ran();

  Detection Det;
  auto &V = Det.Values;
  V["breaks"] = count(MedianBreaks);
  V["value"] = count(MedianBreaks);
  V["calls"] = count(int64_t(W.CallRanges.size()));
  V["pairs"] = mostFrequent(W.Pairs, 3);
  V["eager_ops"] = mostFrequent(W.EagerNames, 3);
  V["eager_kernels"] = count(int64_t(W.EagerKernels));
  V["eager_time"] = dur(Cost.EagerNs);
  V["idle"] = dur(Cost.IdleNs);
  V["per_step"] = dur(median(Cost.PerWindow));
  V["regions"] = count(int64_t(S.Regions));
  V["impact"] = dur(Impact);
  V["target"] = Ctx.describeTarget();
  const MeasureWindows &Win = Ctx.measureWindows();
  describeWindows(Win, V);
  const Event &Outer = T.Events[W.Example->Outer];
  V["example"] = nameAt(Ctx, T.name(Outer), Outer);
  Det.Examples.push_back(example(Ctx, Outer));
  Det.Examples.push_back(example(Ctx, T.Events[W.Example->Inner.front()]));
  Det.ImpactNs = Impact;
  Det.PerWindowNs = Cost.PerWindow;
  Det.Window = Win.describe();
  Det.Subject = T.name(Outer).str();
  // Nesting of another frame's region is what a resume function looks
  // like; a compiled function that calls another torch.compile'd function
  // Dynamo could not inline looks the same.
  Det.Confidence = 0.7;
  Out.push_back(std::move(Det));
  return Outcome::ran();
}
