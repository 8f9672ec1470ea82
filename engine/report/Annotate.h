//===- report/Annotate.h - The findings as events of the trace -*- C++ -*-===//
//
// `lint --annotate OUT.json` writes the trace back with one more process,
// "tracelint": one thread per finding, holding one slice over the finding's
// evidence window (named "CODE name", the hypothesis, impact and experiment
// in its args) and flow arrows from the slice to each example event, so that
// Perfetto and chrome://tracing show where in the timeline each hypothesis
// is. The events use the Chrome trace format's conventions: 'M' metadata
// (process_name, process_sort_index, thread_name, thread_sort_index), 'X'
// slices, and 's'/'f' flows whose end binds to the enclosing slice
// ("bp": "e"). Their "cat" is AnnotationCategory, which the importer skips:
// an annotated trace lints to the same findings as the original.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_REPORT_ANNOTATE_H
#define TRACELINT_REPORT_ANNOTATE_H

#include "analysis/TraceIndex.h"
#include "report/LintReport.h"

#include "llvm/Support/JSON.h"

#include <cstdint>

namespace tracelint::report {

/// The "cat" of every event lint --annotate adds.
constexpr llvm::StringLiteral AnnotationCategory = "tracelint";

/// A numeric pid that no lane of \p T uses, for the tracelint process.
int64_t unusedPid(const model::Trace &T);

/// The tracelint process's events, each written as one element of the
/// array \p J is in, with timestamps in the file's own clock.
void writeAnnotationEvents(llvm::json::OStream &J, const LintedTrace &L,
                           const analysis::TraceIndex &Ctx, int64_t Pid);

/// The model's events as Chrome trace events (for an input that is not
/// Chrome JSON, such as an nsys export): one 'X' per event with a duration,
/// 'i' for instants, 'M' names for processes and threads, and the launch
/// links as 'ac2g' flows, so that the importer reads them back.
void writeModelEvents(llvm::json::OStream &J, const analysis::TraceIndex &Ctx);

} // namespace tracelint::report

#endif
