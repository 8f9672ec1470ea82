//===- rules/N/ExposedCommunication.cpp - N001 exposed communication ---===//
//
// A collective kernel (the importers' Collective kind: the communication-
// kernel name class, NCCL, RCCL, NVSHMEM, DeepEP, custom all-reduce) that runs
// while no compute kernel runs on the same device is exposed: the step
// waits for it. Exposure is measured as a union: the collectives' busy
// union on a device minus that device's compute union, then unioned over
// devices, never a sum of kernel durations. A collective belongs to the
// step that launched it (collectiveWindow), so that a device lagging the
// host is measured against the right work.
//
// A rank's trace says nothing about the other ranks: a collective lasts until
// the slowest peer arrives, so part of what looks like communication can be
// waiting. The texts say so; multi-rank skew analysis is separate work.
//
// The steps: collect each collective's time and exposed parts per steady
// window (collectExposure), take the per-window unions and their medians
// (measureExposure), decide on the exposed share of the step, then
// describe the families by exposed time and the collectives that share a
// stream with compute.
//
//===----------------------------------------------------------------------===//
#include "rules/BuiltinDetectors.h"
#include "rules/detectors/Collectives.h"
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
using analysis::TraceIndex;
using model::Event;
using model::EventKind;
using model::Interval;
using model::IntervalSet;

namespace {

/// Exposed time of one collective family over the measured windows.
struct FamilyExposure {
  int64_t Ns = 0;
  size_t Count = 0;
};

/// The collectives launched in the measured windows.
struct Exposure {
  std::vector<std::vector<Interval>> Comm, Exposed; ///< per window
  std::map<std::string, FamilyExposure> Families;
  uint32_t Worst = model::NoIndex; ///< the most exposed collective
  int64_t WorstNs = -1;
  size_t Counted = 0;
};

/// Adds collective \p I, whose device computes \p Compute, to window \p K:
/// its exposed part is whatever no compute kernel covers, at any time.
void addCollective(const model::Trace &T, uint32_t I,
                   const IntervalSet &Compute, size_t K, Exposure &X) {
  const Event &E = T.Events[I];
  Interval Part{E.Start, E.end()};
  ++X.Counted;
  X.Comm[K].push_back(Part);
  size_t Before = X.Exposed[K].size();
  uncovered(Compute, Part, X.Exposed[K]);
  int64_t Own = 0;
  for (size_t J = Before; J < X.Exposed[K].size(); ++J)
    Own += X.Exposed[K][J].length();
  FamilyExposure &F = X.Families[collectiveFamily(T.name(E))];
  F.Ns += Own;
  ++F.Count;
  if (Own > X.WorstNs) {
    X.WorstNs = Own;
    X.Worst = I;
  }
}

Exposure collectExposure(const TraceIndex &Ctx,
                         llvm::ArrayRef<DeviceComm> Devices) {
  const model::Trace &T = Ctx.trace();
  const size_t NumWindows = Ctx.measureWindows().Ranges.size();
  Exposure X;
  X.Comm.resize(NumWindows);
  X.Exposed.resize(NumWindows);
  for (const DeviceComm &DC : Devices)
    for (uint32_t I : DC.Collectives) {
      size_t K = collectiveWindow(Ctx, T.Events[I]);
      if (K < NumWindows && T.Events[I].Duration > 0)
        addCollective(T, I, *DC.Compute, K, X);
    }
  return X;
}

/// The per-window unions of communication and of its exposed part.
struct ExposureFigures {
  int64_t MedianExposed = 0, MedianComm = 0, MedianLength = 0;
  int64_t MaxExposed = 0;
  double MedianShare = 0; ///< of the median window, at most 1
};

ExposureFigures measureExposure(const TraceIndex &Ctx, Exposure &X) {
  const MeasureWindows &MW = Ctx.measureWindows();
  std::vector<int64_t> CommNs, ExposedNs, Lengths;
  for (size_t K = 0; K < MW.Ranges.size(); ++K) {
    CommNs.push_back(IntervalSet::unionOf(std::move(X.Comm[K])).length());
    ExposedNs.push_back(IntervalSet::unionOf(std::move(X.Exposed[K])).length());
    Lengths.push_back(MW.Ranges[K].length());
  }
  ExposureFigures F;
  F.MedianExposed = median(ExposedNs);
  F.MedianComm = median(CommNs);
  F.MedianLength = median(Lengths);
  F.MaxExposed = *std::max_element(ExposedNs.begin(), ExposedNs.end());
  // A device that lags the host can run more than a host step's length of
  // one step's communication: the share is then capped at the whole step.
  F.MedianShare =
      F.MedianLength > 0
          ? std::min(1.0, double(F.MedianExposed) / double(F.MedianLength))
          : 0.0;
  return F;
}

/// The collectives that run on a stream that also runs compute kernels.
size_t onComputeStreams(const TraceIndex &Ctx,
                        llvm::ArrayRef<DeviceComm> Devices) {
  const model::Trace &T = Ctx.trace();
  std::vector<bool> LaneHasKernel(T.Lanes.size());
  for (uint32_t I : Ctx.eventsOfKind(EventKind::Kernel))
    LaneHasKernel[T.Events[I].Lane] = true;
  std::set<std::pair<int32_t, int64_t>> ComputeStreams;
  for (uint32_t L = 0; L < T.Lanes.size(); ++L)
    if (LaneHasKernel[L])
      ComputeStreams.insert({T.Lanes[L].Device, T.Lanes[L].Stream});
  size_t N = 0;
  for (const DeviceComm &DC : Devices)
    for (uint32_t I : DC.Collectives) {
      const model::Lane &L = T.laneOf(T.Events[I]);
      N += ComputeStreams.count({L.Device, L.Stream});
    }
  return N;
}

/// {same_stream}: collectives that share a stream with compute kernels are
/// ordered behind them by the stream itself: no bucket size can overlap
/// those.
std::string sameStreamText(size_t SameStream, size_t NumCollectives) {
  if (SameStream == 0)
    return "every collective runs on a stream without compute kernels, so "
           "overlap is possible in principle";
  return llvm::formatv(
             "{0} of {1} {2} on a stream that also runs compute "
             "kernels: stream order serialises {3} with that "
             "compute",
             SameStream,
             support::formatCount(int64_t(NumCollectives), "collective"),
             SameStream == 1 ? "runs" : "run", SameStream == 1 ? "it" : "them")
      .str();
}

/// {top_names} and the subject: the families by exposed time; the most
/// exposed collective as the example.
void describeFamilies(const TraceIndex &Ctx, const Exposure &X,
                      Detection &Det) {
  const model::Trace &T = Ctx.trace();
  auto Ranked =
      rankByKey(X.Families, [](const FamilyExposure &F) { return F.Ns; });
  std::vector<std::string> Top;
  for (const auto *F : Ranked)
    Top.push_back(llvm::formatv("{0} ({1}x, {2} exposed)", F->first,
                                F->second.Count, dur(F->second.Ns))
                      .str());
  Det.Values["top_names"] = joinNames(Top);
  Det.Values["subject"] = Ranked.front()->first;
  Det.Subject = Ranked.front()->first;
  if (X.Worst != model::NoIndex) {
    const Event &E = T.Events[X.Worst];
    Det.Values["example"] =
        llvm::formatv("{0} ({1} exposed)",
                      nameAt(Ctx, collectiveFamily(T.name(E)), E),
                      dur(X.WorstNs))
            .str();
    Det.Examples.push_back(example(Ctx, E));
  }
}

/// The confidence: exposed time is measured directly; what it would take
/// to hide it (and whether part of it is waiting for a peer) the trace
/// cannot say.
void setConfidence(const model::Trace &T, Detection &Det) {
  Det.Confidence = 0.7;
  if (T.Source.WorldSize > 1) {
    Det.Confidence = 0.6;
    Det.ConfidenceNotes.push_back(
        llvm::formatv("one rank of {0}: part of each collective may be "
                      "waiting for a slower peer, which overlap cannot hide",
                      T.Source.WorldSize)
            .str());
  }
}

} // namespace

