//===- analysis/JobAnalysis.h - The ranks of one job, joined ----*- C++ -*-===//
//
// Joins the summaries of a job's ranks (RankSummary.h): decides which ranks
// are there (missing, duplicated, of another job, without collectives),
// matches each collective across the ranks, estimates every rank's clock
// offset from the collectives' end times, and says per collective which
// rank arrived last, by how much, and how long the others waited for it.
// The job rules (rules/N/) and the job report read these facts; they are
// computed here once (DESIGN.md section 3, "one source of facts").
//
// Memory grows with the number of collectives times the number of ranks,
// never with the ranks' events: summaries are all it reads.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_ANALYSIS_JOBANALYSIS_H
#define TRACELINT_ANALYSIS_JOBANALYSIS_H

#include "analysis/RankSummary.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace tracelint::analysis {

/// A time a rank did not record (the collective is missing on it).
constexpr int64_t NoTime = std::numeric_limits<int64_t>::min();

struct JobOptions {
  /// A per-collective clock offset further than this plus three median
  /// absolute deviations from a rank's median offset is an outlier (a
  /// collective that does not end together, or a mismatched one).
  int64_t OutlierFloorNs = 50'000;
  /// A rank sets the pace only when it works more than the median of the
  /// others by this much, by this share of its work and by three times the
  /// clock alignment's spread: less is jitter, and naming a rank would
  /// mislead.
  int64_t PaceFloorNs = 50'000;
  double PaceFloorShare = 0.01;
};

/// One rank of the job, with its clock against the reference rank's.
struct JobRank {
  RankSummary S;
  /// Subtract from the rank's times to get the reference rank's clock.
  int64_t OffsetNs = 0;
  /// The median absolute deviation of the per-collective offsets.
  int64_t OffsetSpreadNs = 0;
  uint64_t OffsetSamples = 0, OffsetOutliers = 0;
  /// The offset was estimated (at least 2 matched collectives); otherwise
  /// the trace's own clock is used.
  bool Aligned = false;
  /// Matched collectives at which this rank arrived last (strictly: a tie
  /// is nobody's).
  uint64_t TimesLast = 0;
  /// Its time inside the job's steady collectives before their last rank
  /// started (each bounded by its own collective's end): waiting for other
  /// ranks, summed.
  int64_t WaitedNs = 0;
  /// The steps WaitedNs is over: the rank's steady steps (at least 1).
  int64_t WaitedSteps = 1;
  int64_t waitPerStepNs() const { return WaitedNs / WaitedSteps; }
  /// The work it does per step: its median steady step minus its waits for
  /// other ranks per step. The rank with the most bounds the job's step.
  int64_t workPerStepNs() const {
    return std::max<int64_t>(0, S.medianStepNs() - waitPerStepNs());
  }
};

/// One collective, matched across the ranks.
struct JobCollective {
  std::string Group, Kind;
  int64_t Seq = -1;   ///< the sequence number, when matched by it
  size_t Ordinal = 0; ///< 0-based, among the (group, kind)'s collectives
  int64_t Bytes = -1; ///< the reference rank's payload
  int32_t Step = -1;  ///< the step (index) of the late rank's collective
  /// In one of the late rank's steady steps (or the late rank has no
  /// steps): what the job rules measure over, as the rank rules do.
  bool Steady = false;
  /// Per JobAnalysis::Ranks slot, in the reference clock; NoTime: missing.
  std::vector<int64_t> Start, End;
  /// Per slot, RankCollective::ComputeBeforeNs (-1: unknown or missing).
  std::vector<int64_t> ComputeBefore;
  size_t Present = 0;
  size_t Last = SIZE_MAX; ///< slot of the rank that started last
  /// The arrival order cannot be told from clock error: LateByNs is within
  /// JobAnalysis::clockUncertaintyNs of the last and second-last ranks (or
  /// a tie). Nobody is named late at it.
  bool Undecided = false;
  /// The last start minus the second-last start: how much earlier the
  /// collective could have begun had the late rank come with the others.
  int64_t LateByNs = 0;
  /// Every other rank's time inside the collective before the last rank
  /// started (each bounded by its own collective's end).
  int64_t WaitNs = 0;
  /// How much more compute the last rank ran before the collective than the
  /// median of the others (RankCollective::ComputeBeforeNs; may be
  /// negative); NoTime when the last rank or all the others lack the
  /// figure.
  int64_t ComputeExcessNs = NoTime;
  /// The lateness the extra compute explains: the excess, within [0,
  /// LateByNs].
  int64_t computeExplainedNs() const {
    return ComputeExcessNs == NoTime
               ? 0
               : std::clamp<int64_t>(ComputeExcessNs, 0, LateByNs);
  }
  /// The extra compute explains at least half of the late arrival: the
  /// arrival is the compute imbalance's (N007), not a late arrival for
  /// other reasons (N004). One partition, so no lateness is counted twice.
  bool lateFromCompute() const {
    return LateByNs > 0 && 2 * computeExplainedNs() >= LateByNs;
  }
  /// Rank \p Slot's time inside the collective before the last rank
  /// started, bounded by its own collective's end (0: the last rank itself,
  /// missing, or no late rank).
  int64_t waitOf(size_t Slot) const {
    if (Last == SIZE_MAX || Slot == Last || Start[Slot] == NoTime)
      return 0;
    return std::max<int64_t>(0, std::min(Start[Last], End[Slot]) - Start[Slot]);
  }
  /// "the 2nd AllReduce" / "AllReduce seq 17"
  std::string describe() const;
};

