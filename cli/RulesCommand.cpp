//===- cli/RulesCommand.cpp - `tracelint rules` and `tracelint explain` ---===//
#include "Commands.h"
#include "Output.h"
#include "RuleSetup.h"

#include "report/LintReport.h"
#include "report/NameClassesReport.h"

#include "llvm/Support/CommandLine.h"

using namespace tracelint;
using namespace tracelint::cli;
namespace cl = llvm::cl;

cl::SubCommand &tracelint::cli::rulesSubcommand() {
  static cl::SubCommand Sub(
      "rules", "List the rule catalogue: code, name, family, status, default "
               "severity, summary");
  return Sub;
}
cl::SubCommand &tracelint::cli::explainSubcommand() {
  static cl::SubCommand Sub(
      "explain", "Print one rule's page: what it detects, why it matters, the "
                 "experiment, options and needs");
  return Sub;
}
cl::SubCommand &tracelint::cli::namesSubcommand() {
  static cl::SubCommand Sub(
      "names", "List the name classes (data loading, communication, "
               "synchronization, start-up...) and the patterns that decide "
               "them, with tracelint.toml's changes");
  return Sub;
}

namespace {

cl::OptionCategory RulesCategory("rules options");
cl::OptionCategory ExplainCategory("explain options");

enum class ListFormat { Text, Json };
enum class PageFormat { Text, Markdown };

// --- tracelint rules -------------------------------------------------------
cl::opt<ListFormat> RulesFormat(
    "format", cl::desc("Output format"),
    cl::values(clEnumValN(ListFormat::Text, "text", "a table (default)"),
               clEnumValN(ListFormat::Json, "json", "JSON for scripts")),
    cl::init(ListFormat::Text), cl::sub(rulesSubcommand()),
    cl::cat(RulesCategory));
cl::opt<std::string> RulesOutput("o", cl::desc("Write the list to FILE"),
                                 cl::value_desc("FILE"), cl::init("-"),
                                 cl::sub(rulesSubcommand()),
                                 cl::cat(RulesCategory));
cl::opt<std::string> RulesConfig(
    "config",
    cl::desc("Configuration file whose [[rule]] tables and rule-dirs are "
             "listed too (default: tracelint.toml found upward)"),
    cl::value_desc("FILE"), cl::sub(rulesSubcommand()), cl::cat(RulesCategory));
cl::opt<bool> RulesIsolated("isolated",
                            cl::desc("Ignore every configuration file"),
                            cl::sub(rulesSubcommand()), cl::cat(RulesCategory));
cl::list<std::string>
    RulesDirs("rules", cl::desc("Add the rule files below DIR (repeatable)"),
              cl::value_desc("DIR"), cl::sub(rulesSubcommand()),
              cl::cat(RulesCategory));
cl::opt<ColorMode> RulesColor(
    "color", cl::desc("Colour in text output"),
    cl::values(clEnumValN(ColorMode::Auto, "auto", "on a terminal (default)"),
               clEnumValN(ColorMode::Always, "always", "always"),
               clEnumValN(ColorMode::Never, "never", "never")),
    cl::init(ColorMode::Auto), cl::sub(rulesSubcommand()),
    cl::cat(RulesCategory));

// --- tracelint explain -----------------------------------------------------
cl::opt<std::string> Rule(cl::Positional,
                          cl::desc("CODE|NAME (any case: s001 is S001)"),
                          cl::Required, cl::sub(explainSubcommand()),
                          cl::cat(ExplainCategory));
cl::opt<PageFormat> ExplainFormat(
    "format", cl::desc("Output format"),
    cl::values(clEnumValN(PageFormat::Text, "text",
                          "for the terminal "
                          "(default)"),
               clEnumValN(PageFormat::Markdown, "markdown",
                          "Markdown, as in docs/rules/<CODE>.md")),
    cl::init(PageFormat::Text), cl::sub(explainSubcommand()),
    cl::cat(ExplainCategory));
cl::opt<std::string> ExplainOutput("o", cl::desc("Write the page to FILE"),
                                   cl::value_desc("FILE"), cl::init("-"),
                                   cl::sub(explainSubcommand()),
                                   cl::cat(ExplainCategory));
cl::opt<std::string> ExplainConfig(
    "config",
    cl::desc("Configuration file whose rules can be explained too (default: "
             "tracelint.toml found upward)"),
    cl::value_desc("FILE"), cl::sub(explainSubcommand()),
    cl::cat(ExplainCategory));
cl::opt<bool> ExplainIsolated("isolated",
                              cl::desc("Ignore every configuration file"),
                              cl::sub(explainSubcommand()),
                              cl::cat(ExplainCategory));
cl::list<std::string>
    ExplainDirs("rules", cl::desc("Add the rule files below DIR (repeatable)"),
                cl::value_desc("DIR"), cl::sub(explainSubcommand()),
                cl::cat(ExplainCategory));
cl::opt<ColorMode> ExplainColor(
    "color", cl::desc("Colour in text output"),
    cl::values(clEnumValN(ColorMode::Auto, "auto", "on a terminal (default)"),
               clEnumValN(ColorMode::Always, "always", "always"),
               clEnumValN(ColorMode::Never, "never", "never")),
    cl::init(ColorMode::Auto), cl::sub(explainSubcommand()),
    cl::cat(ExplainCategory));

// --- tracelint names -------------------------------------------------------
cl::OptionCategory NamesCategory("names options");
cl::opt<report::NamesFormat> NamesFormatOpt(
    "format", cl::desc("Output format"),
    cl::values(clEnumValN(report::NamesFormat::Text, "text",
                          "for the terminal (default)"),
               clEnumValN(report::NamesFormat::Markdown, "markdown",
                          "Markdown, as in docs/name-classes.md"),
               clEnumValN(report::NamesFormat::Json, "json",
                          "JSON for scripts")),
    cl::init(report::NamesFormat::Text), cl::sub(namesSubcommand()),
    cl::cat(NamesCategory));
cl::opt<std::string> NamesOutput("o", cl::desc("Write the list to FILE"),
                                 cl::value_desc("FILE"), cl::init("-"),
                                 cl::sub(namesSubcommand()),
                                 cl::cat(NamesCategory));
cl::opt<std::string> NamesConfig(
    "config",
    cl::desc("Configuration file whose [names] table is shown (default: "
             "tracelint.toml found upward)"),
    cl::value_desc("FILE"), cl::sub(namesSubcommand()), cl::cat(NamesCategory));
cl::opt<bool> NamesIsolated("isolated",
                            cl::desc("Ignore every configuration file"),
                            cl::sub(namesSubcommand()), cl::cat(NamesCategory));

} // namespace

