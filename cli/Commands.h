//===- cli/Commands.h - Subcommands -----------------------------*- C++ -*-===//
#ifndef TRACELINT_CLI_COMMANDS_H
#define TRACELINT_CLI_COMMANDS_H

#include "llvm/Support/CommandLine.h"

namespace tracelint::cli {

extern llvm::cl::SubCommand LintSubcommand;
extern llvm::cl::SubCommand PathSubcommand;
extern llvm::cl::SubCommand StatsSubcommand;
extern llvm::cl::SubCommand RulesSubcommand;
extern llvm::cl::SubCommand ExplainSubcommand;

/// Each runs one subcommand with the parsed options and returns the exit
/// code.
int runLint();
int runPath();
int runStats();
int runRulesList();
int runExplain();

} // namespace tracelint::cli

#endif
