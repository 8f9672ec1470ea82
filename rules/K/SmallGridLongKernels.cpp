//===- rules/K/SmallGridLongKernels.cpp - K004 long kernels, small grids -===//
//
// A kernel launched with fewer thread blocks than the device has SMs (CUs on
// AMD) leaves whole SMs without work for as long as it runs. For a long
// kernel that is time the device could have spent at a multiple of the
// speed, unless other work fills the idle SMs concurrently.
//
// Blocks per SM comes from the kernel's grid and the device's SM count
// (deviceProperties in Kineto traces, TARGET_INFO_GPU in Nsight Systems
// exports), or else from Kineto's own "blocks per SM" argument.
// Communication kernels (the importers' Collective kind) are never judged,
// nor is a kernel that kernels of other streams on its device overlap for
// more than max-concurrent-share of its time: its SMs are shared. Of the
// rest, the detector counts only the part that no other device work on the
// same device overlaps, and measures it as a union per step.
//
// The steps: per device, judge each long kernel's blocks per SM and split
// the device's work into small-grid kernels and the rest (collectDevice),
// measure the small-grid time no other work covers per steady window
// (measureDevice), then decide and describe each device that passes the
// thresholds.
//
//===----------------------------------------------------------------------===//
#include "rules/BuiltinDetectors.h"
#include "rules/detectors/DetectorSupport.h"
#include "rules/detectors/KernelNames.h"

#include "support/Count.h"
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

/// The SM count of device \p Id: its own properties, or, when the trace
/// numbers devices differently from its properties (ROCm traces give the
/// agent's number to kernels and the process's ordinal to the properties),
/// the count that every listed device shares. -1 when unknown.
int32_t smCount(const model::Trace &T, int32_t Id) {
  if (const model::DeviceInfo *D = deviceInfo(T, Id))
    return D->NumSMs;
  int32_t Shared = -1;
  for (const model::DeviceInfo &D : T.Devices) {
    if (D.NumSMs <= 0 || (Shared > 0 && D.NumSMs != Shared))
      return -1;
    Shared = D.NumSMs;
  }
  return Shared;
}

/// How a kernel's recorded grid counts: in blocks (CUDA, and HIP launches
/// given in blocks), in work-items (hipExtModuleLaunchKernel takes the
/// global work size, as MIOpen and Tensile kernels are launched), or
/// unknown (a HIP kernel whose launch call is not in the trace).
enum class GridUnit { Blocks, WorkItems, Unknown };

GridUnit gridUnit(const model::Trace &T, const Event &Kernel, bool Hip) {
  if (T.Source.KernelGridInBlocks)
    return GridUnit::Blocks;
  uint32_t L = T.launchOf(Kernel);
  if (L == model::NoIndex)
    return Hip ? GridUnit::Unknown : GridUnit::Blocks;
  llvm::StringRef Call = T.name(T.Events[L]);
  if (Call.startswith("hipExtModuleLaunchKernel") ||
      Call.startswith("hipHccModuleLaunchKernel"))
    return GridUnit::WorkItems;
  return GridUnit::Blocks;
}

/// A kernel name short enough for one line: Tensile and CK names run to
/// hundreds of characters.
std::string displayName(llvm::StringRef Full) {
  std::string S = shortKernelName(Full);
  if (S.size() > 72)
    S = S.substr(0, 69) + "...";
  return S;
}

std::string dims(const int32_t (&D)[3]) {
  return llvm::formatv("[{0}, {1}, {2}]", D[0], D[1], D[2]).str();
}

/// The thread blocks a kernel launched, from its grid in \p Unit; 0 when
/// the trace cannot tell.
int64_t blockCount(const model::EventArgs &A, GridUnit Unit) {
  int64_t Blocks = 1;
  for (int I = 0; I < 3; ++I) {
    if (A.Grid[I] <= 0)
      return 0;
    if (Unit == GridUnit::Blocks)
      Blocks *= A.Grid[I];
    else if (Unit == GridUnit::WorkItems && A.Block[I] > 0)
      Blocks *= (int64_t(A.Grid[I]) + A.Block[I] - 1) / A.Block[I];
    else
      return 0;
  }
  return Blocks;
}

