//===- cli/LintCommand.cpp - `tracelint lint TRACE...` --------------------===//
//
// Each trace is imported, analysed and linted on its own; one unreadable
// trace is reported and the others still run. The exit code is the worst
// outcome: 3 an input could not be read, 2 usage or configuration error,
// 1 findings at or above --fail-on, 0 otherwise.
//
//===----------------------------------------------------------------------===//
#include "AnnotateOutput.h"
#include "Commands.h"
#include "ImportLimits.h"
#include "JobInputs.h"
#include "LintSupport.h"
#include "Output.h"
#include "RuleSetup.h"
#include "StepOption.h"
#include "TraceInput.h"

#include "analysis/JobAnalysis.h"
#include "analysis/Stats.h"
#include "analysis/TraceIndex.h"
#include "import/Import.h"
#include "report/HtmlReport.h"
#include "report/JobHtml.h"
#include "report/JobReport.h"
#include "report/LintReport.h"
#include "report/LintWriters.h"
#include "rules/Baseline.h"
#include "rules/Detector.h"
#include "rules/Engine.h"
#include "support/CpuTime.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"

#include <cmath>
#include <optional>

using namespace tracelint;
using namespace tracelint::cli;
namespace cl = llvm::cl;

cl::SubCommand &tracelint::cli::lintSubcommand() {
  static cl::SubCommand Sub(
      "lint", "Ranked hypotheses: what probably delays completion, the "
              "evidence, and the experiment that would decide (the default "
              "command)");
  return Sub;
}

