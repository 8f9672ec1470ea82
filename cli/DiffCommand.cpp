//===- cli/DiffCommand.cpp - `tracelint diff BEFORE AFTER` ----------------===//
//
// Two traces of the same workload, before and after one change: the target
// metric before and after, the kernel inventory and counts, warnings when
// the comparison is unfair, and for every finding of BEFORE whether its
// predicted trace feature and the metric moved as predicted. Uses lint's
// input options, so both traces are linted with the same rules. Exit codes:
// 0 compared, 2 usage or configuration error, 3 an input could not be read.
//
//===----------------------------------------------------------------------===//
#include "Commands.h"
#include "LintSupport.h"
#include "Output.h"
#include "TraceInput.h"

#include "analysis/TraceDiff.h"
#include "report/DiffReport.h"
#include "rules/Predictions.h"

#include "llvm/Support/CommandLine.h"

using namespace tracelint;
using namespace tracelint::cli;
namespace cl = llvm::cl;

cl::SubCommand &tracelint::cli::diffSubcommand() {
  static cl::SubCommand Sub(
      "diff", "Compare two traces of one workload, before and after a "
              "change: did each finding's predicted trace feature and the "
              "metric move?");
  return Sub;
}

namespace {

enum class Format { Text, Json, Markdown };

cl::OptionCategory DiffCategory("diff options");

cl::list<std::string> Inputs(cl::Positional,
                             cl::desc("BEFORE AFTER (one may be '-': "
                                      "standard input)"),
                             cl::OneOrMore, cl::sub(diffSubcommand()),
                             cl::cat(DiffCategory));
cl::opt<Format> OutputFormat(
    "format", cl::desc("Output format"),
    cl::values(clEnumValN(Format::Text, "text", "readable text (default)"),
               clEnumValN(Format::Json, "json", "JSON for scripts"),
               clEnumValN(Format::Markdown, "markdown",
                          "Markdown for a pull request or a log")),
    cl::init(Format::Text), cl::sub(diffSubcommand()), cl::cat(DiffCategory));
cl::opt<std::string> OutputPath("o", cl::desc("Write the report to FILE"),
                                cl::value_desc("FILE"), cl::init("-"),
                                cl::sub(diffSubcommand()),
                                cl::cat(DiffCategory));
cl::opt<ColorMode> Color(
    "color", cl::desc("Colour in text output"),
    cl::values(clEnumValN(ColorMode::Auto, "auto", "on a terminal (default)"),
               clEnumValN(ColorMode::Always, "always", "always"),
               clEnumValN(ColorMode::Never, "never", "never")),
    cl::init(ColorMode::Auto), cl::sub(diffSubcommand()),
    cl::cat(DiffCategory));

} // namespace

int tracelint::cli::runDiff() {
  if (Inputs.size() != 2) {
    reportError("diff takes exactly two traces, BEFORE and AFTER, not " +
                std::to_string(Inputs.size()));
    return ExitUsage;
  }
  if (llvm::Error E = checkStdinOnce(Inputs)) {
    reportError(llvm::toString(std::move(E)));
    return ExitUsage;
  }
  auto Setup = setupRulesFromOptions();
  if (!Setup) {
    reportError(llvm::toString(Setup.takeError()));
    return ExitUsage;
  }
  LintedInput Before, After;
  InputFailure FB, FA;
  bool OkB = lintInput(Inputs[0], *Setup, Before, FB);
  bool OkA = lintInput(Inputs[1], *Setup, After, FA);
  if (!OkB || !OkA)
    return std::max(OkB ? 0 : FB.Exit, OkA ? 0 : FA.Exit);
  // The inventory needs every kernel, not the top ten.
  analysis::StatsOptions All;
  All.TopN = 0;
  analysis::TraceStats SB = analysis::computeStats(*Before.Ctx, All);
  analysis::TraceStats SA = analysis::computeStats(*After.Ctx, All);
  analysis::TraceDiff D = analysis::diffTraces(*Before.Ctx, SB, *After.Ctx, SA);
  std::vector<rules::PredictionCheck> Checks = rules::checkPredictions(
      Setup->Rules, *Before.Ctx, Before.Result, *After.Ctx, After.Result, D);
  rules::FindingChanges Changes =
      rules::compareFindings(Before.Result, After.Result);
  report::DiffResult R{inputName(Inputs[0]).str(), inputName(Inputs[1]).str(),
                       D, Checks, Changes};
  bool UseColor = useColor(Color, OutputPath);
  auto Write = OutputFormat == Format::Json ? writeJsonOutput : writeOutput;
  if (llvm::Error E = Write(OutputPath, [&](llvm::raw_ostream &OS) {
        switch (OutputFormat) {
        case Format::Text:
          report::writeDiffText(OS, R, UseColor);
          return;
        case Format::Json:
          report::writeDiffJson(OS, R);
          return;
        case Format::Markdown:
          report::writeDiffMarkdown(OS, R);
          return;
        }
      })) {
    reportError(llvm::toString(std::move(E)));
    return ExitUsage;
  }
  return ExitOk;
}
