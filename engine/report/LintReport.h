//===- report/LintReport.h - Lint, rules and explain output -----*- C++ -*-===//
//
// The lint report begins with what the findings are measured against: the
// input, the producer, the target metric, the device busy/idle breakdown,
// the trace-quality notes and where times count from. Then the ranked
// hypotheses, each with its evidence, experiment, example events and
// fingerprint, the zero-impact notes, and the rules that could not judge
// this trace. Names are shortened (ShortNames.h), lines wrapped, and every
// string that comes from a trace is sanitized before it reaches a terminal.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_REPORT_LINTREPORT_H
#define TRACELINT_REPORT_LINTREPORT_H

#include "analysis/Stats.h"
#include "model/Trace.h"
#include "report/TextWrap.h"
#include "rules/Catalogue.h"
#include "rules/Engine.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace tracelint::report {

/// One linted trace, as the writers see it: the findings and what they are
/// measured against (LintResult::Target), the statistics for the header, and
/// the trace only for its producer line.
struct LintedTrace {
  std::string Input; ///< the path as given
  const model::Trace &Trace;
  const analysis::TraceStats &Stats;
  const rules::LintResult &Result;
};

/// A trace that could not be read.
struct InputError {
  std::string Input;
  std::string Message;
};

/// How much of the text report to show (docs/reading-reports.md).
struct TextOptions {
  /// Bold codes, yellow warnings, red errors.
  bool Color = false;
  /// Every finding as a full card with every section (alternatives, every
  /// example, confidence notes, refuted-if), and the rules that do not
  /// apply: the whole report.
  bool Verbose = false;
  /// Kernel and op names as the trace writes them, not shortName()'s form.
  bool LongNames = false;
  /// Lines wrap at this many columns (at most MaxLineWidth); 0: never
  /// (one line per text, for scripts and tests that match whole lines).
  size_t Width = DefaultWidth;
  /// Findings shown as cards; every finding has its line in the ranked
  /// list above them. 0: all.
  size_t Top = 3;
  /// Findings under this severity are counted, not shown.
  rules::Severity MinSeverity = rules::Severity::Info;
};

/// Text report of one trace: the header, the ranked list (one line per
/// finding: its impact and the change to try), the highest-ranked findings
/// with an impact as cards (one card per host wait or copy, SameClaim.h),
/// the zero-impact findings as notes, the rules that could not judge, and a
/// summary.
void writeLintText(llvm::raw_ostream &OS, const LintedTrace &L,
                   const TextOptions &Opts);
/// The default report, with colour only when \p Color is set.
void writeLintText(llvm::raw_ostream &OS, const LintedTrace &L, bool Color);

/// The JSON object of one trace (input, producer, target, devices, quality,
/// findings, skipped), keys in a fixed order, indented by \p Indent spaces
/// after the first line, so that it can be embedded in the document.
std::string lintJsonObject(const LintedTrace &L, unsigned Indent);

/// The whole JSON document: {"version", "results": [objects],
/// "errors": [{"input", "message"}]}, with "job": \p JobObject (raw JSON,
/// report/JobReport.h) after "tool" when it is not empty.
void writeLintJsonDocument(llvm::raw_ostream &OS,
                           llvm::ArrayRef<std::string> Objects,
                           llvm::ArrayRef<InputError> Errors,
                           llvm::StringRef JobObject = {});

/// `tracelint rules`: one line per rule (code, name, family, status,
/// severity, summary), or a JSON array.
void writeRuleList(llvm::raw_ostream &OS, const rules::Catalogue &Cat,
                   bool Json, bool Color);

enum class PageFormat { Text, Markdown };

/// `tracelint explain`: the rule's page, generated from its TOML (what it
/// detects, why it matters, evidence, next experiment, options, needs,
/// known false positives, real traces).
void writeRulePage(llvm::raw_ostream &OS, const rules::RuleSpec &Spec,
                   PageFormat Format, bool Color);

/// "device 0 (NAME): busy 676 us (50.3 % of window), idle 669 us; in steps
/// 50.4 % busy": one device's line of the lint report header (text and
/// HTML), the name sanitized.
std::string deviceSummary(const analysis::DeviceStats &D,
                          const model::Trace &T);

/// "0.7", "0.42": a confidence with at most two decimals.
std::string formatConfidence(double C);

/// The "baseline" line of the text reports: "2 new, 1 grew beyond noise, 5
/// known (not shown) against FILE", its label bold with \p Color.
void writeBaselineLine(llvm::raw_ostream &OS, const rules::BaselineTally &B,
                       bool Color);

} // namespace tracelint::report

#endif