namespace {

enum class Format { Text, Json, Sarif, JUnit, Markdown, Html };
enum class FailOn { Info, Warning, Error, None };

cl::OptionCategory LintCategory("lint options");

cl::list<std::string> Inputs(cl::Positional,
                             cl::desc("TRACE... ('-': standard input)"),
                             cl::OneOrMore, cl::sub(lintSubcommand()),
                             cl::cat(LintCategory));
cl::opt<Format> OutputFormat(
    "format", cl::desc("Output format"),
    cl::values(clEnumValN(Format::Text, "text", "readable text (default)"),
               clEnumValN(Format::Json, "json", "JSON for scripts"),
               clEnumValN(Format::Sarif, "sarif",
                          "SARIF 2.1.0 for code-scanning dashboards"),
               clEnumValN(Format::JUnit, "junit",
                          "JUnit XML for CI test reports"),
               clEnumValN(Format::Markdown, "markdown",
                          "the next-experiment checklist"),
               clEnumValN(Format::Html, "html",
                          "one self-contained page with a timeline per "
                          "finding (use with -o REPORT.html)")),
    cl::init(Format::Text), cl::sub(lintSubcommand()),
    cl::sub(captureSubcommand()), cl::cat(LintCategory));
cl::opt<std::string> OutputPath("o", cl::desc("Write the report to FILE"),
                                cl::value_desc("FILE"), cl::init("-"),
                                cl::sub(lintSubcommand()),
                                cl::sub(captureSubcommand()),
                                cl::cat(LintCategory));
cl::list<std::string>
    Select("select",
           cl::desc("Run only these rules: codes, family letters or names, "
                    "comma-separated (replaces the configuration's select)"),
           cl::value_desc("CODES"), cl::CommaSeparated,
           cl::sub(lintSubcommand()), cl::sub(captureSubcommand()),
           cl::sub(baselineSubcommand()), cl::sub(diffSubcommand()),
           cl::sub(summarizeSubcommand()), cl::cat(LintCategory));
cl::list<std::string>
    Ignore("ignore",
           cl::desc("Do not run these rules: codes, family letters or names, "
                    "comma-separated"),
           cl::value_desc("CODES"), cl::CommaSeparated,
           cl::sub(lintSubcommand()), cl::sub(captureSubcommand()),
           cl::sub(baselineSubcommand()), cl::sub(diffSubcommand()),
           cl::sub(summarizeSubcommand()), cl::cat(LintCategory));
cl::opt<FailOn>
    FailLevel("fail-on",
              cl::desc("Exit with 1 when a finding has this severity or "
                       "higher"),
              cl::values(clEnumValN(FailOn::Info, "info", "any finding"),
                         clEnumValN(FailOn::Warning, "warning",
                                    "warnings and errors (default)"),
                         clEnumValN(FailOn::Error, "error", "errors only"),
                         clEnumValN(FailOn::None, "none", "never")),
              cl::init(FailOn::Warning), cl::sub(lintSubcommand()),
              cl::sub(captureSubcommand()), cl::cat(LintCategory));
cl::opt<std::string> ConfigPath(
    "config",
    cl::desc("Configuration file (default: tracelint.toml found upward from "
             "the working directory)"),
    cl::value_desc("FILE"), cl::sub(lintSubcommand()),
    cl::sub(captureSubcommand()), cl::sub(baselineSubcommand()),
    cl::sub(diffSubcommand()), cl::sub(summarizeSubcommand()),
    cl::cat(LintCategory));
cl::opt<bool> Isolated("isolated", cl::desc("Ignore every configuration file"),
                       cl::sub(lintSubcommand()), cl::sub(captureSubcommand()),
                       cl::sub(baselineSubcommand()), cl::sub(diffSubcommand()),
                       cl::sub(summarizeSubcommand()), cl::cat(LintCategory));
cl::opt<bool> PathBounds(
    "path-bounds",
    cl::desc("Cap each finding's impact by its critical-path what-if bound "
             "(default on; --path-bounds=false keeps the detectors' own "
             "bounds and skips the path)"),
    cl::init(true), cl::sub(lintSubcommand()), cl::sub(captureSubcommand()),
    cl::sub(baselineSubcommand()), cl::sub(diffSubcommand()),
    cl::sub(summarizeSubcommand()), cl::cat(LintCategory));
cl::opt<unsigned>
    Jobs("j",
         cl::desc("Run the rules on N threads (default: $TRACELINT_JOBS, else "
                  "every core); the report is the same for every N"),
         cl::value_desc("N"), cl::init(0), cl::Prefix,
         cl::sub(lintSubcommand()), cl::sub(captureSubcommand()),
         cl::sub(baselineSubcommand()), cl::sub(diffSubcommand()),
         cl::sub(summarizeSubcommand()), cl::cat(LintCategory));
cl::list<std::string> RuleDirs(
    "rules",
    cl::desc("Add the rule files (*.toml) below DIR; a rule with a built-in "
             "code replaces it (repeatable)"),
    cl::value_desc("DIR"), cl::sub(lintSubcommand()),
    cl::sub(captureSubcommand()), cl::sub(baselineSubcommand()),
    cl::sub(diffSubcommand()), cl::sub(summarizeSubcommand()),
    cl::cat(LintCategory));
cl::opt<ColorMode> Color(
    "color", cl::desc("Colour in text output"),
    cl::values(clEnumValN(ColorMode::Auto, "auto", "on a terminal (default)"),
               clEnumValN(ColorMode::Always, "always", "always"),
               clEnumValN(ColorMode::Never, "never", "never")),
    cl::init(ColorMode::Auto), cl::sub(lintSubcommand()),
    cl::sub(captureSubcommand()), cl::cat(LintCategory));
cl::opt<std::string>
    StepName("step", cl::desc(StepOptionHelp), cl::value_desc("NAME"),
             cl::sub(lintSubcommand()), cl::sub(captureSubcommand()),
             cl::sub(baselineSubcommand()), cl::sub(diffSubcommand()),
             cl::sub(summarizeSubcommand()), cl::cat(LintCategory));
cl::opt<uint64_t>
    MaxEvents("max-events",
              cl::desc("Refuse traces with more events than N (0: no limit)"),
              cl::init(0), cl::sub(lintSubcommand()),
              cl::sub(baselineSubcommand()), cl::sub(diffSubcommand()),
              cl::sub(summarizeSubcommand()), cl::cat(LintCategory));
cl::opt<std::string> MemoryBudget(
    "memory-budget",
    cl::desc("Refuse traces that would need more memory than SIZE (e.g. 8G, "
             "512M; about 256 bytes per event; default: no limit)"),
    cl::value_desc("SIZE"), cl::sub(lintSubcommand()),
    cl::sub(baselineSubcommand()), cl::sub(diffSubcommand()),
    cl::sub(summarizeSubcommand()), cl::cat(LintCategory));
cl::opt<unsigned> InputTimeout(
    "input-timeout",
    cl::desc("Give up on a pipe or FIFO that delivers no data for this many "
             "seconds (0: wait forever)"),
    cl::value_desc("SECONDS"), cl::init(30), cl::sub(lintSubcommand()),
    cl::sub(baselineSubcommand()), cl::sub(diffSubcommand()),
    cl::sub(summarizeSubcommand()), cl::cat(LintCategory));

cl::opt<std::string> BaselinePath(
    "baseline",
    cl::desc("Report only findings that are not in this baseline file, or "
             "whose impact grew beyond the baseline's noise (docs/ci.md)"),
    cl::value_desc("FILE"), cl::sub(lintSubcommand()), cl::cat(LintCategory));
cl::opt<bool> UpdateBaseline(
    "update-baseline",
    cl::desc("Rewrite the --baseline file with this run's findings (then "
             "no finding fails the run)"),
    cl::sub(lintSubcommand()), cl::cat(LintCategory));
cl::opt<std::string> ImpactTolerance(
    "impact-tolerance",
    cl::desc("A known finding grew only when most of its steps exceed the "
             "baseline's impact by more than this, and its spread "
             "(default 100%: it doubled)"),
    cl::value_desc("SHARE"), cl::init("100%"), cl::sub(lintSubcommand()),
    cl::cat(LintCategory));
cl::opt<unsigned>
    Top("top",
        cl::desc("Text: show the N highest-ranked findings as cards below the "
                 "ranked list of every finding (default 3; 0: every finding a "
                 "card)"),
        cl::value_desc("N"), cl::init(3), cl::sub(lintSubcommand()),
        cl::sub(captureSubcommand()), cl::cat(LintCategory));
cl::opt<rules::Severity> MinSeverity(
    "min-severity",
    cl::desc("Text: show only findings of this severity or higher (the "
             "others are counted in the summary)"),
    cl::values(clEnumValN(rules::Severity::Info, "info",
                          "every finding "
                          "(default)"),
               clEnumValN(rules::Severity::Warning, "warning",
                          "warnings and errors"),
               clEnumValN(rules::Severity::Error, "error", "errors only")),
    cl::init(rules::Severity::Info), cl::sub(lintSubcommand()),
    cl::sub(captureSubcommand()), cl::cat(LintCategory));
cl::opt<bool> Verbose(
    "verbose",
    cl::desc("Text: the whole report: every finding a full card (could also "
             "be, every example, verify, refuted if, confidence notes) and "
             "the rules that do not apply"),
    cl::sub(lintSubcommand()), cl::sub(captureSubcommand()),
    cl::cat(LintCategory));
cl::opt<unsigned> Width(
    "width",
    cl::desc("Text: wrap lines at N columns (at most 240; default: the "
             "terminal's width, 100 into a file or a pipe; 0: never wrap)"),
    cl::value_desc("N"), cl::sub(lintSubcommand()),
    cl::sub(captureSubcommand()), cl::cat(LintCategory));
cl::opt<bool> LongNames(
    "long-names",
    cl::desc("Text and Markdown: kernel and op names as the trace writes "
             "them, not shortened (JSON and SARIF always keep them whole)"),
    cl::sub(lintSubcommand()), cl::sub(captureSubcommand()),
    cl::cat(LintCategory));
cl::opt<std::string> AnnotatePath(
    "annotate",
    cl::desc("Also write the trace with the findings added as a 'tracelint' "
             "process (a slice per finding over its evidence, arrows to its "
             "examples) for Perfetto or chrome://tracing; gzipped when FILE "
             "ends in .gz (one input only)"),
    cl::value_desc("FILE"), cl::sub(lintSubcommand()), cl::cat(LintCategory));
cl::opt<bool>
    JobMode("job",
            cl::desc("The inputs are the ranks of one job (traces, `tracelint "
                     "summarize` summaries, folders of them or glob patterns): "
                     "report the job first, then each rank's findings folded "
                     "(docs/multi-rank.md)"),
            cl::sub(lintSubcommand()), cl::cat(LintCategory));
cl::opt<std::string> DocsUrl(
    "docs-url",
    cl::desc("SARIF: base URL of the rule pages (a published docs/rules/); "
             "each rule's helpUri is URL<CODE>-<name>.md"),
    cl::value_desc("URL"), cl::sub(lintSubcommand()), cl::cat(LintCategory));

/// "25%", "0.25" -> 0.25.
std::optional<double> parseShare(llvm::StringRef S) {
  S = S.trim();
  bool Percent = S.consume_back("%");
  double V;
  if (S.trim().getAsDouble(V) || V < 0 || !std::isfinite(V))
    return std::nullopt;
  return Percent ? V / 100 : V;
}

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

/// The text report's options from the command line, for one trace's report
/// and a job's alike.
static report::TextOptions textOptions() {
  report::TextOptions O;
  O.Color = useColor(Color, OutputPath);
  O.Verbose = Verbose;
  O.LongNames = LongNames;
  O.Top = Top;
  O.MinSeverity = MinSeverity;
  O.Width =
      Width.getNumOccurrences()
          ? std::min<size_t>(Width, report::MaxLineWidth)
          : textWidth(OutputPath, report::DefaultWidth, report::MaxLineWidth);
  return O;
}

/// The rules' thread count: -j, else TRACELINT_JOBS, else 0 (every core).
static llvm::Expected<unsigned> ruleJobs() {
  if (Jobs.getNumOccurrences())
    return unsigned(Jobs);
  const char *Env = std::getenv("TRACELINT_JOBS");
  if (!Env || !*Env)
    return 0u;
  unsigned N = 0;
  if (llvm::StringRef(Env).getAsInteger(10, N))
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "TRACELINT_JOBS: expected a number of threads (0: every core), not "
        "'%s'",
        Env);
  return N;
}

