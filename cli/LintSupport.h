//===- cli/LintSupport.h - Shared by lint, baseline and diff ----*- C++ -*-===//
//
// `baseline` and `diff` read their traces and choose their rules exactly as
// `lint` does: the same input options (--config, --isolated, --rules,
// --select, --ignore, --step, --max-events) are registered for all three
// subcommands in LintCommand.cpp, and these helpers apply them.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_CLI_LINTSUPPORT_H
#define TRACELINT_CLI_LINTSUPPORT_H

#include "RuleSetup.h"

#include "analysis/Stats.h"
#include "analysis/TraceIndex.h"
#include "model/Trace.h"
#include "rules/Engine.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>

namespace tracelint::cli {

/// The rule catalogue and configuration chosen by the shared options; every
/// error is a usage error (exit code 2).
llvm::Expected<RuleSetup> setupRulesFromOptions();

/// --memory-budget in bytes (0: none).
llvm::Expected<uint64_t> memoryBudgetOption();

/// --input-timeout in milliseconds (0: wait forever).
unsigned inputTimeoutMsOption();

/// One trace, imported, analysed and linted.
struct LintedInput {
  std::unique_ptr<model::Trace> Trace;
  std::unique_ptr<analysis::TraceIndex> Ctx;
  analysis::TraceStats Stats;
  rules::LintResult Result;
};

/// Why an input could not be linted, and the exit code that calls for.
struct InputFailure {
  std::string Message;
  int Exit = 3;
};

/// Imports and lints \p Input with the shared options. On failure returns
/// false and fills \p Failure (reported on standard error unless \p Quiet:
/// `lint --job` reports from one thread). \p BudgetBytes, when not 0,
/// replaces --memory-budget (a thread's share of it).
bool lintInput(llvm::StringRef Input, const RuleSetup &Setup, LintedInput &Out,
               InputFailure &Failure, uint64_t BudgetBytes = 0,
               bool Quiet = false);

} // namespace tracelint::cli

#endif
