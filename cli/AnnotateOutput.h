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
/// Chrome JSON input (\p InputArg: a regular file, or "-" for standard
/// input) is copied through byte for byte with the annotations appended to
/// its event array, so that nothing the model does not keep is lost; any
/// other input (nsys) is written as the imported model in Chrome JSON.
llvm::Error writeAnnotatedTrace(llvm::StringRef OutPath,
                                llvm::StringRef InputArg,
                                const report::LintedTrace &L,
                                const analysis::TraceIndex &Ctx);

/// An error when --annotate \p OutPath would replace the input trace
/// \p InputArg itself (the same file, also through a link or another
/// spelling of its path): the annotated copy must go elsewhere.
llvm::Error checkAnnotateTarget(llvm::StringRef OutPath,
                                llvm::StringRef InputArg);

} // namespace tracelint::cli

#endif
