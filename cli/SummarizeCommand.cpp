//===- cli/SummarizeCommand.cpp - `tracelint summarize TRACE -o FILE` -----===//
//
// Lints one rank's trace and writes its summary (docs/summary-format.md):
// run on the machine that holds the trace, it leaves kilobytes to ship to
// wherever `lint --job` joins the ranks (docs/multi-rank.md).
//
//===----------------------------------------------------------------------===//
#include "Commands.h"
#include "JobInputs.h"
#include "LintSupport.h"
#include "Output.h"
#include "TraceInput.h"

#include "analysis/SummaryFormat.h"

#include "llvm/Support/CommandLine.h"

using namespace tracelint;
using namespace tracelint::cli;
namespace cl = llvm::cl;

cl::SubCommand &tracelint::cli::summarizeSubcommand() {
  static cl::SubCommand Sub(
      "summarize", "Lint one rank's trace and write its summary (JSON Lines) "
                   "for `lint --job`");
  return Sub;
}

namespace {
cl::opt<std::string> Input(cl::Positional,
                           cl::desc("TRACE ('-': standard input)"),
                           cl::Required, cl::sub(summarizeSubcommand()));
cl::opt<std::string> SummaryOutput("o",
                                   cl::desc("Write the summary to FILE "
                                            "(default: standard output)"),
                                   cl::value_desc("FILE"), cl::init("-"),
                                   cl::sub(summarizeSubcommand()));
} // namespace

int tracelint::cli::runSummarize() {
  auto Setup = setupRulesFromOptions();
  if (!Setup) {
    reportError(llvm::toString(Setup.takeError()));
    return ExitUsage;
  }
  LintedInput In;
  InputFailure Failure;
  if (!lintInput(Input, *Setup, In, Failure))
    return Failure.Exit;
  auto S = summarizeLinted(In, inputName(Input));
  if (!S) {
    reportError(llvm::toString(S.takeError()));
    return ExitUsage;
  }
  if (llvm::Error E = writeOutput(SummaryOutput, [&](llvm::raw_ostream &OS) {
        analysis::writeRankSummary(OS, *S);
      })) {
    reportError(llvm::toString(std::move(E)));
    return ExitUsage;
  }
  return ExitOk;
}
