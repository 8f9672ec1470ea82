//===- analysis/RankSummary.h - What one rank contributes to a job -*- C++ -*-//
//
// A job is analysed from one small summary per rank, not from the ranks'
// events: the summary holds what the cross-rank analysis reads (the rank's
// identity, its step times, every collective with its start and end in the
// rank's own clock, the per-step idle split, the rank's own findings), so
// that 10,000 ranks fit in memory and a summary can be written on the
// machine that holds the trace and shipped alone (docs/summary-format.md).
//
// Every figure is read from the TraceIndex (the one source of facts), never
// recomputed here; the findings are copied in by the caller, because this
// layer does not know the rule engine.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_ANALYSIS_RANKSUMMARY_H
#define TRACELINT_ANALYSIS_RANKSUMMARY_H

#include "analysis/TraceIndex.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tracelint::analysis {

/// Where a rank's number came from.
enum class RankSource : uint8_t {
  Unknown,
  DistributedInfo, ///< the trace's distributedInfo
  FileName,        ///< the file name, by the rank pattern
};
llvm::StringRef rankSourceName(RankSource S);
RankSource parseRankSource(llvm::StringRef S);

/// One collective as one rank saw it. Times are absolute nanoseconds in the
/// rank's own clock (the trace's origin plus the model time), so that two
/// ranks' times differ by their clock offset and their real skew only.
struct RankCollective {
  std::string Group; ///< process group name; empty: not recorded
  int64_t Seq = -1;  ///< the group's sequence number; -1: not recorded
  std::string Kind;  ///< "AllReduce", "SendRecv", "allreduce", ...
  int64_t Stream = -1;
  int64_t StartNs = 0, EndNs = 0;
  int64_t Bytes = -1;
  int32_t Step = -1; ///< index into RankSummary::Steps; -1: outside steps
  /// The busy time of compute kernels on the collective's device since the
  /// rank's previous collective there ended (or its step began, whichever
  /// is later): the work it did before it could join. -1: unknown (the
  /// first collective outside any step, or an older summary).
  int64_t ComputeBeforeNs = -1;
};

/// One step of the rank, with the idle split of its main device in it.
struct RankStep {
  int64_t Number = -1;
  int64_t StartNs = 0, EndNs = 0; ///< absolute, the rank's own clock
  bool Steady = false;            ///< one of TraceIndex::steadySteps()
  /// The step's idle split on the rank's target device
  /// (TraceIndex::idleSplit, the split lint, `path` and `stats` show).
  TargetIdle Idle;
  int64_t durationNs() const { return EndNs - StartNs; }
};

/// One of the rank's own findings, as much as the job report needs.
struct RankFinding {
  std::string Code, Name, Severity;
  int64_t ImpactNs = 0;
  double Confidence = 0;
  std::string Subject;
};

struct RankSummary {
  std::string Input; ///< the trace (or summary) it came from
  int64_t Rank = -1, WorldSize = -1;
  RankSource RankFrom = RankSource::Unknown;
  std::string Backend;
  /// A job identifier when the trace records one (empty otherwise); two
  /// summaries with different non-empty ids are of different jobs.
  std::string JobId;
  std::string Producer; ///< "kineto, PyTorch program, CUPTI 12.1"
  int32_t Device = -1;  ///< the device the idle split is of
  int64_t TargetNs = 0; ///< the rank's median step time (or window)
  std::string Target;   ///< TraceIndex::describeTarget()
  bool Truncated = false;
  std::vector<RankStep> Steps;
  std::vector<RankCollective> Collectives; ///< sorted by start
  std::vector<RankFinding> Findings;       ///< ranked, as lint ranks them

  /// The median duration of the steady steps, or TargetNs without steps.
  int64_t medianStepNs() const;
  /// What the rank's device idled on most in its steady steps (the idle
  /// split's largest host-side part), as text: "host work between launches
  /// 3.1 ms per step"; empty without steps or idle.
  std::string topIdleCause() const;
};

/// The default rank pattern for file names: the digits after "rank" or
/// "worker" (rank3.json, worker_12.pt.trace.json). The last parenthesised
/// group of a pattern is the rank.
constexpr llvm::StringLiteral DefaultRankPattern =
    "(rank|worker)[-_.]?([0-9]+)";

/// The rank the file name \p Path gives by \p Pattern (an extended POSIX
/// regular expression matched against the file name without its folder),
/// or -1 when it does not match. An invalid pattern is an error.
llvm::Expected<int64_t> rankFromFileName(llvm::StringRef Path,
                                         llvm::StringRef Pattern);

/// The collective kind of a communication kernel: the trace's "Collective
/// name" when it has one, else the word after ncclKernel_/ncclDevKernel_
/// ("AllReduce", "SendRecv"), else the name up to its argument list.
std::string collectiveKind(llvm::StringRef KernelName,
                           llvm::StringRef CollectiveName);

/// Summarises the trace behind \p Ctx. The rank comes from distributedInfo,
/// else from \p Input's file name by \p RankPattern. Findings are left empty
/// for the caller.
llvm::Expected<RankSummary> summarizeTrace(const TraceIndex &Ctx,
                                           llvm::StringRef Input,
                                           llvm::StringRef RankPattern);

} // namespace tracelint::analysis

#endif