/// One small-grid kernel configuration: a name with a grid and a block.
struct Group {
  uint64_t Count = 0;
  int64_t Ns = 0; ///< summed durations (shown; shares use unions)
  double BlocksPerSM = 0;
  float MinOccupancy = -1, MaxOccupancy = -1;
  uint32_t Longest = model::NoIndex;
};

/// What the long kernels of the trace allowed to be judged.
struct Judgement {
  uint64_t Long = 0, Judged = 0;
  uint64_t NoGrid = 0, NoSMs = 0, UnknownUnit = 0; ///< why one was not
  const Event *FirstUnjudged = nullptr;
  uint64_t unjudged() const { return NoGrid + NoSMs + UnknownUnit; }
};

/// The blocks per SM of long kernel \p E on a device of \p SMs SMs, or -1
/// when the trace cannot tell (counted in \p J by reason).
double blocksPerSM(const model::Trace &T, const Event &E, bool Hip, int32_t SMs,
                   Judgement &J) {
  ++J.Long;
  const model::EventArgs *A = T.args(E);
  bool HasGrid = A && A->Grid[0] > 0 && A->Grid[1] > 0 && A->Grid[2] > 0;
  GridUnit Unit = gridUnit(T, E, Hip);
  int64_t Blocks = HasGrid ? blockCount(*A, Unit) : 0;
  // Kineto's own figure is in blocks whatever the launch API.
  double B = Blocks > 0 && SMs > 0     ? double(Blocks) / SMs
             : A && A->BlocksPerSM > 0 ? double(A->BlocksPerSM)
                                       : -1.0;
  if (B < 0) {
    ++(!HasGrid                    ? J.NoGrid
       : Unit == GridUnit::Unknown ? J.UnknownUnit
                                   : J.NoSMs);
    if (!J.FirstUnjudged)
      J.FirstUnjudged = &E;
  } else {
    ++J.Judged;
  }
  return B;
}

/// One device's small-grid kernels inside the windows.
struct DeviceResult {
  int32_t Device;
  std::vector<int64_t> Gain; ///< per window
  int64_t ExposedNs = 0, GainNs = 0, BusyNs = 0;
  uint64_t Kernels = 0;
  std::map<std::string, Group> Groups;
  std::vector<uint32_t> Counted; ///< the small-grid kernels, for the path
  /// Small-grid kernels left out because other streams' kernels ran beside
  /// them.
  uint64_t Concurrent = 0;
};

/// Adds small-grid kernel \p I, with \p B blocks per SM, to its group.
void addToGroup(const model::Trace &T, uint32_t I, double B, DeviceResult &R) {
  const Event &E = T.Events[I];
  const model::EventArgs *A = T.args(E);
  ++R.Kernels;
  R.Counted.push_back(I);
  std::string Key =
      llvm::formatv("{0} grid {1} block {2}", displayName(T.name(E)),
                    dims(A->Grid), dims(A->Block))
          .str();
  Group &G = R.Groups[Key];
  ++G.Count;
  G.Ns += E.Duration;
  G.BlocksPerSM = B;
  if (A->Occupancy >= 0) {
    G.MinOccupancy = G.MinOccupancy < 0
                         ? A->Occupancy
                         : std::min(G.MinOccupancy, A->Occupancy);
    G.MaxOccupancy = std::max(G.MaxOccupancy, A->Occupancy);
  }
  if (G.Longest == model::NoIndex || E.Duration > T.Events[G.Longest].Duration)
    G.Longest = I;
}

/// One device's work, split into small-grid kernels and the rest.
struct DeviceSplit {
  DeviceResult R;
  std::vector<model::Interval> Small, Other;
  /// Per window: the summed time the small-grid kernels would save if they
  /// filled the device (each at most its duration x (1 - blocks per SM)).
  std::vector<int64_t> Saving;
};

