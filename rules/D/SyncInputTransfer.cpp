//===- rules/detectors/InputTransfer.cpp - D002 sync input transfer -------===//
//
// A step usually opens by moving its batch to the device. When the host
// waits for that copy (a blocking cudaMemcpy, or .to(device) with
// non_blocking=False, which synchronizes the stream after the copy call),
// it cannot queue the step's first compute kernel until the copy is done,
// and the device runs nothing between the end of the copy and that kernel.
//
// Per steady step: on each device, the first compute work (kernel or
// collective) launched inside the step, and the host-to-device copies
// launched in the step before it (the input transfer). The host waits that
// belong to the transfer are the copy calls that block and the waits that
// follow a copy call inside the same framework op. The figure is the gain
// bound for removing those waits (waitsGainBound: device idle time between
// a wait's start and the device's next work, at most the wait's length).
//
// Three other rules measure parts of the same stretch; this one counts only
// what they do not:
//  - M002 claims the waits inside pageable copy calls (the driver stages the
//    batch). The figure here is the bound for all the transfer's waits minus
//    the bound for the pageable calls alone.
//  - M003 claims the copy's own device time when nothing else runs. A wait
//    gains only device idle time, so the copy's time is never counted here;
//    a non-blocking copy that the first kernel waits for on the same stream
//    is reported in the evidence but is M003's time.
//  - D001 claims the device idle inside data-loader ranges; the batch must
//    come out of the loader before it is copied, so those ranges precede
//    the waits counted here.
//
//===----------------------------------------------------------------------===//
#include "rules/BuiltinDetectors.h"
#include "rules/detectors/DetectorSupport.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
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

namespace {

/// The outermost framework op around \p E on its lane, or nullptr.
const Event *outermostOp(const model::Trace &T, const Event &E) {
  const Event *Out = nullptr;
  for (uint32_t I = E.Parent; I != model::NoIndex; I = T.Events[I].Parent)
    if (T.Events[I].Kind == EventKind::Op)
      Out = &T.Events[I];
  return Out;
}

/// The transfer of one step, summed over devices.
struct StepFigures {
  int64_t Cost = 0;     ///< the gain bound this rule claims
  int64_t Claimed = 0;  ///< the bound M002 claims for pageable calls
  int64_t WaitNs = 0;   ///< the union of the transfer's own waits
  int64_t Bytes = 0;    ///< bytes of the input copies
  int64_t CopyNs = 0;   ///< their device time (a union)
  uint64_t Copies = 0;  ///< input copies
  uint64_t Ordered = 0; ///< non-blocking copies the first kernel waits for
};

} // namespace

