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
#include "rules/BuiltinDetectors.h"
#include "rules/detectors/Collectives.h"
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
using model::Interval;
using model::IntervalSet;

Outcome rules::runExposedCommunication(const TraceIndex &Ctx,
                                       const RuleOptions &Opts,
                                       std::vector<Detection> &Out) {
  const model::Trace &T = Ctx.trace();
  std::vector<DeviceComm> Devices = splitDeviceWork(Ctx);
  size_t NumCollectives = 0;
  for (const DeviceComm &DC : Devices)
    NumCollectives += DC.Collectives.size();
  if (NumCollectives == 0) {
    if (T.Source.WorldSize > 1)
      return Outcome::cannotJudge(
          llvm::formatv(
              "distributedInfo gives a world size of {0} "
              "but no communication kernel (nccl*/rccl*) was recorded; "
              "the collectives may run on a CPU backend (gloo) or "
              "outside the profiled window",
              T.Source.WorldSize)
              .str());
    return Outcome::ran(); // no communication: nothing to overlap
  }

  const double MinShare = Opts.number("min-exposed-share");
  const MeasureWindows &MW = Ctx.measureWindows();

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
    return Outcome::ran(); // no collective was launched in the measured steps

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
    return Outcome::ran();

  Detection Det;
  auto &V = Det.Values;
  describeWindows(MW, V);
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
  return Outcome::ran();
}
