//===- rules/detectors/AllocatorChurn.cpp - M004 allocator calls in steps -===//
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
// saved. Without runtime calls, or without steps to tell the steady state
// from start-up, it cannot judge and says how many calls it saw.
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
  const model::Trace &T = Ctx.trace();
  for (uint32_t P = E.Parent; P != model::NoIndex; P = T.Events[P].Parent) {
    const Event &Up = T.Events[P];
    if (allocKind(Ctx, Up) == AllocKind::EmptyCache)
      return true;
  }
  return false;
}

struct PathGroup {
  uint64_t Count = 0;
  int64_t HostNs = 0;
  uint32_t Longest = model::NoIndex;
};

} // namespace

Outcome rules::runAllocatorChurn(const TraceIndex &Ctx, const RuleOptions &Opts,
                                 std::vector<Detection> &Out) {
  const model::Trace &T = Ctx.trace();
  if (Ctx.quality().RuntimeCalls == 0)
    return Outcome::cannotJudge(
        "the trace has no CUDA/HIP runtime or driver calls, "
        "which is where allocator calls are recorded; profile with "
        "ProfilerActivity.CUDA");

  // Every allocator call of the trace, host lanes in order.
  std::vector<uint32_t> Calls;
  for (const model::Lane &L : T.Lanes) {
    if (L.Kind != model::LaneKind::HostThread)
      continue;
    for (uint32_t I = L.Begin; I < L.End; ++I) {
      const Event &E = T.Events[I];
      if (allocKind(Ctx, E) != AllocKind::None)
        Calls.push_back(I);
    }
  }

  // No allocator call anywhere: nothing churns, whatever the steps.
  if (Calls.empty())
    return Outcome::ran();
  if (Ctx.steps().size() < 2) {
    std::vector<Interval> Parts;
    for (uint32_t I : Calls)
      Parts.push_back({T.Events[I].Start, T.Events[I].end()});
    int64_t HostNs = model::IntervalSet::unionOf(std::move(Parts)).length();
    return Outcome::cannotJudge(
        llvm::formatv(
            "the trace has {0}, so its {1} allocator calls "
            "and empty_cache frames ({2} of host time, a union) cannot be "
            "told apart as start-up or steady state; call prof.step() "
            "once per iteration and profile at least two steps",
            Ctx.hasSteps() ? "only one step" : "no step markers", Calls.size(),
            dur(HostNs))
            .str());
  }

  const double MinShare = Opts.number("min-share-of-step");
  const double MinGain = Opts.number("min-gain-share");
  const int64_t Target = Ctx.targetNs();
  if (Target <= 0)
    return Outcome::ran();
  const MeasureWindows &Win = Ctx.measureWindows();
  const size_t N = Win.Ranges.size();

  std::vector<std::vector<HostWait>> WaitsIn(N);
  std::vector<std::vector<Interval>> HostParts(N);
  std::vector<int64_t> Mallocs(N, 0), Frees(N, 0), Empties(N, 0);
  std::map<std::string, PathGroup> ByPath;
  for (uint32_t I : Calls) {
    const Event &E = T.Events[I];
    size_t R = Win.indexOf(E.Start);
    if (R == N)
      continue;
    AllocKind K = allocKind(Ctx, E);
    ++(K == AllocKind::Malloc ? Mallocs
       : K == AllocKind::Free ? Frees
                              : Empties)[R];
    // A call inside an empty_cache frame is counted, but its time and its
    // wait are the frame's.
    if (K != AllocKind::EmptyCache && insideEmptyCache(Ctx, E))
      continue;
    Interval In{E.Start, std::min(E.end(), Win.Ranges[R].End)};
    HostParts[R].push_back(In);
    HostWait W;
    W.Event = I;
    W.Lane = E.Lane;
    W.Kind = analysis::WaitKind::Explicit;
    W.Range = {E.Start, E.end()};
    WaitsIn[R].push_back(W);
    std::string Path = Ctx.opPath(E);
    PathGroup &G = ByPath[Path];
    ++G.Count;
    G.HostNs += In.length();
    if (G.Longest == model::NoIndex ||
        E.Duration > T.Events[G.Longest].Duration)
      G.Longest = I;
  }
  if (ByPath.empty())
    return Outcome::ran();

  // Per step: host time in the calls (a union), the device idle time each
  // opens (from its start to the device's next work, a union; the device
  // with most of it), and the bound on the gain.
  std::vector<int64_t> HostPer(N, 0), IdlePer(N, 0), GainPer(N, 0);
  for (size_t R = 0; R < N; ++R) {
    Interval Range = Win.Ranges[R];
    HostPer[R] = model::IntervalSet::unionOf(HostParts[R]).lengthWithin(Range);
    GainPer[R] = Ctx.waitsGainBound(WaitsIn[R], Range);
    IdlePer[R] = Ctx.idleOpenedBy(WaitsIn[R], Range);
  }
  int64_t HostMedian = median(HostPer);
  if (double(HostMedian) < MinShare * double(Target))
    return Outcome::ran();
  int64_t Impact = std::min(median(GainPer), Target);
  size_t StepsWithCalls =
      llvm::count_if(HostParts, [](const auto &P) { return !P.empty(); });

  auto Ranked = rankByKey(ByPath, [](const PathGroup &G) { return G.HostNs; });
  const auto *Top = Ranked.front();
  const Event &Longest = T.Events[Top->second.Longest];
  const double NumSteps = double(N);

  Detection Det;
  auto &V = Det.Values;
  V["value"] = dur(HostMedian);
  V["share"] = pct(double(HostMedian) / double(Target));
  V["threshold"] = pct(MinShare);
  V["mallocs"] = count(median(Mallocs));
  V["frees"] = count(median(Frees));
  V["empty_cache"] = count(median(Empties));
  V["steps_with_calls"] = llvm::formatv("{0} of {1}", StepsWithCalls, N).str();
  V["idle"] = dur(median(IdlePer));
  V["impact"] = dur(Impact);
  V["impact_share"] = pct(double(Impact) / double(Target));
  V["top_op_path"] = Top->first;
  V["subject"] = Top->first;
  V["example"] =
      llvm::formatv("{0} ({1}) at {2:f3} us", T.name(Longest),
                    dur(Longest.Duration), Ctx.traceTimestampUs(Longest))
          .str();
  V["target"] = Ctx.describeTarget();
  describeWindows(Win, V);
  V["empty_cache_note"] =
      llvm::any_of(Empties, [](int64_t C) { return C > 0; })
          ? "torch.cuda.empty_cache() runs inside the loop and returns the "
            "cached blocks to the driver, so the next step must allocate "
            "them again"
          : "no empty_cache frame is recorded in these steps (frames need "
            "with_stack=True), so the cache is released by the program or "
            "by the allocator itself, or asked for new sizes";
  for (size_t I = 0; I < Ranked.size() && I < 3; ++I) {
    const PathGroup &G = Ranked[I]->second;
    Det.ExtraEvidence.push_back(
        llvm::formatv("{0}: {1:f1} calls per step, {2} of host time per step",
                      Ranked[I]->first, double(G.Count) / NumSteps,
                      dur(int64_t(double(G.HostNs) / NumSteps)))
            .str());
  }
  Det.Examples.push_back(example(Ctx, Longest));
  Det.ImpactNs = Impact;
  // On the critical path: the allocator calls (and empty_cache frames)
  // taking no time, with the waits a cudaFree implies.
  Det.PathQuery = namesQuery(T, Calls);
  Det.Window = Win.describe();
  Det.Subject = Top->first;
  if (double(Impact) < MinGain * double(Target)) {
    Det.SeverityOverride = Severity::Info;
    V["verdict"] = "the device stayed busy meanwhile, so a warm allocator is "
                   "not predicted to shorten the step by more than {impact}";
  } else {
    V["verdict"] =
        "the device idled for up to {impact} per step because of them";
  }
  // The calls are recorded, not inferred; recurring in most steps is churn,
  // in a few it may be the cache still growing.
  Det.Confidence = 2 * StepsWithCalls > N ? 0.75 : 0.5;
  Out.push_back(std::move(Det));
  return Outcome::ran();
}
