//===- report/JobHtml.h - The job section of `lint --job --format html` -*- C++
//-*-//
//
// The HTML counterpart of JobReport.h: the job's facts (ranks, target, pace,
// clocks, matching, problems), one card per job finding with the ranks'
// lanes at the collective it names (HtmlSwimlane.h), the ranks table and
// the ranks' own findings folded. Same facts as the text report, read from
// the same JobAnalysis and results; tables are bounded so that a job of
// 10,000 ranks gives a page that opens.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_REPORT_JOBHTML_H
#define TRACELINT_REPORT_JOBHTML_H

#include "analysis/JobAnalysis.h"
#include "report/HtmlReport.h"
#include "rules/Engine.h"

#include <string>

namespace tracelint::report {

/// The job's section of the page (writeLintHtmlDocument writes the rest);
/// the index lists the job's findings.
HtmlSection jobHtmlSection(const analysis::JobAnalysis &Job,
                           const rules::JobLintResult &R,
                           const HtmlOptions &Opts);

} // namespace tracelint::report

#endif
