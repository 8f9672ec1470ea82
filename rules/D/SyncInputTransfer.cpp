//===- rules/D/SyncInputTransfer.cpp - D002 sync input transfer -----------===//
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

/// The first compute work (kernel or collective) launched in each window
/// on one device, and its launch: by the launch's start.
struct FirstCompute {
  std::vector<uint32_t> Work, Call; ///< per window; NoIndex where none
};

FirstCompute firstCompute(const TraceIndex &Ctx,
                          llvm::ArrayRef<uint32_t> Work) {
  const model::Trace &T = Ctx.trace();
  const MeasureWindows &Win = Ctx.measureWindows();
  const size_t N = Win.Ranges.size();
  FirstCompute F;
  F.Work.assign(N, model::NoIndex);
  F.Call.assign(N, model::NoIndex);
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
    if (F.Work[R] == model::NoIndex ||
        T.Events[L].Start < T.Events[F.Call[R]].Start) {
      F.Work[R] = I;
      F.Call[R] = L;
    }
  }
  return F;
}

/// The input transfer of one window, over all devices.
struct StepTransfer {
  std::vector<HostWait> Own;      ///< the transfer's waits, each once
  std::vector<HostWait> Pageable; ///< pageable copy calls: M002's
  llvm::DenseSet<uint32_t> Seen;  ///< the events of Own
  std::vector<Interval> CopyParts;
  int64_t Bytes = 0;    ///< bytes of the input copies
  uint64_t Copies = 0;  ///< input copies
  uint64_t Ordered = 0; ///< non-blocking copies the first kernel waits for
};

/// The input transfers of the measured windows, collected once.
struct Transfers {
  std::vector<StepTransfer> PerWindow; ///< parallel to the windows
  llvm::DenseMap<uint32_t, const HostWait *> WaitOf; ///< by waiting event
  std::map<std::string, uint64_t> Paths; ///< input copies by op path
  std::map<int32_t, uint64_t> CopiesOn;  ///< input copies by device
  uint64_t CallBlocks = 0, WaitAfter = 0, PageableCalls = 0;
  uint64_t Directed = 0, AllCopies = 0; ///< copies that say their direction
  uint32_t FirstKernel = model::NoIndex;
};

/// Until when a wait after the copy call \p L still belongs to the transfer:
/// the end of the op around the call, or without one (an Nsight trace
/// without NVTX) the lane's next submission; never past the first compute
/// launch at \p FirstAt.
int64_t transferHorizon(const TraceIndex &Ctx, const Event &L,
                        int64_t FirstAt) {
  const model::Trace &T = Ctx.trace();
  if (const Event *Op = outermostOp(T, L))
    return std::min(FirstAt, Op->end());
  llvm::ArrayRef<uint32_t> Subs = Ctx.submissions(L.Lane);
  auto Next = llvm::partition_point(
      Subs, [&](uint32_t S) { return T.Events[S].Start <= L.Start; });
  return Next == Subs.end() ? FirstAt
                            : std::min(FirstAt, T.Events[*Next].Start);
}

/// Adds the host waits of the copy launched by \p LI to \p S: the call
/// itself when it blocks, and the waits that follow it inside its op
/// (.to() with non_blocking=False). Returns whether anything waited.
bool addTransferWaits(const TraceIndex &Ctx, uint32_t LI, bool PageableSrc,
                      int64_t FirstAt, Transfers &X, StepTransfer &S) {
  const Event &L = Ctx.trace().Events[LI];
  bool Waited = false;
  if (auto W = X.WaitOf.find(LI); W != X.WaitOf.end()) {
    Waited = true;
    if (PageableSrc) {
      ++X.PageableCalls;
      S.Pageable.push_back(*W->second);
    } else {
      ++X.CallBlocks;
      if (S.Seen.insert(LI).second)
        S.Own.push_back(*W->second);
    }
  }
  const int64_t Until = transferHorizon(Ctx, L, FirstAt);
  llvm::ArrayRef<HostWait> Lane = Ctx.hostWaits(L.Lane);
  auto It = llvm::partition_point(
      Lane, [&](const HostWait &W) { return W.Range.Begin < L.end(); });
  for (; It != Lane.end() && It->Range.Begin < Until; ++It) {
    if (It->Event == LI)
      continue;
    Waited = true;
    if (S.Seen.insert(It->Event).second) {
      ++X.WaitAfter;
      S.Own.push_back(*It);
    }
  }
  return Waited;
}