llvm::Expected<RuleSetup> tracelint::cli::setupRulesFromOptions() {
  std::vector<std::string> Sel(Select.begin(), Select.end());
  std::vector<std::string> Ign(Ignore.begin(), Ignore.end());
  std::vector<std::string> Dirs(RuleDirs.begin(), RuleDirs.end());
  auto Setup = loadRuleSetup(ConfigPath, Isolated, Dirs);
  if (!Setup)
    return Setup.takeError();
  if (llvm::Error E =
          rules::Config::checkSelectors(Sel, Setup->Rules, "--select"))
    return E;
  if (llvm::Error E =
          rules::Config::checkSelectors(Ign, Setup->Rules, "--ignore"))
    return E;
  Setup->Cfg.applyCommandLine(Sel, Ign);
  Setup->Cfg.PathBounds = PathBounds;
  if (auto N = ruleJobs(); !N)
    return N.takeError();
  else
    Setup->Cfg.Jobs = *N;
  return Setup;
}

llvm::Expected<uint64_t> tracelint::cli::memoryBudgetOption() {
  return parseByteSize(MemoryBudget, "--memory-budget");
}

unsigned tracelint::cli::inputTimeoutMsOption() {
  // As import options have it (ImportLimits.cpp): a wait too long to count
  // in milliseconds is no limit.
  return InputTimeout > 4'000'000 ? 0u : InputTimeout * 1000u;
}

