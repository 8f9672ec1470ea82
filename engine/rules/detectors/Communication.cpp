//===- rules/detectors/Communication.cpp - N rules: collectives and ranks -===//
//
// Single-trace communication signals. A collective kernel (NCCL/RCCL, the
// importers' Collective kind) that runs while no compute kernel runs on the
// same device is exposed: the step waits for it. Exposure is measured as a
// union: the collectives' busy union on a device minus that device's compute
// union, then unioned over devices, never a sum of kernel durations.
//
// A rank's trace says nothing about the other ranks: a collective lasts until
// the slowest peer arrives, so part of what looks like communication can be
// waiting. The texts say so; multi-rank skew analysis is separate work.
//
//===----------------------------------------------------------------------===//
#include "rules/detectors/BuiltinDetectors.h"
#include "rules/detectors/DetectorSupport.h"
#include "rules/detectors/StartupScan.h"

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
using model::Interval;
using model::IntervalSet;

namespace {

/// "ncclKernel_AllReduce_RING_LL_Sum_float" from the full kernel name: the
/// parameter list says nothing about the collective.
std::string collectiveFamily(llvm::StringRef Name) {
  return Name.substr(0, Name.find('(')).trim().str();
}

/// The parts of \p Part that \p Cover leaves uncovered, appended to \p Out.
void uncovered(const IntervalSet &Cover, Interval Part,
               std::vector<Interval> &Out) {
  for (const Interval &G : Cover.gapsWithin(Part))
    Out.push_back(G);
}

/// Collectives and compute kernels of one device.
struct DeviceComm {
  std::vector<uint32_t> Collectives;
  IntervalSet Compute;
};

std::vector<DeviceComm> splitDeviceWork(const TraceIndex &Ctx) {
  const model::Trace &T = Ctx.trace();
  std::vector<DeviceComm> Out;
  for (int32_t D : Ctx.devices()) {
    DeviceComm DC;
    std::vector<Interval> Compute;
    for (uint32_t I : Ctx.deviceWork(D)) {
      const Event &E = T.Events[I];
      if (E.Kind == EventKind::Collective)
        DC.Collectives.push_back(I);
      else if (E.Kind == EventKind::Kernel)
        Compute.push_back({E.Start, E.end()});
    }
    DC.Compute = IntervalSet::unionOf(std::move(Compute));
    Out.push_back(std::move(DC));
  }
  return Out;
}

} // namespace

