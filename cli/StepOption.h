//===- cli/StepOption.h - `--step NAME` for stats and lint ------*- C++ -*-===//
#ifndef TRACELINT_CLI_STEPOPTION_H
#define TRACELINT_CLI_STEPOPTION_H

#include "model/Trace.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace tracelint::cli {

/// The help text of `--step`, one for every command that takes it.
constexpr llvm::StringLiteral StepOptionHelp =
    "Steps are the annotation ranges named exactly NAME (an NVTX or roctx "
    "range, a record_function / user annotation) instead of ProfilerStep#N. "
    "Without it, a program other than PyTorch with no step markers takes "
    "ranges that repeat like iterations as its steps; 'none' keeps the "
    "whole window";

/// With a non-empty \p StepName other than "none", makes the annotation
/// ranges of that name the trace's steps. Fails, naming the most frequent
/// range names, when the trace has none of that name (a usage error: the
/// trace itself is fine). Without one, a trace without step markers of a
/// program other than PyTorch gets its repeated iteration ranges as steps
/// (model::iterationRanges, docs/path.md).
llvm::Error applyStepOption(model::Trace &T, llvm::StringRef Input,
                            llvm::StringRef StepName);

} // namespace tracelint::cli

#endif
