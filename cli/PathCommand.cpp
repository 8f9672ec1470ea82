//===- cli/PathCommand.cpp - `tracelint path TRACE` -----------------------===//
#include "Commands.h"
#include "Output.h"
#include "RuleSetup.h"
#include "StepOption.h"
#include "TraceInput.h"

#include "analysis/PathAnalysis.h"
#include "analysis/TraceIndex.h"
#include "import/Import.h"
#include "report/PathReport.h"

#include "llvm/Support/CommandLine.h"

using namespace tracelint;
using namespace tracelint::cli;
namespace cl = llvm::cl;

cl::SubCommand &tracelint::cli::pathSubcommand() {
  static cl::SubCommand Sub(
      "path", "Completion and its critical path: which dependency prevents "
              "earlier completion, and what-if bounds");
  return Sub;
}

namespace {

enum class Format { Text, Json };

cl::OptionCategory PathCategory("path options");

cl::opt<std::string> Input(cl::Positional,
                           cl::desc("TRACE ('-': standard input)"),
                           cl::Required, cl::sub(pathSubcommand()),
                           cl::cat(PathCategory));
cl::opt<Format> OutputFormat(
    "format", cl::desc("Output format"),
    cl::values(clEnumValN(Format::Text, "text", "readable text (default)"),
               clEnumValN(Format::Json, "json", "JSON for scripts")),
    cl::init(Format::Text), cl::sub(pathSubcommand()), cl::cat(PathCategory));
cl::opt<std::string> OutputPath("o", cl::desc("Write the report to FILE"),
                                cl::value_desc("FILE"), cl::init("-"),
                                cl::sub(pathSubcommand()),
                                cl::cat(PathCategory));
cl::opt<std::string> StepName("step", cl::desc(StepOptionHelp),
                              cl::value_desc("NAME"), cl::sub(pathSubcommand()),
                              cl::cat(PathCategory));
cl::opt<int64_t> StepNumber(
    "step-number",
    cl::desc("Analyse the step numbered N (default: the median steady step)"),
    cl::value_desc("N"), cl::init(-1), cl::sub(pathSubcommand()),
    cl::cat(PathCategory));
cl::list<std::string> WhatIf(
    "what-if",
    cl::desc("Also bound the gain of removing QUERY: 'category:NAME' "
             "(compute, launch, wait, ...), 'name:OP_OR_KERNEL' or the op or "
             "kernel name alone ('aten::mm'), several joined by ','"),
    cl::value_desc("QUERY"), cl::sub(pathSubcommand()), cl::cat(PathCategory));
cl::opt<unsigned> TopN("top", cl::desc("Chains listed (default 10)"),
                       cl::init(10), cl::sub(pathSubcommand()),
                       cl::cat(PathCategory));
cl::opt<std::string> ConfigPath(
    "config",
    cl::desc("Configuration file whose [names] table says what names are "
             "(default: tracelint.toml found upward, as lint finds it)"),
    cl::value_desc("FILE"), cl::sub(pathSubcommand()), cl::cat(PathCategory));
cl::opt<bool> Isolated("isolated", cl::desc("Ignore every configuration file"),
                       cl::sub(pathSubcommand()), cl::cat(PathCategory));
cl::opt<uint64_t>
    MaxEvents("max-events",
              cl::desc("Refuse traces with more events than N (0: no limit)"),
              cl::init(0), cl::sub(pathSubcommand()), cl::cat(PathCategory));

} // namespace

int tracelint::cli::runPath() {
  analysis::PathOptions POpts;
  POpts.TopChains = TopN;
  for (const std::string &Q : WhatIf) {
    analysis::WhatIfQuery Query;
    std::string Error;
    if (!analysis::WhatIfQuery::parse(
            Q, Query, Error, analysis::WhatIfQuery::BareTerms::AsNames)) {
      reportError("--what-if: " + Error);
      return ExitUsage;
    }
    POpts.ExtraQueries.push_back(std::move(Query));
  }
  if (StepNumber.getNumOccurrences())
    POpts.StepNumber = StepNumber;

  auto Names = loadNameClasses(ConfigPath, Isolated);
  if (!Names) {
    reportError(llvm::toString(Names.takeError()));
    return ExitUsage;
  }
  import::ImportOptions Opts;
  Opts.MaxEvents = MaxEvents;
  Opts.Names = *Names;
  auto Trace = importInput(Input, Opts);
  if (!Trace) {
    reportError(llvm::toString(Trace.takeError()));
    return ExitBadInput;
  }
  const std::string Name = inputName(Input).str();
  if (llvm::Error E = applyStepOption(*Trace, Name, StepName)) {
    reportError(llvm::toString(std::move(E)));
    return ExitUsage;
  }
  analysis::TraceIndex C(*Trace, *Names);
  analysis::PathModel M(C, /*Jobs=*/0); // every core for the step runs
  analysis::PathAnalysis A = M.analyze(POpts);
  if (POpts.StepNumber && A.Chosen >= A.Targets.size()) {
    std::string Known;
    for (const analysis::TargetInterval &X : A.Targets)
      if (X.FromStep)
        Known += (Known.empty() ? "" : ", ") + std::to_string(X.StepNumber);
    reportError(
        "--step-number: " + Name + " has no step numbered " +
        std::to_string(*POpts.StepNumber) +
        (Known.empty() ? "; it has no steps" : "; its steps are " + Known));
    return ExitUsage;
  }
  auto Write = OutputFormat == Format::Json ? writeJsonOutput : writeOutput;
  llvm::Error E = Write(OutputPath, [&](llvm::raw_ostream &OS) {
    if (OutputFormat == Format::Json)
      report::writePathJson(OS, C, A, Name);
    else
      report::writePathText(OS, C, A, Name);
  });
  if (E) {
    reportError(llvm::toString(std::move(E)));
    return ExitUsage;
  }
  return ExitOk;
}