std::string rules::runExposedCommunication(const TraceIndex &Ctx, const RuleSpec &,
                                           const RuleOptions &Opts,
                                           std::vector<Detection> &Out) {
  const model::Trace &T = Ctx.trace();
  if (!Ctx.hasDeviceActivity())
    return "cannot judge: the trace has no device activity";
  std::vector<DeviceComm> Devices = splitDeviceWork(Ctx);
  size_t NumCollectives = 0;
  for (const DeviceComm &DC : Devices)
    NumCollectives += DC.Collectives.size();
  if (NumCollectives == 0) {
    if (T.Source.WorldSize > 1)
      return llvm::formatv(
                 "cannot judge: distributedInfo gives a world size of {0} "
                 "but no communication kernel (nccl*/rccl*) was recorded; "
                 "the collectives may run on a CPU backend (gloo) or "
                 "outside the profiled window",
                 T.Source.WorldSize)
          .str();
    return ""; // no communication: nothing to overlap
  }
  if (std::string Why = startupWindowReason(Ctx); !Why.empty())
    return Why;

  const double MinShare = optionOr(Opts, "min-exposed-share", 0.05);
  MeasureWindows MW = measureWindows(Ctx);

  // A collective belongs to the step whose host range holds its launch
  // call (its own start without correlation): a device that lags the host
  // runs a step's collectives after the host step has ended, and clipping
  // them to the host range would measure the wrong work. Its exposed part
  // is whatever no compute kernel of its device covers, at any time.
  std::map<int64_t, size_t> WindowOfStep;
  for (size_t K = 0; K < MW.StepNumbers.size(); ++K)
    WindowOfStep[MW.StepNumbers[K]] = K;
  std::vector<std::vector<Interval>> Comm(MW.Ranges.size()),
      Exposed(MW.Ranges.size());
  // Exposed time per collective family, and the most exposed collective
  // (for the example), over the measured windows.
  std::map<std::string, int64_t> ByFamily;
  std::map<std::string, size_t> CountByFamily;
  uint32_t Worst = model::NoIndex;
  int64_t WorstNs = -1;
  size_t Counted = 0;
  for (const DeviceComm &DC : Devices) {
    for (uint32_t I : DC.Collectives) {
      const Event &E = T.Events[I];
      size_t K = 0;
      if (MW.Steps) {
        uint32_t L = T.launchOf(E);
        int S = Ctx.stepAt(L != model::NoIndex ? T.Events[L].Start : E.Start);
        if (S < 0)
          continue;
        auto It = WindowOfStep.find(Ctx.steps()[size_t(S)].Number);
        if (It == WindowOfStep.end())
          continue; // the first step, left to U001
        K = It->second;
      }
      Interval Part{E.Start, E.end()};
      if (Part.length() <= 0)
        continue;
      ++Counted;
      Comm[K].push_back(Part);
      size_t Before = Exposed[K].size();
      uncovered(DC.Compute, Part, Exposed[K]);
      int64_t Own = 0;
      for (size_t J = Before; J < Exposed[K].size(); ++J)
        Own += Exposed[K][J].length();
      std::string Family = collectiveFamily(T.name(E));
      ByFamily[Family] += Own;
      ++CountByFamily[Family];
      if (Own > WorstNs) {
        WorstNs = Own;
        Worst = I;
      }
    }
  }
  if (Counted == 0)
    return ""; // no collective was launched in the measured steps

  std::vector<int64_t> CommNs, ExposedNs, Lengths;
  for (size_t K = 0; K < MW.Ranges.size(); ++K) {
    CommNs.push_back(IntervalSet::unionOf(std::move(Comm[K])).length());
    ExposedNs.push_back(IntervalSet::unionOf(std::move(Exposed[K])).length());
    Lengths.push_back(MW.Ranges[K].length());
  }
  int64_t MedianExposed = median(ExposedNs);
  int64_t MedianComm = median(CommNs);
  int64_t MedianLength = median(Lengths);
  int64_t MaxExposed = *std::max_element(ExposedNs.begin(), ExposedNs.end());
  // A device that lags the host can run more than a host step's length of
  // one step's communication: the share is then capped at the whole step.
  double MedianShare =
      MedianLength > 0
          ? std::min(1.0, double(MedianExposed) / double(MedianLength))
          : 0.0;
  if (MedianShare < MinShare)
    return "";

  Detection Det;
  auto &V = Det.Values;
  MW.describeInto(V);
  V["value"] = dur(MedianExposed);
  V["exposed"] = dur(MedianExposed);
  V["share"] = pct(MedianShare);
  V["threshold"] = pct(MinShare);
  V["comm"] = dur(MedianComm);
  V["hidden_share"] =
      MedianComm > 0 ? pct(1.0 - double(MedianExposed) / double(MedianComm))
                     : pct(0);
  V["count"] = std::to_string(Counted);

  std::vector<std::pair<int64_t, std::string>> Families;
  for (auto &[Name, Ns] : ByFamily)
    Families.push_back({Ns, Name});
  llvm::sort(Families, [](const auto &A, const auto &B) {
    return A.first > B.first || (A.first == B.first && A.second < B.second);
  });
  std::vector<std::string> Top;
  for (auto &[Ns, Name] : Families)
    Top.push_back(llvm::formatv("{0} ({1}x, {2} exposed)", Name,
                                CountByFamily[Name], dur(Ns))
                      .str());
  V["top_names"] = joinNames(Top);
  V["subject"] = Families.front().second;

  // Collectives that share a stream with compute kernels are ordered
  // behind them by the stream itself: no bucket size can overlap those.
  size_t SameStream = 0;
  {
    std::map<std::pair<int32_t, int64_t>, bool> ComputeStreams;
    for (int32_t D : Ctx.devices())
      for (uint32_t I : Ctx.deviceWork(D)) {
        const Event &E = T.Events[I];
        if (E.Kind == EventKind::Kernel)
          ComputeStreams[{T.laneOf(E).Device, T.laneOf(E).Stream}] = true;
      }
    for (const DeviceComm &DC : Devices)
      for (uint32_t I : DC.Collectives) {
        const model::Lane &L = T.laneOf(T.Events[I]);
        if (ComputeStreams.count({L.Device, L.Stream}))
          ++SameStream;
      }
  }
  V["same_stream"] =
      SameStream == 0
          ? std::string("every collective runs on a stream without compute "
                        "kernels, so overlap is possible in principle")
          : llvm::formatv("{0} of {1} collectives run on a stream that also "
                          "runs compute kernels: stream order serialises "
                          "them with that compute",
                          SameStream, NumCollectives)
                .str();

  if (MedianExposed > MedianLength)
    Det.ExtraEvidence.push_back(
        llvm::formatv("a step's collectives leave {0} exposed against a "
                      "median host step of {1}: the device runs behind the "
                      "host, so the host step understates the device's "
                      "period",
                      dur(MedianExposed), dur(MedianLength))
            .str());
  if (Worst != model::NoIndex) {
    const Event &E = T.Events[Worst];
    V["example"] = llvm::formatv("{0} at {1:f3} us ({2} exposed)",
                                 collectiveFamily(T.name(E)),
                                 Ctx.traceTimestampUs(E), dur(WorstNs))
                       .str();
    Det.Examples.push_back(example(Ctx, E));
  }
  // Perfect overlap removes at most the exposed time of a step, and the
  // median step cannot fall by more than the largest per-step figure.
  Det.ImpactNs = MaxExposed;
  V["impact"] = dur(MaxExposed);
  Det.Subject = Families.front().second;
  Det.Window = MW.describe();
  // Exposed time is measured directly; what it would take to hide it (and
  // whether part of it is waiting for a peer) the trace cannot say.
  Det.Confidence = 0.7;
  if (T.Source.WorldSize > 1) {
    Det.Confidence = 0.6;
    Det.ConfidenceNotes.push_back(
        llvm::formatv("one rank of {0}: part of each collective may be "
                      "waiting for a slower peer, which overlap cannot hide",
                      T.Source.WorldSize)
            .str());
  }
  Out.push_back(std::move(Det));
  return "";
}

