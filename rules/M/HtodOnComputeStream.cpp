//===- rules/detectors/ExposedCopies.cpp - M003 HtoD copies not overlapped ===//
//
// A host-to-device copy costs step time only where no other device work
// runs beside it. Issued on the stream that runs the compute kernels, it
// queues between them and the kernels wait for it; issued on a side stream
// ahead of time (prefetching the next batch), it runs beside them.
//
// This detector takes the HtoD copies of the steady steps and measures the
// part of their time during which the device ran nothing else (the copies'
// union minus every other device work on that device). That exposed time is
// the bound on the gain from overlapping them: a perfectly overlapped copy
// adds nothing, so the step cannot shrink by more. It notes whether the
// copies share a stream with kernels (the compute stream).
//
//===----------------------------------------------------------------------===//
#include "rules/BuiltinDetectors.h"
#include "rules/detectors/DetectorSupport.h"

#include "llvm/ADT/DenseSet.h"
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

namespace {

bool isHtoD(const model::Trace &T, const Event &E) {
  if (E.Kind != EventKind::Memcpy)
    return false;
  const model::EventArgs *A = T.args(E);
  return A && A->Copy == model::CopyKind::HtoD;
}

struct PathGroup {
  uint64_t Count = 0;
  int64_t Bytes = 0, DeviceNs = 0, ExposedNs = 0;
  uint32_t Longest = model::NoIndex;
};

} // namespace

Outcome rules::runHtodOnComputeStream(const TraceIndex &Ctx,
                                      const RuleOptions &Opts,
                                      std::vector<Detection> &Out) {
  const model::Trace &T = Ctx.trace();
  const double MinShare = Opts.number("min-share-of-step");
  const int64_t Target = Ctx.targetNs();
  if (Target <= 0)
    return Outcome::ran();
  const MeasureWindows &Win = Ctx.measureWindows();
  const size_t N = Win.Ranges.size();

  std::vector<int64_t> ExposedPer(N, 0), CopyPer(N, 0);
  std::map<std::string, PathGroup> ByPath;
  // The ops that issued the copies: a synchronous copy_ keeps the host inside
  // the op while the copy runs, and the path may pass through that host time
  // instead of the device copy.
  std::set<std::string> IssuingOps;
  uint64_t Count = 0, OnCompute = 0;
  for (int32_t D : Ctx.devices()) {
    if (D < 0)
      continue;
    // Everything else the device runs, and the streams that run kernels.
    std::vector<Interval> OtherParts;
    llvm::DenseSet<uint32_t> KernelLanes;
    for (uint32_t I : Ctx.deviceWork(D)) {
      const Event &E = T.Events[I];
      if (isHtoD(T, E))
        continue;
      OtherParts.push_back({E.Start, E.end()});
      if (E.Kind == EventKind::Kernel || E.Kind == EventKind::Collective)
        KernelLanes.insert(E.Lane);
    }
    model::IntervalSet Other =
        model::IntervalSet::unionOf(std::move(OtherParts));
    std::vector<std::vector<Interval>> CopiesIn(N);
    for (uint32_t I : Ctx.deviceWork(D)) {
      const Event &E = T.Events[I];
      if (!isHtoD(T, E))
        continue;
      // The window holding the instant (a binary search).
      auto It = Win.Ranges.begin() + Win.indexOf(E.Start);
      if (It == Win.Ranges.end())
        continue;
      size_t R = It - Win.Ranges.begin();
      Interval C{E.Start, std::min(E.end(), It->End)};
      CopiesIn[R].push_back(C);
      int64_t Exposed = C.length() - Other.lengthWithin(C);
      ++Count;
      if (KernelLanes.count(E.Lane))
        ++OnCompute;
      uint32_t L = T.launchOf(E);
      std::string Path = L == model::NoIndex ? "(no host call recorded)"
                                             : Ctx.opPath(T.Events[L]);
      if (L != model::NoIndex)
        if (const Event *Op = enclosingOp(T, T.Events[L]))
          IssuingOps.insert(T.name(*Op).str());
      PathGroup &G = ByPath[Path];
      ++G.Count;
      G.Bytes += std::max<int64_t>(T.args(E)->Bytes, 0);
      G.DeviceNs += E.Duration;
      G.ExposedNs += Exposed;
      if (G.Longest == model::NoIndex ||
          E.Duration > T.Events[G.Longest].Duration)
        G.Longest = I;
    }
    for (size_t R = 0; R < N; ++R) {
      model::IntervalSet U = model::IntervalSet::unionOf(CopiesIn[R]);
      int64_t Exposed = U.length() - U.intersect(Other).length();
      // Several devices: the step is bounded by the one with most exposed
      // copy time.
      ExposedPer[R] = std::max(ExposedPer[R], Exposed);
      CopyPer[R] = std::max(CopyPer[R], U.length());
    }
  }
  if (ByPath.empty())
    return Outcome::ran();
  int64_t Exposed = median(ExposedPer);
  if (double(Exposed) < MinShare * double(Target))
    return Outcome::ran();
  int64_t Impact = std::min(Exposed, Target);

  auto Ranked =
      rankByKey(ByPath, [](const PathGroup &G) { return G.ExposedNs; });
  const auto *Top = Ranked.front();
  const Event &Longest = T.Events[Top->second.Longest];
  double NumWindows = double(N);

  Detection Det;
  auto &V = Det.Values;
  V["value"] = dur(Exposed);
  V["share"] = pct(double(Exposed) / double(Target));
  V["threshold"] = pct(MinShare);
  V["copy_time"] = dur(median(CopyPer));
  V["count"] = std::to_string(Count);
  V["on_compute"] = std::to_string(OnCompute);
  V["stream_note"] =
      OnCompute == Count
          ? "all of them on a stream that also runs the compute kernels"
      : OnCompute == 0
          ? "on streams of their own, but with nothing to overlap"
          : llvm::formatv("{0} of them on a stream that also runs kernels",
                          OnCompute)
                .str();
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
  for (size_t I = 0; I < Ranked.size() && I < 3; ++I) {
    const PathGroup &G = Ranked[I]->second;
    Det.ExtraEvidence.push_back(
        llvm::formatv("{0}: {1:f1} copies {2}, {3} {2}, {4} of copy time "
                      "{2}, {5} of it with nothing else on the device",
                      Ranked[I]->first, double(G.Count) / NumWindows,
                      Win.Steps ? "per step" : "in the window",
                      bytes(int64_t(double(G.Bytes) / NumWindows)),
                      dur(int64_t(double(G.DeviceNs) / NumWindows)),
                      dur(int64_t(double(G.ExposedNs) / NumWindows)))
            .str());
  }
  Det.Examples.push_back(example(Ctx, Longest));
  Det.ImpactNs = Impact;
  // On the critical path: every copy, and the ops that issued these, taking
  // no time (a side stream hides the copy rather than removing it: loose but
  // safe).
  Det.PathQuery.Categories.set(unsigned(analysis::PathCategory::Copy));
  Det.PathQuery.Names.assign(IssuingOps.begin(), IssuingOps.end());
  Det.Window = Win.describe();
  Det.Subject = Top->first;
  // Exposure is measured; whether the data could be copied earlier (is it
  // known before the step needs it?) is not in the trace.
  Det.Confidence = OnCompute ? 0.65 : 0.5;
  Out.push_back(std::move(Det));
  return Outcome::ran();
}
