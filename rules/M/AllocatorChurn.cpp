//===- rules/M/AllocatorChurn.cpp - M004 allocator calls in steps ---------===//
//
// A caching allocator (PyTorch's, or any framework's) asks the driver for
// device memory once and reuses it: after the first step a warm allocator
// makes no cudaMalloc or cudaFree calls. When it keeps making them, the
// step pays for them every time, and cudaFree (hipFree) is worse than a slow
// call: it waits until the device has finished all queued work, so the host
// cannot queue the next kernels and the device drains and idles.
// torch.cuda.empty_cache() in the loop causes exactly this, and so do shapes
// that change every step or a pool too small for the step.
//
// This detector takes the allocator calls (cuda/hip Malloc and Free, their
// stream-ordered Async forms, and the driver's cuMemAlloc/cuMemFree) and the
// empty_cache frames that start in the steps after the first, measures the
// host time in them (a union) and the device idle time from each call's
// start to the device's next work (what a synchronizing free opens), and
// bounds the gain with waitsGainBound: removing the calls lets the thread
// submit earlier by at most their length, and only device idle time can be
// saved. Without steps (an Nsight export), calls of one name and size that
// repeat min-repeats times are a loop's and are judged over the window,
// each group's first call left out as start-up; without runtime calls, or
// without such repeats, it cannot judge and says how many calls it saw.
//
//===----------------------------------------------------------------------===//
#include "rules/BuiltinDetectors.h"
#include "rules/detectors/DetectorSupport.h"

#include "support/Count.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <map>
#include <set>

using namespace tracelint;
using namespace tracelint::rules;
using namespace tracelint::rules::detect;
using analysis::HostWait;
using analysis::TraceIndex;
using model::Event;
using model::EventKind;
using model::Interval;

