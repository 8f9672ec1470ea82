//===- cli/JobInputs.h - The ranks of `lint --job` and `summarize` -*- C++ -*-//
//
// `lint --job` takes traces, rank summaries (`tracelint summarize`), folders
// of either and glob patterns; every trace is imported, linted and
// summarised on a thread pool, then dropped, so that only summaries stay in
// memory. `summarize` writes one trace's summary.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_CLI_JOBINPUTS_H
#define TRACELINT_CLI_JOBINPUTS_H

#include "LintSupport.h"

#include "analysis/RankSummary.h"
#include "report/LintReport.h"

#include <string>
#include <vector>

namespace tracelint::cli {

/// The rank pattern option (--rank-pattern), shared by lint and summarize.
llvm::StringRef rankPattern();

/// The summary of a linted trace: the index's figures and its findings.
llvm::Expected<analysis::RankSummary> summarizeLinted(const LintedInput &In,
                                                      llvm::StringRef Input);

/// What the inputs of a job gave.
struct JobInputs {
  std::vector<analysis::RankSummary> Ranks;
  std::vector<report::InputError> Errors;
  int Exit = 0; ///< the worst input failure's exit code (0: none)
};

/// Expands \p Inputs (files, folders, globs) and reads every rank: traces
/// are linted on \p Threads threads (0: every core), each import within
/// \p BudgetBytes / threads when a budget is set. A rank that cannot be
/// read is an error; the others are still read.
JobInputs readJobInputs(const std::vector<std::string> &Inputs,
                        const RuleSetup &Setup, unsigned Threads,
                        uint64_t BudgetBytes);

} // namespace tracelint::cli

#endif
