//===- rules/detectors/PageableCopies.cpp - M002 pageable host copies -----===//
//
// The DMA engines can only read and write page-locked (pinned) host memory.
// A copy from or to pageable memory is staged through a driver buffer, and
// the call returns only when the host side of the staging is done, even
// when the program asked for an asynchronous copy: the host blocks, it
// cannot queue work behind the copy, and the copy cannot overlap compute
// queued after it.
//
// This detector finds the device copies of the steady steps whose host side
// is pageable (Memcpy HtoD (Pageable -> Device), Memcpy DtoH (Device ->
// Pageable)), follows each to the runtime call that issued it, and reports
// the host time blocked in those calls, with the bound on the gain from
// pinning (waitsGainBound: blocked time that left the device idle). ROCm
// traces name host memory without telling pageable from pinned: the rule
// then cannot judge.
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
using model::MemoryKind;

namespace {

/// The host side of a host-device copy, or Unknown for other copies.
MemoryKind hostSide(const model::EventArgs &A) {
  if (A.Copy == model::CopyKind::HtoD)
    return A.Src;
  if (A.Copy == model::CopyKind::DtoH)
    return A.Dst;
  return MemoryKind::Unknown;
}

struct PathGroup {
  uint64_t Count = 0;
  int64_t Bytes = 0, Blocked = 0, DeviceNs = 0;
  uint32_t Largest = model::NoIndex; ///< the device copy with most bytes
};

} // namespace