int tracelint::cli::runNames() {
  auto Setup = loadRuleSetup(NamesConfig, NamesIsolated, {});
  if (!Setup) {
    reportError(llvm::toString(Setup.takeError()));
    return ExitUsage;
  }
  auto Write = NamesFormatOpt == report::NamesFormat::Json ? writeJsonOutput
                                                           : writeOutput;
  if (llvm::Error E = Write(NamesOutput, [&](llvm::raw_ostream &OS) {
        report::writeNameClasses(OS, Setup->Cfg.NameChanges, NamesFormatOpt);
      })) {
    reportError(llvm::toString(std::move(E)));
    return ExitUsage;
  }
  return ExitOk;
}

int tracelint::cli::runRulesList() {
  std::vector<std::string> Dirs(RulesDirs.begin(), RulesDirs.end());
  auto Setup = loadRuleSetup(RulesConfig, RulesIsolated, Dirs);
  if (!Setup) {
    reportError(llvm::toString(Setup.takeError()));
    return ExitUsage;
  }
  bool UseColor = useColor(RulesColor, RulesOutput);
  auto Write = RulesFormat == ListFormat::Json ? writeJsonOutput : writeOutput;
  if (llvm::Error E = Write(RulesOutput, [&](llvm::raw_ostream &OS) {
        report::writeRuleList(OS, Setup->Rules, RulesFormat == ListFormat::Json,
                              UseColor);
      })) {
    reportError(llvm::toString(std::move(E)));
    return ExitUsage;
  }
  return ExitOk;
}

int tracelint::cli::runExplain() {
  std::vector<std::string> Dirs(ExplainDirs.begin(), ExplainDirs.end());
  auto Setup = loadRuleSetup(ExplainConfig, ExplainIsolated, Dirs);
  if (!Setup) {
    reportError(llvm::toString(Setup.takeError()));
    return ExitUsage;
  }
  const rules::RuleSpec *Spec = Setup->Rules.lookup(Rule);
  if (!Spec) {
    reportError("unknown rule '" + Rule +
                "': give a code (\"S001\", in any case) or a name; "
                "`tracelint rules` lists them");
    return ExitUsage;
  }
  bool UseColor = useColor(ExplainColor, ExplainOutput);
  if (llvm::Error E = writeOutput(ExplainOutput, [&](llvm::raw_ostream &OS) {
        report::writeRulePage(OS, *Spec,
                              ExplainFormat == PageFormat::Markdown
                                  ? report::PageFormat::Markdown
                                  : report::PageFormat::Text,
                              UseColor);
      })) {
    reportError(llvm::toString(std::move(E)));
    return ExitUsage;
  }
  return ExitOk;
}
