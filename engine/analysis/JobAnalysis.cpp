//===- analysis/JobAnalysis.cpp - The ranks of one job, joined ------------===//
#include "analysis/JobAnalysis.h"

#include "support/Count.h"
#include "support/Format.h"
#include "support/Statistics.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <map>
#include <tuple>

using namespace tracelint;
using namespace tracelint::analysis;

namespace {

std::string ordinalText(size_t N) {
  size_t Mod100 = N % 100, Mod10 = N % 10;
  const char *Suffix = (Mod100 >= 11 && Mod100 <= 13) ? "th"
                       : Mod10 == 1                   ? "st"
                       : Mod10 == 2                   ? "nd"
                       : Mod10 == 3                   ? "rd"
                                                      : "th";
  return std::to_string(N) + Suffix;
}

/// The most frequent of \p Values (ties: the smallest).
template <typename T> T mostCommon(const std::vector<T> &Values) {
  std::map<T, size_t> Count;
  for (const T &V : Values)
    ++Count[V];
  auto Best = Count.begin();
  for (auto It = Count.begin(); It != Count.end(); ++It)
    if (It->second > Best->second)
      Best = It;
  return Best->first;
}

/// Keeps the ranks that can be one job; records why the others cannot.
void chooseRanks(std::vector<RankSummary> In, JobAnalysis &J) {
  std::vector<int64_t> Worlds;
  std::vector<std::string> Jobs;
  for (const RankSummary &S : In) {
    if (S.WorldSize > 0)
      Worlds.push_back(S.WorldSize);
    if (!S.JobId.empty())
      Jobs.push_back(S.JobId);
  }
  const int64_t World = Worlds.empty() ? -1 : mostCommon(Worlds);
  const std::string Job = Jobs.empty() ? std::string() : mostCommon(Jobs);
  llvm::stable_sort(In, [](const RankSummary &A, const RankSummary &B) {
    return A.Rank < B.Rank;
  });
  for (RankSummary &S : In) {
    if (S.Rank < 0) {
      J.Problems.push_back(
          S.Input + ": its rank is unknown (no distributedInfo, and the file "
                    "name does not match the rank pattern); left out");
      continue;
    }
    if (World > 0 && S.WorldSize > 0 && S.WorldSize != World) {
      J.Problems.push_back(llvm::formatv(
          "{0}: rank {1} of a job of {2} ranks, the others are of {3}: a "
          "different job, left out",
          S.Input, S.Rank, S.WorldSize, World));
      continue;
    }
    if (!Job.empty() && !S.JobId.empty() && S.JobId != Job) {
      J.Problems.push_back(llvm::formatv(
          "{0}: rank {1} of job '{2}', the others are of job '{3}': left out",
          S.Input, S.Rank, S.JobId, Job));
      continue;
    }
    if (World > 0 && S.Rank >= World) {
      J.Problems.push_back(llvm::formatv(
          "{0}: rank {1} is outside the job's {2} ranks; left out", S.Input,
          S.Rank, World));
      continue;
    }
    if (!J.Ranks.empty() && J.Ranks.back().S.Rank == S.Rank) {
      J.Problems.push_back(llvm::formatv(
          "rank {0} appears twice ({1} and {2}); the second is left out",
          S.Rank, J.Ranks.back().S.Input, S.Input));
      continue;
    }
    JobRank R;
    R.S = std::move(S);
    J.Ranks.push_back(std::move(R));
  }
  J.WorldSize = World > 0         ? World
                : J.Ranks.empty() ? -1
                                  : J.Ranks.back().S.Rank + 1;
  size_t Next = 0;
  for (int64_t Rank = 0; Rank < J.WorldSize; ++Rank) {
    while (Next < J.Ranks.size() && J.Ranks[Next].S.Rank < Rank)
      ++Next;
    if (Next == J.Ranks.size() || J.Ranks[Next].S.Rank != Rank)
      J.MissingRanks.push_back(Rank);
  }
  if (!J.MissingRanks.empty())
    J.Problems.push_back(llvm::formatv(
        "{0} of the job's {1} ranks {2} missing (rank{3} {4}); the job is "
        "analysed without {5}",
        J.MissingRanks.size(), J.WorldSize,
        J.MissingRanks.size() == 1 ? "is" : "are",
        J.MissingRanks.size() == 1 ? "" : "s",
        support::formatRanges(J.MissingRanks),
        J.MissingRanks.size() == 1 ? "it" : "them"));
  for (const JobRank &R : J.Ranks)
    if (R.S.Collectives.empty())
      J.Problems.push_back(llvm::formatv(
          "rank {0} ({1}) records no collectives: it takes no part in the "
          "matching or the clock alignment",
          R.S.Rank, R.S.Input));
}

using Key = std::tuple<std::string, std::string, int64_t>;

/// Matches every rank's collectives into J.Collectives (raw clocks).
void matchCollectives(JobAnalysis &J) {
  bool AllSeq = llvm::all_of(J.Ranks, [](const JobRank &R) {
    return llvm::all_of(R.S.Collectives,
                        [](const RankCollective &C) { return C.Seq >= 0; });
  });
  bool AnyCollective = llvm::any_of(
      J.Ranks, [](const JobRank &R) { return !R.S.Collectives.empty(); });
  AllSeq = AllSeq && AnyCollective;
  J.MatchedBy = AllSeq ? "process group and sequence number"
                       : "order per process group and kind";
  std::map<Key, size_t> Index;
  const size_t N = J.Ranks.size();
  for (size_t Slot = 0; Slot < N; ++Slot) {
    std::map<std::pair<std::string, std::string>, size_t> Seen;
    for (const RankCollective &C : J.Ranks[Slot].S.Collectives) {
      size_t Ordinal = Seen[{C.Group, C.Kind}]++;
      // By sequence the kind is not part of the key: a kind that differs
      // at one sequence number is a mismatch, counted below.
      Key K = AllSeq ? Key{C.Group, "", C.Seq}
                     : Key{C.Group, C.Kind, int64_t(Ordinal)};
      auto [It, New] = Index.try_emplace(K, J.Collectives.size());
      if (New) {
        JobCollective M;
        M.Group = C.Group;
        M.Kind = C.Kind;
        M.Seq = AllSeq ? C.Seq : -1;
        M.Ordinal = Ordinal;
        M.Bytes = C.Bytes;
        M.Start.assign(N, NoTime);
        M.End.assign(N, NoTime);
        M.ComputeBefore.assign(N, -1);
        J.Collectives.push_back(std::move(M));
      }
      JobCollective &M = J.Collectives[It->second];
      if (M.Start[Slot] != NoTime || M.Kind != C.Kind) {
        ++J.Mismatched; // the same sequence number twice, or another kind
        continue;
      }
      M.Start[Slot] = C.StartNs;
      M.End[Slot] = C.EndNs;
      M.ComputeBefore[Slot] = C.ComputeBeforeNs;
      ++M.Present;
    }
  }
  size_t WithCollectives = llvm::count_if(
      J.Ranks, [](const JobRank &R) { return !R.S.Collectives.empty(); });
  for (const JobCollective &M : J.Collectives)
    if (M.Present < WithCollectives)
      ++J.Mismatched;
}

/// Estimates each rank's offset against the reference rank from the ends of
/// the collectives both recorded: a collective ends at nearly the same
/// instant on every rank, whatever the arrival order.
void alignClocks(JobAnalysis &J, const JobOptions &Opts) {
  for (size_t Slot = 0; Slot < J.Ranks.size(); ++Slot)
    if (!J.Ranks[Slot].S.Collectives.empty()) {
      J.Reference = Slot;
      break;
    }
  if (J.Reference == SIZE_MAX)
    return;
  J.Ranks[J.Reference].Aligned = true;
  J.ClocksAligned = true;
  for (size_t Slot = 0; Slot < J.Ranks.size(); ++Slot) {
    JobRank &R = J.Ranks[Slot];
    if (Slot == J.Reference || R.S.Collectives.empty())
      continue;
    std::vector<int64_t> D;
    for (const JobCollective &M : J.Collectives)
      if (M.End[Slot] != NoTime && M.End[J.Reference] != NoTime)
        D.push_back(M.End[Slot] - M.End[J.Reference]);
    R.OffsetSamples = D.size();
    if (D.size() < 2) {
      J.ClocksAligned = false;
      continue;
    }
    R.Aligned = true;
    R.OffsetNs = support::median(D);
    std::vector<int64_t> Dev;
    for (int64_t X : D)
      Dev.push_back(X > R.OffsetNs ? X - R.OffsetNs : R.OffsetNs - X);
    R.OffsetSpreadNs = support::median(Dev);
    const int64_t Limit = Opts.OutlierFloorNs + 3 * R.OffsetSpreadNs;
    R.OffsetOutliers =
        llvm::count_if(Dev, [&](int64_t X) { return X > Limit; });
    J.OffsetSpreadNs = std::max(J.OffsetSpreadNs, R.OffsetSpreadNs);
    J.OffsetOutliers += R.OffsetOutliers;
  }
  for (JobCollective &M : J.Collectives)
    for (size_t Slot = 0; Slot < J.Ranks.size(); ++Slot)
      if (M.Start[Slot] != NoTime) {
        M.Start[Slot] -= J.Ranks[Slot].OffsetNs;
        M.End[Slot] -= J.Ranks[Slot].OffsetNs;
      }
}

/// Who started each collective last, by how much, and the others' wait.
void findLateArrivals(JobAnalysis &J) {
  for (JobCollective &M : J.Collectives) {
    if (M.Present < 2)
      continue;
    size_t Last = SIZE_MAX, SecondSlot = SIZE_MAX;
    for (size_t Slot = 0; Slot < M.Start.size(); ++Slot) {
      if (M.Start[Slot] == NoTime)
        continue;
      if (Last == SIZE_MAX || M.Start[Slot] > M.Start[Last]) {
        SecondSlot = Last;
        Last = Slot;
      } else if (SecondSlot == SIZE_MAX ||
                 M.Start[Slot] > M.Start[SecondSlot]) {
        SecondSlot = Slot;
      }
    }
    M.Last = Last;
    M.LateByNs = M.Start[Last] - M.Start[SecondSlot];
    M.Undecided = M.LateByNs <= J.clockUncertaintyNs(Last, SecondSlot);
    for (size_t Slot = 0; Slot < M.Start.size(); ++Slot)
      M.WaitNs += M.waitOf(Slot);
    std::vector<int64_t> Others;
    for (size_t Slot = 0; Slot < M.ComputeBefore.size(); ++Slot)
      if (Slot != Last && M.ComputeBefore[Slot] >= 0)
        Others.push_back(M.ComputeBefore[Slot]);
    if (M.ComputeBefore[Last] >= 0 && !Others.empty())
      M.ComputeExcessNs = M.ComputeBefore[Last] - support::median(Others);
    // A tie is no late arrival: nobody waited for anybody; nor is an order
    // the clocks cannot tell.
    if (M.LateByNs > 0 && !M.Undecided)
      ++J.Ranks[Last].TimesLast;
  }
  // The step a collective belongs to, as the late rank saw it.
  for (size_t Slot = 0; Slot < J.Ranks.size(); ++Slot) {
    std::map<std::pair<std::string, std::string>, size_t> Seen;
    std::map<Key, int32_t> StepOf;
    bool BySeq = J.MatchedBy.starts_with("process group and sequence");
    for (const RankCollective &C : J.Ranks[Slot].S.Collectives) {
      size_t Ordinal = Seen[{C.Group, C.Kind}]++;
      StepOf[BySeq ? Key{C.Group, "", C.Seq}
                   : Key{C.Group, C.Kind, int64_t(Ordinal)}] = C.Step;
    }
    for (JobCollective &M : J.Collectives)
      if (M.Last == Slot) {
        auto It = StepOf.find(BySeq ? Key{M.Group, "", M.Seq}
                                    : Key{M.Group, M.Kind, int64_t(M.Ordinal)});
        if (It != StepOf.end())
          M.Step = It->second;
        const std::vector<RankStep> &Steps = J.Ranks[Slot].S.Steps;
        M.Steady =
            Steps.empty() || (M.Step >= 0 && size_t(M.Step) < Steps.size() &&
                              Steps[M.Step].Steady);
      }
  }
  // Each rank's waits for later ranks in the steady collectives.
  for (size_t Slot = 0; Slot < J.Ranks.size(); ++Slot)
    J.Ranks[Slot].WaitedSteps = std::max<int64_t>(
        1, llvm::count_if(J.Ranks[Slot].S.Steps,
                          [](const RankStep &S) { return S.Steady; }));
  for (const JobCollective &M : J.Collectives)
    if (M.Last != SIZE_MAX && M.Steady)
      for (size_t Slot = 0; Slot < M.Start.size(); ++Slot)
        J.Ranks[Slot].WaitedNs += M.waitOf(Slot);
  // In the order the reference clock saw them.
  auto FirstStart = [](const JobCollective &M) {
    int64_t S = std::numeric_limits<int64_t>::max();
    for (int64_t X : M.Start)
      if (X != NoTime)
        S = std::min(S, X);
    return S;
  };
  llvm::stable_sort(J.Collectives,
                    [&](const JobCollective &A, const JobCollective &B) {
                      return FirstStart(A) < FirstStart(B);
                    });
}

/// Which rank's work bounds the job's step (JobAnalysis::Pacing).
void findPace(JobAnalysis &J, const JobOptions &Opts) {
  if (!J.ClocksAligned)
    return;
  std::vector<size_t> Slots;
  for (size_t Slot = 0; Slot < J.Ranks.size(); ++Slot)
    if (!J.Ranks[Slot].S.Collectives.empty())
      Slots.push_back(Slot);
  if (Slots.size() < 2)
    return;
  size_t Pacing = Slots.front();
  for (size_t Slot : Slots)
    if (J.Ranks[Slot].workPerStepNs() > J.Ranks[Pacing].workPerStepNs())
      Pacing = Slot;
  std::vector<int64_t> Others;
  for (size_t Slot : Slots)
    if (Slot != Pacing)
      Others.push_back(J.Ranks[Slot].workPerStepNs());
  J.PaceKnown = true;
  J.MostWorkNs = J.Ranks[Pacing].workPerStepNs();
  J.OthersWorkNs = support::median(Others);
  const int64_t Floor =
      std::max<int64_t>({Opts.PaceFloorNs, 3 * J.OffsetSpreadNs,
                         int64_t(Opts.PaceFloorShare * double(J.MostWorkNs))});
  if (J.MostWorkNs - J.OthersWorkNs > Floor)
    J.Pacing = Pacing;
}

/// The cross-rank critical path (JobPath) over the steady collectives, in
/// the order they began.
void tracePath(JobAnalysis &J) {
  JobPath &P = J.Path;
  P.OwnedNs.assign(J.Ranks.size(), 0);
  // Where each rank's own time on the path starts: its first steady step's
  // start, then the end of each collective it leaves; and where it ends:
  // its last steady step's end (both in the reference clock).
  std::vector<int64_t> LeftAt(J.Ranks.size(), NoTime),
      DoneAt(J.Ranks.size(), NoTime);
  size_t LastOwner = SIZE_MAX; ///< the last arrival at the last collective
  for (size_t Slot = 0; Slot < J.Ranks.size(); ++Slot) {
    // A rank without aligned collectives is in no clock the path can use.
    if (!J.Ranks[Slot].Aligned || J.Ranks[Slot].S.Collectives.empty())
      continue;
    for (const RankStep &St : J.Ranks[Slot].S.Steps)
      if (St.Steady) {
        const int64_t Off = J.Ranks[Slot].OffsetNs;
        if (LeftAt[Slot] == NoTime)
          LeftAt[Slot] = St.StartNs - Off;
        DoneAt[Slot] = St.EndNs - Off;
      }
  }
  for (const JobCollective &M : J.Collectives) {
    if (M.Steady && M.Last != SIZE_MAX) {
      const size_t L = M.Last;
      const int64_t Arrival = M.Start[L];
      int64_t End = Arrival;
      for (size_t Slot = 0; Slot < M.Start.size(); ++Slot)
        if (M.End[Slot] != NoTime)
          End = std::max(End, M.End[Slot]);
      ++P.Collectives;
      LastOwner = L;
      P.CommunicationNs += End - Arrival;
      const bool Undecided = M.Undecided;
      P.Undecided += Undecided;
      if (LeftAt[L] != NoTime) {
        const int64_t Own = std::max<int64_t>(0, Arrival - LeftAt[L]);
        (Undecided ? P.UndecidedNs : P.OwnedNs[L]) += Own;
      }
    }
    if (M.Steady)
      for (size_t Slot = 0; Slot < M.Start.size(); ++Slot)
        if (M.End[Slot] != NoTime)
          LeftAt[Slot] = M.End[Slot];
  }
  // After the last collective the path ends with the rank whose steps end
  // last: its own time since it left that collective. It stays with the
  // rank it already runs through unless another ends later by more than
  // the clocks' error.
  size_t Tail = LastOwner != SIZE_MAX && DoneAt[LastOwner] != NoTime ? LastOwner
                                                                     : SIZE_MAX;
  for (size_t Slot = 0; Slot < DoneAt.size(); ++Slot)
    if (DoneAt[Slot] != NoTime && LeftAt[Slot] != NoTime &&
        (Tail == SIZE_MAX ||
         DoneAt[Slot] > DoneAt[Tail] + J.clockUncertaintyNs(Slot, Tail)))
      Tail = Slot;
  if (Tail != SIZE_MAX && P.Collectives)
    P.OwnedNs[Tail] += std::max<int64_t>(0, DoneAt[Tail] - LeftAt[Tail]);
  P.TotalNs = P.CommunicationNs + P.UndecidedNs;
  for (int64_t Ns : P.OwnedNs)
    P.TotalNs += Ns;
  size_t Best = SIZE_MAX;
  for (size_t Slot = 0; Slot < P.OwnedNs.size(); ++Slot)
    if (P.OwnedNs[Slot] > 0 &&
        (Best == SIZE_MAX || P.OwnedNs[Slot] > P.OwnedNs[Best]))
      Best = Slot;
  if (Best != SIZE_MAX && P.OwnedNs[Best] > P.UndecidedNs)
    P.Critical = Best;
}

} // namespace