Outcome rules::runPageableHostCopies(const TraceIndex &Ctx,
                                     const RuleOptions &Opts,
                                     std::vector<Detection> &Out) {
  const model::Trace &T = Ctx.trace();
  const double MinShare = Opts.number("min-share-of-step");
  const double MinGain = Opts.number("min-gain-share");
  const int64_t Target = Ctx.targetNs();
  if (Target <= 0)
    return Outcome::ran();
  const MeasureWindows &Win = Ctx.measureWindows();
  const size_t N = Win.Ranges.size();

  // The host waits by the event that waits, to find a copy call's wait.
  llvm::DenseMap<uint32_t, const HostWait *> WaitOf;
  for (const HostWait &W : Ctx.hostWaits())
    WaitOf[W.Event] = &W;

  uint64_t HostCopies = 0, Undecided = 0;
  std::vector<std::vector<HostWait>> WaitsIn(N);
  std::vector<int64_t> CountPer(N, 0), BytesPer(N, 0), BlockedPer(N, 0);
  std::map<std::string, PathGroup> ByPath;
  uint64_t HtoD = 0, DtoH = 0, Unlinked = 0;
  for (int32_t D : Ctx.devices()) {
    if (D < 0)
      continue;
    for (uint32_t I : Ctx.deviceWork(D)) {
      const Event &E = T.Events[I];
      if (E.Kind != EventKind::Memcpy)
        continue;
      const model::EventArgs *A = T.args(E);
      if (!A || (A->Copy != model::CopyKind::HtoD &&
                 A->Copy != model::CopyKind::DtoH))
        continue;
      ++HostCopies;
      MemoryKind Side = hostSide(*A);
      if (Side != MemoryKind::Pageable) {
        if (Side == MemoryKind::Host || Side == MemoryKind::Unknown)
          ++Undecided;
        continue;
      }
      // The step of the call that issued it (or of the copy itself).
      uint32_t L = T.launchOf(E);
      int64_t At = L == model::NoIndex ? E.Start : T.Events[L].Start;
      // The window holding the instant (a binary search).
      auto It = Win.Ranges.begin() + Win.indexOf(At);
      if (It == Win.Ranges.end())
        continue;
      size_t R = It - Win.Ranges.begin();
      ++(A->Copy == model::CopyKind::HtoD ? HtoD : DtoH);
      ++CountPer[R];
      int64_t Bytes = std::max<int64_t>(A->Bytes, 0);
      BytesPer[R] += Bytes;
      std::string Path = "(no host call recorded)";
      int64_t Blocked = 0;
      if (L != model::NoIndex) {
        Path = Ctx.opPath(T.Events[L]);
        auto W = WaitOf.find(L);
        if (W != WaitOf.end()) {
          WaitsIn[R].push_back(*W->second);
          Blocked = W->second->Range.length();
          BlockedPer[R] += Blocked;
        }
      } else {
        ++Unlinked;
      }
      PathGroup &G = ByPath[Path];
      ++G.Count;
      G.Bytes += Bytes;
      G.Blocked += Blocked;
      G.DeviceNs += E.Duration;
      if (G.Largest == model::NoIndex ||
          Bytes > std::max<int64_t>(T.args(T.Events[G.Largest])->Bytes, 0))
        G.Largest = I;
    }
  }
  if (ByPath.empty()) {
    // Host copies whose host memory kind is not recorded (ROCm names it
    // "Host"): nothing says whether they were pageable.
    if (HostCopies && Undecided == HostCopies)
      return Outcome::cannotJudge(
          "the trace's host-device copies do not say "
          "whether host memory is pageable or pinned (ROCm traces name "
          "it Host); a CUDA (CUPTI) trace or Nsight Systems export "
          "records the memory kind");
    return Outcome::ran();
  }

  std::vector<int64_t> ImpactPer(N, 0);
  for (size_t R = 0; R < N; ++R)
    ImpactPer[R] = Ctx.waitsGainBound(WaitsIn[R], Win.Ranges[R]);
  int64_t BlockedMedian = median(BlockedPer);
  if (double(BlockedMedian) < MinShare * double(Target))
    return Outcome::ran();
  int64_t Impact = std::min(median(ImpactPer), Target);

  auto Ranked = rankByKey(ByPath, [](const PathGroup &G) { return G.Blocked; });
  const auto *Top = Ranked.front();
  double NumWindows = double(N);
  const Event &Largest = T.Events[Top->second.Largest];

  Detection Det;
  auto &V = Det.Values;
  V["value"] = dur(BlockedMedian);
  V["share"] = pct(double(BlockedMedian) / double(Target));
  V["threshold"] = pct(MinShare);
  V["count"] = std::to_string(median(CountPer));
  V["bytes"] = bytes(median(BytesPer));
  V["htod"] = std::to_string(HtoD);
  V["dtoh"] = std::to_string(DtoH);
  V["impact"] = dur(Impact);
  V["impact_share"] = pct(double(Impact) / double(Target));
  V["top_op_path"] = Top->first;
  V["subject"] = Top->first;
  V["top_name"] = T.name(Largest).str();
  V["example"] =
      llvm::formatv("{0} of {1} at {2:f3} us", T.name(Largest),
                    bytes(std::max<int64_t>(T.args(Largest)->Bytes, 0)),
                    Ctx.traceTimestampUs(Largest))
          .str();
  V["target"] = Ctx.describeTarget();
  describeWindows(Win, V);
  for (size_t I = 0; I < Ranked.size() && I < 3; ++I) {
    const PathGroup &G = Ranked[I]->second;
    Det.ExtraEvidence.push_back(
        llvm::formatv("{0}: {1:f1} copies {2}, {3} {2}, the host blocked "
                      "{4} {2}; device copy time {5} {2}",
                      Ranked[I]->first, double(G.Count) / NumWindows,
                      Win.Steps ? "per step" : "in the window",
                      bytes(int64_t(double(G.Bytes) / NumWindows)),
                      dur(int64_t(double(G.Blocked) / NumWindows)),
                      dur(int64_t(double(G.DeviceNs) / NumWindows)))
            .str());
  }
  if (Unlinked)
    Det.ExtraEvidence.push_back(
        llvm::formatv("{0} pageable cop{1} without the host call that issued "
                      "{2}: their blocked time is not counted",
                      Unlinked, Unlinked == 1 ? "y" : "ies",
                      Unlinked == 1 ? "it" : "them")
            .str());
  Det.Examples.push_back(example(Ctx, Largest));
  Det.ImpactNs = Impact;
  Det.Window = Win.describe();
  Det.Subject = Top->first;
  if (double(Impact) < MinGain * double(Target)) {
    Det.SeverityOverride = Severity::Info;
    V["verdict"] = llvm::formatv("the device stayed busy while the host "
                                 "blocked, so pinning is not predicted to "
                                 "shorten the {0} by more than {{impact}",
                                 V["unit"])
                       .str();
  } else {
    V["verdict"] = "the device idled for up to {impact} " + V["per"].text() +
                   " because of it";
  }
  // The memory kind is recorded by the profiler, not inferred.
  Det.Confidence = 0.75;
  Out.push_back(std::move(Det));
  return Outcome::ran();
}
