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
#include "rules/BuiltinDetectors.h"
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

DecodeLoopOptions detect::decodeLoopOptions(const RuleOptions &Opts) {
  DecodeLoopOptions O;
  O.MinKernels = size_t(std::max(1.0, Opts.number("min-kernels-per-token")));
  O.MinRepeats = size_t(std::max(2.0, Opts.number("min-tokens")));
  O.MinLaunchShare = Opts.number("min-launch-share");
  O.MinLaunchOfIdle = Opts.number("min-launch-of-idle");
  O.MinLoopShare = Opts.number("min-loop-share");
  O.MinTokenReads = Opts.number("min-token-reads");
  O.Idle.MaxLaunchIntervalNs = int64_t(Opts.number("max-launch-interval"));
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
  const MeasureWindows &Win = Ctx.measureWindows();
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
