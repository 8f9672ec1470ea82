//===- rules/detectors/DecodeLoop.cpp - Repeated static decode steps ------===//
//
// The loop is found by the names of the device work alone: a constant
// period (one token) over which the name sequence repeats exactly. The
// candidate periods are the distances between successive occurrences of one
// name; each is checked by one scan for the longest run of positions whose
// name equals the name one period later. The loop's idle time is then split
// by TraceIndex::attributeIdle, and its launch-path share, span, host reads
// and token length decide whether L004 reports it.
//
//===----------------------------------------------------------------------===//
#include "rules/detectors/DecodeLoop.h"
#include "rules/detectors/DetectorSupport.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"

#include <algorithm>

using namespace tracelint;
using namespace tracelint::rules;
using namespace tracelint::rules::detect;
using analysis::TraceIndex;
using model::Interval;
using model::StringId;

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

namespace {

/// Candidate periods: distances of at least \p MinKernels between
/// successive occurrences of a name that recur at least MinRepeats - 1
/// times. An operation that runs once per token (the sampling kernel, the
/// output projection) recurs exactly one period later, once per token. The
/// most frequent first (ties: the shorter), at most 64 of them, which bounds
/// the work at 64 scans.
std::vector<size_t> candidatePeriods(llvm::ArrayRef<StringId> Names,
                                     size_t MinKernels, size_t MinRepeats) {
  llvm::DenseMap<StringId, size_t> Last;
  llvm::DenseMap<uint64_t, size_t> DistCount;
  for (size_t I = 0; I < Names.size(); ++I) {
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
  constexpr size_t MaxCandidates = 64;
  if (Cands.size() > MaxCandidates)
    Cands.resize(MaxCandidates);
  std::vector<size_t> Periods;
  for (auto &Cand : Cands)
    Periods.push_back(Cand.second);
  return Periods;
}

/// A stretch of Names that repeats with a constant period.
struct PeriodicRun {
  size_t Begin = 0, Covered = 0, Period = 0; ///< Covered: whole periods
};

/// The periodic run of at least \p MinRepeats periods that covers the most
/// positions (ties: the shorter period, then the earlier run).
PeriodicRun longestPeriodicRun(llvm::ArrayRef<StringId> Names,
                               llvm::ArrayRef<size_t> Periods,
                               size_t MinRepeats) {
  const size_t N = Names.size();
  PeriodicRun Best;
  for (size_t P : Periods) {
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
      size_t Covered = (Run + P) / P * P;
      if (Covered / P < MinRepeats)
        continue;
      if (Covered > Best.Covered ||
          (Covered == Best.Covered && P < Best.Period))
        Best = {I + 1 - Run, Covered, P};
    }
  }
  return Best;
}

/// The loop's range and its tokens' time and busy time (medians), from the
/// device work \p Work that the run \p R covers.
void measureTokens(const TraceIndex &Ctx, llvm::ArrayRef<uint32_t> Work,
                   const PeriodicRun &R, DecodeLoop &L) {
  const model::Trace &T = Ctx.trace();
  L.Period = R.Period;
  L.Repeats = R.Covered / R.Period;
  L.FirstWork = Work[R.Begin];
  int64_t End = INT64_MIN;
  for (size_t I = R.Begin; I < R.Begin + R.Covered; ++I)
    End = std::max(End, T.Events[Work[I]].end());
  L.Range = {T.Events[Work[R.Begin]].Start, End};
  const model::IntervalSet &Busy = Ctx.deviceBusy(L.Device);
  std::vector<int64_t> Token, TokenBusy;
  for (size_t K = 0; K < L.Repeats; ++K) {
    int64_t B = T.Events[Work[R.Begin + K * L.Period]].Start;
    int64_t E = K + 1 < L.Repeats
                    ? T.Events[Work[R.Begin + (K + 1) * L.Period]].Start
                    : End;
    if (K + 1 < L.Repeats)
      Token.push_back(E - B);
    TokenBusy.push_back(Busy.lengthWithin({B, E}));
  }
  L.TokenNs = median(Token);
  L.TokenBusyNs = median(TokenBusy);
}

/// The idle time is mostly the launch path and the loop is a decode: long
/// enough against the target, read back about once per token, and more
/// than one token per step.
bool isLaunchBound(const TraceIndex &Ctx, const DecodeLoop &L,
                   const DecodeLoopOptions &Opts) {
  const int64_t Span = L.Range.length();
  return Span > 0 && L.Idle.LaunchNs > 0 &&
         double(Span) >= Opts.MinLoopShare * double(Ctx.targetNs()) &&
         double(L.Reads) >= Opts.MinTokenReads * double(L.Repeats - 1) &&
         // With step markers, a unit as long as a step is the step itself (a
         // training or serving loop), not a token: two tokens per step at
         // least.
         (!Ctx.hasSteps() || 2 * L.TokenNs <= Ctx.targetNs()) &&
         double(L.Idle.LaunchNs) >= Opts.MinLaunchShare * double(Span) &&
         double(L.Idle.LaunchNs) >=
             Opts.MinLaunchOfIdle * double(L.Idle.IdleNs);
}

} // namespace

std::optional<DecodeLoop>
detect::findDecodeLoop(const TraceIndex &Ctx, int32_t Device,
                       const DecodeLoopOptions &Opts) {
  const model::Trace &T = Ctx.trace();
  llvm::ArrayRef<uint32_t> Work = Ctx.deviceWork(Device);
  const size_t MinKernels = std::max<size_t>(1, Opts.MinKernels);
  const size_t MinRepeats = std::max<size_t>(2, Opts.MinRepeats);
  if (Work.size() < MinKernels * MinRepeats)
    return std::nullopt;
  std::vector<StringId> Names;
  for (uint32_t I : Work)
    Names.push_back(T.Events[I].Name);
  PeriodicRun Run = longestPeriodicRun(
      Names, candidatePeriods(Names, MinKernels, MinRepeats), MinRepeats);
  if (!Run.Covered)
    return std::nullopt;

  DecodeLoop L;
  L.Device = Device;
  measureTokens(Ctx, Work, Run, L);
  L.Idle = Ctx.attributeIdle(Device, L.Range, Opts.Idle);
  for (const analysis::HostWait &W : Ctx.hostWaits())
    if (W.Range.Begin >= L.Range.Begin && W.Range.Begin < L.Range.End)
      ++L.Reads;
  L.LaunchBound = isLaunchBound(Ctx, L, Opts);
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
  for (const Interval &R : Ctx.measureWindows().Ranges) {
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
