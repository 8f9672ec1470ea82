//===- cli/Commands.h - Subcommands -----------------------------*- C++ -*-===//
#ifndef TRACELINT_CLI_COMMANDS_H
#define TRACELINT_CLI_COMMANDS_H

#include "llvm/Support/CommandLine.h"

#include <string>
#include <vector>

namespace tracelint::cli {

/// Each subcommand is built on first use, so that an option in any file can
/// name it: a global SubCommand could still be unconstructed while another
/// file's options register with it (the static initialisation order is
/// unspecified; ASan's leak check caught it for `--rank-pattern`).
llvm::cl::SubCommand &lintSubcommand();
llvm::cl::SubCommand &pathSubcommand();
llvm::cl::SubCommand &captureSubcommand();
llvm::cl::SubCommand &statsSubcommand();
llvm::cl::SubCommand &rulesSubcommand();
llvm::cl::SubCommand &explainSubcommand();
llvm::cl::SubCommand &namesSubcommand();
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
