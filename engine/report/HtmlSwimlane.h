//===- report/HtmlSwimlane.h - The ranks at one collective, as SVG -*- C++ -*-//
//
// A job finding's picture in the HTML report: one lane per rank at the
// collective the finding names, in the aligned clock (JobAnalysis). Each
// rank's collective is split into its wait for the last rank (from its own
// start to the last rank's start, within its own end) and the rest; the
// last rank is outlined and a line marks where it arrives. Lanes are
// bounded, so a card's size does not grow with the job: the last rank
// first, then the ranks that waited longest.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_REPORT_HTMLSWIMLANE_H
#define TRACELINT_REPORT_HTMLSWIMLANE_H

#include "analysis/JobAnalysis.h"
#include "report/HtmlBuilder.h"

#include <cstddef>

namespace tracelint::report {

/// The lanes of collective \p M of \p J as an inline <svg>, then a note of
/// what is drawn; at most \p MaxLanes lanes.
void writeCollectiveSwimlane(HtmlBuilder &H, const analysis::JobAnalysis &J,
                             const analysis::JobCollective &M, size_t MaxLanes);

} // namespace tracelint::report

#endif
