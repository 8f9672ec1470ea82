//===- rules/detectors/DataLoaderStall.cpp - D001 data-loader stall -------===//
//
// PyTorch records a range around every next() of a DataLoader (or DataPipe)
// iterator on the thread that asks for the batch. Time spent there is not a
// problem while queued device work keeps the device busy; it costs
// completion time only where the device has nothing to do. So the figure is
// the part of the loader ranges (their union, per step) during which the
// device's busy union is empty: removing the loader time entirely could
// give back at most that much, so it is also the impact.
//
// Loader ranges on threads that submit no device work (a prefetching thread)
// do not hold the device back and are ignored (see dataLoaderEvents).
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
using model::Interval;
using model::IntervalSet;

namespace {

/// True when the host records framework ranges at all (ops, annotations or
/// Python frames); without them a data loader cannot be seen.
bool hasFrameworkRanges(const model::Trace &T) {
  return llvm::any_of(T.Events, [&](const Event &E) {
    return T.laneOf(E).Kind == model::LaneKind::HostThread &&
           (E.Kind == model::EventKind::Op ||
            E.Kind == model::EventKind::Annotation ||
            E.Kind == model::EventKind::Python);
  });
}

/// The experiment that fits the loader the trace shows.
std::string changeFor(llvm::StringRef Loader) {
  if (Loader.contains("_SingleProcessDataLoaderIter"))
    return "load batches in worker processes instead of the training "
           "thread: DataLoader(num_workers=N) with N > 0 (start near the CPU "
           "cores available per device)";
  if (Loader.contains("_MultiProcessingDataLoaderIter"))
    return "give the loader workers more headroom: raise num_workers; if the "
           "stall is bursty rather than steady, raise prefetch_factor "
           "instead, and if it is the first batches after each epoch start, "
           "set persistent_workers=True";
  return "run the input pipeline ahead of the step: more loader workers "
         "(num_workers, or the reading service of a DataPipe graph) or a "
         "prefetching stage that prepares the next batch while the device "
         "works";
}

struct DeviceStall {
  int32_t Device = -1;
  std::vector<int64_t> Stall; ///< per window
};

} // namespace

