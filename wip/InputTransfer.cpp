//===- rules/detectors/InputTransfer.cpp - D002 sync input transfer -------===//
//
// A step usually opens by moving its batch to the device. When that copy is
// synchronous (a blocking cudaMemcpy, an asynchronous copy from pageable
// memory, or a copy followed by a host wait inside the same op), the host
// cannot queue the step's first compute kernel until the copy is done, and
// the device has no compute to run meanwhile: the transfer sits on the
// critical path of every step.
//
// Per steady step and device: the first compute work (kernel or collective)
// launched inside the step, and the host-to-device copies launched before
// it. Those that block the host are the synchronous input transfers; the
// union of their ops' ranges (the outermost framework op around the copy
// call, e.g. aten::to), cut at the first compute kernel's start, is the
// transfer span. The part of that span during which the device runs no
// compute is what an asynchronous, prefetched copy could give back at most:
// the figure and the impact.
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
using analysis::Context;
using analysis::HostWait;
using model::Event;
using model::EventKind;
using model::Interval;
using model::IntervalSet;

namespace {

/// The outermost framework op around \p E on its lane, or nullptr.
const Event *outermostOp(const model::Trace &T, const Event &E) {
  const Event *Out = nullptr;
  for (uint32_t I = E.Parent; I != model::NoIndex; I = T.Events[I].Parent)
    if (T.Events[I].Kind == EventKind::Op)
      Out = &T.Events[I];
  return Out;
}

struct StepFigures {
  int64_t Cost = 0;   ///< device compute idle inside the transfer span
  int64_t Span = 0;   ///< the transfer span's length
  int64_t Bytes = 0;  ///< bytes of the synchronous input copies
  int64_t CopyNs = 0; ///< their device time
  uint64_t Copies = 0;
};

struct DeviceFigures {
  int32_t Device = -1;
  std::vector<StepFigures> Steps; ///< per window
  std::map<std::string, uint64_t> Paths;
  uint64_t Pageable = 0, SyncAfter = 0, BlockingCall = 0;
  uint32_t Example = model::NoIndex; ///< the longest blocking copy call
  uint32_t FirstKernel = model::NoIndex;
};

} // namespace

