//===- rules/Engine.h - Running the catalogue on a trace --------*- C++ -*-===//
#ifndef TRACELINT_RULES_ENGINE_H
#define TRACELINT_RULES_ENGINE_H

#include "analysis/TraceIndex.h"
#include "rules/Catalogue.h"
#include "rules/Config.h"
#include "rules/Detector.h"
#include "rules/Finding.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <optional>
#include <vector>

namespace tracelint::rules {

/// What the findings' impacts are measured against.
/// How the rule that claims a cause of the target line's idle split came
/// out: a finding claims the cause, or the target line says why none does.
enum class ClaimStatus : uint8_t {
  Claimed,       ///< a finding claims at least half of the cause's figure
  ClaimedLess,   ///< a finding claims it, with a smaller figure
  Quiet,         ///< the rule ran and found nothing to report
  CannotJudge,   ///< the rule lacks data the trace does not record
  NotApplicable, ///< the rule's subject does not occur in the trace
  NotRun,        ///< the rule is not selected (--select, --ignore, config)
};
/// "claimed", "claimed-less", "quiet", "cannot-judge", "not-applicable",
/// "not-run".
llvm::StringRef claimStatusName(ClaimStatus S);

/// One cause of the target line's idle split and what its rule made of it.
struct CauseClaim {
  analysis::IdleCause Cause = analysis::IdleCause::Launch;
  int64_t Ns = 0;   ///< the cause's figure on the target line
  std::string Rule; ///< the rule that claims it ("L002")
  ClaimStatus Status = ClaimStatus::NotRun;
  std::string Fingerprint; ///< the claiming finding's
  int64_t ClaimedNs = 0;   ///< its figure, before the critical path's cap
  int64_t ImpactNs = 0;    ///< its impact
  std::string Why;         ///< why no finding (a skip reason, a quiet note)
};

struct LintTarget {
  analysis::TargetKind Kind = analysis::TargetKind::Window;
  int64_t Ns = 0;          ///< the median step time, or the window's length
  size_t Steps = 0;        ///< steps in the trace
  std::string Description; ///< "median step time 10 ms (5 steps)"
  /// Where the device's idle time in the target went (the one split that
  /// `path` and `stats` show too).
  analysis::TargetIdle Idle;
  /// Each cause of Idle with a figure and a rule, and how that rule came
  /// out (in the order of analysis::idleCauses()).
  std::vector<CauseClaim> Claims;
};

/// Where runRules spent its time: lint prints it when TRACELINT_TIMES is
/// set (bench/rule_cost.py reads it); no report shows it. CPU times are a
/// thread's own for one task, the process's for a phase.
struct LintTimes {
  int64_t BesideCpuNs = 0; ///< the caller's work run beside the rules
  int64_t GraphCpuNs = 0;  ///< building the critical path's graph
  bool GraphBuilt = false; ///< a finding asked the path for a bound
  /// Each rule that ran, in catalogue order, with the CPU time of its run
  /// (its needs, its detector, the index facts it was first to ask for).
  std::vector<std::pair<std::string, int64_t>> RuleCpuNs;
  /// The rules, the caller's work and the graph, on the pool together.
  int64_t PoolWallNs = 0, PoolCpuNs = 0;
  /// The findings after them: bounds from the path, texts, ranking.
  int64_t FindingsWallNs = 0, FindingsCpuNs = 0;
};

struct LintResult {
  LintTarget Target;
  std::vector<Finding> Findings; ///< ranked: impact x confidence, then code
  std::vector<rules::Skipped> Skipped; ///< rules that could not judge, and why
  /// Notes that lowered every finding's confidence (truncation, ...).
  std::vector<std::string> QualityNotes;
  /// The trace's first event in the file's clock (us): the reports give
  /// times as offsets from it, as Perfetto's timeline does.
  double FirstEventUs = 0;
  /// Set by `lint --baseline` (rules::applyBaseline): what it made of the
  /// findings, of which the Known ones have been removed.
  std::optional<BaselineTally> Baseline;
  LintTimes Times;
};

/// Runs every enabled rule: checks its needs, runs its detector or the
/// declarative evaluator, renders texts, applies trace-quality penalties,
/// fingerprints and ranks.
LintResult runRules(const analysis::TraceIndex &Ctx, const Catalogue &Rules,
                    const Config &Cfg, llvm::StringRef TracePath);

/// The same with another detector table (tests register their own).
using DetectorLookup = llvm::function_ref<DetectorFn(llvm::StringRef)>;
LintResult runRules(const analysis::TraceIndex &Ctx, const Catalogue &Rules,
                    const Config &Cfg, llvm::StringRef TracePath,
                    DetectorLookup Lookup);
/// The same, running \p Beside on the rules' threads alongside the rules
/// and the critical path's graph: work of the caller's that only reads the
/// index (lint's statistics), so that it shares the cores with them instead
/// of running, on one core, before them. It has returned when this does.
LintResult runRules(const analysis::TraceIndex &Ctx, const Catalogue &Rules,
                    const Config &Cfg, llvm::StringRef TracePath,
                    DetectorLookup Lookup, llvm::function_ref<void()> Beside);

/// What the job rules found in the joined ranks of a job.
struct JobLintResult {
  int64_t TargetNs = 0;          ///< the job's step time (JobAnalysis::StepNs)
  std::string Target;            ///< JobAnalysis::describeTarget()
  std::vector<Finding> Findings; ///< ranked as per-trace findings are
  std::vector<rules::Skipped> Skipped;
  std::optional<BaselineTally> Baseline; ///< as LintResult::Baseline
};

/// Runs every enabled job rule ([signature] input = "job") on \p Job.
/// Impacts are bounded by the job's step time; confidence is halved when
/// some rank's clock could not be aligned.
JobLintResult runJobRules(const analysis::JobAnalysis &Job,
                          const Catalogue &Rules, const Config &Cfg);

/// Why \p Ctx cannot support a rule that needs \p N, naming the missing
/// data and the profiler option that records it ("the trace has no device
/// activity ...; record it with ProfilerActivity.CUDA"); empty when the trace
/// has it.
std::string missingNeed(const analysis::TraceIndex &Ctx, Need N);
/// What each need is and which profiler option records it, for rule pages.
llvm::StringRef needDescription(Need N);

/// The number of threads the rules run on for \p Requested (Config::Jobs,
/// `-j`, TRACELINT_JOBS): the request itself, or every core when it is 0.
unsigned ruleJobs(unsigned Requested);

/// A finding whose impact the critical path caps under this share of the
/// target is info, for rules without their own `min-gain-share`: a smaller
/// gain is within step-to-step noise.
constexpr double CappedGainFloor = 0.01;

/// A steady-state finding says what start-up it was judged beside
/// ("steps 2-5, beside 6.6 ms of start-up (U001)") when start-up takes at
/// least this share of the target.
constexpr double StartupNoteShare = 0.05;

/// Fills {placeholders} in \p Template from \p Values; unknown placeholders
/// are left visible as {name} so that a rule author sees them.
/// {name:thing|things} writes the value with the noun that agrees with it
/// ("1 thing", "2 things", "1.5 things"; "thing" alone adds an "s").
std::string renderTemplate(llvm::StringRef Template,
                           const std::map<std::string, Value> &Values);

/// code + ":" + normalised subject, hashed to 16 hex digits.
std::string fingerprint(llvm::StringRef Code, llvm::StringRef Subject);

} // namespace tracelint::rules

#endif