/// The thresholds of the rule's options.
struct Limits {
  int64_t MinKernel;
  double MaxBlocks;
  double MaxConcurrent;
};

/// Kernels (compute and communication, which run on SMs; copies and memsets
/// use copy engines) of one device's other streams, as one union per
/// stream left out, built on first question.
class ConcurrentKernels {
public:
  ConcurrentKernels(const TraceIndex &Ctx, int32_t D) : Ctx(Ctx), D(D) {}
  /// How much of \p E kernels on other streams of its device overlap.
  int64_t overlap(const Event &E) {
    auto [It, New] = ByLane.try_emplace(E.Lane);
    if (New) {
      const model::Trace &T = Ctx.trace();
      std::vector<model::Interval> Parts;
      for (uint32_t I : Ctx.deviceWork(D)) {
        const Event &O = T.Events[I];
        if (O.Lane != E.Lane &&
            (O.Kind == EventKind::Kernel || O.Kind == EventKind::Collective))
          Parts.push_back({O.Start, O.end()});
      }
      It->second = model::IntervalSet::unionOf(std::move(Parts));
    }
    return It->second.lengthWithin({E.Start, E.end()});
  }

private:
  const TraceIndex &Ctx;
  int32_t D;
  std::map<uint32_t, model::IntervalSet> ByLane;
};

DeviceSplit collectDevice(const TraceIndex &Ctx, int32_t D, bool Hip,
                          Limits Lim, Judgement &J) {
  const model::Trace &T = Ctx.trace();
  const MeasureWindows &Win = Ctx.measureWindows();
  const int32_t SMs = smCount(T, D);
  DeviceSplit S;
  S.R.Device = D;
  S.Saving.assign(Win.Ranges.size(), 0);
  ConcurrentKernels Concurrent(Ctx, D);
  for (uint32_t I : Ctx.deviceWork(D)) {
    const Event &E = T.Events[I];
    double B = E.Kind == EventKind::Kernel && E.Duration >= Lim.MinKernel
                   ? blocksPerSM(T, E, Hip, SMs, J)
                   : -1.0;
    if (B < 0 || B >= Lim.MaxBlocks) {
      S.Other.push_back({E.Start, E.end()});
      continue;
    }
    // A kernel that shares its device with kernels of other streams for
    // more than a sliver of its time leaves its SMs to them, often by
    // design (expert-parallel dispatch beside the GEMMs, a side stream for
    // the optimizer): its grid is not a loss the trace can prove.
    if (double(Concurrent.overlap(E)) >
        Lim.MaxConcurrent * double(E.Duration)) {
      ++S.R.Concurrent;
      S.Other.push_back({E.Start, E.end()});
      continue;
    }
    S.Small.push_back({E.Start, E.end()});
    size_t W = Win.indexOf(E.Start);
    if (W == Win.Ranges.size())
      continue;
    S.Saving[W] += int64_t(double(E.Duration) * (1.0 - B));
    addToGroup(T, I, B, S.R);
  }
  return S;
}

/// The small-grid time that no other work on the device covers, and what
/// filling the device could gain of it, per window.
void measureDevice(const TraceIndex &Ctx, DeviceSplit &S) {
  const MeasureWindows &Win = Ctx.measureWindows();
  model::IntervalSet SmallSet = model::IntervalSet::unionOf(std::move(S.Small));
  model::IntervalSet Covered =
      SmallSet.intersect(model::IntervalSet::unionOf(std::move(S.Other)));
  const model::IntervalSet &Busy = Ctx.deviceBusy(S.R.Device);
  DeviceResult &R = S.R;
  for (size_t W = 0; W < Win.Ranges.size(); ++W) {
    model::Interval Range = Win.Ranges[W];
    int64_t Exposed =
        SmallSet.lengthWithin(Range) - Covered.lengthWithin(Range);
    R.ExposedNs += Exposed;
    R.GainNs += std::min(Exposed, S.Saving[W]);
    R.BusyNs += Busy.lengthWithin(Range);
    R.Gain.push_back(std::min(Exposed, S.Saving[W]));
  }
}