/// Adds the device's copy \p CI to \p X when it is an input copy: host to
/// device, launched in a window before that window's first compute launch.
void addCopy(const TraceIndex &Ctx, int32_t Device, uint32_t CI,
             const FirstCompute &First, Transfers &X) {
  const model::Trace &T = Ctx.trace();
  const Event &E = T.Events[CI];
  ++X.AllCopies;
  const model::EventArgs *A = T.args(E);
  if (!A || A->Copy == model::CopyKind::Unknown)
    return;
  ++X.Directed;
  uint32_t LI = T.launchOf(E);
  if (A->Copy != model::CopyKind::HtoD || LI == model::NoIndex)
    return;
  const Event &L = T.Events[LI];
  const size_t R = Ctx.measureWindows().indexOf(L.Start);
  if (R == X.PerWindow.size() || First.Work[R] == model::NoIndex ||
      L.Start >= T.Events[First.Call[R]].Start)
    return;
  StepTransfer &S = X.PerWindow[R];
  ++S.Copies;
  ++X.CopiesOn[Device];
  S.Bytes += std::max<int64_t>(A->Bytes, 0);
  S.CopyParts.push_back({E.Start, E.end()});
  ++X.Paths[Ctx.opPath(L)];
  if (X.FirstKernel == model::NoIndex)
    X.FirstKernel = First.Work[R];
  const Event &FirstCall = T.Events[First.Call[R]];
  bool Waited = addTransferWaits(Ctx, LI, A->Src == model::MemoryKind::Pageable,
                                 FirstCall.Start, X, S);
  // A copy that blocks nobody but that the first kernel waits for on the
  // same stream: M003's time, named in the evidence.
  if (!Waited && T.Events[First.Work[R]].Lane == E.Lane &&
      E.end() > FirstCall.end())
    ++S.Ordered;
}

Transfers collectTransfers(const TraceIndex &Ctx) {
  const model::Trace &T = Ctx.trace();
  Transfers X;
  X.PerWindow.resize(Ctx.measureWindows().Ranges.size());
  for (const HostWait &W : Ctx.hostWaits())
    X.WaitOf[W.Event] = &W;
  for (int32_t D : streamDevices(Ctx)) {
    llvm::ArrayRef<uint32_t> Work = Ctx.deviceWork(D);
    const FirstCompute First = firstCompute(Ctx, Work);
    for (uint32_t I : Work)
      if (T.Events[I].Kind == EventKind::Memcpy)
        addCopy(Ctx, D, I, First, X);
  }
  return X;
}

/// The transfer's figures per window, as medians, and over the windows.
struct TransferFigures {
  int64_t Cost = 0;    ///< the gain bound this rule claims
  int64_t Claimed = 0; ///< the bound M002 claims for pageable calls
  int64_t WaitNs = 0;  ///< the union of the transfer's own waits
  int64_t Bytes = 0, CopyNs = 0, Copies = 0;
  uint64_t WithWaits = 0, Ordered = 0;
  uint32_t Example = model::NoIndex; ///< the longest own wait
};

TransferFigures measureTransfers(const TraceIndex &Ctx, Transfers &X) {
  const model::Trace &T = Ctx.trace();
  const MeasureWindows &Win = Ctx.measureWindows();
  std::vector<int64_t> Costs, Claimed, Waits, Bytes, CopyNs, Copies;
  TransferFigures F;
  for (size_t R = 0; R < X.PerWindow.size(); ++R) {
    StepTransfer &S = X.PerWindow[R];
    std::vector<HostWait> All = S.Own;
    llvm::append_range(All, S.Pageable);
    int64_t Both = Ctx.waitsGainBound(All, Win.Ranges[R]);
    int64_t Pageable = Ctx.waitsGainBound(S.Pageable, Win.Ranges[R]);
    std::vector<Interval> WaitParts;
    for (const HostWait &W : S.Own) {
      WaitParts.push_back(W.Range);
      if (F.Example == model::NoIndex ||
          W.Range.length() > T.Events[F.Example].Duration)
        F.Example = W.Event;
    }
    Costs.push_back(std::max<int64_t>(0, Both - Pageable));
    Claimed.push_back(Pageable);
    Waits.push_back(model::IntervalSet::unionOf(std::move(WaitParts)).length());
    Bytes.push_back(S.Bytes);
    CopyNs.push_back(
        model::IntervalSet::unionOf(std::move(S.CopyParts)).length());
    Copies.push_back(int64_t(S.Copies));
    F.WithWaits += !S.Own.empty();
    F.Ordered += S.Ordered;
  }
  F.Cost = std::min(median(Costs), Ctx.targetNs());
  F.Claimed = median(Claimed);
  F.WaitNs = median(Waits);
  F.Bytes = median(Bytes);
  F.CopyNs = median(CopyNs);
  F.Copies = median(Copies);
  return F;
}