bool tracelint::cli::lintInput(llvm::StringRef Input, const RuleSetup &Setup,
                               LintedInput &Out, InputFailure &Failure,
                               uint64_t BudgetBytes, bool Quiet) {
  auto Opts = importOptions(MaxEvents, MemoryBudget, InputTimeout);
  if (!Opts) {
    Failure = {llvm::toString(Opts.takeError()), ExitUsage};
    if (!Quiet)
      reportError(Failure.Message);
    return false;
  }
  Opts->Names = Setup.Cfg.Names;
  if (BudgetBytes)
    Opts->MemoryBudget = BudgetBytes;
  const support::PhaseClock ImportClock;
  auto Trace = importInput(Input, *Opts);
  if (!Trace) {
    Failure = {llvm::toString(Trace.takeError()), ExitBadInput};
    if (!Quiet)
      reportError(Failure.Message);
    return false;
  }
  const llvm::StringRef Name = inputName(Input);
  if (llvm::Error E = applyStepOption(*Trace, Name, StepName)) {
    Failure = {llvm::toString(std::move(E)), ExitUsage};
    if (!Quiet)
      reportError(Failure.Message);
    return false;
  }
  const int64_t ImportWall = ImportClock.wallSinceNs(),
                ImportCpu = ImportClock.cpuSinceNs();
  const support::PhaseClock IndexClock;
  Out.Trace = std::make_unique<model::Trace>(std::move(*Trace));
  Out.Ctx = std::make_unique<analysis::TraceIndex>(*Out.Trace, Setup.Cfg.Names);
  const int64_t IndexWall = IndexClock.wallSinceNs(),
                IndexCpu = IndexClock.cpuSinceNs();
  // The statistics read the index only: they run on the rules' threads,
  // beside the rules and the critical path's graph.
  Out.Result = rules::runRules(
      *Out.Ctx, Setup.Rules, Setup.Cfg, Name, rules::findDetector,
      [&] { Out.Stats = analysis::computeStats(*Out.Ctx); });
  if (const char *Env = std::getenv("TRACELINT_TIMES"); Env && *Env) {
    const rules::LintTimes &Tm = Out.Result.Times;
    auto Line = [&](llvm::StringRef What, int64_t WallNs, int64_t CpuNs) {
      llvm::errs() << "tracelint: time: " << Name << ": " << What << ": ";
      if (WallNs >= 0)
        llvm::errs() << llvm::format("%.3f s wall, ", WallNs / 1e9);
      llvm::errs() << llvm::format("%.3f s CPU\n", CpuNs / 1e9);
    };
    Line("import", ImportWall, ImportCpu);
    Line("index", IndexWall, IndexCpu);
    Line("rules, statistics and path graph", Tm.PoolWallNs, Tm.PoolCpuNs);
    Line("statistics", -1, Tm.BesideCpuNs);
    Line("path graph", -1, Tm.GraphCpuNs);
    for (const auto &[Code, Ns] : Tm.RuleCpuNs)
      Line("rule " + Code, -1, Ns);
    Line("findings and path bounds", Tm.FindingsWallNs, Tm.FindingsCpuNs);
  }
  return true;
}

