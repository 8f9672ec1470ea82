//===- rules/L/StaticDecodeLaunchBound.cpp - L004 static decode loop ------===//
//
// Batch-1 autoregressive decode runs one identical kernel sequence per
// token. Each kernel is short, so when the host launches them one by one
// the device idles between them, and the cure is specific: capture the
// single-token step once (CUDA graphs through torch.compile's
// reduce-overhead mode, with a static KV cache so the shapes never change)
// and replay it. DecodeLoop.h finds the repeating sequence by the names of
// the device work (constant period, identical names), splits the idle time
// inside it with TraceIndex::attributeIdle, and says whether the launch
// path explains most of it; this detector reports each such loop, one
// finding per device. It claims only the launch-attributed idle inside the
// loop; L001 leaves that time to this rule.
//
//===----------------------------------------------------------------------===//
#include "rules/BuiltinDetectors.h"
#include "rules/detectors/DecodeLoop.h"
#include "rules/detectors/DetectorSupport.h"

#include "llvm/Support/FormatVariadic.h"

#include <map>
#include <optional>

using namespace tracelint;
using namespace tracelint::rules;
using namespace tracelint::rules::detect;
using analysis::TraceIndex;
using model::Event;

namespace {

/// The loop's tokens and its idle split, as the rule's placeholders.
void describeLoop(const DecodeLoop &L, std::map<std::string, Value> &V) {
  const int64_t Span = L.Range.length();
  V["tokens"] = count(int64_t(L.Repeats));
  V["kernels_per_token"] = count(int64_t(L.Period));
  V["token_time"] = dur(L.TokenNs);
  V["token_busy"] = dur(L.TokenBusyNs);
  V["token_busy_share"] =
      pct(L.TokenNs > 0 ? double(L.TokenBusyNs) / double(L.TokenNs) : 0);
  V["loop_span"] = dur(Span);
  V["reads"] = count(int64_t(L.Reads));
  describeIdleSplit(analysis::typicalSplit(L.Device, {Span}, {&L.Idle}), Span,
                    V);
  V["launch_idle"] = dur(L.Idle.LaunchNs);
  V["launch_share"] = pct(double(L.Idle.LaunchNs) / double(Span));
  V["other_idle"] = dur(L.Idle.HostOtherNs);
}

Detection describeDecodeLoop(const TraceIndex &Ctx, const DecodeLoop &L,
                             const DecodeLoopOptions &O) {
  const model::Trace &T = Ctx.trace();
  Detection Det = windowDetection(Ctx, L.GainNs, O.MinLaunchShare);
  Det.PerWindowNs = L.PerWindowNs;
  auto &V = Det.Values;
  V["device"] = deviceName(L.Device);
  V["subject"] = V["device"];
  V["loop_gain"] = dur(L.GainNs);
  describeLoop(L, V);
  const Event &First = T.Events[L.FirstWork];
  V["first_kernel"] = T.name(First).str();
  V["loop_start"] = support::formatOffset(Ctx.traceOffsetNs(First));
  const uint32_t Launch = T.launchOf(First);
  const Event *Op =
      Launch == model::NoIndex ? nullptr : enclosingOp(T, T.Events[Launch]);
  V["first_op"] = Op ? T.name(*Op).str() : V["first_kernel"];
  Det.Examples.push_back(example(Ctx, First));
  if (Launch != model::NoIndex)
    Det.Examples.push_back(example(Ctx, T.Events[Launch]));
  Det.Subject = V["device"].text() + " decode loop";
  // Identical sequences are strong evidence of a static step; the launch
  // attribution is weaker when much idle has no host call.
  Det.Confidence = 0.8;
  noteUnlinkedIdle(Det, L.Idle, "the loop's");
  return Det;
}

} // namespace

Outcome rules::runStaticDecodeLaunchBound(const TraceIndex &Ctx,
                                          const RuleOptions &Opts,
                                          std::vector<Detection> &Out) {
  const DecodeLoopOptions O = decodeLoopOptions(Opts);
  if (Ctx.targetNs() <= 0)
    return Outcome::ran();
  // One finding per device with a reported loop (L001 leaves exactly these
  // loops out of its figures).
  for (int32_t D : streamDevices(Ctx))
    if (std::optional<DecodeLoop> L = findReportedDecodeLoop(Ctx, D, O);
        L && L->Reported)
      Out.push_back(describeDecodeLoop(Ctx, *L, O));
  return Outcome::ran();
}
