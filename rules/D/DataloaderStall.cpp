//===- rules/D/DataloaderStall.cpp - D001 data-loader stall ---------------===//
//
// PyTorch records a range around every next() of a DataLoader (or DataPipe)
// iterator on the thread that asks for the batch. Time spent there is not a
// problem while queued device work keeps the device busy; it costs
// completion time only where the device has nothing to do and waits for
// work that this thread will submit. That is the "data loading (D001)" part
// of the trace index's idle split (the launching thread's host timeline is
// inside its loader range), and the figure is that part exactly, the
// typical split over the steady steps of the device it idles most:
// removing the loader time could give back at most that much.
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

/// The loader ranges inside each measured window.
struct LoaderTime {
  std::vector<IntervalSet> PerWindow; ///< the ranges' union, clipped
  std::vector<int64_t> Ns;            ///< its length
};

LoaderTime loaderTime(const TraceIndex &Ctx) {
  LoaderTime L;
  for (const Interval &R : Ctx.measureWindows().Ranges) {
    L.PerWindow.push_back(
        Ctx.dataLoaderRanges().intersect(IntervalSet::unionOf({R})));
    L.Ns.push_back(L.PerWindow.back().length());
  }
  return L;
}

/// The data-loading idle of one device: the idle split's part.
struct DeviceStall {
  int32_t Device = -1;
  int64_t Stall = 0; ///< typicalIdle()'s data loading
};

std::vector<DeviceStall> measureStalls(const TraceIndex &Ctx) {
  std::vector<DeviceStall> ByDevice;
  analysis::IdleOptions IO;
  IO.KeepGaps = true; // the split the target line and L001/L002 read
  for (int32_t D : streamDevices(Ctx))
    ByDevice.push_back({D, Ctx.typicalIdle(D, IO).DataLoadingNs});
  return ByDevice;
}

/// The loader calls inside the measured windows: names, calls, longest.
struct LoaderCalls {
  std::map<std::string, uint64_t> Names;
  std::vector<int64_t> PerWindow;
  const Event *Longest = nullptr;
  /// The trace has enumerate(...) ranges, not only Python frames.
  bool HasRanges = false;
};

LoaderCalls collectCalls(const TraceIndex &Ctx) {
  const model::Trace &T = Ctx.trace();
  const MeasureWindows &Win = Ctx.measureWindows();
  llvm::ArrayRef<uint32_t> Loader = Ctx.dataLoaderEvents();
  LoaderCalls C;
  C.PerWindow.assign(Win.Ranges.size(), 0);
  // Name and count calls by the enumerate(...) ranges when the trace has
  // them (a with_stack frame may enclose one, and its name says less), else
  // by the Python frames; a range nested in another counts once.
  C.HasRanges = llvm::any_of(Loader, [&](uint32_t I) {
    return T.Events[I].Kind != model::EventKind::Python;
  });
  auto Counted = [&](const Event &E) {
    return !C.HasRanges || E.Kind != model::EventKind::Python;
  };
  for (uint32_t I : Loader) {
    const Event &E = T.Events[I];
    if (!Counted(E))
      continue;
    bool Nested = false;
    for (uint32_t P = E.Parent; P != model::NoIndex && !Nested;
         P = T.Events[P].Parent)
      Nested = Counted(T.Events[P]) && Ctx.isDataLoaderRange(T.Events[P]);
    size_t W = Win.indexOf(E.Start);
    if (Nested || W == Win.Ranges.size())
      continue;
    ++C.PerWindow[W];
    ++C.Names[T.name(E).str()];
    if (!C.Longest || E.Duration > C.Longest->Duration)
      C.Longest = &E;
  }
  return C;
}

/// The first step, left out of the measure, often shows worker start-up:
/// says so when it spends more than twice the median in the loader.
void noteFirstStep(const TraceIndex &Ctx, int64_t LoaderMedian,
                   Detection &Det) {
  if (!Ctx.measureWindows().Steps || Ctx.steps().size() < 3)
    return;
  const Interval &First = Ctx.steps().front().Range;
  int64_t FirstNs =
      Ctx.dataLoaderRanges().intersect(IntervalSet::unionOf({First})).length();
  if (LoaderMedian > 0 && FirstNs > 2 * LoaderMedian)
    Det.ExtraEvidence.push_back(
        llvm::formatv("the first step spends {0} in the loader, more than "
                      "twice the later steps: worker start-up or a cold "
                      "cache at the start of an epoch (persistent_workers "
                      "keeps workers alive across epochs)",
                      dur(FirstNs))
            .str());
}

Detection describeStall(const TraceIndex &Ctx, const LoaderTime &Loader,
                        const DeviceStall &Best, int64_t Stall,
                        double MinShare) {
  const LoaderCalls Calls = collectCalls(Ctx);
  const std::vector<std::string> Top = namesByTotal(Calls.Names);
  const int64_t LoaderMed = median(Loader.Ns);
  // Device busy share of the loader time, over all measured windows.
  int64_t LoaderSum = 0, BusySum = 0;
  for (size_t W = 0; W < Loader.Ns.size(); ++W) {
    LoaderSum += Loader.Ns[W];
    BusySum +=
        Ctx.deviceBusy(Best.Device).intersect(Loader.PerWindow[W]).length();
  }
  Detection Det = impactDetection(Ctx, Stall, MinShare);
  auto &V = Det.Values;
  V["device"] = deviceName(Best.Device);
  V["loader"] = dur(LoaderMed);
  V["loader_share"] = pct(double(LoaderMed) / double(Ctx.targetNs()));
  V["busy_during"] =
      pct(LoaderSum > 0 ? double(BusySum) / double(LoaderSum) : 0);
  V["calls_per_step"] = count(median(Calls.PerWindow));
  V["top_names"] = joinNames(Top);
  V["loader_name"] = Top.empty() ? "the data loader" : Top.front();
  V["change"] = changeFor(V["loader_name"].text());
  V["longest"] = dur(Calls.Longest ? Calls.Longest->Duration : 0);
  V["example"] = Calls.Longest ? eventAt(Ctx, *Calls.Longest) : "none";
  if (Calls.Longest)
    Det.Examples.push_back(example(Ctx, *Calls.Longest));
  noteFirstStep(Ctx, LoaderMed, Det);
  Det.Subject = V["loader_name"].text();
  Det.Confidence = 0.8;
  // With only Python frames (no record_function range) the frame may cover
  // less or more than the loader's own work.
  if (!Calls.HasRanges) {
    Det.Confidence = 0.65;
    Det.ConfidenceNotes.emplace_back(
        "the loader is seen only through Python stack frames, not through "
        "its enumerate(DataLoader) range");
  }
  return Det;
}

} // namespace

Outcome rules::runDataloaderStall(const TraceIndex &Ctx,
                                  const RuleOptions &Opts,
                                  std::vector<Detection> &Out) {
  if (Ctx.dataLoaderEvents().empty()) {
    if (!hasFrameworkRanges(Ctx.trace()))
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

  const LoaderTime Loader = loaderTime(Ctx);
  const std::vector<DeviceStall> ByDevice = measureStalls(Ctx);
  // The device that the loader leaves idle longest.
  const DeviceStall *Best =
      largestBy(ByDevice, [](const DeviceStall &S) { return S.Stall; });
  if (!Best)
    return Outcome::ran();
  const int64_t Stall = std::min(Best->Stall, Target);
  if (!reachesShareOfTarget(Stall, Target, MinShare))
    return quietUnderFloor(Stall, Target, MinShare);

  Out.push_back(describeStall(Ctx, Loader, *Best, Stall, MinShare));
  return Outcome::ran();
}