int tracelint::cli::runLint() {
  return runLintOn(std::vector<std::string>(Inputs.begin(), Inputs.end()));
}

/// The options of the HTML page.
static report::HtmlOptions htmlOptions() {
  report::HtmlOptions O;
  O.ToolVersion = TRACELINT_VERSION;
  O.LongNames = LongNames;
  return O;
}

/// The options of the SARIF, JUnit and Markdown writers.
static report::WriterOptions writerOptions() {
  report::WriterOptions WOpts;
  WOpts.ToolVersion = TRACELINT_VERSION;
  WOpts.DocsUrl = DocsUrl;
  WOpts.LongNames = LongNames;
  WOpts.FailAt = std::nullopt;
  for (rules::Severity S : {rules::Severity::Info, rules::Severity::Warning,
                            rules::Severity::Error})
    if (!WOpts.FailAt && failsAt(S))
      WOpts.FailAt = S;
  return WOpts;
}

/// The options --baseline, --update-baseline and --impact-tolerance, checked
/// once for both lint paths.
struct BaselineChoice {
  std::optional<rules::Baseline> Known; ///< none without --baseline
  double Tolerance = 1.0;
};

static llvm::Expected<BaselineChoice> baselineChoice() {
  BaselineChoice C;
  std::optional<double> Tolerance = parseShare(ImpactTolerance);
  if (!Tolerance)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "--impact-tolerance: expected a share such as 25%% or 0.25, not '%s'",
        ImpactTolerance.c_str());
  C.Tolerance = *Tolerance;
  if (UpdateBaseline && BaselinePath.empty())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "--update-baseline needs --baseline FILE: "
                                   "the file to rewrite");
  if (BaselinePath.empty())
    return C;
  if (UpdateBaseline && !llvm::sys::fs::exists(BaselinePath)) {
    C.Known.emplace(); // the first recording
    return C;
  }
  auto B = rules::Baseline::load(BaselinePath);
  if (!B)
    return B.takeError();
  C.Known = std::move(*B);
  return C;
}

