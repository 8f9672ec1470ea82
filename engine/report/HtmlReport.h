//===- report/HtmlReport.h - `lint --format html` ---------------*- C++ -*-===//
//
// One self-contained page (inline CSS and SVG; no script, font, image or
// style sheet fetched from anywhere, so that it opens from a CI artifact
// offline). Per input: the target, the device's busy/idle bar for the target
// with the idle split by cause, the devices, the trace-quality notes; then
// one card per finding with its hypothesis, evidence, alternatives,
// experiment and a mini-timeline of its evidence window (HtmlTimeline.h).
// The facts are those the text report shows, read from the same results.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_REPORT_HTMLREPORT_H
#define TRACELINT_REPORT_HTMLREPORT_H

#include "analysis/TraceIndex.h"
#include "report/LintReport.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace tracelint::report {

struct HtmlOptions {
  std::string ToolVersion;
  /// Names as the trace writes them; by default shortened (the full name is
  /// in the hover title either way).
  bool LongNames = false;
  /// Events drawn per card besides the flagged ones and their links.
  size_t MaxNeighbours = 60;
};

/// One input's part of the page. Written while its trace is alive, as the
/// cards draw its events.
std::string lintHtmlSection(const LintedTrace &L,
                            const analysis::TraceIndex &Ctx,
                            const HtmlOptions &Opts);

/// The whole page: the style sheet, the sections in input order and the
/// inputs that could not be read. A section is any self-contained part of
/// the page: a multi-rank job view (issue 19's `--job`) is one more.
void writeLintHtmlDocument(llvm::raw_ostream &OS,
                           llvm::ArrayRef<std::string> Sections,
                           llvm::ArrayRef<InputError> Errors,
                           const HtmlOptions &Opts);

} // namespace tracelint::report

#endif
