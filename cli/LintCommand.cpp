//===- cli/LintCommand.cpp - `tracelint lint TRACE...` --------------------===//
//
// Each trace is imported, analysed and linted on its own; one unreadable
// trace is reported and the others still run. The exit code is the worst
// outcome: 3 an input could not be read, 2 usage or configuration error,
// 1 findings at or above --fail-on, 0 otherwise.
//
//===----------------------------------------------------------------------===//
#include "Commands.h"
#include "Output.h"
#include "RuleSetup.h"
#include "StepOption.h"

#include "analysis/Context.h"
#include "analysis/Stats.h"
#include "import/Import.h"
#include "report/LintReport.h"
#include "rules/Engine.h"

#include "llvm/Support/CommandLine.h"

using namespace tracelint;
using namespace tracelint::cli;
namespace cl = llvm::cl;

cl::SubCommand tracelint::cli::LintSubcommand(
    "lint", "Ranked hypotheses: what probably delays completion, the "
            "evidence, and the experiment that would decide (the default "
            "command)");

namespace {

enum class Format { Text, Json };
enum class FailOn { Info, Warning, Error, None };

cl::OptionCategory LintCategory("lint options");

cl::list<std::string> Inputs(cl::Positional, cl::desc("TRACE..."),
                             cl::OneOrMore, cl::sub(LintSubcommand),
                             cl::cat(LintCategory));
cl::opt<Format> OutputFormat(
    "format", cl::desc("Output format"),
    cl::values(clEnumValN(Format::Text, "text", "readable text (default)"),
               clEnumValN(Format::Json, "json", "JSON for scripts")),
    cl::init(Format::Text), cl::sub(LintSubcommand), cl::sub(CaptureSubcommand),
    cl::cat(LintCategory));
cl::opt<std::string> OutputPath("o", cl::desc("Write the report to FILE"),
                                cl::value_desc("FILE"), cl::init("-"),
                                cl::sub(LintSubcommand),
                                cl::sub(CaptureSubcommand),
                                cl::cat(LintCategory));
cl::list<std::string>
    Select("select",
           cl::desc("Run only these rules: codes, family letters or names, "
                    "comma-separated (replaces the configuration's select)"),
           cl::value_desc("CODES"), cl::CommaSeparated, cl::sub(LintSubcommand),
           cl::sub(CaptureSubcommand), cl::cat(LintCategory));
cl::list<std::string>
    Ignore("ignore",
           cl::desc("Do not run these rules: codes, family letters or names, "
                    "comma-separated"),
           cl::value_desc("CODES"), cl::CommaSeparated, cl::sub(LintSubcommand),
           cl::sub(CaptureSubcommand), cl::cat(LintCategory));
cl::opt<FailOn>
    FailLevel("fail-on",
              cl::desc("Exit with 1 when a finding has this severity or "
                       "higher"),
              cl::values(clEnumValN(FailOn::Info, "info", "any finding"),
                         clEnumValN(FailOn::Warning, "warning",
                                    "warnings and errors (default)"),
                         clEnumValN(FailOn::Error, "error", "errors only"),
                         clEnumValN(FailOn::None, "none", "never")),
              cl::init(FailOn::Warning), cl::sub(LintSubcommand),
              cl::sub(CaptureSubcommand), cl::cat(LintCategory));
cl::opt<std::string> ConfigPath(
    "config",
    cl::desc("Configuration file (default: tracelint.toml found upward from "
             "the working directory)"),
    cl::value_desc("FILE"), cl::sub(LintSubcommand), cl::sub(CaptureSubcommand),
    cl::cat(LintCategory));
cl::opt<bool> Isolated("isolated", cl::desc("Ignore every configuration file"),
                       cl::sub(LintSubcommand), cl::sub(CaptureSubcommand),
                       cl::cat(LintCategory));
cl::list<std::string> RuleDirs(
    "rules",
    cl::desc("Add the rule files (*.toml) below DIR; a rule with a built-in "
             "code replaces it (repeatable)"),
    cl::value_desc("DIR"), cl::sub(LintSubcommand), cl::sub(CaptureSubcommand),
    cl::cat(LintCategory));
cl::opt<ColorMode> Color(
    "color", cl::desc("Colour in text output"),
    cl::values(clEnumValN(ColorMode::Auto, "auto", "on a terminal (default)"),
               clEnumValN(ColorMode::Always, "always", "always"),
               clEnumValN(ColorMode::Never, "never", "never")),
    cl::init(ColorMode::Auto), cl::sub(LintSubcommand),
    cl::sub(CaptureSubcommand), cl::cat(LintCategory));
cl::opt<std::string> StepName(
    "step",
    cl::desc("Steps are the annotation ranges named exactly NAME (an NVTX "
             "range, a record_function / user annotation) instead of "
             "ProfilerStep#N"),
    cl::value_desc("NAME"), cl::sub(LintSubcommand), cl::sub(CaptureSubcommand),
    cl::cat(LintCategory));
cl::opt<uint64_t>
    MaxEvents("max-events",
              cl::desc("Refuse traces with more events than N (0: no limit)"),
              cl::init(0), cl::sub(LintSubcommand), cl::cat(LintCategory));

bool failsAt(rules::Severity S) {
  switch (FailLevel) {
  case FailOn::Info:
    return true;
  case FailOn::Warning:
    return S >= rules::Severity::Warning;
  case FailOn::Error:
    return S >= rules::Severity::Error;
  case FailOn::None:
    return false;
  }
  return false;
}

} // namespace