/// Applies the --baseline, if any, to \p Findings (rules::applyBaseline):
/// marks them, drops the known ones and returns the tally.
static std::optional<rules::BaselineTally>
applyBaselineChoice(const BaselineChoice &B, int64_t TargetNs,
                    std::vector<rules::Finding> &Findings) {
  if (!B.Known)
    return std::nullopt;
  return rules::applyBaseline(*B.Known, BaselinePath, B.Tolerance, TargetNs,
                              Findings);
}

/// Whether \p Findings fail the run: one at or above --fail-on that is not
/// a known or near-floor finding of the baseline.
static bool anyFails(llvm::ArrayRef<rules::Finding> Findings) {
  return llvm::any_of(Findings, [](const rules::Finding &F) {
    return F.countsForFailure() && failsAt(F.Sev);
  });
}

/// Rewrites the --baseline file with \p Recorded, unless some input could
/// not be read (its findings would be dropped from the file).
static llvm::Error updateBaseline(const rules::Baseline &Recorded,
                                  size_t Unreadable) {
  if (Unreadable)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "%s: not updated, because %zu input(s) could not be read and their "
        "findings would be dropped from it",
        BaselinePath.c_str(), Unreadable);
  return writeJsonOutput(BaselinePath,
                         [&](llvm::raw_ostream &OS) { Recorded.write(OS); });
}

