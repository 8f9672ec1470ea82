//===- cli/StatsCommand.cpp - `tracelint stats TRACE` ---------------------===//
#include "Commands.h"
#include "ImportLimits.h"
#include "Output.h"
#include "RuleSetup.h"
#include "StepOption.h"
#include "TraceInput.h"

#include "analysis/Stats.h"
#include "analysis/TraceIndex.h"
#include "import/Import.h"
#include "report/StatsReport.h"
#include "support/Format.h"

#include "llvm/Support/CommandLine.h"

using namespace tracelint;
using namespace tracelint::cli;
namespace cl = llvm::cl;

cl::SubCommand &tracelint::cli::statsSubcommand() {
  static cl::SubCommand Sub(
      "stats", "Summarise a trace: steps, device busy/idle, top kernels, "
               "runtime calls, copies and import statistics");
  return Sub;
}

namespace {

enum class Format { Text, Json };

cl::OptionCategory StatsCategory("stats options");

cl::opt<std::string> Input(cl::Positional,
                           cl::desc("TRACE ('-': standard input)"),
                           cl::Required, cl::sub(statsSubcommand()),
                           cl::cat(StatsCategory));
cl::opt<Format> OutputFormat(
    "format", cl::desc("Output format"),
    cl::values(clEnumValN(Format::Text, "text", "readable text (default)"),
               clEnumValN(Format::Json, "json", "JSON for scripts")),
    cl::init(Format::Text), cl::sub(statsSubcommand()), cl::cat(StatsCategory));
cl::opt<std::string> OutputPath("o", cl::desc("Write the report to FILE"),
                                cl::value_desc("FILE"), cl::init("-"),
                                cl::sub(statsSubcommand()),
                                cl::cat(StatsCategory));
cl::opt<unsigned> TopN("top",
                       cl::desc("Rows in the top-kernel and top-call "
                                "tables (default 10)"),
                       cl::init(10), cl::sub(statsSubcommand()),
                       cl::cat(StatsCategory));
cl::opt<std::string> StepName("step", cl::desc(StepOptionHelp),
                              cl::value_desc("NAME"),
                              cl::sub(statsSubcommand()),
                              cl::cat(StatsCategory));
cl::opt<std::string> ConfigPath(
    "config",
    cl::desc("Configuration file whose [names] table says what names are "
             "and whose [devices] tables give device peaks (default: "
             "tracelint.toml found upward, as lint finds it)"),
    cl::value_desc("FILE"), cl::sub(statsSubcommand()), cl::cat(StatsCategory));
cl::opt<bool> Isolated("isolated", cl::desc("Ignore every configuration file"),
                       cl::sub(statsSubcommand()), cl::cat(StatsCategory));
cl::opt<uint64_t>
    MaxEvents("max-events",
              cl::desc("Refuse traces with more events than N (0: no limit)"),
              cl::init(0), cl::sub(statsSubcommand()), cl::cat(StatsCategory));
cl::opt<std::string> MemoryBudget(
    "memory-budget",
    cl::desc("Refuse traces that would need more memory than SIZE (e.g. 8G, "
             "512M; about 256 bytes per event; default: no limit)"),
    cl::value_desc("SIZE"), cl::sub(statsSubcommand()), cl::cat(StatsCategory));
cl::opt<unsigned> InputTimeout(
    "input-timeout",
    cl::desc("Give up on a pipe or FIFO that delivers no data for this many "
             "seconds (0: wait forever)"),
    cl::value_desc("SECONDS"), cl::init(30), cl::sub(statsSubcommand()),
    cl::cat(StatsCategory));
cl::opt<ColorMode> Color(
    "color", cl::desc("Colour in text output"),
    cl::values(clEnumValN(ColorMode::Auto, "auto", "on a terminal (default)"),
               clEnumValN(ColorMode::Always, "always", "always"),
               clEnumValN(ColorMode::Never, "never", "never")),
    cl::init(ColorMode::Auto), cl::sub(statsSubcommand()),
    cl::cat(StatsCategory));

} // namespace

int tracelint::cli::runStats() {
  auto Opts = importOptions(MaxEvents, MemoryBudget, InputTimeout);
  if (!Opts) {
    reportError(llvm::toString(Opts.takeError()));
    return ExitUsage;
  }
  // The configuration as lint reads it: [names] and [devices].
  auto Setup = loadRuleSetup(ConfigPath, Isolated, {});
  if (!Setup) {
    reportError(llvm::toString(Setup.takeError()));
    return ExitUsage;
  }
  const rules::Config &Cfg = Setup->Cfg;
  Opts->Names = Cfg.Names;
  auto Trace = importInput(Input, *Opts);
  if (!Trace) {
    reportError(llvm::toString(Trace.takeError()));
    return ExitBadInput;
  }
  const llvm::StringRef Name = inputName(Input);
  if (llvm::Error E = applyStepOption(*Trace, Name, StepName)) {
    reportError(llvm::toString(std::move(E)));
    return ExitUsage;
  }
  analysis::StatsOptions SOpts;
  SOpts.TopN = TopN;
  analysis::TraceIndex Ctx(*Trace, Cfg.Names);
  analysis::TraceStats S = analysis::computeStats(Ctx, SOpts);
  bool UseColor = useColor(Color, OutputPath);
  auto Write = OutputFormat == Format::Json ? writeJsonOutput : writeOutput;
  llvm::Error E = Write(OutputPath, [&](llvm::raw_ostream &OS) {
    if (OutputFormat == Format::Json)
      report::writeStatsJson(OS, *Trace, S, Name, Cfg.DevicePeaks);
    else
      report::writeStatsText(OS, *Trace, S, Name, UseColor, Cfg.DevicePeaks);
  });
  if (E) {
    reportError(llvm::toString(std::move(E)));
    return ExitUsage;
  }
  return ExitOk;
}
