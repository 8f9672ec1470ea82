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
#include "rules/detectors/DecodeLoop.h"
#include "rules/detectors/BuiltinDetectors.h"
#include "rules/detectors/DetectorSupport.h"
#include "rules/detectors/StartupScan.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

using namespace tracelint;
using namespace tracelint::rules;
using namespace tracelint::rules::detect;
using analysis::TraceIndex;
using analysis::IdleBreakdown;
using model::Event;
using model::Interval;

DecodeLoopOptions detect::decodeLoopOptions(const RuleOptions &Opts) {
  DecodeLoopOptions O;
  O.MinKernels = size_t(std::max(
      1.0, optionOr(Opts, "min-kernels-per-token", double(O.MinKernels))));
  O.MinRepeats =
      size_t(std::max(2.0, optionOr(Opts, "min-tokens", double(O.MinRepeats))));
  O.MinLaunchShare = optionOr(Opts, "min-launch-share", O.MinLaunchShare);
  O.MinLaunchOfIdle = optionOr(Opts, "min-launch-of-idle", O.MinLaunchOfIdle);
  O.MinLoopShare = optionOr(Opts, "min-loop-share", O.MinLoopShare);
  O.MinTokenReads = optionOr(Opts, "min-token-reads", O.MinTokenReads);
  O.Idle.MaxLaunchIntervalNs = int64_t(optionOr(
      Opts, "max-launch-interval", double(O.Idle.MaxLaunchIntervalNs)));
  return O;
}

std::vector<Interval> detect::intervalMinus(Interval R, Interval Cut) {
  std::vector<Interval> Out;
  if (Cut.End <= R.Begin || Cut.Begin >= R.End || Cut.length() == 0) {
    Out.push_back(R);
    return Out;
  }
  if (Cut.Begin > R.Begin)
    Out.push_back({R.Begin, Cut.Begin});
  if (Cut.End < R.End)
    Out.push_back({Cut.End, R.End});
  return Out;
}

std::optional<DecodeLoop>
detect::findDecodeLoop(const TraceIndex &Ctx, int32_t Device,
                       const DecodeLoopOptions &Opts) {
  const model::Trace &T = Ctx.trace();
  llvm::ArrayRef<uint32_t> Work = Ctx.deviceWork(Device);
  const size_t N = Work.size();
  const size_t MinKernels = std::max<size_t>(1, Opts.MinKernels);
  const size_t MinRepeats = std::max<size_t>(2, Opts.MinRepeats);
  if (N < MinKernels * MinRepeats)
    return std::nullopt;
  std::vector<model::StringId> Names(N);
  for (size_t I = 0; I < N; ++I)
    Names[I] = T.Events[Work[I]].Name;

  // Candidate periods: distances between successive occurrences of a name.
  // An operation that runs once per token (the sampling kernel, the output
  // projection) recurs exactly one period later, once per token.
  llvm::DenseMap<model::StringId, size_t> Last;
  llvm::DenseMap<uint64_t, size_t> DistCount;
  for (size_t I = 0; I < N; ++I) {
    auto [It, New] = Last.try_emplace(Names[I], I);
    if (!New) {
      size_t D = I - It->second;
      if (D >= MinKernels)
        ++DistCount[D];
      It->second = I;
    }
  }
  std::vector<std::pair<size_t, size_t>> Cands; // (count, period)
  for (auto &Entry : DistCount)
    if (Entry.second + 1 >= MinRepeats)
      Cands.push_back({Entry.second, size_t(Entry.first)});
  llvm::sort(Cands, [](const auto &A, const auto &B) {
    return A.first > B.first || (A.first == B.first && A.second < B.second);
  });
  constexpr size_t MaxCandidates = 64; // bounds the work at 64 scans
  if (Cands.size() > MaxCandidates)
    Cands.resize(MaxCandidates);

  size_t BestCovered = 0, BestPeriod = 0, BestBegin = 0;
  for (auto &[Count, P] : Cands) {
    (void)Count;
    if (P * MinRepeats > N)
      continue;
    // Runs of positions with Names[I] == Names[I + P]: a run of length R
    // starting at S makes Names[S, S + R + P) P-periodic.
    size_t Run = 0;
    for (size_t I = 0; I + P < N; ++I) {
      Run = Names[I] == Names[I + P] ? Run + 1 : 0;
      bool EndOfRun =
          Run && (I + P + 1 >= N || Names[I + 1] != Names[I + 1 + P]);
      if (!EndOfRun)
        continue;
      size_t Begin = I + 1 - Run;
      size_t Covered = (Run + P) / P * P;
      if (Covered / P < MinRepeats)
        continue;
      if (Covered > BestCovered || (Covered == BestCovered && P < BestPeriod)) {
        BestCovered = Covered;
        BestPeriod = P;
        BestBegin = Begin;
      }
    }
  }
  if (!BestCovered)
    return std::nullopt;

  DecodeLoop L;
  L.Device = Device;
  L.Period = BestPeriod;
  L.Repeats = BestCovered / BestPeriod;
  L.FirstWork = Work[BestBegin];
  int64_t End = INT64_MIN;
  for (size_t I = BestBegin; I < BestBegin + BestCovered; ++I)
    End = std::max(End, T.Events[Work[I]].end());
  L.Range = {T.Events[Work[BestBegin]].Start, End};
  const model::IntervalSet &Busy = Ctx.deviceBusy(Device);
  std::vector<int64_t> Token, TokenBusy;
  for (size_t K = 0; K < L.Repeats; ++K) {
    int64_t B = T.Events[Work[BestBegin + K * L.Period]].Start;
    int64_t E = K + 1 < L.Repeats
                    ? T.Events[Work[BestBegin + (K + 1) * L.Period]].Start
                    : End;
    if (K + 1 < L.Repeats)
      Token.push_back(E - B);
    TokenBusy.push_back(Busy.lengthWithin({B, E}));
  }
  L.TokenNs = median(Token);
  L.TokenBusyNs = median(TokenBusy);
  L.Idle = Ctx.attributeIdle(Device, L.Range, Opts.Idle);
  for (const analysis::HostWait &W : Ctx.hostWaits())
    if (W.Range.Begin >= L.Range.Begin && W.Range.Begin < L.Range.End)
      ++L.Reads;
  const int64_t Span = L.Range.length();
  L.LaunchBound =
      Span > 0 && L.Idle.LaunchNs > 0 &&
      double(Span) >= Opts.MinLoopShare * double(Ctx.targetNs()) &&
      double(L.Reads) >= Opts.MinTokenReads * double(L.Repeats - 1) &&
      // With step markers, a unit as long as a step is the step itself (a
      // training or serving loop), not a token: two tokens per step at least.
      (!Ctx.hasSteps() || 2 * L.TokenNs <= Ctx.targetNs()) &&
      double(L.Idle.LaunchNs) >= Opts.MinLaunchShare * double(Span) &&
      double(L.Idle.LaunchNs) >= Opts.MinLaunchOfIdle * double(L.Idle.IdleNs);
  return L;
}

