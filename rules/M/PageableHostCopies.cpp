//===- rules/M/PageableHostCopies.cpp - M002 pageable host copies ---------===//
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
// pinning (waitsGainBound: blocked time that left the device idle). Under
// the rule's floor the copies are still reported, at info. ROCm
// traces name host memory without telling pageable from pinned: the rule
// then cannot judge.
//
//===----------------------------------------------------------------------===//
#include "analysis/Producer.h"
#include "rules/BuiltinDetectors.h"
#include "rules/detectors/DetectorSupport.h"

#include "support/Count.h"
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

/// The steady windows' pageable copies, collected once.
struct PageableCopies {
  std::vector<std::vector<HostWait>> WaitsIn; ///< the copy calls' waits
  std::vector<int64_t> CountPer, BytesPer, BlockedPer; ///< per window
  std::map<std::string, PathGroup> ByPath;
  uint64_t HtoD = 0, DtoH = 0;
  uint64_t Unlinked = 0; ///< copies without the call that issued them
  /// Every host-device copy, and those whose host memory kind is not said.
  uint64_t HostCopies = 0, Undecided = 0;
};

/// Adds the pageable copy \p I, in window \p R, issued by the call \p L
/// (model::NoIndex: not in the trace), whose wait is \p Wait (or null).
void addCopy(const TraceIndex &Ctx, uint32_t I, size_t R, uint32_t L,
             const HostWait *Wait, PageableCopies &S) {
  const model::Trace &T = Ctx.trace();
  const Event &E = T.Events[I];
  ++(T.args(E)->Copy == model::CopyKind::HtoD ? S.HtoD : S.DtoH);
  ++S.CountPer[R];
  const int64_t Bytes = copyBytes(T, E);
  S.BytesPer[R] += Bytes;
  std::string Path = "(no host call recorded)";
  int64_t Blocked = 0;
  if (L != model::NoIndex) {
    Path = Ctx.opPath(T.Events[L]);
    if (Wait) {
      S.WaitsIn[R].push_back(*Wait);
      Blocked = Wait->Range.length();
      S.BlockedPer[R] += Blocked;
    }
  } else {
    ++S.Unlinked;
  }
  PathGroup &G = S.ByPath[Path];
  ++G.Count;
  G.Bytes += Bytes;
  G.Blocked += Blocked;
  G.DeviceNs += E.Duration;
  if (G.Largest == model::NoIndex || Bytes > copyBytes(T, T.Events[G.Largest]))
    G.Largest = I;
}

PageableCopies collectCopies(const TraceIndex &Ctx) {
  const model::Trace &T = Ctx.trace();
  const MeasureWindows &Win = Ctx.measureWindows();
  const size_t N = Win.Ranges.size();
  PageableCopies S;
  S.WaitsIn.resize(N);
  S.CountPer.assign(N, 0);
  S.BytesPer.assign(N, 0);
  S.BlockedPer.assign(N, 0);
  // The host waits by the event that waits, to find a copy call's wait.
  llvm::DenseMap<uint32_t, const HostWait *> WaitOf;
  for (const HostWait &W : Ctx.hostWaits())
    WaitOf[W.Event] = &W;
  for (int32_t D : Ctx.devices()) {
    if (D < 0)
      continue;
    for (uint32_t I : Ctx.deviceWork(D)) {
      const Event &E = T.Events[I];
      const model::EventArgs *A = T.args(E);
      if (E.Kind != EventKind::Memcpy || !A ||
          (A->Copy != model::CopyKind::HtoD &&
           A->Copy != model::CopyKind::DtoH))
        continue;
      ++S.HostCopies;
      MemoryKind Side = hostSide(*A);
      if (Side != MemoryKind::Pageable) {
        S.Undecided += Side == MemoryKind::Host || Side == MemoryKind::Unknown;
        continue;
      }
      // The step of the call that issued it (or of the copy itself).
      const uint32_t L = T.launchOf(E);
      size_t R = Ctx.windowOf(I);
      if (R == N)
        continue;
      auto W = L == model::NoIndex ? WaitOf.end() : WaitOf.find(L);
      addCopy(Ctx, I, R, L, W == WaitOf.end() ? nullptr : W->second, S);
    }
  }
  return S;
}

/// The time blocked per window and the bound on the gain from pinning.
struct BlockFigures {
  int64_t BlockedMedian = 0;
  int64_t ImpactNs = 0; ///< the median bound, at most the target
  std::vector<int64_t> ImpactPerWindow; ///< the spread of ImpactNs
};

