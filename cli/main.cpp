//===- cli/main.cpp - The tracelint command ------------------------------===//
//
// The only place that exits the process: subcommands return exit codes, and
// library errors arrive here as llvm::Error.
//
// `lint` is the default command: `tracelint trace.json` means
// `tracelint lint trace.json`. llvm::cl has no default subcommand, so "lint"
// is inserted into argv when the first argument is neither a subcommand nor
// a top-level option (--help, --version), and looks like a trace or a lint
// option (an existing path, a name with '.' or '/', '-' for standard input,
// or an option).
//
//===----------------------------------------------------------------------===//
#include "Commands.h"
#include "Output.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

#include <vector>

using namespace tracelint::cli;

static void printVersion(llvm::raw_ostream &OS) {
  OS << "tracelint " TRACELINT_VERSION "\n";
  // Whether `capture` works in this build, and against which CUPTI: the
  // first thing to know about a binary carried to a GPU machine.
#ifdef TRACELINT_HAVE_CAPTURE
  OS << "capture: built with CUPTI API " << TRACELINT_CUPTI_API_VERSION << "\n";
#else
  OS << "capture: not built (no CUPTI from CUDA 13 or newer at build time)\n";
#endif
}

/// Options that belong to the top level rather than to `lint`.
static bool isTopLevelOption(llvm::StringRef Arg) {
  llvm::StringRef Name = Arg.ltrim('-').split('=').first;
  static const char *const TopLevel[] = {
      "help",          "help-hidden",       "help-list", "help-list-hidden",
      "print-options", "print-all-options", "version"};
  return llvm::is_contained(TopLevel, Name);
}

/// Whether argv should get an implicit "lint" before its first argument.
static bool needsImplicitLint(llvm::StringRef First) {
  static const char *const Subcommands[] = {
      "baseline", "capture", "diff",  "explain", "lint",
      "names",    "path",    "rules", "stats",   "summarize"};
  if (llvm::is_contained(Subcommands, First))
    return false;
  // "-" is a trace too: standard input.
  if (First.startswith("-"))
    return First == "-" || !isTopLevelOption(First);
  // A bare word that is no file (`tracelint frobnicate`) stays an unknown
  // command; a path is a trace, even a missing one (reported as such).
  return llvm::sys::fs::exists(First) || First.contains('.') ||
         First.contains('/');
}

int main(int Argc, char **Argv) {
  llvm::InitLLVM X(Argc, Argv);
  llvm::cl::SetVersionPrinter(printVersion);
  llvm::cl::HideUnrelatedOptions({});
  std::vector<const char *> Args(Argv, Argv + Argc);
  if (Args.size() > 1 && needsImplicitLint(Args[1]))
    Args.insert(Args.begin() + 1, "lint");

  std::string Errors;
  llvm::raw_string_ostream ErrorStream(Errors);
  if (!llvm::cl::ParseCommandLineOptions(
          int(Args.size()), Args.data(),
          "tracelint: which dependency prevents earlier completion?\n\n"
          "  tracelint lint TRACE...    ranked hypotheses (the default: "
          "`tracelint TRACE...`)\n"
          "  tracelint path TRACE       completion, its critical path and "
          "what-if bounds\n"
          "  tracelint stats TRACE      summarise a PyTorch profiler "
          "(Kineto) trace\n"
          "  tracelint rules            list the rule catalogue\n"
          "  tracelint explain CODE     one rule's page\n"
          "  tracelint capture -- CMD   run CMD under CUPTI, then lint its "
          "trace\n"
          "  tracelint baseline TRACE... -o FILE   record findings for "
          "`lint --baseline FILE`\n"
          "  tracelint diff BEFORE AFTER   did the predicted trace features "
          "and the metric move?\n"
          "  tracelint summarize TRACE -o FILE   one rank's summary for "
          "`lint --job`\n"
          "  tracelint lint --job RANKS...   the ranks of one job together "
          "(traces or summaries)\n",
          &ErrorStream)) {
    ErrorStream.flush();
    llvm::errs() << sanitizeMessage(Errors);
    return ExitUsage;
  }
  if (lintSubcommand())
    return runLint();
  if (pathSubcommand())
    return runPath();
  if (captureSubcommand())
    return runCapture(Argv[0]);
  if (statsSubcommand())
    return runStats();
  if (rulesSubcommand())
    return runRulesList();
  if (explainSubcommand())
    return runExplain();
  if (namesSubcommand())
    return runNames();
  if (baselineSubcommand())
    return runBaseline();
  if (diffSubcommand())
    return runDiff();
  if (summarizeSubcommand())
    return runSummarize();
  llvm::errs() << "tracelint: error: no command given; try `tracelint lint "
                  "TRACE` or `tracelint --help`\n";
  return ExitUsage;
}
