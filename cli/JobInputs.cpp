//===- cli/JobInputs.cpp - The ranks of `lint --job` and `summarize` ------===//
#include "JobInputs.h"

#include "Commands.h"
#include "Output.h"
#include "TraceInput.h"

#include "analysis/SummaryFormat.h"
#include "import/Import.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/GlobPattern.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"

#include <mutex>

using namespace tracelint;
using namespace tracelint::cli;
namespace cl = llvm::cl;

namespace {
cl::opt<std::string> RankPattern(
    "rank-pattern",
    cl::desc("Where a trace without distributedInfo has its rank: a regular "
             "expression matched against the file name, whose last group is "
             "the rank (default: (rank|worker)[-_.]?([0-9]+))"),
    cl::value_desc("REGEX"), cl::init(analysis::DefaultRankPattern.str()),
    cl::sub(lintSubcommand()), cl::sub(summarizeSubcommand()));
} // namespace

llvm::StringRef tracelint::cli::rankPattern() { return RankPattern; }

llvm::Expected<analysis::RankSummary>
tracelint::cli::summarizeLinted(const LintedInput &In, llvm::StringRef Input) {
  auto S = analysis::summarizeTrace(*In.Ctx, Input, RankPattern);
  if (!S)
    return S.takeError();
  for (const rules::Finding &F : In.Result.Findings)
    S->Findings.push_back({F.Code, F.Name, rules::severityName(F.Sev).str(),
                           F.ImpactNs, F.Confidence, F.Subject});
  return S;
}

namespace {

bool hasGlob(llvm::StringRef S) { return S.find_first_of("*?[") != S.npos; }

/// Files, folders (their files, sorted) and globs (a pattern in the last
/// path component, as a shell would expand it when the user quoted it).
std::vector<std::string> expandInputs(const std::vector<std::string> &Inputs,
                                      std::vector<report::InputError> &Errors) {
  std::vector<std::string> Out;
  auto ListDir = [&](llvm::StringRef Dir, const llvm::GlobPattern *Pattern) {
    std::vector<std::string> Found;
    std::error_code EC;
    for (llvm::sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC;
         It.increment(EC)) {
      llvm::StringRef Name = llvm::sys::path::filename(It->path());
      if (Name.startswith("."))
        continue;
      if (Pattern && !Pattern->match(Name))
        continue;
      if (llvm::sys::fs::is_regular_file(It->path()))
        Found.push_back(It->path());
    }
    llvm::sort(Found);
    return Found;
  };
  for (const std::string &In : Inputs) {
    if (llvm::sys::fs::is_directory(In)) {
      std::vector<std::string> Files = ListDir(In, nullptr);
      if (Files.empty())
        Errors.push_back({In, In + ": the folder holds no files"});
      Out.insert(Out.end(), Files.begin(), Files.end());
      continue;
    }
    if (!llvm::sys::fs::exists(In) && hasGlob(In)) {
      llvm::StringRef Dir = llvm::sys::path::parent_path(In);
      auto Pattern = llvm::GlobPattern::create(llvm::sys::path::filename(In));
      if (!Pattern) {
        Errors.push_back({In, In + ": " + llvm::toString(Pattern.takeError())});
        continue;
      }
      std::vector<std::string> Files =
          ListDir(Dir.empty() ? llvm::StringRef(".") : Dir, &*Pattern);
      if (Files.empty())
        Errors.push_back({In, In + ": no file matches the pattern"});
      Out.insert(Out.end(), Files.begin(), Files.end());
      continue;
    }
    Out.push_back(In);
  }
  return Out;
}

} // namespace