int64_t JobAnalysis::clockUncertaintyNs(size_t A, size_t B) const {
  auto Spread = [&](size_t Slot) {
    return Slot < Ranks.size() ? Ranks[Slot].OffsetSpreadNs : 0;
  };
  return 3 * std::max(Spread(A), Spread(B));
}

std::string JobAnalysis::describeCritical() const {
  if (!Path.Collectives)
    return "";
  if (Path.Critical != SIZE_MAX)
    return llvm::formatv("critical rank {0} ({1} of the job's path)",
                         Ranks[Path.Critical].S.Rank,
                         support::formatShare(Path.shareOf(Path.Critical)))
        .str();
  if (Path.UndecidedNs > 0)
    return llvm::formatv(
               "no critical rank: the clocks cannot tell who "
               "arrived last at {0} of {1} (spread up to {2})",
               Path.Undecided,
               support::formatCount(int64_t(Path.Collectives), "collective"),
               support::formatDuration(OffsetSpreadNs))
        .str();
  return "no critical rank: no rank's own time is on the job's path";
}

std::string JobAnalysis::othersOnPath(size_t Slot,
                                      llvm::ArrayRef<size_t> AlsoLate) const {
  std::vector<std::string> Parts;
  for (size_t Other : AlsoLate)
    if (Other != Slot)
      Parts.push_back(llvm::formatv("{0} ({1})", rankName(Other),
                                    support::formatShare(Path.shareOf(Other)))
                          .str());
  return llvm::join(Parts, ", ");
}

