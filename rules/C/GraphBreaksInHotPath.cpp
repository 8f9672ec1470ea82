//===- rules/detectors/GraphBreaks.cpp - C002 graph breaks in the hot path ===//
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

} // namespace

Outcome rules::runGraphBreaksInHotPath(const TraceIndex &Ctx,
                                       const RuleOptions &Opts,
                                       std::vector<Detection> &Out) {
  const model::Trace &T = Ctx.trace();
  const double MinBreaks = Opts.number("min-breaks-per-step");
  const double MinTargetShare = Opts.number("min-share-of-step");

  std::vector<Call> Calls;
  uint64_t Regions = 0;
  for (const model::Lane &L : T.Lanes) {
    if (L.Kind != model::LaneKind::HostThread)
      continue;
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
  }
  llvm::erase_if(Calls, [](const Call &C) { return C.Inner.empty(); });
  if (Calls.empty())
    return Outcome::ran();

  const MeasureWindows &Win = Ctx.measureWindows();
  std::vector<int64_t> Breaks(Win.Ranges.size(), 0), Cost(Win.Ranges.size(), 0);
  std::map<std::string, uint64_t> Pairs, EagerNames;
  std::vector<model::Interval> CallRanges, EagerWork;
  uint64_t EagerKernels = 0;
  const Call *Example = nullptr;
  for (const Call &C : Calls) {
    const Event &O = T.Events[C.Outer];
    bool Inside = false;
    for (size_t W = 0; W < Win.Ranges.size(); ++W)
      if (O.Start >= Win.Ranges[W].Begin && O.Start < Win.Ranges[W].End) {
        Breaks[W] += int64_t(C.Inner.size());
        Inside = true;
      }
    if (!Inside)
      continue;
    if (!Example || C.Inner.size() > Example->Inner.size())
      Example = &C;
    CallRanges.push_back({O.Start, O.end()});
    for (uint32_t I : C.Inner)
      ++Pairs[(T.name(O).drop_front(RegionPrefix.size()) + " -> " +
               T.name(T.Events[I]).drop_front(RegionPrefix.size()))
                  .str()];
    for (uint32_t I : C.Eager) {
      const Event &E = T.Events[I];
      ++EagerNames[T.name(E).str()];
      const model::Lane &L = T.laneOf(E);
      for (uint32_t J = I + 1; J < L.End && T.Events[J].Start < E.end(); ++J) {
        const Event &R = T.Events[J];
        if (R.Kind == EventKind::Runtime || R.Kind == EventKind::Driver)
          for (uint32_t D : T.deviceWorkOf(R)) {
            EagerWork.push_back({T.Events[D].Start, T.Events[D].end()});
            ++EagerKernels;
          }
      }
    }
  }
  if (CallRanges.empty())
    return Outcome::ran();
  // What the breaks can cost: device idle inside the calls, and the eager
  // ops' device work (fusing it into the graph may shorten it).
  model::IntervalSet CallSet = model::IntervalSet::unionOf(CallRanges);
  model::IntervalSet EagerSet = model::IntervalSet::unionOf(EagerWork);
  const model::IntervalSet &Busy = Ctx.deviceBusy();
  std::vector<model::Interval> CostParts = EagerWork;
  // Idle parts of the calls: the calls minus device busy time.
  for (const model::Interval &C : CallSet.parts())
    for (const model::Interval &Gap : Busy.gapsWithin(C))
      CostParts.push_back(Gap);
  model::IntervalSet CostSet = model::IntervalSet::unionOf(CostParts);
  int64_t Idle = 0;
  for (const model::Interval &C : CallSet.parts())
    Idle += Busy.idleWithin(C);
  for (size_t W = 0; W < Win.Ranges.size(); ++W)
    Cost[W] = CostSet.lengthWithin(Win.Ranges[W]);

  int64_t MedianBreaks = median(Breaks);
  if (double(MedianBreaks) < MinBreaks)
    return Outcome::ran();
  const int64_t Target = Ctx.targetNs();
  int64_t Impact = std::min(median(Cost), Target);
  if (double(Impact) < MinTargetShare * double(Target))
    return Outcome::ran();

  auto Top = [](const std::map<std::string, uint64_t> &M, size_t Max) {
    std::vector<std::pair<std::string, uint64_t>> V(M.begin(), M.end());
    llvm::sort(V, [](const auto &A, const auto &B) {
      return A.second > B.second || (A.second == B.second && A.first < B.first);
    });
    std::vector<std::string> Names;
    for (size_t I = 0; I < V.size() && I < Max; ++I)
      Names.push_back(llvm::formatv("{0} ({1}x)", V[I].first, V[I].second));
    return Names.empty() ? std::string("none") : joinNames(Names, Max);
  };

  Detection Det;
  auto &V = Det.Values;
  V["breaks"] = std::to_string(MedianBreaks);
  V["value"] = std::to_string(MedianBreaks);
  V["calls"] = std::to_string(CallRanges.size());
  V["pairs"] = Top(Pairs, 3);
  V["eager_ops"] = Top(EagerNames, 3);
  V["eager_kernels"] = std::to_string(EagerKernels);
  V["eager_time"] = dur(EagerSet.length());
  V["idle"] = dur(Idle);
  V["per_step"] = dur(median(Cost));
  V["regions"] = std::to_string(Regions);
  V["impact"] = dur(Impact);
  V["target"] = Ctx.describeTarget();
  describeWindows(Win, V);
  const Event &Outer = T.Events[Example->Outer];
  V["example"] = llvm::formatv("{0} at {1:f3} us", T.name(Outer),
                               Ctx.traceTimestampUs(Outer))
                     .str();
  Det.Examples.push_back(example(Ctx, Outer));
  Det.Examples.push_back(example(Ctx, T.Events[Example->Inner.front()]));
  Det.ImpactNs = Impact;
  Det.Window = Win.describe();
  Det.Subject = T.name(Outer).str();
  // Nesting of another frame's region is what a resume function looks
  // like; a compiled function that calls another torch.compile'd function
  // Dynamo could not inline looks the same.
  Det.Confidence = 0.7;
  Out.push_back(std::move(Det));
  return Outcome::ran();
}