std::optional<DecodeLoop>
detect::findReportedDecodeLoop(const TraceIndex &Ctx, int32_t Device,
                               const DecodeLoopOptions &Opts) {
  std::optional<DecodeLoop> L = findDecodeLoop(Ctx, Device, Opts);
  if (!L || !L->LaunchBound)
    return L;
  // The gain on the target: per measured window (step, or the whole
  // window), the launch-path idle inside the loop; the median over windows.
  MeasureWindows Win = measureWindows(Ctx);
  for (const Interval &R : Win.Ranges) {
    Interval Cut{std::max(R.Begin, L->Range.Begin),
                 std::min(R.End, L->Range.End)};
    L->PerWindowNs.push_back(
        Cut.length() > 0 ? Ctx.attributeIdle(Device, Cut, Opts.Idle).LaunchNs
                         : 0);
  }
  L->GainNs = std::min(median(L->PerWindowNs), Ctx.targetNs());
  L->Reported = L->GainNs > 0;
  return L;
}

namespace {
void report(const TraceIndex &Ctx, const DecodeLoop &L, const DecodeLoopOptions &O,
            const MeasureWindows &Win, std::vector<Detection> &Out) {
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
  Win.describeInto(V);
  V["subject"] = V["device"];
  Det.Examples.push_back(example(Ctx, First));
  if (uint32_t Launch = T.launchOf(First); Launch != model::NoIndex)
    Det.Examples.push_back(example(Ctx, T.Events[Launch]));
  Det.ImpactNs = Impact;
  Det.Window = Win.describe();
  Det.Subject = V["device"] + " decode loop";
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

std::string rules::runStaticDecode(const TraceIndex &Ctx, const RuleSpec &,
                                   const RuleOptions &Opts,
                                   std::vector<Detection> &Out) {
  if (!Ctx.hasDeviceActivity())
    return "cannot judge: the trace has no device activity";
  if (std::string Why = startupWindowReason(Ctx); !Why.empty())
    return Why;
  if (!Ctx.hasCorrelation())
    return "cannot judge: no device work is linked to a host call "
           "(correlation ids missing), so idle gaps cannot be attributed";
  const DecodeLoopOptions O = decodeLoopOptions(Opts);
  if (Ctx.targetNs() <= 0)
    return "";

  MeasureWindows Win = measureWindows(Ctx);
  // One finding per device with a reported loop (L001 leaves exactly these
  // loops out of its figures).
  for (int32_t D : Ctx.devices()) {
    if (D < 0)
      continue;
    std::optional<DecodeLoop> L = findReportedDecodeLoop(Ctx, D, O);
    if (L && L->Reported)
      report(Ctx, *L, O, Win, Out);
  }
  return "";
}