namespace {

enum class AllocKind { None, Malloc, Free, EmptyCache };

/// What a host event is to the allocator: a device-memory allocation or
/// release call (allocatorCall), or a torch.cuda.empty_cache frame.
AllocKind allocKind(const TraceIndex &Ctx, const Event &E) {
  switch (Ctx.allocatorCall(E)) {
  case AllocatorCall::Malloc:
    return AllocKind::Malloc;
  case AllocatorCall::Free:
    return AllocKind::Free;
  case AllocatorCall::None:
    break;
  }
  if ((E.Kind == EventKind::Python || E.Kind == EventKind::Op ||
       E.Kind == EventKind::Annotation) &&
      Ctx.is(E, model::NameClass::EmptyCache))
    return AllocKind::EmptyCache;
  return AllocKind::None;
}

/// True when \p E runs inside a torch.cuda.empty_cache frame.
bool insideEmptyCache(const TraceIndex &Ctx, const Event &E) {
  return anyEnclosing(Ctx.trace(), E, [&](const Event &Up) {
    return allocKind(Ctx, Up) == AllocKind::EmptyCache;
  });
}

/// Every allocator call and empty_cache frame of the trace, host lanes in
/// order.
std::vector<uint32_t> allocatorCalls(const TraceIndex &Ctx) {
  const model::Trace &T = Ctx.trace();
  std::vector<uint32_t> Calls;
  for (const model::Lane &L : T.Lanes) {
    if (L.Kind != model::LaneKind::HostThread)
      continue;
    for (uint32_t I = L.Begin; I < L.End; ++I)
      if (allocKind(Ctx, T.Events[I]) != AllocKind::None)
        Calls.push_back(I);
  }
  return Calls;
}

/// Why the allocator calls \p Calls cannot be told apart as start-up or
/// steady state: fewer than two steps. Says how many calls there are.
std::string whyNoSteadySteps(const TraceIndex &Ctx,
                             llvm::ArrayRef<uint32_t> Calls) {
  const model::Trace &T = Ctx.trace();
  std::vector<Interval> Parts;
  for (uint32_t I : Calls)
    Parts.push_back({T.Events[I].Start, T.Events[I].end()});
  int64_t HostNs = model::IntervalSet::unionOf(std::move(Parts)).length();
  return llvm::formatv(
             "the trace has {0}, so its {1} allocator calls "
             "and empty_cache frames ({2} of host time, a union) cannot be "
             "told apart as start-up or steady state; {3} and profile at "
             "least two steps",
             Ctx.hasSteps() ? "only one step" : "no step markers", Calls.size(),
             dur(HostNs),
             analysis::speaksPyTorch(Ctx.producer().Kind)
                 ? "call prof.step() once per iteration"
                 : "wrap each iteration in an NVTX range named with --step")
      .str();
}

/// Without step markers, the calls that run in a loop: those of a name
/// and size (the recorded bytes, when there are any) that repeats at least
/// \p MinRepeats times after its first call, the repeats spanning at least
/// half of the window, each group's first call left out as start-up. \p Note
/// describes them ("1221 calls of 2 names repeat from +0.010000 s to +9.800000
/// s").
std::vector<uint32_t> loopCalls(const TraceIndex &Ctx,
                                llvm::ArrayRef<uint32_t> Calls,
                                int64_t MinRepeats, std::string &Note) {
  const model::Trace &T = Ctx.trace();
  std::map<std::pair<std::string, int64_t>, std::vector<uint32_t>> Groups;
  for (uint32_t I : Calls) {
    const Event &E = T.Events[I];
    int64_t Bytes = E.Args != model::NoIndex ? T.Args[E.Args].Bytes : -1;
    Groups[{T.name(E).str(), Bytes}].push_back(I);
  }
  std::vector<uint32_t> Out;
  std::set<std::string> Names;
  for (auto &[Key, Members] : Groups) {
    if (int64_t(Members.size()) - 1 < MinRepeats)
      continue;
    llvm::sort(Members, [&](uint32_t A, uint32_t B) {
      return T.Events[A].Start < T.Events[B].Start;
    });
    // Start-up allocates its buffers in a burst; a loop's calls run
    // through the window: the repeats must span half of it.
    const int64_t Span =
        T.Events[Members.back()].Start - T.Events[Members[1]].Start;
    if (2 * Span < T.WindowEnd - T.WindowStart)
      continue;
    Out.insert(Out.end(), Members.begin() + 1, Members.end());
    Names.insert(Key.first);
  }
  if (Out.empty())
    return Out;
  uint32_t First = Out.front(), Last = Out.front();
  for (uint32_t I : Out) {
    if (T.Events[I].Start < T.Events[First].Start)
      First = I;
    if (T.Events[I].Start > T.Events[Last].Start)
      Last = I;
  }
  Note = llvm::formatv(
             "the trace has no step markers, but {0} of {1} "
             "repeat with one size each from {2} to {3} after "
             "their first: they run in a loop (the first call of "
             "each is left out as start-up)",
             support::formatCount(int64_t(Out.size()), "call"),
             joinNames(std::vector<std::string>(Names.begin(), Names.end()),
                       /*Max=*/3),
             support::formatOffset(Ctx.traceOffsetNs(T.Events[First])),
             support::formatOffset(Ctx.traceOffsetNs(T.Events[Last])))
             .str();
  return Out;
}

struct PathGroup {
  uint64_t Count = 0;
  int64_t HostNs = 0;
  uint32_t Longest = model::NoIndex;
};

/// The steady steps' allocator calls, collected once.
struct StepCalls {
  std::vector<std::vector<HostWait>> WaitsIn;   ///< the calls as waits
  std::vector<std::vector<Interval>> HostParts; ///< cut at the step's end
  std::vector<int64_t> Mallocs, Frees, Empties; ///< calls per step
  std::map<std::string, PathGroup> ByPath;
};

StepCalls collectStepCalls(const TraceIndex &Ctx,
                           llvm::ArrayRef<uint32_t> Calls) {
  const model::Trace &T = Ctx.trace();
  const MeasureWindows &Win = Ctx.measureWindows();
  const size_t N = Win.Ranges.size();
  StepCalls S;
  S.WaitsIn.resize(N);
  S.HostParts.resize(N);
  S.Mallocs.assign(N, 0);
  S.Frees.assign(N, 0);
  S.Empties.assign(N, 0);
  for (uint32_t I : Calls) {
    const Event &E = T.Events[I];
    size_t R = Win.indexOf(E.Start);
    if (R == N)
      continue;
    AllocKind K = allocKind(Ctx, E);
    ++(K == AllocKind::Malloc ? S.Mallocs
       : K == AllocKind::Free ? S.Frees
                              : S.Empties)[R];
    // A call inside an empty_cache frame is counted, but its time and its
    // wait are the frame's.
    if (K != AllocKind::EmptyCache && insideEmptyCache(Ctx, E))
      continue;
    Interval In{E.Start, std::min(E.end(), Win.Ranges[R].End)};
    S.HostParts[R].push_back(In);
    S.WaitsIn[R].push_back(asHostWait(I, E.Lane, {E.Start, E.end()}));
    PathGroup &G = S.ByPath[Ctx.opPath(E)];
    ++G.Count;
    G.HostNs += In.length();
    keepLongest(T, G.Longest, I);
  }
  return S;
}

/// Per step: host time in the calls (a union), the device idle time each
/// opens (from its start to the device's next work, a union; the device
/// with most of it), and the bound on the gain; their medians.
struct ChurnFigures {
  int64_t HostNs = 0, IdleNs = 0;
  int64_t ImpactNs = 0; ///< the median bound, at most the target
  size_t StepsWithCalls = 0;
};

ChurnFigures measureChurn(const TraceIndex &Ctx, const StepCalls &S) {
  const MeasureWindows &Win = Ctx.measureWindows();
  std::vector<int64_t> HostPer, IdlePer, GainPer;
  for (size_t R = 0; R < Win.Ranges.size(); ++R) {
    Interval Range = Win.Ranges[R];
    HostPer.push_back(
        model::IntervalSet::unionOf(S.HostParts[R]).lengthWithin(Range));
    GainPer.push_back(Ctx.waitsGainBound(S.WaitsIn[R], Range));
    IdlePer.push_back(Ctx.idleOpenedBy(S.WaitsIn[R], Range));
  }
  ChurnFigures F;
  F.HostNs = median(HostPer);
  F.IdleNs = median(IdlePer);
  F.ImpactNs = std::min(median(GainPer), Ctx.targetNs());
  F.StepsWithCalls =
      llvm::count_if(S.HostParts, [](const auto &P) { return !P.empty(); });
  return F;
}

/// The placeholders beyond the cost's, and the top three op paths.
void describeChurn(
    const TraceIndex &Ctx, const StepCalls &S, const ChurnFigures &F,
    const std::vector<const std::pair<const std::string, PathGroup> *> &Ranked,
    const std::string &LoopNote, Detection &Det) {
  const model::Trace &T = Ctx.trace();
  const Event &Longest = T.Events[Ranked.front()->second.Longest];
  auto &V = Det.Values;
  V["mallocs"] = count(median(S.Mallocs));
  V["frees"] = count(median(S.Frees));
  V["empty_cache"] = count(median(S.Empties));
  V["steps_with_calls"] =
      llvm::formatv("{0} of {1}", F.StepsWithCalls, S.HostParts.size()).str();
  if (LoopNote.empty()) {
    V["calls_when"] =
        llvm::formatv("in the steady steps (per step, median: "
                      "allocations {0}, frees {1}, empty_cache "
                      "calls {2})",
                      median(S.Mallocs), median(S.Frees), median(S.Empties))
            .str();
    V["calls_where"] =
        llvm::formatv("allocator calls in {0} {1} ({2})",
                      V["steps_with_calls"].text(),
                      support::pluralNoun(double(S.HostParts.size()), "step"),
                      Ctx.measureWindows().describe())
            .str();
  } else {
    V["calls_when"] =
        llvm::formatv("again and again in a loop ({0} and {1} in the "
                      "window after the first of each)",
                      support::formatCount(median(S.Mallocs), "allocation"),
                      support::formatCount(median(S.Frees), "free"))
            .str();
    V["calls_where"] = LoopNote;
  }
  V["idle"] = dur(F.IdleNs);
  V["top_op_path"] = Ranked.front()->first;
  V["subject"] = Ranked.front()->first;
  V["example"] = eventAt(Ctx, Longest,
                         llvm::formatv(" ({0})", dur(Longest.Duration)).str());
  V["empty_cache_note"] =
      !analysis::speaksPyTorch(Ctx.producer().Kind)
          ? "the program itself frees and allocates the device memory again "
            "inside the loop"
      : llvm::any_of(S.Empties, [](int64_t C) { return C > 0; })
          ? "torch.cuda.empty_cache() runs inside the loop and returns the "
            "cached blocks to the driver, so the next step must allocate "
            "them again"
          : "no empty_cache frame is recorded in these steps (frames need "
            "with_stack=True), so the cache is released by the program or "
            "by the allocator itself, or asked for new sizes";
  PerWindowMean Mean(Ctx.measureWindows());
  addSiteEvidence(
      Det, Ranked, 0, 3, [&](const std::string &Path, const PathGroup &G) {
        return llvm::formatv(
                   "{0}: {1} {3}, {2} of host time {3}", Path,
                   support::formatAverageCount(Mean.count(G.Count), "call"),
                   Mean.time(G.HostNs), Mean.per())
            .str();
      });
  Det.Examples.push_back(example(Ctx, Longest));
}

/// Where allocator calls are recorded, in the words of the profiler that
/// recorded the trace: a rocprofv3 user needs rocprofv3's option, not nsys's.
const char *whyNoRuntimeCalls(const TraceIndex &Ctx) {
  if (!analysis::speaksPyTorch(Ctx.producer().Kind) && Ctx.producer().isRocm())
    return "the trace has no HIP runtime calls, which is where allocator "
           "calls (hipMalloc, hipFree) are recorded; rocprofv3 records them "
           "with --hip-trace (or --runtime-trace, --sys-trace)";
  return "the trace has no CUDA/HIP runtime or driver calls, "
         "which is where allocator calls are recorded; profile with "
         "ProfilerActivity.CUDA (nsys --trace=cuda for a C/C++ program)";
}

} // namespace

