//===- cli/StepOption.h - `--step NAME` for stats and lint ------*- C++ -*-===//
#ifndef TRACELINT_CLI_STEPOPTION_H
#define TRACELINT_CLI_STEPOPTION_H

#include "model/Trace.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace tracelint::cli {

/// With a non-empty \p StepName, makes the annotation ranges of that name the
/// trace's steps. Fails, naming the most frequent range names, when the trace
/// has none of that name (a usage error: the trace itself is fine).
llvm::Error applyStepOption(model::Trace &T, llvm::StringRef Input,
                            llvm::StringRef StepName);

} // namespace tracelint::cli

#endif