std::string JobCollective::describe() const {
  std::string What = Seq >= 0 ? llvm::formatv("{0} seq {1}", Kind, Seq).str()
                              : "the " + ordinalText(Ordinal + 1) + " " + Kind;
  if (!Group.empty())
    What += " of process group " + Group;
  return What;
}

size_t JobAnalysis::slotOf(int64_t Rank) const {
  auto It = llvm::partition_point(
      Ranks, [&](const JobRank &R) { return R.S.Rank < Rank; });
  return It != Ranks.end() && It->S.Rank == Rank ? size_t(It - Ranks.begin())
                                                 : SIZE_MAX;
}

std::string JobAnalysis::describeTarget() const {
  if (Slowest == SIZE_MAX)
    return "job step time unknown (no rank)";
  std::string Out =
      llvm::formatv("job step time {0} (the slowest of {1} rank{2}, {3})",
                    support::formatDuration(StepNs), Ranks.size(),
                    Ranks.size() == 1 ? "" : "s", rankName(Slowest))
          .str();
  // The slowest rank's step may be long only because it waited; the rank
  // the job's path runs through is the one that delays it.
  if (std::string Critical = describeCritical(); !Critical.empty())
    Out += "; " + Critical;
  return Out;
}

std::string JobAnalysis::describePace() const {
  if (!PaceKnown)
    return "";
  if (Pacing == SIZE_MAX)
    return llvm::formatv("no rank stands out: the ranks work a median {0} "
                         "per step outside waits for other ranks, the most "
                         "{1}",
                         support::formatDuration(OthersWorkNs),
                         support::formatDuration(MostWorkNs))
        .str();
  std::string Out =
      llvm::formatv("{0} works {1} per step outside waits for other "
                    "ranks; the median other rank {2}",
                    rankName(Pacing),
                    support::formatDuration(Ranks[Pacing].workPerStepNs()),
                    support::formatDuration(OthersWorkNs))
          .str();
  // The most work is not always where the job's path runs: a rank with
  // less work but late launches can be the one the collectives wait for.
  if (Path.Critical != SIZE_MAX && Path.Critical != Pacing) {
    Out += llvm::formatv("; but the collectives wait mostly for {0} ({1} of "
                         "the job's path, {2} for {3})",
                         rankName(Path.Critical),
                         support::formatShare(Path.shareOf(Path.Critical)),
                         support::formatShare(Path.shareOf(Pacing)),
                         rankName(Pacing))
               .str();
    // Why it arrives late, from its own summary.
    if (std::string Why = Ranks[Path.Critical].S.topIdleCause(); !Why.empty())
      Out += ": " + Why;
  }
  return Out;
}