/// Why no long kernel could be judged.
Outcome unjudged(const model::Trace &T, const Judgement &J, int64_t MinKernel) {
  std::string Example = displayName(T.name(*J.FirstUnjudged));
  if (J.NoSMs > 0)
    return Outcome::cannotJudge(
        llvm::formatv("{0} of at least {1} ran (such as {2}) "
                      "with their grids, but the trace has no SM count for the "
                      "device (deviceProperties numSms in Kineto traces, "
                      "TARGET_INFO_GPU in Nsight Systems exports) and no "
                      "blocks per SM",
                      support::formatCount(J.Long, "kernel"), dur(MinKernel),
                      Example)
            .str());
  if (J.UnknownUnit > 0)
    return Outcome::cannotJudge(
        llvm::formatv("{0} of at least {1} ran (such as {2}) "
                      "on a HIP device without their launch calls in the "
                      "trace, and HIP records grids in blocks or in "
                      "work-items depending on the launch API; record the "
                      "runtime calls too",
                      support::formatCount(J.Long, "kernel"), dur(MinKernel),
                      Example)
            .str());
  return Outcome::cannotJudge(
      llvm::formatv("{0} of at least {1} ran (such as {2}), "
                    "but the trace records no launch grid for them; "
                    "Kineto and Nsight Systems record grid and block with "
                    "each CUDA or HIP kernel",
                    support::formatCount(J.Long, "kernel"), dur(MinKernel),
                    Example)
          .str());
}

std::string occupancyText(const Group &G) {
  if (G.MaxOccupancy < 0)
    return "not recorded";
  if (G.MaxOccupancy == 0)
    return "recorded as 0 %, which usually means the profiler could not "
           "compute it, not that nothing ran";
  return llvm::formatv("{0:f0}-{1:f0} %", G.MinOccupancy, G.MaxOccupancy).str();
}

/// {device}, {sms} and the top configuration's values; the longest kernel
/// of the top configuration is the example and the subject.
void describeTopKernel(const TraceIndex &Ctx, const DeviceResult &R,
                       const Group &Top, Detection &Det) {
  const model::Trace &T = Ctx.trace();
  const Event &Longest = T.Events[Top.Longest];
  const model::EventArgs &TA = *T.args(Longest);
  const model::DeviceInfo *Info = deviceInfo(T, R.Device);
  auto &V = Det.Values;
  V["device"] =
      Info && !Info->Name.empty()
          ? llvm::formatv("device {0} ({1})", R.Device, Info->Name).str()
          : llvm::formatv("device {0}", R.Device).str();
  int32_t SMs = smCount(T, R.Device);
  V["sms"] = SMs > 0 ? count(SMs) : Value("unknown");
  V["top_kernel"] = displayName(T.name(Longest));
  V["top_grid"] = dims(TA.Grid);
  V["top_block"] = dims(TA.Block);
  V["top_bps"] = Value::number(Top.BlocksPerSM, 2);
  V["top_count"] = count(int64_t(Top.Count));
  V["top_time"] = dur(Top.Ns);
  V["occupancy"] = occupancyText(Top);
  V["example"] = nameAt(Ctx, displayName(T.name(Longest)), Longest);
  Det.Examples.push_back(example(Ctx, Longest));
  Det.Subject = T.name(Longest).str();
}