/// `lint --job`: every input a rank; the job's findings, then the ranks'.
static int runLintJob(const std::vector<std::string> &Inputs,
                      const RuleSetup &Setup) {
  if (!AnnotatePath.empty()) {
    reportError("--annotate writes one trace with its findings; a job's "
                "findings span ranks: use --format html for the job, or "
                "--annotate on one rank without --job");
    return ExitUsage;
  }
  auto Baseline = baselineChoice();
  if (!Baseline) {
    reportError(llvm::toString(Baseline.takeError()));
    return ExitUsage;
  }
  auto Budget = memoryBudgetOption();
  if (!Budget) {
    reportError(llvm::toString(Budget.takeError()));
    return ExitUsage;
  }
  JobInputs In = readJobInputs(Inputs, Setup, Setup.Cfg.Jobs, *Budget);
  int Exit = In.Exit;
  if (In.Ranks.empty()) {
    reportError("--job: no rank could be read");
    return std::max<int>(Exit, ExitBadInput);
  }
  analysis::JobAnalysis Job = analysis::analyzeJob(std::move(In.Ranks));
  rules::JobLintResult Result = rules::runJobRules(Job, Setup.Rules, Setup.Cfg);
  // The baseline holds the job's findings (by fingerprint: code and rank);
  // each rank's own findings are recorded by linting the ranks alone.
  rules::Baseline Recorded;
  if (UpdateBaseline)
    Recorded.add(Result.Findings);
  Result.Baseline =
      applyBaselineChoice(*Baseline, Result.TargetNs, Result.Findings);
  if (anyFails(Result.Findings))
    Exit = std::max<int>(Exit, ExitFindings);
  if (UpdateBaseline) {
    if (llvm::Error E = updateBaseline(Recorded, In.Errors.size())) {
      reportError(llvm::toString(std::move(E)));
      if (In.Errors.empty())
        Exit = std::max<int>(Exit, ExitUsage);
    } else if (Exit == ExitFindings) {
      Exit = ExitOk; // the findings are now accepted
    }
  }
  report::TextOptions TextOpts = textOptions();
  // SARIF, JUnit and Markdown take the job's findings per rank, each at the
  // trace of the rank it names.
  std::vector<std::string> RulesRun;
  for (const rules::RuleSpec &R : Setup.Rules.rules())
    if (R.Sig.JobInput && Setup.Cfg.isEnabled(R, "job"))
      RulesRun.push_back(R.Code);
  auto Outcomes = [&] { return report::jobOutcomes(Job, Result, RulesRun); };
  report::WriterOptions WOpts = writerOptions();
  WOpts.JobFindings = true;
  auto Write = OutputFormat == Format::Json || OutputFormat == Format::Sarif
                   ? writeJsonOutput
                   : writeOutput;
  llvm::Error E = Write(OutputPath, [&](llvm::raw_ostream &OS) {
    if (OutputFormat == Format::Json) {
      report::writeLintJsonDocument(OS, {}, In.Errors,
                                    report::jobJsonObject(Job, Result));
    } else if (OutputFormat == Format::Sarif) {
      report::writeLintSarif(OS, Outcomes(), In.Errors, Setup.Rules, WOpts);
    } else if (OutputFormat == Format::JUnit) {
      report::writeLintJUnit(OS, Outcomes(), In.Errors, Setup.Rules, WOpts);
    } else if (OutputFormat == Format::Markdown) {
      report::writeLintMarkdown(OS, Outcomes(), In.Errors, WOpts);
    } else if (OutputFormat == Format::Html) {
      const report::HtmlOptions HtmlOpts = htmlOptions();
      report::writeLintHtmlDocument(
          OS, {report::jobHtmlSection(Job, Result, HtmlOpts)}, In.Errors,
          HtmlOpts);
    } else {
      report::writeJobText(OS, Job, Result, In.Errors, TextOpts);
    }
  });
  if (E) {
    reportError(llvm::toString(std::move(E)));
    Exit = std::max<int>(Exit, ExitUsage);
  }
  return Exit;
}