int tracelint::cli::runLint() {
  return runLintOn(std::vector<std::string>(Inputs.begin(), Inputs.end()));
}

int tracelint::cli::runLintOn(const std::vector<std::string> &Inputs) {
  std::vector<std::string> Sel(Select.begin(), Select.end());
  std::vector<std::string> Ign(Ignore.begin(), Ignore.end());
  std::vector<std::string> Dirs(RuleDirs.begin(), RuleDirs.end());
  auto Setup = loadRuleSetup(ConfigPath, Isolated, Dirs);
  if (!Setup) {
    reportError(llvm::toString(Setup.takeError()));
    return ExitUsage;
  }
  if (llvm::Error E =
          rules::Config::checkSelectors(Sel, Setup->Rules, "--select")) {
    reportError(llvm::toString(std::move(E)));
    return ExitUsage;
  }
  if (llvm::Error E =
          rules::Config::checkSelectors(Ign, Setup->Rules, "--ignore")) {
    reportError(llvm::toString(std::move(E)));
    return ExitUsage;
  }
  Setup->Cfg.applyCommandLine(Sel, Ign);

  int Exit = ExitOk;
  bool UseColor = useColor(Color, OutputPath);
  std::vector<std::string> Reports; // text reports or JSON objects
  std::vector<report::InputError> Errors;
  for (const std::string &Input : Inputs) {
    import::ImportOptions Opts;
    Opts.MaxEvents = MaxEvents;
    auto Trace = import::importTraceFile(Input, Opts);
    if (!Trace) {
      std::string Message = llvm::toString(Trace.takeError());
      reportError(Message);
      Errors.push_back({Input, Message});
      Exit = std::max<int>(Exit, ExitBadInput);
      continue;
    }
    if (llvm::Error E = applyStepOption(*Trace, Input, StepName)) {
      std::string Message = llvm::toString(std::move(E));
      reportError(Message);
      Errors.push_back({Input, Message});
      Exit = std::max<int>(Exit, ExitUsage);
      continue;
    }
    analysis::Context Ctx(*Trace);
    analysis::TraceStats Stats = analysis::computeStats(*Trace);
    rules::LintResult Result =
        rules::runRules(Ctx, Setup->Rules, Setup->Cfg, Input);
    for (const rules::Finding &F : Result.Findings)
      if (failsAt(F.Sev))
        Exit = std::max<int>(Exit, ExitFindings);
    report::LintedTrace L{Input, Ctx, Stats, Result};
    if (OutputFormat == Format::Json) {
      Reports.push_back(report::lintJsonObject(L, 4));
    } else {
      std::string Text;
      llvm::raw_string_ostream OS(Text);
      report::writeLintText(OS, L, UseColor);
      OS.flush();
      Reports.push_back(std::move(Text));
    }
  }

  auto Write = OutputFormat == Format::Json ? writeJsonOutput : writeOutput;
  llvm::Error E = Write(OutputPath, [&](llvm::raw_ostream &OS) {
    if (OutputFormat == Format::Json) {
      report::writeLintJsonDocument(OS, Reports, Errors);
      return;
    }
    for (size_t I = 0; I < Reports.size(); ++I)
      OS << (I ? "\n" : "") << Reports[I];
  });
  if (E) {
    reportError(llvm::toString(std::move(E)));
    Exit = std::max<int>(Exit, ExitUsage);
  }
  return Exit;
}
