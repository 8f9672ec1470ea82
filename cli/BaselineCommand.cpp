//===- cli/BaselineCommand.cpp - `tracelint baseline TRACE... -o F` -------===//
//
// Records the fingerprints of every finding in the given traces, with their
// counts and largest impacts, as the baseline that `lint --baseline F`
// compares against. Uses lint's input options (rules, configuration, steps).
// An input that cannot be read fails the command and writes nothing: a
// baseline missing a trace's findings would let them all through as new.
//
//===----------------------------------------------------------------------===//
#include "Commands.h"
#include "LintSupport.h"
#include "Output.h"
#include "TraceInput.h"

#include "rules/Baseline.h"

#include "llvm/Support/CommandLine.h"

using namespace tracelint;
using namespace tracelint::cli;
namespace cl = llvm::cl;

cl::SubCommand &tracelint::cli::baselineSubcommand() {
  static cl::SubCommand Sub(
      "baseline", "Record the fingerprints of the findings in TRACE... as a "
                  "baseline for `lint --baseline FILE`");
  return Sub;
}

namespace {

cl::OptionCategory BaselineCategory("baseline options");

cl::list<std::string> Inputs(cl::Positional,
                             cl::desc("TRACE... ('-': standard input)"),
                             cl::OneOrMore, cl::sub(baselineSubcommand()),
                             cl::cat(BaselineCategory));
cl::opt<std::string>
    OutputPath("o", cl::desc("Write the baseline to FILE (default: stdout)"),
               cl::value_desc("FILE"), cl::init("-"),
               cl::sub(baselineSubcommand()), cl::cat(BaselineCategory));

} // namespace

int tracelint::cli::runBaseline() {
  if (llvm::Error E = checkStdinOnce(Inputs)) {
    reportError(llvm::toString(std::move(E)));
    return ExitUsage;
  }
  auto Setup = setupRulesFromOptions();
  if (!Setup) {
    reportError(llvm::toString(Setup.takeError()));
    return ExitUsage;
  }
  rules::Baseline B;
  int Exit = ExitOk;
  for (const std::string &Input : Inputs) {
    LintedInput In;
    InputFailure Failure;
    if (!lintInput(Input, *Setup, In, Failure)) {
      Exit = std::max(Exit, Failure.Exit);
      continue;
    }
    B.add(In.Result.Findings);
  }
  if (Exit != ExitOk) {
    reportError("no baseline written: every input must be readable");
    return Exit;
  }
  if (llvm::Error E = writeJsonOutput(
          OutputPath, [&](llvm::raw_ostream &OS) { B.write(OS); })) {
    reportError(llvm::toString(std::move(E)));
    return ExitUsage;
  }
  return ExitOk;
}