Outcome rules::runSyncInputTransfer(const TraceIndex &Ctx,
                                    const RuleOptions &Opts,
                                    std::vector<Detection> &Out) {
  const model::Trace &T = Ctx.trace();
  if (!Ctx.hasSteps())
    return Outcome::cannotJudge(
        "the trace has no step markers, so the start of a "
        "step is unknown; call prof.step() once per iteration "
        "(torch.profiler) or mark iterations with NVTX ranges");
  if (!Ctx.hasCorrelation())
    return Outcome::cannotJudge(
        "no device work is linked to a host call "
        "(correlation ids missing), so neither the step's first kernel "
        "nor the copies' calls can be found");
  const double MinShare = Opts.number("min-share-of-step");
  const int64_t Target = Ctx.targetNs();
  if (Target <= 0)
    return Outcome::ran();
  const MeasureWindows &Win = Ctx.measureWindows();
  const size_t N = Win.Ranges.size();

  llvm::DenseMap<uint32_t, const HostWait *> WaitOf;
  for (const HostWait &W : Ctx.hostWaits())
    WaitOf[W.Event] = &W;

  std::vector<StepFigures> Steps(N);
  std::vector<std::vector<HostWait>> Own(N), Pageable(N);
  std::vector<llvm::DenseSet<uint32_t>> Seen(N);
  std::vector<std::vector<Interval>> CopyParts(N);
  std::map<std::string, uint64_t> Paths;
  std::map<int32_t, uint64_t> CopiesOn;
  uint64_t CallBlocks = 0, WaitAfter = 0, PageableCalls = 0, Directed = 0,
           AllCopies = 0;
  uint32_t Example = model::NoIndex, FirstKernel = model::NoIndex;

  for (int32_t D : Ctx.devices()) {
    if (D < 0)
      continue;
    llvm::ArrayRef<uint32_t> Work = Ctx.deviceWork(D);
    // The first compute work launched in each window, by its launch.
    std::vector<uint32_t> First(N, model::NoIndex),
        FirstCall(N, model::NoIndex);
    for (uint32_t I : Work) {
      const Event &E = T.Events[I];
      if (E.Kind != EventKind::Kernel && E.Kind != EventKind::Collective)
        continue;
      uint32_t L = T.launchOf(E);
      if (L == model::NoIndex)
        continue;
      size_t R = Win.indexOf(T.Events[L].Start);
      if (R == N)
        continue;
      if (First[R] == model::NoIndex ||
          T.Events[L].Start < T.Events[FirstCall[R]].Start) {
        First[R] = I;
        FirstCall[R] = L;
      }
    }
    for (uint32_t I : Work) {
      const Event &E = T.Events[I];
      if (E.Kind != EventKind::Memcpy)
        continue;
      ++AllCopies;
      const model::EventArgs *A = T.args(E);
      if (!A || A->Copy == model::CopyKind::Unknown)
        continue;
      ++Directed;
      if (A->Copy != model::CopyKind::HtoD)
        continue;
      uint32_t LI = T.launchOf(E);
      if (LI == model::NoIndex)
        continue;
      const Event &L = T.Events[LI];
      size_t R = Win.indexOf(L.Start);
      if (R == N || First[R] == model::NoIndex ||
          L.Start >= T.Events[FirstCall[R]].Start)
        continue;
      StepFigures &S = Steps[R];
      ++S.Copies;
      ++CopiesOn[D];
      S.Bytes += std::max<int64_t>(A->Bytes, 0);
      CopyParts[R].push_back({E.Start, E.end()});
      ++Paths[Ctx.opPath(L)];
      if (FirstKernel == model::NoIndex)
        FirstKernel = First[R];

      const int64_t FirstAt = T.Events[FirstCall[R]].Start;
      bool Waited = false;
      if (auto W = WaitOf.find(LI); W != WaitOf.end()) {
        Waited = true;
        if (A->Src == model::MemoryKind::Pageable) {
          ++PageableCalls;
          Pageable[R].push_back(*W->second);
        } else {
          ++CallBlocks;
          if (Seen[R].insert(LI).second)
            Own[R].push_back(*W->second);
        }
      }
      // Waits that follow the call inside the same op, before the step's
      // first compute is launched (.to() with non_blocking=False).
      // Without an op around the call (an Nsight trace without NVTX), the
      // waits before the lane's next submission.
      const Event *Op = outermostOp(T, L);
      int64_t Until = FirstAt;
      if (Op) {
        Until = std::min(Until, Op->end());
      } else {
        llvm::ArrayRef<uint32_t> Subs = Ctx.submissions(L.Lane);
        auto Next = llvm::partition_point(
            Subs, [&](uint32_t S) { return T.Events[S].Start <= L.Start; });
        if (Next != Subs.end())
          Until = std::min(Until, T.Events[*Next].Start);
      }
      llvm::ArrayRef<HostWait> Lane = Ctx.hostWaits(L.Lane);
      auto It = llvm::partition_point(
          Lane, [&](const HostWait &W) { return W.Range.Begin < L.end(); });
      for (; It != Lane.end() && It->Range.Begin < Until; ++It) {
        if (It->Event == LI)
          continue;
        Waited = true;
        if (Seen[R].insert(It->Event).second) {
          ++WaitAfter;
          Own[R].push_back(*It);
        }
      }
      // A copy that blocks nobody but that the first kernel waits for on
      // the same stream: M003's time, named in the evidence.
      if (!Waited && T.Events[First[R]].Lane == E.Lane &&
          E.end() > T.Events[FirstCall[R]].end())
        ++S.Ordered;
    }
  }
  if (AllCopies && !Directed)
    return Outcome::cannotJudge(
        "the trace's device copies do not say their "
        "direction (host-to-device or not); a CUDA (CUPTI) or ROCm "
        "profiler trace with memcpy activity records it");

  std::vector<int64_t> Costs, Claimed, Waits, Bytes, CopyNs, Copies;
  uint64_t WithWaits = 0, Ordered = 0;
  for (size_t R = 0; R < N; ++R) {
    StepFigures &S = Steps[R];
    std::vector<HostWait> All = Own[R];
    llvm::append_range(All, Pageable[R]);
    int64_t Both = Ctx.waitsGainBound(All, Win.Ranges[R]);
    S.Claimed = Ctx.waitsGainBound(Pageable[R], Win.Ranges[R]);
    S.Cost = std::max<int64_t>(0, Both - S.Claimed);
    std::vector<Interval> WaitParts;
    for (const HostWait &W : Own[R])
      WaitParts.push_back(W.Range);
    S.WaitNs = model::IntervalSet::unionOf(std::move(WaitParts)).length();
    S.CopyNs = model::IntervalSet::unionOf(std::move(CopyParts[R])).length();
    WithWaits += !Own[R].empty();
    Ordered += S.Ordered;
    Costs.push_back(S.Cost);
    Claimed.push_back(S.Claimed);
    Waits.push_back(S.WaitNs);
    Bytes.push_back(S.Bytes);
    CopyNs.push_back(S.CopyNs);
    Copies.push_back(int64_t(S.Copies));
    for (const HostWait &W : Own[R])
      if (Example == model::NoIndex ||
          W.Range.length() > T.Events[Example].Duration)
        Example = W.Event;
  }
  int64_t Cost = std::min(median(Costs), Target);
  double Share = double(Cost) / double(Target);
  if (Cost <= 0 || Share < MinShare)
    return Outcome::ran();

  std::vector<std::pair<uint64_t, std::string>> ByCount;
  for (auto &[Path, Count] : Paths)
    ByCount.push_back({Count, Path});
  llvm::sort(ByCount, [](const auto &A, const auto &B) {
    return A.first > B.first || (A.first == B.first && A.second < B.second);
  });
  int32_t Device = -1;
  uint64_t Most = 0;
  for (auto &[D, Count] : CopiesOn)
    if (Count > Most) {
      Most = Count;
      Device = D;
    }

  Detection Det;
  auto &V = Det.Values;
  V["device"] = llvm::formatv("device {0}", Device).str();
  V["value"] = dur(Cost);
  V["share"] = pct(Share);
  V["impact"] = dur(Cost);
  V["threshold"] = pct(MinShare);
  V["wait_time"] = dur(median(Waits));
  V["claimed"] = dur(median(Claimed));
  V["copies_per_step"] = std::to_string(median(Copies));
  V["bytes_per_step"] = bytes(median(Bytes));
  V["copy_time"] = dur(median(CopyNs));
  V["steps_with"] = llvm::formatv("{0} of {1}", WithWaits, N).str();
  V["top_op_path"] = ByCount.empty() ? "(none)" : ByCount.front().second;
  V["subject"] = V["top_op_path"];
  V["how"] = WaitAfter >= CallBlocks
                 ? "a synchronization follows the copy call inside the same "
                   "op (.to(device) with non_blocking=False)"
                 : "the copy call itself blocks until the copy is done "
                   "(a synchronous cudaMemcpy)";
  V["pageable_note"] =
      PageableCalls
          ? llvm::formatv("{0} input copies in {1} stage pageable "
                          "memory; the idle time behind those calls ({2} "
                          "{3}) is M002's and not counted here",
                          PageableCalls, Win.describe(), V["claimed"],
                          Win.Steps ? "per step" : "in the window")
                .str()
          : "the input copies read pinned (or unnamed) host memory, so no "
            "pageable staging is involved";
  V["ordered_note"] =
      Ordered ? llvm::formatv("{0} further non-blocking input copies that "
                              "the first kernel waits for on its stream "
                              "(that copy time is M003's)",
                              Ordered)
                    .str()
              : "no non-blocking input copy that the first kernel waits "
                "for on its stream";
  V["change"] = PageableCalls
                    ? "pin the batch (DataLoader(pin_memory=True)) and copy "
                      "it with .to(device, non_blocking=True)"
                    : "copy the batch with .to(device, non_blocking=True) "
                      "and remove the synchronization after the copy";
  V["first_kernel"] = FirstKernel == model::NoIndex
                          ? "the first kernel"
                          : T.name(T.Events[FirstKernel]).str();
  V["target"] = Ctx.describeTarget();
  describeWindows(Win, V);
  V["example"] = "none";
  if (Example != model::NoIndex) {
    const Event &E = T.Events[Example];
    V["example"] = llvm::formatv("{0} ({1}) at {2:f3} us", T.name(E),
                                 dur(E.Duration), Ctx.traceTimestampUs(E))
                       .str();
    Det.Examples.push_back(example(Ctx, E));
  }
  Det.ImpactNs = Cost;
  Det.Window = Win.describe();
  Det.Subject = V["top_op_path"].text();
  Det.Confidence = 0.7;
  Out.push_back(std::move(Det));
  return Outcome::ran();
}
