//===- report/PathReport.h - `tracelint path` output ------------*- C++ -*-===//
#ifndef TRACELINT_REPORT_PATHREPORT_H
#define TRACELINT_REPORT_PATHREPORT_H

#include "analysis/PathAnalysis.h"

#include "llvm/Support/raw_ostream.h"

namespace tracelint::report {

/// The path of the analysed step as text: target, share of each category,
/// top op -> launch -> kernel chains, device busy/idle, what-if bounds.
void writePathText(llvm::raw_ostream &OS, const analysis::TraceIndex &C,
                   const analysis::PathAnalysis &A, llvm::StringRef Input);

/// The same as JSON, keys in a fixed order, times in ns.
void writePathJson(llvm::raw_ostream &OS, const analysis::TraceIndex &C,
                   const analysis::PathAnalysis &A, llvm::StringRef Input);

} // namespace tracelint::report

#endif