/// The job's critical path through its steady collectives (docs/
/// multi-rank.md, "The rank that delays the job"): at each collective the
/// path comes from the rank that arrived last; between two collectives it
/// runs through that rank's own time since it left the previous one (its
/// device work, launches, host work and waits, which its own report
/// splits); inside a collective, from the last arrival to its end, it is
/// communication. A rank that only waited owns none of it.
struct JobPath {
  /// Per JobAnalysis::Ranks slot: the path's time between collectives that
  /// the rank owns.
  std::vector<int64_t> OwnedNs;
  /// Inside the collectives, from the last arrival to the end.
  int64_t CommunicationNs = 0;
  /// Between collectives whose last arrival the clocks cannot tell: the
  /// arrival order is within three times the two ranks' clock spreads (or
  /// a tie), so the path may run through either.
  int64_t UndecidedNs = 0;
  uint64_t Collectives = 0, Undecided = 0;
  int64_t TotalNs = 0;
  /// The slot that owns the largest part, when it owns more than the
  /// undecided part: the rank that delays the job. SIZE_MAX: none.
  size_t Critical = SIZE_MAX;
  double shareOf(size_t Slot) const {
    return TotalNs > 0 && Slot < OwnedNs.size()
               ? double(OwnedNs[Slot]) / double(TotalNs)
               : 0.0;
  }
};

struct JobAnalysis {
  std::vector<JobRank> Ranks; ///< sorted by rank, one per rank
  int64_t WorldSize = -1;     ///< as the ranks declare (else max rank + 1)
  std::vector<int64_t> MissingRanks;
  /// What was wrong with the inputs, one line each: duplicates, mixed
  /// jobs, unknown ranks, ranks without collectives, missing ranks.
  std::vector<std::string> Problems;
  /// How collectives were matched: "process group and sequence number" or
  /// "order per process group and kind".
  std::string MatchedBy;
  std::vector<JobCollective> Collectives; ///< by start in the reference
  /// Collectives not found on every rank that records collectives.
  uint64_t Mismatched = 0;
  size_t Reference = SIZE_MAX; ///< the slot whose clock the times are in
  bool ClocksAligned = false;  ///< every rank with collectives is aligned
  /// The largest offset spread of a rank, and every offset outlier.
  int64_t OffsetSpreadNs = 0;
  uint64_t OffsetOutliers = 0;
  /// Steps: the most steady steps a rank has (the job's steps per rank).
  size_t Steps = 0;
  /// \p TotalNs over the steady collectives, per steady step.
  int64_t perStep(int64_t TotalNs) const {
    return TotalNs / std::max<int64_t>(1, int64_t(Steps));
  }
  /// "steps 2-4 of 8 ranks" style text for findings.
  std::string describeWindow() const;
  /// The job's step time: the slowest rank's median step time, since every
  /// collective waits for it; and that rank's slot.
  int64_t StepNs = 0;
  size_t Slowest = SIZE_MAX;

  /// "job step time 12.3 ms (the slowest of 8 ranks, rank 5)".
  std::string describeTarget() const;
  /// The work per step (JobRank::workPerStepNs) could be compared: the
  /// clocks are aligned and at least 2 ranks record collectives.
  bool PaceKnown = false;
  /// The rank with the most work per step among the ranks with
  /// collectives, when it stands out (JobOptions::PaceFloorNs): its work
  /// bounds the job's step from below, and the other ranks fill the
  /// difference by waiting for it. SIZE_MAX: none stands out, or unknown.
  size_t Pacing = SIZE_MAX;
  /// The most work per step of a rank, and the median of the others'.
  int64_t MostWorkNs = 0, OthersWorkNs = 0;
  /// "rank 2 works 20 ms per step outside waits for other ranks; the median
  /// other rank 15 ms", or that no rank stands out; empty when !PaceKnown.
  /// Said relative to the critical rank when that is another.
  std::string describePace() const;

  /// The cross-rank critical path and the rank it runs through most.
  JobPath Path;
  /// Three times the larger clock spread of two ranks: a difference in
  /// their arrival times within it cannot be told from clock error.
  int64_t clockUncertaintyNs(size_t A, size_t B) const;
  /// "critical rank 5 (62 % of the job's path)", or why none is named.
  std::string describeCritical() const;
  /// Whether a job rule may name rank \p Slot as delaying the job: only
  /// the critical rank, once the path is known, so that every report
  /// tells one story (a rank late at a few collectives off the path is
  /// said in the critical rank's finding). Without steady collectives to
  /// trace the path through, every rank may be named.
  bool mayBlame(size_t Slot) const {
    return Path.Collectives == 0 || Slot == Path.Critical;
  }
  /// The other ranks that \p Slot's own rule also found late, with their
  /// parts of the path ("rank 0 (12.1 %), rank 3 (4.0 %)"); empty for none.
  std::string othersOnPath(size_t Slot, llvm::ArrayRef<size_t> AlsoLate) const;

  /// The slot of rank \p Rank, or SIZE_MAX.
  size_t slotOf(int64_t Rank) const;
  /// "rank 5".
  std::string rankName(size_t Slot) const;
};

/// Joins \p Ranks (in any order) into one job. Inputs that cannot be part
/// of it (duplicates, another job's, no rank) are left out with a Problem.
JobAnalysis analyzeJob(std::vector<RankSummary> Ranks,
                       const JobOptions &Opts = {});

} // namespace tracelint::analysis

#endif
