//===- analysis/RankSummary.cpp - What one rank contributes to a job ------===//
#include "analysis/RankSummary.h"

#include "support/Format.h"
#include "support/Statistics.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <queue>

using namespace tracelint;
using namespace tracelint::analysis;
using model::Event;
using model::EventKind;

llvm::StringRef analysis::rankSourceName(RankSource S) {
  switch (S) {
  case RankSource::DistributedInfo:
    return "distributedInfo";
  case RankSource::FileName:
    return "file name";
  case RankSource::Unknown:
    break;
  }
  return "unknown";
}

RankSource analysis::parseRankSource(llvm::StringRef S) {
  if (S == "distributedInfo")
    return RankSource::DistributedInfo;
  if (S == "file name")
    return RankSource::FileName;
  return RankSource::Unknown;
}

int64_t RankSummary::medianStepNs() const {
  std::vector<int64_t> D;
  for (const RankStep &S : Steps)
    if (S.Steady)
      D.push_back(S.durationNs());
  return D.empty() ? TargetNs : support::median(std::move(D));
}

std::string RankSummary::topIdleCause() const {
  // The typical split of the steady steps, as the target's split is.
  std::vector<const TargetIdle *> Steady;
  for (const RankStep &S : Steps)
    if (S.Steady)
      Steady.push_back(&S.Idle);
  if (Steady.empty())
    return {};
  const TargetIdle Typical = typicalSplit(Device, Steady);
  const std::pair<const char *, int64_t> Parts[] = {
      {"launch overhead", Typical.LaunchNs},
      {"host waits on the device", Typical.HostWaitNs},
      {"host work between launches", Typical.HostOtherNs},
      {"host time the trace does not record", Typical.UntracedNs},
      {"data loading", Typical.DataLoadingNs},
      {"start-up work (compilation, capture, first calls)",
       Typical.StartupNs},
      {"the profiler's own work", Typical.ProfilerNs},
      {"unrecorded dependencies (peers, other streams)", Typical.UnrecordedNs},
  };
  const auto *Top = std::max_element(
      std::begin(Parts), std::end(Parts),
      [](const auto &A, const auto &B) { return A.second < B.second; });
  if (Top->second <= 0)
    return "its device did not idle in its steps";
  return llvm::formatv("its device idles most on {0} ({1} per step)",
                       Top->first, support::formatDuration(Top->second))
      .str();
}

llvm::Expected<int64_t> analysis::rankFromFileName(llvm::StringRef Path,
                                                   llvm::StringRef Pattern) {
  llvm::Regex Re(Pattern, llvm::Regex::IgnoreCase);
  std::string Why;
  if (!Re.isValid(Why))
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "--rank-pattern '%s': not a regular expression: %s",
        Pattern.str().c_str(), Why.c_str());
  llvm::SmallVector<llvm::StringRef, 4> Groups;
  if (!Re.match(llvm::sys::path::filename(Path), &Groups) || Groups.empty())
    return -1;
  int64_t Rank = -1;
  if (Groups.back().getAsInteger(10, Rank) || Rank < 0)
    return -1;
  return Rank;
}

std::string analysis::collectiveKind(llvm::StringRef KernelName,
                                     llvm::StringRef CollectiveName) {
  if (!CollectiveName.empty())
    return CollectiveName.str();
  llvm::StringRef N = KernelName;
  for (llvm::StringRef Prefix :
       {"ncclDevKernel_", "ncclKernel_", "rcclKernel_", "ncclDevFunc_"})
    if (N.consume_front(Prefix))
      return N.take_until([](char C) { return C == '_' || C == '('; }).str();
  return N.take_until([](char C) { return C == '('; }).trim().str();
}

