//===- cli/Commands.h - Subcommands -----------------------------*- C++ -*-===//
#ifndef TRACELINT_CLI_COMMANDS_H
#define TRACELINT_CLI_COMMANDS_H

#include "llvm/Support/CommandLine.h"

namespace tracelint::cli {

extern llvm::cl::SubCommand StatsSubcommand;

/// Runs `tracelint stats` with the parsed options; returns the exit code.
int runStats();

} // namespace tracelint::cli

#endif