/// The finding for one device whose small-grid time passed the thresholds.
Detection describeDevice(const TraceIndex &Ctx, const DeviceResult &R,
                         double Share, int64_t Impact, const Judgement &J,
                         const RuleOptions &Opts) {
  const model::Trace &T = Ctx.trace();
  const int64_t MinKernel = int64_t(Opts.number("min-kernel"));
  auto Ranked = rankByKey(R.Groups, [](const Group &G) { return G.Ns; });
  Detection Det;
  describeTopKernel(Ctx, R, Ranked.front()->second, Det);
  auto &V = Det.Values;
  V["value"] = pct(Share);
  V["share"] = pct(Share);
  V["threshold"] = pct(Opts.number("min-share-of-busy"));
  V["kernels"] = count(int64_t(R.Kernels));
  V["exposed"] = dur(R.ExposedNs);
  V["idle_sm_time"] = dur(R.GainNs);
  V["busy"] = dur(R.BusyNs);
  V["per_step"] = dur(median(R.Gain));
  V["min_kernel"] = dur(MinKernel);
  V["max_blocks"] = Value::number(Opts.number("max-blocks-per-sm"), 2);
  V["impact"] = dur(Impact);
  V["target"] = Ctx.describeTarget();
  const MeasureWindows &Win = Ctx.measureWindows();
  describeWindows(Win, V);
  addRunnersUp(Det, Ranked, [](const auto &G) {
    return llvm::formatv("also {0}: {1}, {2}, {3:f2} blocks per SM", G.first,
                         support::formatCount(G.second.Count, "kernel"),
                         dur(G.second.Ns), G.second.BlocksPerSM)
        .str();
  });
  if (R.Concurrent > 0)
    Det.ExtraEvidence.push_back(inTraceWords(
        Ctx,
        llvm::formatv("{0} other small-grid kernels ran "
                      "beside kernels of other streams for "
                      "more than {1} of their time and "
                      "were left out: their idle SMs had "
                      "other work",
                      R.Concurrent, pct(Opts.number("max-concurrent-share")))
            .str()));
  if (J.unjudged() > 0)
    Det.ExtraEvidence.push_back(
        llvm::formatv("{0} other kernels of at least {1} have no grid, no "
                      "SM count or a grid in unknown units, and were not "
                      "judged",
                      J.unjudged(), dur(MinKernel))
            .str());
  Det.ImpactNs = Impact;
  // On the critical path: these kernels taking no time (a fuller grid
  // makes them faster, not free: a loose but safe cap).
  Det.PathQuery = namesQuery(T, R.Counted);
  Det.Window = Win.describe();
  // The grid is certain; whether more blocks would run faster (rather
  // than meet a bandwidth or dependency limit) is not.
  Det.Confidence = 0.5;
  return Det;
}

} // namespace

Outcome rules::runSmallGridLongKernels(const TraceIndex &Ctx,
                                       const RuleOptions &Opts,
                                       std::vector<Detection> &Out) {
  const model::Trace &T = Ctx.trace();
  const Limits Lim{int64_t(Opts.number("min-kernel")),
                   Opts.number("max-blocks-per-sm"),
                   Opts.number("max-concurrent-share")};
  const double MinShare = Opts.number("min-share-of-busy");
  const double MinTargetShare = Opts.number("min-share-of-step");

  // A HIP runtime records grids in different units per launch API.
  const bool Hip = Ctx.producer().isRocm();
  Judgement J;
  std::vector<DeviceResult> Results;
  for (int32_t D : Ctx.devices()) {
    DeviceSplit S = collectDevice(Ctx, D, Hip, Lim, J);
    if (S.Small.empty())
      continue;
    measureDevice(Ctx, S);
    if (S.R.Kernels > 0)
      Results.push_back(std::move(S.R));
  }
  if (J.Long > 0 && J.Judged == 0)
    return unjudged(T, J, Lim.MinKernel);

  const int64_t Target = Ctx.targetNs();
  for (const DeviceResult &R : Results) {
    if (R.BusyNs <= 0)
      continue;
    double Share = double(R.GainNs) / double(R.BusyNs);
    if (Share < MinShare)
      continue;
    int64_t Impact = std::min(median(R.Gain), Target);
    if (double(Impact) < MinTargetShare * double(Target))
      continue;
    Out.push_back(describeDevice(Ctx, R, Share, Impact, J, Opts));
  }
  return Outcome::ran();
}
