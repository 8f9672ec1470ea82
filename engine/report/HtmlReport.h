//===- report/HtmlReport.h - `lint --format html` ---------------*- C++ -*-===//
//
// One self-contained page (inline CSS and SVG; no script, font, image or
// style sheet fetched from anywhere, so that it opens from a CI artifact
// offline). At the top, an index of every finding (code, rule, impact,
// hypothesis) linking to its card. Per input: the target, the device's
// busy/idle bar for the target with the idle split by cause, the devices,
// the trace-quality notes; then one card per finding with its hypothesis,
// evidence, alternatives, experiment and a mini-timeline of its evidence
// window, host and device lanes on one axis (HtmlTimeline.h). The facts are
// those the text report shows, read from the same results.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_REPORT_HTMLREPORT_H
#define TRACELINT_REPORT_HTMLREPORT_H

#include "analysis/TraceIndex.h"
#include "report/HtmlTimeline.h"
#include "report/LintReport.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace tracelint::report {

struct HtmlOptions {
  std::string ToolVersion;
  /// Names as the trace writes them; by default shortened (the full name is
  /// in the hover title either way).
  bool LongNames = false;
  /// What each card's timeline draws at most.
  TimelineLimits Timeline;
};

/// One finding as the page's index lists it.
struct HtmlIndexEntry {
  std::string Anchor; ///< the id of its card
  size_t Number = 0;  ///< its rank in its section, 1-based
  std::string Code, Name, Severity;
  int64_t ImpactNs = 0;
  double ImpactShare = 0;
  std::string Of; ///< what the share is of: "step", "window", "job step"
  std::string Hypothesis;
};

/// A self-contained part of the page (one input, or a multi-rank job) and
/// its lines of the index.
struct HtmlSection {
  std::string Heading; ///< what the index calls it: the input, the job
  std::string Anchor;  ///< the id of its <section>
  std::vector<HtmlIndexEntry> Index;
  std::string Body;
};

/// The index entry of finding \p F, number \p Number of a section, whose
/// card has the id \p Anchor.
HtmlIndexEntry htmlIndexEntry(const rules::Finding &F, size_t Number,
                              std::string Anchor, llvm::StringRef Of);

/// Input number \p SectionNumber's part of the page (1-based; it makes the
/// ids of its cards unique on the page). Written while its trace is alive,
/// as the cards draw its events.
HtmlSection lintHtmlSection(const LintedTrace &L,
                            const analysis::TraceIndex &Ctx,
                            const HtmlOptions &Opts, size_t SectionNumber = 1);

/// The whole page: the style sheet, the findings index, the sections in
/// input order and the inputs that could not be read.
void writeLintHtmlDocument(llvm::raw_ostream &OS,
                           llvm::ArrayRef<HtmlSection> Sections,
                           llvm::ArrayRef<InputError> Errors,
                           const HtmlOptions &Opts);

} // namespace tracelint::report

#endif