std::string JobAnalysis::describeWindow() const {
  std::string Ranks_ =
      llvm::formatv("{0} rank{1}", Ranks.size(), Ranks.size() == 1 ? "" : "s")
          .str();
  if (!Steps)
    return "the whole window of " + Ranks_;
  return llvm::formatv("{0} steady step{1} of {2}", Steps,
                       Steps == 1 ? "" : "s", Ranks_)
      .str();
}

std::string JobAnalysis::rankName(size_t Slot) const {
  return "rank " + std::to_string(Ranks[Slot].S.Rank);
}

JobAnalysis analysis::analyzeJob(std::vector<RankSummary> Ranks,
                                 const JobOptions &Opts) {
  JobAnalysis J;
  chooseRanks(std::move(Ranks), J);
  matchCollectives(J);
  alignClocks(J, Opts);
  findLateArrivals(J);
  tracePath(J);
  findPace(J, Opts);
  // Ranks that meet at collectives have about the same step time; of those
  // tied, the one that sets the pace is the slowest.
  for (size_t Slot = 0; Slot < J.Ranks.size(); ++Slot) {
    int64_t Ns = J.Ranks[Slot].S.medianStepNs();
    if (J.Slowest == SIZE_MAX || Ns > J.StepNs ||
        (Ns == J.StepNs && Slot == J.Pacing)) {
      J.StepNs = Ns;
      J.Slowest = Slot;
    }
  }
  for (const JobRank &R : J.Ranks)
    J.Steps = std::max<size_t>(
        J.Steps,
        llvm::count_if(R.S.Steps, [](const RankStep &S) { return S.Steady; }));
  return J;
}