std::string rules::runSyncInputTransfer(const Context &Ctx, const RuleSpec &,
                                        const RuleOptions &Opts,
                                        std::vector<Detection> &Out) {
  const model::Trace &T = Ctx.trace();
  if (!Ctx.hasDeviceActivity())
    return "cannot judge: the trace has no device activity";
  if (std::string Why = startupWindowReason(Ctx); !Why.empty())
    return Why;
  if (!Ctx.hasSteps())
    return "cannot judge: the trace has no step markers, so the start of a "
           "step is unknown; call prof.step() once per iteration";
  if (!Ctx.hasCorrelation())
    return "cannot judge: no device work is linked to a host call "
           "(correlation ids missing), so copies cannot be tied to the "
           "calls that issued them";
  const double MinShare = optionOr(Opts, "min-share-of-step", 0.05);
  const int64_t Target = Ctx.targetNs();
  if (Target <= 0)
    return "";
  MeasureWindows Win = measureWindows(Ctx);

  std::vector<DeviceFigures> Figures;
  for (int32_t D : Ctx.devices()) {
    if (D < 0)
      continue;
    DeviceFigures F;
    F.Device = D;
    llvm::ArrayRef<uint32_t> Work = Ctx.deviceWork(D);
    std::vector<Interval> ComputeParts;
    for (uint32_t I : Work)
      if (T.Events[I].Kind != EventKind::Memcpy)
        ComputeParts.push_back({T.Events[I].Start, T.Events[I].end()});
    IntervalSet Compute = IntervalSet::unionOf(std::move(ComputeParts));

    for (const Interval &R : Win.Ranges) {
      StepFigures S;
      // The first compute work launched inside the step.
      uint32_t First = model::NoIndex, FirstLaunch = model::NoIndex;
      for (uint32_t I : Work) {
        const Event &E = T.Events[I];
        if (E.Kind != EventKind::Kernel && E.Kind != EventKind::Collective)
          continue;
        uint32_t L = T.launchOf(E);
        if (L == model::NoIndex || T.Events[L].Start < R.Begin ||
            T.Events[L].Start >= R.End)
          continue;
        if (First == model::NoIndex ||
            T.Events[L].Start < T.Events[FirstLaunch].Start) {
          First = I;
          FirstLaunch = L;
        }
      }
      if (First == model::NoIndex) {
        F.Steps.push_back(S);
        continue;
      }
      const int64_t Before = T.Events[FirstLaunch].Start;
      const int64_t Cut = T.Events[First].Start;
      std::vector<Interval> SpanParts;
      for (uint32_t I : Work) {
        const Event &E = T.Events[I];
        const model::EventArgs *A = T.args(E);
        if (E.Kind != EventKind::Memcpy || !A ||
            A->Copy != model::CopyKind::HtoD)
          continue;
        uint32_t LI = T.launchOf(E);
        if (LI == model::NoIndex)
          continue;
        const Event &L = T.Events[LI];
        if (L.Start < R.Begin || L.Start >= Before)
          continue;
        // Blocking: the call itself, or a host wait inside the same op.
        const Event *Op = outermostOp(T, L);
        int64_t OpEnd = Op ? Op->end() : Before;
        bool CallBlocks = Ctx.waitKind(L) != analysis::WaitKind::None;
        bool WaitAfter = false;
        for (const HostWait &W : Ctx.hostWaits(L.Lane))
          if (W.Event != LI && W.Range.Begin >= L.Start &&
              W.Range.Begin < OpEnd) {
            WaitAfter = true;
            break;
          }
        if (!CallBlocks && !WaitAfter)
          continue;
        ++S.Copies;
        S.Bytes += std::max<int64_t>(A->Bytes, 0);
        S.CopyNs += E.Duration;
        if (A->Src == model::MemoryKind::Pageable)
          ++F.Pageable;
        if (WaitAfter)
          ++F.SyncAfter;
        else
          ++F.BlockingCall;
        ++F.Paths[Ctx.opPath(L)];
        if (F.Example == model::NoIndex ||
            L.Duration > T.Events[F.Example].Duration)
          F.Example = LI;
        int64_t Begin = Op ? Op->Start : L.Start;
        int64_t End = std::max({OpEnd, L.end(), E.end()});
        SpanParts.push_back({std::max(Begin, R.Begin), std::min(End, Cut)});
      }
      IntervalSet Span = IntervalSet::unionOf(std::move(SpanParts));
      S.Span = Span.length();
      S.Cost = S.Span - Compute.intersect(Span).length();
      if (S.Copies && F.FirstKernel == model::NoIndex)
        F.FirstKernel = First;
      F.Steps.push_back(S);
    }
    Figures.push_back(std::move(F));
  }
  if (Figures.empty())
    return "";
  auto CostsOf = [](const DeviceFigures &F) {
    std::vector<int64_t> V;
    for (const StepFigures &S : F.Steps)
      V.push_back(S.Cost);
    return V;
  };
  auto Best =
      std::max_element(Figures.begin(), Figures.end(),
                       [&](const DeviceFigures &A, const DeviceFigures &B) {
                         return median(CostsOf(A)) < median(CostsOf(B));
                       });
  DeviceFigures &F = *Best;
  int64_t Cost = std::min(median(CostsOf(F)), Target);
  double Share = double(Cost) / double(Target);
  if (Cost <= 0 || Share < MinShare)
    return "";

  std::vector<int64_t> Bytes, CopyNs, Copies, Spans;
  uint64_t WithCopies = 0;
  for (const StepFigures &S : F.Steps) {
    Bytes.push_back(S.Bytes);
    CopyNs.push_back(S.CopyNs);
    Copies.push_back(int64_t(S.Copies));
    Spans.push_back(S.Span);
    WithCopies += S.Copies > 0;
  }
  std::vector<std::pair<uint64_t, std::string>> ByCount;
  for (auto &[Path, N] : F.Paths)
    ByCount.push_back({N, Path});
  llvm::sort(ByCount, [](const auto &A, const auto &B) {
    return A.first > B.first || (A.first == B.first && A.second < B.second);
  });

  Detection Det;
  auto &V = Det.Values;
  V["device"] = llvm::formatv("device {0}", F.Device).str();
  V["value"] = dur(Cost);
  V["share"] = pct(Share);
  V["impact"] = dur(Cost);
  V["threshold"] = pct(MinShare);
  V["span"] = dur(median(Spans));
  V["copies_per_step"] = std::to_string(median(Copies));
  V["bytes_per_step"] = bytes(median(Bytes));
  V["copy_time"] = dur(median(CopyNs));
  V["steps_with"] = llvm::formatv("{0} of {1}", WithCopies, F.Steps.size());
  V["top_op_path"] = ByCount.front().second;
  uint64_t All = F.SyncAfter + F.BlockingCall;
  V["how"] =
      F.SyncAfter * 2 > All
          ? "a host wait follows the copy call inside the same op "
            "(non_blocking=False)"
          : (F.Pageable * 2 > All ? "the copy call itself blocks while it "
                                    "stages pageable host memory"
                                  : "the copy call itself is synchronous");
  V["change"] =
      F.Pageable * 2 > All
          ? "pin the batch (DataLoader(pin_memory=True)) and copy it with "
            ".to(device, non_blocking=True)"
          : "copy the batch with .to(device, non_blocking=True) and drop "
            "the synchronization after it (the source is already pinned)";
  V["first_kernel"] = F.FirstKernel == model::NoIndex
                          ? "the first kernel"
                          : T.name(T.Events[F.FirstKernel]).str();
  V["target"] = Ctx.describeTarget();
  Win.describeInto(V);
  V["example"] = "none";
  if (F.Example != model::NoIndex) {
    const Event &E = T.Events[F.Example];
    V["example"] =
        llvm::formatv("{0} at {1:f3} us", T.name(E), Ctx.traceTimestampUs(E))
            .str();
    Det.Examples.push_back(example(Ctx, E));
  }
  Det.ImpactNs = Cost;
  Det.Window = Win.describe();
  Det.Subject = V["top_op_path"];
  Det.Confidence = 0.75;
  Out.push_back(std::move(Det));
  return "";
}