int tracelint::cli::runLintOn(const std::vector<std::string> &Inputs) {
  if (llvm::Error E = checkStdinOnce(Inputs)) {
    reportError(llvm::toString(std::move(E)));
    return ExitUsage;
  }
  auto Setup = setupRulesFromOptions();
  if (!Setup) {
    reportError(llvm::toString(Setup.takeError()));
    return ExitUsage;
  }
  if (JobMode)
    return runLintJob(Inputs, *Setup);
  auto Baseline = baselineChoice();
  if (!Baseline) {
    reportError(llvm::toString(Baseline.takeError()));
    return ExitUsage;
  }
  if (!AnnotatePath.empty() && Inputs.size() != 1) {
    reportError("--annotate writes one trace: give one input, not " +
                std::to_string(Inputs.size()));
    return ExitUsage;
  }
  if (!AnnotatePath.empty())
    if (llvm::Error E = checkAnnotateTarget(AnnotatePath, Inputs.front())) {
      reportError(llvm::toString(std::move(E)));
      return ExitUsage;
    }
  int Exit = ExitOk;
  report::TextOptions TextOpts = textOptions();
  const report::HtmlOptions HtmlOpts = htmlOptions();
  std::vector<std::string> Reports; // text reports, JSON objects
  std::vector<report::HtmlSection> HtmlSections;
  std::vector<report::InputError> Errors;
  std::vector<report::LintOutcome> Outcomes;
  rules::Baseline Recorded;
  for (const std::string &Arg : Inputs) {
    const std::string Input = inputName(Arg).str();
    LintedInput In;
    InputFailure Failure;
    if (!lintInput(Arg, *Setup, In, Failure)) {
      Errors.push_back({Input, Failure.Message});
      Exit = std::max<int>(Exit, Failure.Exit);
      continue;
    }
    report::LintOutcome O;
    O.Input = Input;
    O.Target = In.Result.Target.Description;
    // Job rules run only under --job.
    for (const rules::RuleSpec &R : Setup->Rules.rules())
      if (!R.Sig.JobInput && Setup->Cfg.isEnabled(R, Input))
        O.RulesRun.push_back(R.Code);
    rules::LintResult &Result = In.Result;
    if (UpdateBaseline)
      Recorded.add(Result.Findings);
    // Only what is new, or grew beyond the baseline's noise, is reported.
    Result.Baseline =
        applyBaselineChoice(*Baseline, Result.Target.Ns, Result.Findings);
    if (anyFails(Result.Findings))
      Exit = std::max<int>(Exit, ExitFindings);
    report::LintedTrace L{Input, *In.Trace, In.Stats, Result};
    if (!AnnotatePath.empty())
      if (llvm::Error E = writeAnnotatedTrace(AnnotatePath, Arg, L, *In.Ctx)) {
        reportError(llvm::toString(std::move(E)));
        Exit = std::max<int>(Exit, ExitUsage);
      }
    if (OutputFormat == Format::Json) {
      Reports.push_back(report::lintJsonObject(L, 4));
    } else if (OutputFormat == Format::Html) {
      HtmlSections.push_back(report::lintHtmlSection(L, *In.Ctx, HtmlOpts,
                                                     HtmlSections.size() + 1));
    } else if (OutputFormat == Format::Text) {
      std::string Text;
      llvm::raw_string_ostream OS(Text);
      report::writeLintText(OS, L, TextOpts);
      OS.flush();
      Reports.push_back(std::move(Text));
    }
    O.Result = std::move(Result);
    Outcomes.push_back(std::move(O));
  }

  if (UpdateBaseline) {
    if (llvm::Error E = updateBaseline(Recorded, Errors.size())) {
      reportError(llvm::toString(std::move(E)));
      if (Errors.empty())
        return ExitUsage;
    } else if (Exit == ExitFindings) {
      Exit = ExitOk; // the findings are now accepted
    }
  }

  const report::WriterOptions WOpts = writerOptions();
  auto Write = OutputFormat == Format::Json || OutputFormat == Format::Sarif
                   ? writeJsonOutput
                   : writeOutput;
  llvm::Error E = Write(OutputPath, [&](llvm::raw_ostream &OS) {
    switch (OutputFormat) {
    case Format::Json:
      report::writeLintJsonDocument(OS, Reports, Errors);
      return;
    case Format::Sarif:
      report::writeLintSarif(OS, Outcomes, Errors, Setup->Rules, WOpts);
      return;
    case Format::JUnit:
      report::writeLintJUnit(OS, Outcomes, Errors, Setup->Rules, WOpts);
      return;
    case Format::Markdown:
      report::writeLintMarkdown(OS, Outcomes, Errors, WOpts);
      return;
    case Format::Html:
      report::writeLintHtmlDocument(OS, HtmlSections, Errors, HtmlOpts);
      return;
    case Format::Text:
      break;
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
