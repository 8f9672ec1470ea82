//===- report/JobReport.h - The job section of `lint --job` -----*- C++ -*-===//
//
// The report of a multi-rank job begins with the job: the job findings
// (cross-rank, in the finding schema of every report), the per-rank step
// times and clock offsets, and the late rank at each collective. Then each
// rank's own findings, folded, so that a finding on most ranks is one line
// ("on 7 of 8 ranks"), and the problems with the inputs.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_REPORT_JOBREPORT_H
#define TRACELINT_REPORT_JOBREPORT_H

#include "analysis/JobAnalysis.h"
#include "report/LintReport.h"
#include "report/LintWriters.h"
#include "rules/Engine.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace tracelint::report {

/// One rank finding folded over the ranks that have it (same code and
/// subject).
struct FoldedFinding {
  std::string Code, Name, Severity, Subject;
  std::vector<int64_t> Ranks; ///< ascending
  int64_t MedianImpactNs = 0, MaxImpactNs = 0;
  int64_t MaxRank = -1; ///< the rank with the largest impact
};

/// The rank findings of \p Job folded, most ranks first, then by impact.
std::vector<FoldedFinding> foldRankFindings(const analysis::JobAnalysis &Job);

/// "on 7 of 8 ranks (all but rank 3)", "on rank 5 only".
std::string foldedOnRanks(const FoldedFinding &F,
                          const analysis::JobAnalysis &Job);

/// foldedOnRanks() with the impact's median and largest: "on 4 of 4 ranks,
/// impact median 6 ms (up to 7 ms on rank 2)".
std::string foldedSpread(const FoldedFinding &F,
                         const analysis::JobAnalysis &Job);

/// How the ranks' clocks were aligned, one line.
std::string jobClocksText(const analysis::JobAnalysis &Job);

/// How the collectives were matched: "8 collectives by order per process
/// group and kind; 0 not found on every rank".
std::string jobMatchedText(const analysis::JobAnalysis &Job);

/// The text report of a job (TextOptions: Verbose shows every section of
/// the job findings and every rank and collective; Top limits the tables).
void writeJobText(llvm::raw_ostream &OS, const analysis::JobAnalysis &Job,
                  const rules::JobLintResult &R,
                  llvm::ArrayRef<InputError> Errors, const TextOptions &Opts);

/// The job's findings as the per-trace writers (SARIF, JUnit, Markdown)
/// take them: one outcome per rank that a finding names (the late rank of
/// its collective, Finding::Collective), its
/// input being that rank's trace, so that a SARIF result points at the
/// trace to read. Without findings, one outcome for the reference rank, so
/// that JUnit still lists the job rules as passed. \p RulesRun: the job
/// rules that ran. A baseline's tally goes with the first outcome, so that
/// it is counted once.
std::vector<LintOutcome> jobOutcomes(const analysis::JobAnalysis &Job,
                                     const rules::JobLintResult &R,
                                     const std::vector<std::string> &RulesRun);

/// The "job" object of the JSON document: target, problems, clocks,
/// findings (the finding schema), ranks (each with its step time, offset
/// and folded own findings) and collectives.
std::string jobJsonObject(const analysis::JobAnalysis &Job,
                          const rules::JobLintResult &R);

} // namespace tracelint::report

#endif
