//===- report/HtmlCard.h - One finding as an HTML card ----------*- C++ -*-===//
//
// The card of a finding in the HTML report: heading, hypothesis, a picture
// of its evidence, where, evidence, alternatives, the experiment, examples,
// confidence notes and fingerprint. A trace's findings draw a timeline of
// their events (HtmlTimeline.h), a job's the ranks' lanes at a collective
// (HtmlSwimlane.h); the card is the same for both.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_REPORT_HTMLCARD_H
#define TRACELINT_REPORT_HTMLCARD_H

#include "report/HtmlBuilder.h"
#include "rules/Finding.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace tracelint::report {

/// A text from a trace or a rule as the report shows it: names shortened
/// unless \p LongNames, the full text in the hover title.
void writeShown(HtmlBuilder &H, llvm::StringRef Text, bool LongNames);

/// The card of finding number \p Number (1-based), with the id \p Anchor
/// (unique on the page: the index links to it). \p Of names what the
/// impact is a share of ("step", "window", "job step"); \p Picture writes
/// the evidence picture under the hypothesis.
void writeFindingCard(HtmlBuilder &H, size_t Number, llvm::StringRef Anchor,
                      const rules::Finding &F, llvm::StringRef Of,
                      bool LongNames, llvm::function_ref<void()> Picture);

/// The rules that could not judge the input, and why ("could not judge
/// (N rules)"); nothing when none.
void writeCannotJudge(HtmlBuilder &H, llvm::ArrayRef<rules::Skipped> Skipped);

/// Runs \p Write on a builder over a string and returns what it wrote: one
/// self-contained section of the page.
std::string htmlSection(llvm::function_ref<void(HtmlBuilder &)> Write);

} // namespace tracelint::report

#endif