BlockFigures measureBlocking(const TraceIndex &Ctx, const PageableCopies &S) {
  const MeasureWindows &Win = Ctx.measureWindows();
  std::vector<int64_t> ImpactPer;
  for (size_t R = 0; R < Win.Ranges.size(); ++R)
    ImpactPer.push_back(Ctx.waitsGainBound(S.WaitsIn[R], Win.Ranges[R]));
  BlockFigures F;
  F.BlockedMedian = median(S.BlockedPer);
  F.ImpactNs = std::min(median(ImpactPer), Ctx.targetNs());
  F.ImpactPerWindow = std::move(ImpactPer);
  return F;
}

/// The evidence lines: the top three op paths, per window, and the copies
/// whose blocked time is not counted.
void addCopyEvidence(
    const TraceIndex &Ctx, const PageableCopies &S,
    const std::vector<const std::pair<const std::string, PathGroup> *> &Ranked,
    Detection &Det) {
  PerWindowMean Mean(Ctx.measureWindows());
  addSiteEvidence(
      Det, Ranked, 0, 3, [&](const std::string &Path, const PathGroup &G) {
        return llvm::formatv("{0}: {1} {2}, {3} {2}, the host "
                             "blocked {4} {2}; device copy time {5} {2}",
                             Path,
                             support::formatAverageCount(Mean.count(G.Count),
                                                         "copy", "copies"),
                             Mean.per(), Mean.size(G.Bytes),
                             Mean.time(G.Blocked), Mean.time(G.DeviceNs))
            .str();
      });
  if (S.Unlinked)
    Det.ExtraEvidence.push_back(
        llvm::formatv("{0} pageable cop{1} without the host call that issued "
                      "{2}: their blocked time is not counted",
                      S.Unlinked, S.Unlinked == 1 ? "y" : "ies",
                      S.Unlinked == 1 ? "it" : "them")
            .str());
}

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

  PageableCopies S = collectCopies(Ctx);
  if (S.ByPath.empty()) {
    // Host copies whose host memory kind is not recorded (ROCm names it
    // "Host"): nothing says whether they were pageable.
    if (S.HostCopies && S.Undecided == S.HostCopies)
      return Outcome::cannotJudge(
          Ctx.producer().isRocm()
              ? "the trace's host-device copies do not say whether host "
                "memory is pageable or pinned: ROCm's profilers name it "
                "Host. Check the allocations instead: memory from "
                "hipHostMalloc, or registered with hipHostRegister "
                "(pin_memory=True in PyTorch), is pinned, anything else "
                "pageable; S003 and D002 show whether the copy calls block"
              : "the trace's host-device copies do not say "
                "whether host memory is pageable or pinned; a CUDA (CUPTI) "
                "trace or Nsight Systems export records the memory kind");
    return Outcome::ran();
  }
  BlockFigures F = measureBlocking(Ctx, S);
  // Under the floor the copies are still reported, at info: pinning is a
  // one-line change, and a reader looking for copies wants to see them.
  const bool UnderFloor = double(F.BlockedMedian) < MinShare * double(Target);

  auto Ranked =
      rankByKey(S.ByPath, [](const PathGroup &G) { return G.Blocked; });
  const auto &[TopPath, Top] = *Ranked.front();
  const Event &Largest = T.Events[Top.Largest];
  Detection Det;
  auto &V = Det.Values;
  describeCostPerWindow(Ctx, F.BlockedMedian, MinShare, F.ImpactNs, V);
  V["count"] = count(median(S.CountPer));
  V["bytes"] = bytes(median(S.BytesPer));
  V["htod"] = count(int64_t(S.HtoD));
  V["dtoh"] = count(int64_t(S.DtoH));
  V["top_op_path"] = TopPath;
  V["subject"] = TopPath;
  V["top_name"] = T.name(Largest).str();
  V["example"] =
      eventAt(Ctx, Largest,
              llvm::formatv(" of {0}", bytes(copyBytes(T, Largest))).str());
  addCopyEvidence(Ctx, S, Ranked, Det);
  Det.Examples.push_back(example(Ctx, Largest));
  Det.ImpactNs = F.ImpactNs;
  Det.PerWindowNs = F.ImpactPerWindow;
  Det.Window = Ctx.measureWindows().describe();
  Det.Subject = TopPath;
  setGainVerdict(
      Det, F.ImpactNs, F.BlockedMedian, MinGain, Target,
      llvm::formatv("the device stayed busy while the host blocked, so "
                    "pinning is not predicted to shorten the {0} by more "
                    "than {{impact}",
                    V["unit"])
          .str(),
      "the device idled for up to {impact} " + V["per"].text() +
          " because of it");
  if (UnderFloor)
    keepUnderFloor(Det, "min-share-of-step", MinShare, F.BlockedMedian, Target);
  // The memory kind is recorded by the profiler, not inferred.
  Det.Confidence = 0.75;
  Out.push_back(std::move(Det));
  return Outcome::ran();
}