llvm::Expected<RankSummary>
analysis::summarizeTrace(const TraceIndex &Ctx, llvm::StringRef Input,
                         llvm::StringRef RankPattern) {
  const model::Trace &T = Ctx.trace();
  RankSummary S;
  S.Input = Input.str();
  S.Rank = T.Source.Rank;
  S.WorldSize = T.Source.WorldSize;
  S.Backend = T.Source.DistributedBackend;
  if (S.Rank >= 0) {
    S.RankFrom = RankSource::DistributedInfo;
  } else {
    auto FromName = rankFromFileName(Input, RankPattern);
    if (!FromName)
      return FromName.takeError();
    S.Rank = *FromName;
    if (S.Rank >= 0)
      S.RankFrom = RankSource::FileName;
  }
  S.Producer = T.Source.Format;
  const ProducerInfo &P = Ctx.producer();
  if (P.Kind != ProducerKind::Unknown)
    S.Producer += ", " + producerTitle(P.Kind).str() + " program";
  if (!T.Source.CuptiVersion.empty())
    S.Producer += ", CUPTI " + T.Source.CuptiVersion;
  if (!T.Source.RoctracerVersion.empty())
    S.Producer += ", roctracer " + T.Source.RoctracerVersion;
  S.TargetNs = Ctx.targetNs();
  S.Target = Ctx.describeTarget();
  S.Truncated = Ctx.truncated();

  // The idle split per step is the index's, on the device the target's
  // split is of, so that the job report and `lint` on this rank agree.
  const TargetIdle &Idle = Ctx.targetIdle();
  S.Device = Idle.Device;
  llvm::ArrayRef<StepWindow> Steady = Ctx.steadySteps();
  for (const StepWindow &W : Ctx.steps()) {
    RankStep St;
    St.Number = W.Number;
    St.StartNs = T.OriginNs + W.Range.Begin;
    St.EndNs = T.OriginNs + W.Range.End;
    St.Steady = llvm::any_of(
        Steady, [&](const StepWindow &X) { return X.Range == W.Range; });
    if (Idle.Device >= 0)
      St.Idle = Ctx.idleSplit(Idle.Device, W.Range);
    S.Steps.push_back(St);
  }

  // Per device, the ends of the collectives not yet over at the current
  // start (a min-heap) and the latest end before it.
  struct Pending {
    std::priority_queue<int64_t, std::vector<int64_t>, std::greater<>> Ends;
    int64_t LastEnd = std::numeric_limits<int64_t>::min();
  };
  llvm::DenseMap<int32_t, Pending> ByDevice;
  for (uint32_t I : Ctx.eventsOfKind(EventKind::Collective)) {
    const Event &E = T.Events[I];
    const model::EventArgs *A = T.args(E);
    RankCollective C;
    C.Kind = collectiveKind(T.name(E), A && A->Detail != model::EmptyString
                                           ? T.Strings.get(A->Detail)
                                           : llvm::StringRef());
    C.Stream = A && A->Stream >= 0 ? A->Stream : T.laneOf(E).Stream;
    C.Bytes = A ? A->Bytes : -1;
    if (A && A->Group != model::EmptyString)
      C.Group = T.Strings.get(A->Group).str();
    C.StartNs = T.OriginNs + E.Start;
    C.EndNs = T.OriginNs + E.end();
    C.Step = Ctx.stepAt(E.Start);
    const int32_t Device = T.laneOf(E).Device;
    Pending &P = ByDevice[Device];
    while (!P.Ends.empty() && P.Ends.top() <= E.Start) {
      P.LastEnd = std::max(P.LastEnd, P.Ends.top());
      P.Ends.pop();
    }
    int64_t From = P.LastEnd;
    if (C.Step >= 0)
      From = std::max(From, Ctx.steps()[C.Step].Range.Begin);
    if (From != std::numeric_limits<int64_t>::min() && From <= E.Start)
      C.ComputeBeforeNs = Ctx.deviceBusy(Device, BusyKind::Compute)
                              .lengthWithin({From, E.Start});
    P.Ends.push(E.end());
    S.Collectives.push_back(std::move(C));
  }
  return S;
}