JobInputs tracelint::cli::readJobInputs(const std::vector<std::string> &Inputs,
                                        const RuleSetup &Setup,
                                        unsigned Threads,
                                        uint64_t BudgetBytes) {
  JobInputs Out;
  std::vector<std::string> Files = expandInputs(Inputs, Out.Errors);
  for (const report::InputError &E : Out.Errors)
    reportError(E.Message);
  if (!Out.Errors.empty())
    Out.Exit = ExitBadInput;

  // Summaries are read here; traces go to the pool.
  std::vector<std::string> Traces;
  for (const std::string &F : Files) {
    const std::string Name = inputName(F).str();
    std::unique_ptr<llvm::MemoryBuffer> File;
    llvm::StringRef Text;
    if (isStdinArg(F)) {
      // Kept for the trace's import, should it be one.
      auto Bytes = stdinBytes(inputTimeoutMsOption());
      if (!Bytes) {
        std::string Message = llvm::toString(Bytes.takeError());
        reportError(Message);
        Out.Errors.push_back({Name, Message});
        Out.Exit = ExitBadInput;
        continue;
      }
      Text = *Bytes;
    } else {
      auto Buf = llvm::MemoryBuffer::getFile(F);
      if (!Buf) {
        reportError(F + ": " + Buf.getError().message());
        Out.Errors.push_back({F, F + ": " + Buf.getError().message()});
        Out.Exit = ExitBadInput;
        continue;
      }
      File = std::move(*Buf);
      Text = File->getBuffer();
    }
    if (!analysis::looksLikeRankSummary(Text)) {
      Traces.push_back(F);
      continue;
    }
    analysis::SummaryFile Read = analysis::readRankSummaries(Text, Name);
    for (std::string &E : Read.Errors) {
      reportError(E);
      Out.Errors.push_back({Name, std::move(E)});
      Out.Exit = ExitBadInput;
    }
    for (analysis::RankSummary &S : Read.Ranks)
      Out.Ranks.push_back(std::move(S));
  }

  // One rank per task: import, lint, summarise, drop the trace. The rules
  // of each rank run on one thread, since the ranks already fill the pool,
  // and each import may use its share of the budget.
  RuleSetup One = Setup;
  One.Cfg.Jobs = 1;
  unsigned N = std::max(1u, std::min<unsigned>(rules::ruleJobs(Threads),
                                               unsigned(Traces.size())));
  const uint64_t Share =
      BudgetBytes ? std::max<uint64_t>(1, BudgetBytes / N) : 0;
  std::vector<std::optional<analysis::RankSummary>> Done(Traces.size());
  std::vector<std::optional<InputFailure>> Failed(Traces.size());
  auto Work = [&](size_t I) {
    LintedInput In;
    InputFailure Failure;
    if (!lintInput(Traces[I], One, In, Failure, Share, /*Quiet=*/true)) {
      if (Share && N > 1)
        Failure.Message +=
            llvm::formatv(" (each of the {0} ranks read at once may use {1} of "
                          "--memory-budget; -j1 gives one rank all of it)",
                          N, import::formatByteCount(Share));
      Failed[I] = std::move(Failure);
      return;
    }
    auto S = summarizeLinted(In, inputName(Traces[I]));
    if (!S) {
      Failed[I] = InputFailure{llvm::toString(S.takeError()), ExitUsage};
      return;
    }
    Done[I] = std::move(*S);
  };
  if (N <= 1) {
    for (size_t I = 0; I < Traces.size(); ++I)
      Work(I);
  } else {
    llvm::ThreadPool Pool(llvm::hardware_concurrency(N));
    for (size_t I = 0; I < Traces.size(); ++I)
      Pool.async([&, I] { Work(I); });
    Pool.wait();
  }
  for (size_t I = 0; I < Traces.size(); ++I) {
    if (Failed[I]) {
      reportError(Failed[I]->Message);
      Out.Errors.push_back({inputName(Traces[I]).str(), Failed[I]->Message});
      Out.Exit = std::max(Out.Exit, Failed[I]->Exit);
      continue;
    }
    Out.Ranks.push_back(std::move(*Done[I]));
  }
  return Out;
}
