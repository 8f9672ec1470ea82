//===- cli/main.cpp - The tracelint command ------------------------------===//
//
// The only place that exits the process: subcommands return exit codes, and
// library errors arrive here as llvm::Error.
//
//===----------------------------------------------------------------------===//
#include "Commands.h"
#include "Output.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

using namespace tracelint::cli;

static void printVersion(llvm::raw_ostream &OS) {
  OS << "tracelint " TRACELINT_VERSION "\n";
}

int main(int Argc, char **Argv) {
  llvm::InitLLVM X(Argc, Argv);
  llvm::cl::SetVersionPrinter(printVersion);
  llvm::cl::HideUnrelatedOptions({});
  std::string Errors;
  llvm::raw_string_ostream ErrorStream(Errors);
  if (!llvm::cl::ParseCommandLineOptions(
          Argc, Argv,
          "tracelint: which dependency prevents earlier completion?\n\n"
          "  tracelint stats TRACE   summarise a PyTorch profiler (Kineto) "
          "trace\n",
          &ErrorStream)) {
    ErrorStream.flush();
    llvm::errs() << Errors;
    return ExitUsage;
  }
  if (StatsSubcommand)
    return runStats();
  llvm::errs() << "tracelint: error: no command given; try `tracelint stats "
                  "TRACE` or `tracelint --help`\n";
  return ExitUsage;
}
