//===- cli/AnnotateOutput.h - `lint --annotate OUT.json[.gz]` ---*- C++ -*-===//
#ifndef TRACELINT_CLI_ANNOTATEOUTPUT_H
#define TRACELINT_CLI_ANNOTATEOUTPUT_H

#include "analysis/TraceIndex.h"
#include "report/LintReport.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace tracelint::cli {

/// Writes \p L's trace with the findings added as the tracelint process
/// (report/Annotate.h) to \p OutPath, gzipped when it ends in ".gz". A
/// Chrome JSON input that is a regular file is copied through byte for byte
/// with the annotations appended to its event array, so that nothing the
/// model does not keep is lost; any other input (nsys) is written as the
/// imported model in Chrome JSON.
llvm::Error writeAnnotatedTrace(llvm::StringRef OutPath,
                                const report::LintedTrace &L,
                                const analysis::TraceIndex &Ctx);

} // namespace tracelint::cli

#endif
