//===- rules/T/UntracedHostTime.cpp - T005 untraced host time -------------===//
//
// The device idles because the host submitted its next work late, and while
// it waited the launching thread was inside no recorded event: no op, no
// Python frame, no annotation or NVTX range, no runtime call. The trace
// then cannot say what held the device back (CPU compute in an OpenMP
// region, Python between ops recorded without stacks, I/O, a lock), only
// that the host was elsewhere. It is a trace-quality finding with a cost:
// the idle time is real, and the next step is to record what the host ran.
//
// The facts are shared: the trace index's idle split (attributeIdle, over
// the host timeline of TraceIndex::forEachHostStretch) gives each gap's
// untraced pieces on the launching thread, and its typical split over the
// steady windows (typicalIdle) the figure: the "untraced host (T005)"
// part of the target line, the same number. The device with the most such
// idle counts, and the critical path's host-untraced category bounds the
// impact (what-if in the TOML).
//
//===----------------------------------------------------------------------===//
#include "analysis/Producer.h"
#include "rules/BuiltinDetectors.h"
#include "rules/detectors/DetectorSupport.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <map>
#include <optional>

using namespace tracelint;
using namespace tracelint::rules;
using namespace tracelint::rules::detect;
using analysis::TraceIndex;
using model::Event;
using model::EventKind;
using model::Interval;

namespace {

/// The untraced idle time of one device in the measured windows.
struct DeviceUntraced {
  int32_t Device = -1;
  int64_t Typical = 0;                ///< typicalIdle()'s untraced part
  std::map<uint32_t, int64_t> ByLane; ///< launching thread -> untraced idle
  int64_t Longest = 0;                ///< the longest untraced stretch
  uint32_t LongestLaunch = model::NoIndex; ///< the launch that ended it
  uint32_t LongestWork = model::NoIndex;   ///< the work it held back
  int64_t Total = 0;
};

DeviceUntraced collectDevice(const TraceIndex &Ctx, int32_t Device) {
  const model::Trace &T = Ctx.trace();
  analysis::IdleOptions IO;
  IO.KeepGaps = true;
  DeviceUntraced D;
  D.Device = Device;
  D.Typical = Ctx.typicalIdle(Device, IO).UntracedNs;
  for (const Interval &R : Ctx.measureWindows().Ranges)
    for (const analysis::AttributedGap &G :
         Ctx.attributeIdle(Device, R, IO).GapList) {
      const uint32_t Lane = T.Events[G.Launch].Lane;
      for (const analysis::HostStretch &P : G.HostPieces) {
        if (P.Cause != analysis::HostCause::Untraced)
          continue;
        const int64_t Ns = P.Range.length();
        D.Total += Ns;
        D.ByLane[Lane] += Ns;
        if (Ns > D.Longest) {
          D.Longest = Ns;
          D.LongestLaunch = G.Launch;
          D.LongestWork = G.Work;
        }
      }
    }
  return D;
}

/// "framework ops, runtime calls": what the trace records on \p Lane, and
/// in \p Missing the kinds of host events it lacks there.
std::string recordedKinds(const TraceIndex &Ctx, uint32_t Lane,
                          std::string &Missing) {
  const model::Trace &T = Ctx.trace();
  bool Ops = false, Python = false, Ranges = false, Api = false, Os = false;
  const model::Lane &L = T.Lanes[Lane];
  for (uint32_t I = L.Begin; I < L.End; ++I) {
    const Event &E = T.Events[I];
    EventKind K = E.Kind;
    Ops |= K == EventKind::Op;
    Python |= K == EventKind::Python;
    // Step markers say only that a step ran.
    Ranges |=
        K == EventKind::Annotation && !Ctx.is(E, model::NameClass::StepMarker);
    Api |= K == EventKind::Runtime || K == EventKind::Driver;
    Os |= K == EventKind::OsRuntime;
  }
  std::vector<std::string> Has, Lacks;
  (Ops ? Has : Lacks).push_back("framework ops");
  (Python ? Has : Lacks).push_back("Python frames");
  (Ranges ? Has : Lacks)
      .push_back(Ctx.producer().isRocm() ? "roctx or annotation ranges"
                                         : "NVTX or annotation ranges");
  if (Api)
    Has.push_back("runtime API calls");
  if (Os)
    Has.push_back("OS runtime calls");
  Lacks.push_back("CPU samples");
  Missing = joinNames(Lacks, 4);
  return Has.empty() ? "nothing" : joinNames(Has, 5);
}

} // namespace

Outcome rules::runUntracedHostTime(const TraceIndex &Ctx,
                                   const RuleOptions &Opts,
                                   std::vector<Detection> &Out) {
  const model::Trace &T = Ctx.trace();
  const int64_t Target = Ctx.targetNs();
  const double MinShare = Opts.number("min-share-of-step");
  if (Target <= 0)
    return Outcome::ran();

  // Devices idle side by side: the one with the most untraced idle speaks.
  std::optional<DeviceUntraced> Best;
  int64_t BestMedian = 0;
  for (int32_t D : Ctx.devices()) {
    if (D < 0)
      continue;
    DeviceUntraced U = collectDevice(Ctx, D);
    int64_t M = U.Typical;
    if (U.Total > 0 && M > 0 && (!Best || M > BestMedian)) {
      BestMedian = M;
      Best = std::move(U);
    }
  }
  if (!Best)
    return Outcome::ran();
  const int64_t Cost = std::min(BestMedian, Target);
  if (double(Cost) < MinShare * double(Target))
    return quietUnderFloor(Cost, Target, MinShare);

  auto TopLane = std::max_element(
      Best->ByLane.begin(), Best->ByLane.end(),
      [](const auto &A, const auto &B) { return A.second < B.second; });
  const uint32_t Lane = TopLane->first;
  Detection Det;
  auto &V = Det.Values;
  describeCostPerWindow(Ctx, Cost, MinShare, Cost, V);
  V["device"] = llvm::formatv("device {0}", Best->Device).str();
  V["thread"] = Ctx.describeLane(T.Lanes[Lane]);
  V["subject"] = V["thread"];
  std::string Missing;
  V["recorded"] = recordedKinds(Ctx, Lane, Missing);
  V["missing"] = Missing;
  V["longest"] = dur(Best->Longest);
  const Event &Launch = T.Events[Best->LongestLaunch];
  const Event &Work = T.Events[Best->LongestWork];
  V["example"] = eventAt(Ctx, Work);
  V["launch"] = eventAt(Ctx, Launch);
  Det.Examples.push_back(example(Ctx, Work));
  Det.Examples.push_back(example(Ctx, Launch));
  Det.ImpactNs = Cost;
  Det.Window = Ctx.measureWindows().describe();
  // Keyed by the thread's role, not its id, which changes between runs.
  Det.Subject = "untraced host time";
  // That the host ran code, rather than being descheduled or waiting on
  // something unrecorded, is an inference from the gap.
  Det.Confidence = 0.6;
  Out.push_back(std::move(Det));
  return Outcome::ran();
}
