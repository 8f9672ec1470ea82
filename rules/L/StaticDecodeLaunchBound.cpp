//===- rules/detectors/DecodeLoop.cpp - L004 static decode launch bound ---===//
//
// Batch-1 autoregressive decode runs one identical kernel sequence per
// token. Each kernel is short, so when the host launches them one by one
// the device idles between them, and the cure is specific: capture the
// single-token step once (CUDA graphs through torch.compile's
// reduce-overhead mode, with a static KV cache so the shapes never change)
// and replay it. The detector finds the repeating sequence by the names of
// the device work (constant period, identical names), splits the idle time
// inside it with TraceIndex::attributeIdle, and fires when the launch path
// explains most of it. It claims only the launch-attributed idle inside the
// loop; L001 leaves that time to this rule.
//
//===----------------------------------------------------------------------===//
#include "rules/BuiltinDetectors.h"
#include "rules/detectors/DecodeLoop.h"
#include "rules/detectors/DetectorSupport.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

using namespace tracelint;
using namespace tracelint::rules;
using namespace tracelint::rules::detect;
using analysis::IdleBreakdown;
using analysis::TraceIndex;
using model::Event;
using model::Interval;

namespace {
void report(const TraceIndex &Ctx, const DecodeLoop &L,
            const DecodeLoopOptions &O, const MeasureWindows &Win,
            std::vector<Detection> &Out) {
  const model::Trace &T = Ctx.trace();
  Detection Det;
  auto &V = Det.Values;
  const int64_t Impact = L.GainNs;
  const int64_t Span = L.Range.length();
  V["device"] = llvm::formatv("device {0}", L.Device).str();
  V["tokens"] = std::to_string(L.Repeats);
  V["kernels_per_token"] = std::to_string(L.Period);
  V["token_time"] = dur(L.TokenNs);
  V["token_busy"] = dur(L.TokenBusyNs);
  V["token_busy_share"] =
      pct(L.TokenNs > 0 ? double(L.TokenBusyNs) / double(L.TokenNs) : 0);
  V["loop_span"] = dur(Span);
  V["reads"] = std::to_string(L.Reads);
  V["launch_idle"] = dur(L.Idle.LaunchNs);
  V["launch_share"] = pct(double(L.Idle.LaunchNs) / double(Span));
  V["idle"] = dur(L.Idle.IdleNs);
  V["idle_share"] = pct(double(L.Idle.IdleNs) / double(Span));
  V["wait_idle"] = dur(L.Idle.HostWaitNs);
  V["other_idle"] = dur(L.Idle.HostOtherNs);
  V["queued_idle"] = dur(L.Idle.QueuedNs);
  V["unlinked_idle"] = dur(L.Idle.UnlinkedNs);
  V["threshold"] = pct(O.MinLaunchShare);
  V["impact"] = dur(Impact);
  V["loop_gain"] = dur(Impact);
  V["target"] = Ctx.describeTarget();
  const Event &First = T.Events[L.FirstWork];
  V["first_kernel"] = T.name(First).str();
  V["loop_start"] =
      llvm::formatv("{0:f3} us", Ctx.traceTimestampUs(First)).str();
  const Event *Op = nullptr;
  if (uint32_t Launch = T.launchOf(First); Launch != model::NoIndex)
    Op = enclosingOp(T, T.Events[Launch]);
  V["first_op"] = Op ? T.name(*Op).str() : V["first_kernel"];
  describeWindows(Win, V);
  V["subject"] = V["device"];
  Det.Examples.push_back(example(Ctx, First));
  if (uint32_t Launch = T.launchOf(First); Launch != model::NoIndex)
    Det.Examples.push_back(example(Ctx, T.Events[Launch]));
  Det.ImpactNs = Impact;
  Det.Window = Win.describe();
  Det.Subject = V["device"].text() + " decode loop";
  // Identical sequences are strong evidence of a static step; the launch
  // attribution is weaker when much idle has no host call.
  double Conf = 0.8;
  if (L.Idle.IdleNs > 0 &&
      double(L.Idle.UnlinkedNs) > 0.3 * double(L.Idle.IdleNs)) {
    Conf *= 0.8;
    Det.ConfidenceNotes.push_back(
        llvm::formatv("{0} of the loop's idle time ends with device work "
                      "that has no host call in the trace",
                      pct(double(L.Idle.UnlinkedNs) / double(L.Idle.IdleNs)))
            .str());
  }
  Det.Confidence = Conf;
  Out.push_back(std::move(Det));
}
} // namespace

Outcome rules::runStaticDecodeLaunchBound(const TraceIndex &Ctx,
                                          const RuleOptions &Opts,
                                          std::vector<Detection> &Out) {
  if (!Ctx.hasCorrelation())
    return Outcome::cannotJudge(
        "no device work is linked to a host call "
        "(correlation ids missing), so idle gaps cannot be attributed");
  const DecodeLoopOptions O = decodeLoopOptions(Opts);
  if (Ctx.targetNs() <= 0)
    return Outcome::ran();

  const MeasureWindows &Win = Ctx.measureWindows();
  // One finding per device with a reported loop (L001 leaves exactly these
  // loops out of its figures).
  for (int32_t D : Ctx.devices()) {
    if (D < 0)
      continue;
    std::optional<DecodeLoop> L = findReportedDecodeLoop(Ctx, D, O);
    if (L && L->Reported)
      report(Ctx, *L, O, Win, Out);
  }
  return Outcome::ran();
}
