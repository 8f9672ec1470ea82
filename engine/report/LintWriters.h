//===- report/LintWriters.h - SARIF, JUnit and Markdown lint output -*- C++
//-*-=//
//
// The formats of `tracelint lint` that other tools read: SARIF 2.1.0 for
// code-scanning dashboards, JUnit XML for CI test reports, and the Markdown
// next-experiment checklist for an investigation log. Each writer sees every
// linted trace at once (one SARIF run, one JUnit document, one checklist).
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_REPORT_LINTWRITERS_H
#define TRACELINT_REPORT_LINTWRITERS_H

#include "report/LintReport.h"
#include "rules/Baseline.h"
#include "rules/Catalogue.h"
#include "rules/Engine.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <vector>

namespace tracelint::report {

/// One linted trace, kept after its trace is gone.
struct LintOutcome {
  std::string Input;  ///< the path as given
  std::string Target; ///< what the impacts are measured against
  rules::LintResult Result;
  /// Enabled rules for this input (the JUnit test cases), in code order.
  std::vector<std::string> RulesRun;
};

struct WriterOptions {
  std::string ToolVersion;
  /// Base URL of the rule pages (docs/rules/ of a published copy); a rule's
  /// helpUri is BASE + "<CODE>-<name>.md". Empty: no helpUri.
  std::string DocsUrl;
  /// Findings at or above this severity fail (JUnit failures); none: never.
  std::optional<rules::Severity> FailAt = rules::Severity::Warning;
  /// Markdown: names as the trace writes them (`--long-names`).
  bool LongNames = false;
  /// The findings are a job's (`lint --job`): Markdown verifies them by
  /// linting the re-recorded ranks as a job, not by `tracelint diff`.
  bool JobFindings = false;
};

/// SARIF 2.1.0: one run, the catalogue as tool.driver.rules, one artifact per
/// input, one result per finding.
void writeLintSarif(llvm::raw_ostream &OS, llvm::ArrayRef<LintOutcome> Runs,
                    llvm::ArrayRef<InputError> Errors,
                    const rules::Catalogue &Cat, const WriterOptions &Opts);

/// JUnit XML: one test suite per input, one test case per rule that ran,
/// a failure for a rule's findings at or above the fail level, skipped for
/// rules that could not judge; an unreadable input is a suite with an error.
void writeLintJUnit(llvm::raw_ostream &OS, llvm::ArrayRef<LintOutcome> Runs,
                    llvm::ArrayRef<InputError> Errors,
                    const rules::Catalogue &Cat, const WriterOptions &Opts);

/// The next-experiment checklist: per input, one checkbox per hypothesis in
/// rank order with the change, the predicted trace feature and metric
/// change, the command that verifies it, and a blank for the result.
void writeLintMarkdown(llvm::raw_ostream &OS, llvm::ArrayRef<LintOutcome> Runs,
                       llvm::ArrayRef<InputError> Errors,
                       const WriterOptions &Opts);

/// \p S quoted for a POSIX shell (single quotes), unchanged when it is made
/// of safe characters only.
std::string shellQuote(llvm::StringRef S);

} // namespace tracelint::report

#endif