Outcome rules::runDataloaderStall(const TraceIndex &Ctx,
                                  const RuleOptions &Opts,
                                  std::vector<Detection> &Out) {
  const model::Trace &T = Ctx.trace();
  std::vector<uint32_t> Loader = Ctx.dataLoaderEvents();
  if (Loader.empty()) {
    if (!hasFrameworkRanges(T))
      return Outcome::cannotJudge(
          "the trace has no framework ops or annotations on "
          "the host, so data-loader ranges cannot be seen; record them "
          "with ProfilerActivity.CPU (Nsight Systems: NVTX ranges from "
          "torch.autograd.profiler.emit_nvtx)");
    return Outcome::ran(); // the host is recorded and never waits for a loader
  }
  const double MinShare = Opts.number("min-stall-share");
  const int64_t Target = Ctx.targetNs();
  if (Target <= 0)
    return Outcome::ran();
  const MeasureWindows &Win = Ctx.measureWindows();

  std::vector<Interval> Parts;
  for (uint32_t I : Loader)
    Parts.push_back({T.Events[I].Start, T.Events[I].end()});
  IntervalSet LoaderSet = IntervalSet::unionOf(std::move(Parts));

  std::vector<IntervalSet> LoaderIn; // per window, clipped
  std::vector<int64_t> LoaderNs;
  for (const Interval &R : Win.Ranges) {
    LoaderIn.push_back(LoaderSet.intersect(IntervalSet::unionOf({R})));
    LoaderNs.push_back(LoaderIn.back().length());
  }
  std::vector<DeviceStall> ByDevice;
  for (int32_t D : Ctx.devices()) {
    if (D < 0)
      continue; // device work outside device streams: no busy union
    DeviceStall S;
    S.Device = D;
    for (size_t W = 0; W < Win.Ranges.size(); ++W)
      S.Stall.push_back(LoaderNs[W] -
                        Ctx.deviceBusy(D).intersect(LoaderIn[W]).length());
    ByDevice.push_back(std::move(S));
  }
  if (ByDevice.empty())
    return Outcome::ran();
  // The device that the loader leaves idle longest (median per window).
  auto Best = std::max_element(ByDevice.begin(), ByDevice.end(),
                               [](const DeviceStall &A, const DeviceStall &B) {
                                 return median(A.Stall) < median(B.Stall);
                               });
  int64_t Stall = std::min(median(Best->Stall), Target);
  double Share = double(Stall) / double(Target);
  if (Stall <= 0 || Share < MinShare)
    return Outcome::ran();

  // The loader ranges inside the measured windows: names, calls, longest.
  std::map<std::string, uint64_t> Names;
  std::vector<uint64_t> CallsPer(Win.Ranges.size(), 0);
  const Event *Longest = nullptr;
  // Name and count calls by the enumerate(...) ranges when the trace has
  // them (a with_stack frame may enclose one, and its name says less), else
  // by the Python frames; a range nested in another counts once.
  const bool HasRanges = llvm::any_of(Loader, [&](uint32_t I) {
    return T.Events[I].Kind != model::EventKind::Python;
  });
  auto Counted = [&](const Event &E) {
    return !HasRanges || E.Kind != model::EventKind::Python;
  };
  for (uint32_t I : Loader) {
    const Event &E = T.Events[I];
    if (!Counted(E))
      continue;
    bool Nested = false;
    for (uint32_t P = E.Parent; P != model::NoIndex && !Nested;
         P = T.Events[P].Parent)
      Nested = Counted(T.Events[P]) && Ctx.isDataLoaderRange(T.Events[P]);
    if (Nested)
      continue;
    // The window holding the instant (a binary search).
    auto It = Win.Ranges.begin() + Win.indexOf(E.Start);
    if (It == Win.Ranges.end())
      continue;
    ++CallsPer[It - Win.Ranges.begin()];
    ++Names[T.name(E).str()];
    if (!Longest || E.Duration > Longest->Duration)
      Longest = &E;
  }
  std::vector<std::pair<uint64_t, std::string>> ByCount;
  for (auto &[Name, N] : Names)
    ByCount.push_back({N, Name});
  llvm::sort(ByCount, [](const auto &A, const auto &B) {
    return A.first > B.first || (A.first == B.first && A.second < B.second);
  });
  std::vector<std::string> Top;
  for (auto &[N, Name] : ByCount)
    Top.push_back(Name);
  std::vector<int64_t> Calls(CallsPer.begin(), CallsPer.end());

  Detection Det;
  auto &V = Det.Values;
  int64_t LoaderMed = median(LoaderNs);
  V["device"] = llvm::formatv("device {0}", Best->Device).str();
  V["value"] = dur(Stall);
  V["share"] = pct(Share);
  V["impact"] = dur(Stall);
  V["threshold"] = pct(MinShare);
  V["loader"] = dur(LoaderMed);
  V["loader_share"] = pct(double(LoaderMed) / double(Target));
  // Device busy share of the loader time, over all measured windows.
  int64_t LoaderSum = 0, StallSum = 0;
  for (size_t W = 0; W < LoaderNs.size(); ++W) {
    LoaderSum += LoaderNs[W];
    StallSum += Best->Stall[W];
  }
  V["busy_during"] =
      pct(LoaderSum > 0 ? double(LoaderSum - StallSum) / double(LoaderSum) : 0);
  V["calls_per_step"] = std::to_string(median(Calls));
  V["top_names"] = joinNames(Top);
  V["loader_name"] = Top.empty() ? "the data loader" : Top.front();
  V["change"] = changeFor(V["loader_name"].text());
  V["target"] = Ctx.describeTarget();
  describeWindows(Win, V);
  if (Longest) {
    V["longest"] = dur(Longest->Duration);
    V["example"] = llvm::formatv("{0} at {1:f3} us", T.name(*Longest),
                                 Ctx.traceTimestampUs(*Longest))
                       .str();
    Det.Examples.push_back(example(Ctx, *Longest));
  } else {
    V["longest"] = dur(0);
    V["example"] = "none";
  }
  // The first step, left out of the measure, often shows worker start-up.
  if (Win.Steps && Ctx.steps().size() >= 3) {
    const Interval &First = Ctx.steps().front().Range;
    int64_t FirstNs =
        LoaderSet.intersect(IntervalSet::unionOf({First})).length();
    if (LoaderMed > 0 && FirstNs > 2 * LoaderMed)
      Det.ExtraEvidence.push_back(
          llvm::formatv("the first step spends {0} in the loader, more than "
                        "twice the later steps: worker start-up or a cold "
                        "cache at the start of an epoch (persistent_workers "
                        "keeps workers alive across epochs)",
                        dur(FirstNs))
              .str());
  }
  Det.ImpactNs = Stall;
  Det.Window = Win.describe();
  Det.Subject = V["loader_name"].text();
  Det.Confidence = 0.8;
  // With only Python frames (no record_function range) the frame may cover
  // less or more than the loader's own work.
  if (!HasRanges) {
    Det.Confidence = 0.65;
    Det.ConfidenceNotes.push_back(
        "the loader is seen only through Python stack frames, not through "
        "its enumerate(DataLoader) range");
  }
  Out.push_back(std::move(Det));
  return Outcome::ran();
}