std::string rules::runSingleRank(const TraceIndex &Ctx, const RuleSpec &,
                                 const RuleOptions &,
                                 std::vector<Detection> &Out) {
  const model::Trace &T = Ctx.trace();
  const model::Producer &Src = T.Source;
  size_t Collectives = T.countKind(EventKind::Collective);
  // A rank above 0 without a world size still says that the job has at
  // least that many ranks plus one.
  int64_t AtLeast = Src.WorldSize >= 0 ? Src.WorldSize
                    : Src.Rank >= 1    ? Src.Rank + 1
                                       : -1;
  if (AtLeast < 0) {
    if (Src.Rank == 0)
      return "cannot judge: distributedInfo names rank 0 but gives no "
             "world size, so the trace may or may not be one of several "
             "ranks";
    if (Collectives > 0)
      return llvm::formatv(
                 "cannot judge: the trace records {0} communication "
                 "kernels but no distributedInfo, so its rank and the "
                 "job's world size are unknown; PyTorch writes "
                 "distributedInfo when torch.distributed is initialised "
                 "before the profiler starts",
                 Collectives)
          .str();
    return ""; // a single-process trace
  }
  if (AtLeast <= 1)
    return "";

  Detection Det;
  auto &V = Det.Values;
  V["rank"] = Src.Rank >= 0 ? std::to_string(Src.Rank) : "unknown";
  V["world"] =
      Src.WorldSize >= 0
          ? std::to_string(Src.WorldSize)
          : llvm::formatv("at least {0} (no world size given)", AtLeast).str();
  V["others"] = std::to_string(AtLeast - 1);
  V["backend"] =
      Src.DistributedBackend.empty() ? "unknown" : Src.DistributedBackend;
  V["value"] = llvm::formatv("rank {0} of {1}", V["rank"], V["world"]).str();
  // What this rank spends in collectives is the part of its timeline that
  // the other ranks set: a union, over every device of the trace.
  std::vector<Interval> Comm;
  for (const Event &E : T.Events)
    if (E.Kind == EventKind::Collective)
      Comm.push_back({E.Start, E.end()});
  int64_t CommNs = IntervalSet::unionOf(std::move(Comm)).length();
  V["collectives"] =
      Collectives == 0
          ? std::string("no communication kernel was recorded on this rank")
          : llvm::formatv("{0} communication kernels on this rank occupy {1} "
                          "of the window ({2}); each lasts until the slowest "
                          "peer has joined it",
                          Collectives, dur(CommNs),
                          pct(double(CommNs) / double(std::max<int64_t>(
                                                   1, Ctx.window().length()))))
                .str();
  V["subject"] = llvm::formatv("one rank of {0}", V["world"]).str();
  Det.Subject = V["subject"];
  Det.Window = "whole window";
  Det.ImpactNs = 0; // a statement about the evidence, not a cost
  Det.SeverityOverride = Severity::Info;
  // The metadata states the world size; nothing is inferred.
  Det.Confidence = 0.9;
  Out.push_back(std::move(Det));
  return "";
}