/// The placeholders that say how the copy waits and what other rules own:
/// {how}, {pageable_note}, {ordered_note} and {change}.
void describeHow(const TraceIndex &Ctx, const Transfers &X,
                 const TransferFigures &F, const MeasureWindows &Win,
                 bool Torch, std::map<std::string, Value> &V) {
  V["how"] = X.WaitAfter >= X.CallBlocks
                 ? Torch ? "a synchronization follows the copy call inside the "
                           "same op (.to(device) with non_blocking=False)"
                         : "a synchronization follows the copy call"
                 : inTraceWords(Ctx, "the copy call itself blocks until the "
                                     "copy is done (a synchronous cudaMemcpy)");
  V["pageable_note"] =
      X.PageableCalls
          ? llvm::formatv("{0} input copies in {1} stage pageable "
                          "memory; the idle time behind those calls ({2} "
                          "{3}) is M002's and not counted here",
                          X.PageableCalls, Win.describe(), V["claimed"],
                          Win.Steps ? "per step" : "in the window")
                .str()
          : "the input copies read pinned (or unnamed) host memory, so no "
            "pageable staging is involved";
  V["ordered_note"] =
      F.Ordered ? llvm::formatv("{0} further non-blocking input copies that "
                                "the first kernel waits for on its stream "
                                "(that copy time is M003's)",
                                F.Ordered)
                      .str()
                : "no non-blocking input copy that the first kernel waits "
                  "for on its stream";
  if (!Torch) {
    // A C/C++ program owns its buffers and streams.
    V["change"] = inTraceWords(
        Ctx, X.PageableCalls
                 ? "allocate the input buffer with cudaMallocHost (or "
                   "register it with cudaHostRegister) and copy it with "
                   "cudaMemcpyAsync on a non-default stream"
                 : "copy the input with cudaMemcpyAsync on a "
                   "non-default stream and wait on a CUDA event only "
                   "where the host needs the data, instead of "
                   "synchronizing after the copy");
    return;
  }
  V["change"] = X.PageableCalls
                    ? "pin the batch (DataLoader(pin_memory=True)) and copy "
                      "it with .to(device, non_blocking=True)"
                    : "copy the batch with .to(device, non_blocking=True) "
                      "and remove the synchronization after the copy";
}

Detection describeTransfer(const TraceIndex &Ctx, const Transfers &X,
                           const TransferFigures &F, double MinShare) {
  const model::Trace &T = Ctx.trace();
  const MeasureWindows &Win = Ctx.measureWindows();
  // The device with the most input copies (ties: the lower).
  int32_t Device = -1;
  uint64_t Most = 0;
  for (auto &[D, Count] : X.CopiesOn)
    if (Count > Most) {
      Most = Count;
      Device = D;
    }
  auto Paths = rankByKey(X.Paths, [](uint64_t C) { return C; });

  Detection Det = impactDetection(Ctx, F.Cost, MinShare);
  auto &V = Det.Values;
  V["device"] = deviceName(Device);
  V["wait_time"] = dur(F.WaitNs);
  V["claimed"] = dur(F.Claimed);
  V["copies_per_step"] = count(F.Copies);
  V["bytes_per_step"] = bytes(F.Bytes);
  V["copy_time"] = dur(F.CopyNs);
  V["steps_with"] =
      llvm::formatv("{0} of {1}", F.WithWaits, Win.Ranges.size()).str();
  V["top_op_path"] = Paths.empty() ? "(none)" : Paths.front()->first;
  V["subject"] = V["top_op_path"];
  describeHow(Ctx, X, F, Win, analysis::speaksPyTorch(Ctx.producer().Kind), V);
  V["first_kernel"] = X.FirstKernel == model::NoIndex
                          ? "the first kernel"
                          : T.name(T.Events[X.FirstKernel]).str();
  V["example"] = "none";
  if (F.Example != model::NoIndex) {
    const Event &E = T.Events[F.Example];
    V["example"] = eventWithLengthAt(Ctx, E);
    Det.Examples.push_back(example(Ctx, E));
  }
  Det.Subject = V["top_op_path"].text();
  Det.Confidence = 0.7;
  return Det;
}

} // namespace

Outcome rules::runSyncInputTransfer(const TraceIndex &Ctx,
                                    const RuleOptions &Opts,
                                    std::vector<Detection> &Out) {
  const double MinShare = Opts.number("min-share-of-step");
  const int64_t Target = Ctx.targetNs();
  if (Target <= 0)
    return Outcome::ran();

  Transfers X = collectTransfers(Ctx);
  if (X.AllCopies && !X.Directed)
    return Outcome::cannotJudge(
        "the trace's device copies do not say their "
        "direction (host-to-device or not); a CUDA (CUPTI) or ROCm "
        "profiler trace with memcpy activity records it");
  const TransferFigures F = measureTransfers(Ctx, X);
  if (!reachesShareOfTarget(F.Cost, Target, MinShare))
    return Outcome::ran();

  Out.push_back(describeTransfer(Ctx, X, F, MinShare));
  return Outcome::ran();
}
