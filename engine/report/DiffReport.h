//===- report/DiffReport.h - `tracelint diff` output ------------*- C++ -*-===//
#ifndef TRACELINT_REPORT_DIFFREPORT_H
#define TRACELINT_REPORT_DIFFREPORT_H

#include "analysis/TraceDiff.h"
#include "rules/Predictions.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace tracelint::report {

struct DiffResult {
  std::string BeforeInput, AfterInput;
  const analysis::TraceDiff &Diff;
  llvm::ArrayRef<rules::PredictionCheck> Checks;
  /// Findings new in the after trace and gone from the before trace.
  const rules::FindingChanges &Findings;
};

/// "held", "did not hold", "inconclusive".
llvm::StringRef overallName(rules::Verdict V);

/// The metric, the warnings, the findings new in AFTER and gone from
/// BEFORE, each prediction ("not comparable: REASON" when the traces cannot
/// be compared), the kernel inventory and the counts. Names are shortened
/// (ShortNames.h). Colour only when \p Color is set.
void writeDiffText(llvm::raw_ostream &OS, const DiffResult &R, bool Color);
/// The same as JSON: keys in a fixed order, times in integer ns.
void writeDiffJson(llvm::raw_ostream &OS, const DiffResult &R);
/// The same as Markdown for a pull request or an investigation log.
void writeDiffMarkdown(llvm::raw_ostream &OS, const DiffResult &R);

} // namespace tracelint::report

#endif