namespace {

/// Bytes of the tensors an "Input Dims" / "Input type" pair describes
/// ("[[6144], [2, 3]]" with ["float", "c10::Half"]), or -1 when a type or a
/// dimension cannot be read.
int64_t tensorBytes(llvm::StringRef Dims, llvm::StringRef Types) {
  // Types: a JSON array of strings.
  std::vector<llvm::StringRef> TypeList;
  for (size_t I = Types.find('"'); I != llvm::StringRef::npos;) {
    size_t J = Types.find('"', I + 1);
    if (J == llvm::StringRef::npos)
      return -1;
    TypeList.push_back(Types.slice(I + 1, J));
    I = Types.find('"', J + 1);
  }
  // Dims: the outer array holds one array of integers per input.
  Dims = Dims.trim();
  if (!Dims.consume_front("[") || !Dims.consume_back("]"))
    return -1;
  int64_t Total = 0;
  size_t Input = 0;
  while (true) {
    size_t Open = Dims.find('[');
    if (Open == llvm::StringRef::npos)
      break;
    size_t Close = Dims.find(']', Open);
    if (Close == llvm::StringRef::npos || Input >= TypeList.size())
      return -1;
    llvm::StringRef Shape = Dims.slice(Open + 1, Close);
    Dims = Dims.drop_front(Close + 1);
    llvm::StringRef Type = TypeList[Input++];
    if (Shape.trim().empty() && Type.empty())
      continue; // not a tensor (a scalar or list argument)
    int64_t Elements = 1;
    llvm::SmallVector<llvm::StringRef, 4> Parts;
    Shape.split(Parts, ',', -1, false);
    for (llvm::StringRef P : Parts) {
      int64_t D;
      if (P.trim().getAsInteger(10, D) || D < 0 || D > (int64_t(1) << 40))
        return -1;
      Elements *= D;
      if (Elements > (int64_t(1) << 50))
        return -1;
    }
    int64_t Size = model::scalarTypeSize(Type);
    if (Size < 0)
      return -1;
    Total += Elements * Size;
  }
  return Input == 0 ? -1 : Total;
}

/// A collective kernel's payload in bytes and where it came from: the
/// kernel's own message size, or the tensors of the `nccl:*` range that
/// encloses its launch call (record_shapes). -1 when neither is recorded.
int64_t collectivePayload(const TraceIndex &Ctx, const Event &E,
                          llvm::StringRef &From) {
  const model::Trace &T = Ctx.trace();
  if (const model::EventArgs *A = T.args(E); A && A->Bytes >= 0) {
    From = "the kernel's message size";
    return A->Bytes;
  }
  uint32_t L = T.launchOf(E);
  for (uint32_t Cur = L; Cur != model::NoIndex; Cur = T.Events[Cur].Parent) {
    const Event &P = T.Events[Cur];
    if (P.Kind != EventKind::Annotation && P.Kind != EventKind::Op)
      continue;
    llvm::StringRef Name = T.name(P);
    if (!Name.startswith("nccl:") && !Name.startswith("rccl:"))
      continue;
    const model::EventArgs *A = T.args(P);
    if (!A || A->InputDims == model::EmptyString)
      return -1;
    From = "the input shapes of its nccl:* range";
    return tensorBytes(T.Strings.get(A->InputDims),
                       T.Strings.get(A->InputTypes));
  }
  return -1;
}

} // namespace

