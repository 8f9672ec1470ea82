//===- cli/Commands.h - Subcommands -----------------------------*- C++ -*-===//
#ifndef TRACELINT_CLI_COMMANDS_H
#define TRACELINT_CLI_COMMANDS_H

#include "llvm/Support/CommandLine.h"

#include <string>
#include <vector>

namespace tracelint::cli {

extern llvm::cl::SubCommand LintSubcommand;
extern llvm::cl::SubCommand PathSubcommand;
extern llvm::cl::SubCommand CaptureSubcommand;
extern llvm::cl::SubCommand StatsSubcommand;
extern llvm::cl::SubCommand RulesSubcommand;
extern llvm::cl::SubCommand ExplainSubcommand;
extern llvm::cl::SubCommand NamesSubcommand;
/// Built on first use, so that options in any file can name them.
llvm::cl::SubCommand &baselineSubcommand();
llvm::cl::SubCommand &diffSubcommand();
llvm::cl::SubCommand &summarizeSubcommand();

/// Each runs one subcommand with the parsed options and returns the exit
/// code.
int runLint();
int runPath();
/// Lints \p Inputs with the lint options (shared by lint and capture).
int runLintOn(const std::vector<std::string> &Inputs);
/// Runs the capture command; \p Argv0 locates the injection library.
int runCapture(const char *Argv0);
int runStats();
int runRulesList();
int runExplain();
int runNames();
int runBaseline();
int runDiff();
int runSummarize();

} // namespace tracelint::cli

#endif