Outcome rules::runExposedCommunication(const TraceIndex &Ctx,
                                       const RuleOptions &Opts,
                                       std::vector<Detection> &Out) {
  const model::Trace &T = Ctx.trace();
  std::vector<DeviceComm> Devices = splitDeviceWork(Ctx);
  const size_t NumCollectives = countCollectives(Devices);
  if (NumCollectives == 0) {
    if (T.Source.WorldSize > 1)
      return Outcome::cannotJudge(
          llvm::formatv("distributedInfo gives a world size of {0} "
                        "but no communication kernel (the communication-kernel "
                        "name class: NCCL, RCCL, NVSHMEM, DeepEP, custom "
                        "all-reduce) was recorded; "
                        "the collectives may run on a CPU backend (gloo) or "
                        "outside the profiled window",
                        T.Source.WorldSize)
              .str());
    return Outcome::ran(); // no communication: nothing to overlap
  }
  const double MinShare = Opts.number("min-exposed-share");

  Exposure X = collectExposure(Ctx, Devices);
  if (X.Counted == 0)
    return Outcome::ran(); // no collective was launched in the measured steps
  ExposureFigures F = measureExposure(Ctx, X);
  if (F.MedianShare < MinShare)
    return Outcome::ran();

  Detection Det;
  auto &V = Det.Values;
  const MeasureWindows &MW = Ctx.measureWindows();
  describeWindows(MW, V);
  V["value"] = dur(F.MedianExposed);
  V["exposed"] = dur(F.MedianExposed);
  V["share"] = pct(F.MedianShare);
  V["threshold"] = pct(MinShare);
  V["comm"] = dur(F.MedianComm);
  V["hidden_share"] =
      F.MedianComm > 0
          ? pct(1.0 - double(F.MedianExposed) / double(F.MedianComm))
          : pct(0);
  V["count"] = count(int64_t(X.Counted));
  describeFamilies(Ctx, X, Det);
  V["same_stream"] =
      sameStreamText(onComputeStreams(Ctx, Devices), NumCollectives);
  if (F.MedianExposed > F.MedianLength)
    Det.ExtraEvidence.push_back(
        llvm::formatv("a step's collectives leave {0} exposed against a "
                      "median host step of {1}: the device runs behind the "
                      "host, so the host step understates the device's "
                      "period",
                      dur(F.MedianExposed), dur(F.MedianLength))
            .str());
  // Perfect overlap removes at most the exposed time of a step, and the
  // median step cannot fall by more than the largest per-step figure.
  Det.ImpactNs = F.MaxExposed;
  V["impact"] = dur(F.MaxExposed);
  Det.Window = MW.describe();
  setConfidence(T, Det);
  Out.push_back(std::move(Det));
  return Outcome::ran();
}
