//===- analysis/SummaryFormat.h - Rank summaries as JSON Lines --*- C++ -*-===//
//
// The on-disk form of a RankSummary (docs/summary-format.md): JSON Lines,
// one object per line, each with a "type". A summary begins with a header
// line (format, version), then one "rank" line, its "step", "collective"
// and "finding" lines, and an "end" line that counts them, so that a
// truncated file is told apart from a short one. Summaries concatenated with
// `cat` are a valid file of several ranks.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_ANALYSIS_SUMMARYFORMAT_H
#define TRACELINT_ANALYSIS_SUMMARYFORMAT_H

#include "analysis/RankSummary.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace tracelint::analysis {

constexpr llvm::StringLiteral SummaryFormatName = "tracelint-rank-summary";
constexpr int64_t SummaryFormatVersion = 1;

/// Writes \p S as JSON Lines, header first.
void writeRankSummary(llvm::raw_ostream &OS, const RankSummary &S);

/// True when \p Text starts like a rank summary (its first line is a
/// summary header), so that `lint --job` can take summaries and traces
/// side by side.
bool looksLikeRankSummary(llvm::StringRef Text);

/// What reading a summary file gave: every complete rank in it, and one
/// message per damaged one ("FILE:LINE: ..."). A damaged rank does not stop
/// the ones after it.
struct SummaryFile {
  std::vector<RankSummary> Ranks;
  std::vector<std::string> Errors;
};
SummaryFile readRankSummaries(llvm::StringRef Text, llvm::StringRef Name);

} // namespace tracelint::analysis

#endif