std::string rules::runLongSmallCollective(const TraceIndex &Ctx, const RuleSpec &,
                                          const RuleOptions &Opts,
                                          std::vector<Detection> &Out) {
  const model::Trace &T = Ctx.trace();
  if (!Ctx.hasDeviceActivity())
    return "cannot judge: the trace has no device activity";
  const int64_t MinDuration =
      int64_t(optionOr(Opts, "min-duration", 1'000'000));
  // In GB/s, which is also bytes per ns.
  const double MaxRate = optionOr(Opts, "max-rate-gbps", 1.0);

  std::vector<DeviceComm> Devices = splitDeviceWork(Ctx);
  MeasureWindows MW = measureWindows(Ctx);
  std::map<int64_t, size_t> WindowOfStep;
  for (size_t K = 0; K < MW.StepNumbers.size(); ++K)
    WindowOfStep[MW.StepNumbers[K]] = K;

  size_t Collectives = 0, WithPayload = 0;
  std::vector<std::vector<Interval>> Flagged(MW.Ranges.size());
  struct Hit {
    uint32_t Index;
    int64_t Bytes;
    llvm::StringRef From;
  };
  std::vector<Hit> Hits;
  for (const DeviceComm &DC : Devices)
    for (uint32_t I : DC.Collectives) {
      const Event &E = T.Events[I];
      ++Collectives;
      llvm::StringRef From;
      int64_t Bytes = collectivePayload(Ctx, E, From);
      if (Bytes < 0)
        continue;
      ++WithPayload;
      if (E.Duration < MinDuration ||
          double(Bytes) / double(E.Duration) >= MaxRate)
        continue;
      size_t K = 0;
      if (MW.Steps) {
        uint32_t L = T.launchOf(E);
        int S = Ctx.stepAt(L != model::NoIndex ? T.Events[L].Start : E.Start);
        if (S < 0)
          continue;
        auto It = WindowOfStep.find(Ctx.steps()[size_t(S)].Number);
        if (It == WindowOfStep.end())
          continue;
        K = It->second;
      }
      Hits.push_back({I, Bytes, From});
      Flagged[K].push_back({E.Start, E.end()});
    }
  if (Collectives == 0)
    return "";
  if (WithPayload == 0)
    return llvm::formatv(
               "cannot judge: none of the {0} communication kernels has a "
               "recorded message size (kernel arguments \"In msg nelems\" "
               "and \"dtype\", written by PyTorch 2.1+, or the input shapes "
               "of the nccl:* ranges, written with record_shapes=True)",
               Collectives)
        .str();
  if (Hits.empty())
    return "";

  std::vector<int64_t> PerWindow;
  for (auto &F : Flagged)
    PerWindow.push_back(IntervalSet::unionOf(std::move(F)).length());
  int64_t MaxPerWindow = *std::max_element(PerWindow.begin(), PerWindow.end());

  llvm::sort(Hits, [&](const Hit &A, const Hit &B) {
    return T.Events[A.Index].Duration > T.Events[B.Index].Duration;
  });
  std::vector<Interval> All;
  std::map<std::string, size_t> Families;
  for (const Hit &H : Hits) {
    const Event &E = T.Events[H.Index];
    All.push_back({E.Start, E.end()});
    ++Families[collectiveFamily(T.name(E))];
  }
  const Hit &Longest = Hits.front();
  const Event &LE = T.Events[Longest.Index];

  Detection Det;
  auto &V = Det.Values;
  MW.describeInto(V);
  V["count"] = std::to_string(Hits.size());
  V["collectives"] = std::to_string(Collectives);
  V["with_payload"] = std::to_string(WithPayload);
  V["total"] = dur(IntervalSet::unionOf(std::move(All)).length());
  V["value"] = dur(LE.Duration);
  V["max"] = dur(LE.Duration);
  V["payload"] = bytes(Longest.Bytes);
  V["payload_from"] = Longest.From.str();
  V["rate"] =
      llvm::formatv("{0:f3} GB/s", double(Longest.Bytes) / double(LE.Duration))
          .str();
  V["max_rate"] = llvm::formatv("{0:f1} GB/s", MaxRate).str();
  V["min_duration"] = dur(MinDuration);
  std::vector<std::string> Names;
  for (auto &[Name, N] : Families)
    Names.push_back(llvm::formatv("{0} ({1}x)", Name, N).str());
  V["top_names"] = joinNames(Names);
  V["subject"] = collectiveFamily(T.name(LE));
  V["example"] =
      llvm::formatv("{0} at {1:f3} us", V["subject"], Ctx.traceTimestampUs(LE))
          .str();
  Det.Examples.push_back(example(Ctx, LE));
  // If the peers arrived on time, this rank's step could shrink by no more
  // than the time of these collectives in one step (a union).
  Det.ImpactNs = MaxPerWindow;
  V["impact"] = dur(MaxPerWindow);
  Det.Subject = V["subject"];
  Det.Window = MW.describe();
  // Waiting is inferred from size and time, not observed.
  Det.Confidence = 0.5;
  Out.push_back(std::move(Det));
  return "";
}