Outcome rules::runAllocatorChurn(const TraceIndex &Ctx, const RuleOptions &Opts,
                                 std::vector<Detection> &Out) {
  if (Ctx.quality().RuntimeCalls == 0)
    return Outcome::cannotJudge(whyNoRuntimeCalls(Ctx));
  std::vector<uint32_t> Calls = allocatorCalls(Ctx);
  // No allocator call anywhere: nothing churns, whatever the steps.
  if (Calls.empty())
    return Outcome::ran();
  // Without steps, calls that repeat at one site and size are a loop's
  // (an Nsight export of a C++ program never has step markers); fewer
  // repeats cannot be told from start-up.
  std::string LoopNote;
  // A PyTorch program has prof.step() for its steps, and its caching
  // allocator grows through warm-up with calls that repeat too.
  if (Ctx.steps().size() < 2 && analysis::speaksPyTorch(Ctx.producer().Kind))
    return Outcome::cannotJudge(whyNoSteadySteps(Ctx, Calls));
  if (Ctx.steps().size() < 2) {
    std::vector<uint32_t> Loop =
        loopCalls(Ctx, Calls, int64_t(Opts.number("min-repeats")), LoopNote);
    if (Loop.empty())
      return Outcome::cannotJudge(
          whyNoSteadySteps(Ctx, Calls) +
          llvm::formatv(
              " (no call of one name and size repeats {0} "
              "after its first, as a loop's would)",
              support::formatCount(int64_t(Opts.number("min-repeats")), "time"))
              .str());
    Calls = std::move(Loop);
  }

  const double MinShare = Opts.number("min-share-of-step");
  const double MinGain = Opts.number("min-gain-share");
  const double MinInfo = Opts.number("min-info-share");
  const int64_t Target = Ctx.targetNs();
  if (Target <= 0)
    return Outcome::ran();
  StepCalls S = collectStepCalls(Ctx, Calls);
  if (S.ByPath.empty())
    return Outcome::ran();
  ChurnFigures F = measureChurn(Ctx, S);
  // Under the floor the churn is still reported, at info, while its bound
  // on the gain reaches min-info-share: allocator calls in steady steps are
  // a sign of a cache that keeps being emptied.
  const bool UnderFloor = double(F.HostNs) < MinShare * double(Target);
  if (F.HostNs <= 0 ||
      (UnderFloor && double(F.ImpactNs) < MinInfo * double(Target)))
    return Outcome::ran();

  auto Ranked =
      rankByKey(S.ByPath, [](const PathGroup &G) { return G.HostNs; });
  Detection Det;
  describeCostPerWindow(Ctx, F.HostNs, MinShare, F.ImpactNs, Det.Values);
  describeChurn(Ctx, S, F, Ranked, LoopNote, Det);
  Det.ImpactNs = F.ImpactNs;
  // On the critical path: the allocator calls (and empty_cache frames)
  // taking no time, with the waits a cudaFree implies.
  Det.PathQuery = namesQuery(Ctx.trace(), Calls);
  Det.Window = Ctx.measureWindows().describe();
  Det.Subject = Ranked.front()->first;
  setGainVerdict(Det, F.ImpactNs, F.HostNs, MinGain, Target,
                 "the device stayed busy meanwhile, so a warm allocator is "
                 "not predicted to shorten the step by more than {impact}",
                 ("the device idled for up to {impact} " +
                  Det.Values["per"].text() + " because of them"));
  // The calls are recorded, not inferred; recurring in most steps is churn,
  // in a few it may be the cache still growing.
  Det.Confidence = 2 * F.StepsWithCalls > S.HostParts.size() ? 0.75 : 0.5;
  if (UnderFloor)
    keepUnderFloor(Det, "min-share-of-step", MinShare, F.HostNs, Target);
  Out.push_back(std::move(Det));
  return Outcome::ran();
}
