//===- cli/CaptureCommand.cpp - `tracelint capture [opts] -- CMD...` ------===//
//
// Runs CMD with the CUPTI injection library loaded by the CUDA driver, waits
// for it, then lints the trace each CUDA process wrote. The launcher never
// signals, kills or restarts the program: the window decides only what is
// recorded. Lint options (--format, -o, --select, ...) apply to the lint
// that follows.
//
//===----------------------------------------------------------------------===//
#include "Commands.h"
#include "Output.h"

#include "CaptureOptions.h"
#include "Launcher.h"

#include "llvm/ADT/Optional.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <csignal>
#include <ctime>

extern char **environ;

using namespace tracelint;
using namespace tracelint::cli;
namespace cl = llvm::cl;

cl::SubCommand &tracelint::cli::captureSubcommand() {
  static cl::SubCommand Sub(
      "capture", "Run a CUDA program under CUPTI, write one Kineto trace per "
                 "process, then lint it: tracelint capture [options] -- CMD "
                 "[ARGS...]");
  return Sub;
}

namespace {

cl::OptionCategory CaptureCategory("capture options");

cl::list<std::string> Command(cl::Positional, cl::desc("-- CMD [ARGS...]"),
                              cl::ZeroOrMore, cl::sub(captureSubcommand()),
                              cl::cat(CaptureCategory));
cl::opt<std::string>
    TraceDir("trace-dir",
             cl::desc("Folder for the traces (created if missing)"),
             cl::value_desc("DIR"), cl::init("tracelint-traces"),
             cl::sub(captureSubcommand()), cl::cat(CaptureCategory));
cl::opt<std::string> TracePrefix(
    "trace-prefix",
    cl::desc("Trace file names: PREFIX[.rankN].pidP.json (default capture)"),
    cl::value_desc("NAME"), cl::init("capture"), cl::sub(captureSubcommand()),
    cl::cat(CaptureCategory));
cl::opt<double>
    Delay("delay",
          cl::desc("Seconds (wall clock, not iterations) after launch before "
                   "the window may open"),
          cl::value_desc("S"), cl::init(0), cl::sub(captureSubcommand()),
          cl::cat(CaptureCategory));
cl::opt<double> Duration(
    "duration",
    cl::desc("Seconds (wall clock, not iterations) the window stays open; "
             "0: until the range ends, cudaProfilerStop or exit"),
    cl::value_desc("S"), cl::init(0), cl::sub(captureSubcommand()),
    cl::cat(CaptureCategory));
cl::opt<std::string> RangeName(
    "range",
    cl::desc("Open the window at the first NVTX range named exactly NAME "
             "(after --delay) and close it when that range ends"),
    cl::value_desc("NAME"), cl::sub(captureSubcommand()),
    cl::cat(CaptureCategory));
cl::opt<unsigned> RangeCount(
    "range-count",
    cl::desc("With --range: close the window when the N-th range named NAME "
             "ends (default 1)"),
    cl::value_desc("N"), cl::init(1), cl::sub(captureSubcommand()),
    cl::cat(CaptureCategory));
cl::opt<bool>
    ProfilerApi("profiler-api",
                cl::desc("Open the window at cudaProfilerStart and close it at "
                         "cudaProfilerStop"),
                cl::sub(captureSubcommand()), cl::cat(CaptureCategory));
cl::opt<uint64_t> CaptureMaxEvents(
    "max-events",
    cl::desc("Keep at most N records per process; the rest are counted as "
             "dropped (0: no limit)"),
    cl::value_desc("N"), cl::init(1000000), cl::sub(captureSubcommand()),
    cl::cat(CaptureCategory));
cl::opt<bool> NoLint("no-lint", cl::desc("Only capture: print the trace paths"),
                     cl::sub(captureSubcommand()), cl::cat(CaptureCategory));
cl::opt<bool> NoNvtx(
    "no-nvtx",
    cl::desc("Do not route NVTX to CUPTI (no ranges in the trace; --range "
             "then cannot work)"),
    cl::sub(captureSubcommand()), cl::cat(CaptureCategory));
cl::opt<std::string> LibraryPath(
    "capture-library",
    cl::desc("The injection library (default: found beside tracelint, or "
             "TRACELINT_CAPTURE_LIBRARY)"),
    cl::value_desc("PATH"), cl::Hidden, cl::sub(captureSubcommand()),
    cl::cat(CaptureCategory));
cl::opt<std::string> CudaDriver(
    "cuda-driver",
    cl::desc("The CUDA driver library asked, when no trace was written, "
             "whether this machine has a driver and a device (default "
             "libcuda.so.1)"),
    cl::value_desc("PATH"), cl::init("libcuda.so.1"), cl::Hidden,
    cl::sub(captureSubcommand()), cl::cat(CaptureCategory));

/// A usage problem in the capture options, or "".
std::string checkOptions() {
  if (Command.empty())
    return "capture: no command given; usage: tracelint capture [options] "
           "-- CMD [ARGS...]";
  if (Delay < 0 || Duration < 0)
    return "capture: --delay and --duration are seconds, 0 or more";
  if (!RangeName.empty() && ProfilerApi)
    return "capture: --range and --profiler-api both choose when the window "
           "opens; use one";
  if (RangeCount == 0)
    return "capture: --range-count must be 1 or more";
  if (RangeCount != 1 && RangeName.empty())
    return "capture: --range-count needs --range NAME";
  if (!RangeName.empty() && NoNvtx)
    return "capture: --range needs NVTX; drop --no-nvtx";
  if (!capture::isValidPrefix(TracePrefix))
    return "capture: --trace-prefix '" + TracePrefix +
           "': expected letters, digits, '-', '_' or '.' (not first)";
  return {};
}

void noteSignal(int) {}

#ifdef TRACELINT_HAVE_CAPTURE
/// Creates \p Dir with its missing parents and returns the folders it
/// created, deepest first, so that a run that writes nothing can leave the
/// file system as it found it.
llvm::Expected<std::vector<std::string>> createFolders(llvm::StringRef Dir) {
  std::vector<std::string> Created;
  for (llvm::StringRef P = Dir; !P.empty() && !llvm::sys::fs::exists(P);
       P = llvm::sys::path::parent_path(P))
    Created.push_back(P.str());
  if (std::error_code EC = llvm::sys::fs::create_directories(Dir))
    return llvm::createStringError(EC, "%s: cannot create the trace folder: %s",
                                   Dir.str().c_str(), EC.message().c_str());
  return Created;
}

/// Removes the folders of createFolders() that are still empty.
void removeEmptyFolders(const std::vector<std::string> &Created) {
  for (const std::string &P : Created)
    if (llvm::sys::fs::remove(P, /*IgnoreNonExisting=*/true))
      return; // not empty: something else wrote there
}

/// Why the run left no trace, as precisely as the launcher can tell.
std::string whyNoTrace(llvm::StringRef LoadProblem) {
  std::string Device = capture::cudaDeviceProblem(CudaDriver);
  if (!Device.empty())
    return Device + ": no program here can use a GPU, so CUDA never loaded "
                    "the capture library";
  if (!LoadProblem.empty())
    return "libcupti was not found for the capture library (" +
           LoadProblem.str() + "), or the program did not initialise CUDA";
  return "the program did not initialise CUDA (it has no GPU work, or it "
         "ended before its trace could be flushed)";
}
#endif

} // namespace

int tracelint::cli::runCapture(const char *Argv0) {
#ifndef TRACELINT_HAVE_CAPTURE
  (void)Argv0;
  reportError("capture: this build has no capture support: CUPTI (CUDA 13 or "
              "newer) was not found when tracelint was built; rebuild with "
              "the CUDA toolkit installed (see docs/capture.md)");
  return ExitUsage;
#else
  if (std::string Problem = checkOptions(); !Problem.empty()) {
    reportError(Problem);
    return ExitUsage;
  }

  std::string Explicit = LibraryPath;
  if (Explicit.empty())
    if (auto V = llvm::sys::Process::GetEnv("TRACELINT_CAPTURE_LIBRARY"))
      Explicit = *V;
  std::string Exe = llvm::sys::fs::getMainExecutable(
      Argv0, reinterpret_cast<void *>(&tracelint::cli::runCapture));
  auto Library = capture::findInjectionLibrary(
      Explicit,
      capture::injectionLibraryCandidates(Exe, TRACELINT_CAPTURE_LIBRARY_PATH));
  if (!Library) {
    reportError("capture: " + llvm::toString(Library.takeError()) +
                (Explicit.empty() ? "; in a build tree, a full build or "
                                    "`ninja tracelint_capture` makes it"
                                  : ""));
    return ExitUsage;
  }
  llvm::SmallString<256> AbsLibrary(*Library);
  llvm::sys::fs::make_absolute(AbsLibrary);
  // A library that cannot load at all would leave the program untraced:
  // refuse before running it. One that misses only libcupti may get it from
  // the program: say so before the run, and again if no trace comes of it.
  std::string LoadProblem = capture::injectionLoadProblem(AbsLibrary);
  if (!LoadProblem.empty() && !capture::isOnlyCuptiMissing(LoadProblem)) {
    reportError("capture: " + AbsLibrary +
                ": the capture library does not load: " + LoadProblem);
    return ExitUsage;
  }
  if (!LoadProblem.empty())
    llvm::errs() << "tracelint capture: note: the capture library does not "
                    "load here on its own ("
                 << LoadProblem
                 << "); a program that loads libcupti itself (PyTorch does) "
                    "can still be captured, others need the CUDA toolkit's "
                    "libcupti folder on LD_LIBRARY_PATH\n";

  llvm::SmallString<256> Dir(TraceDir);
  llvm::sys::fs::make_absolute(Dir);
  auto Created = createFolders(Dir);
  if (!Created) {
    reportError("capture: " + llvm::toString(Created.takeError()));
    return ExitUsage;
  }

  capture::CaptureOptions Opts;
  Opts.OutputDir = std::string(Dir);
  Opts.Prefix = TracePrefix;
  Opts.DelaySec = Delay;
  Opts.DurationSec = Duration;
  Opts.RangeName = RangeName;
  Opts.RangeCount = RangeCount;
  Opts.ProfilerApi = ProfilerApi;
  Opts.MaxEvents = CaptureMaxEvents;
  timespec Ts;
  clock_gettime(CLOCK_MONOTONIC, &Ts);
  Opts.LaunchMonotonicNs = uint64_t(Ts.tv_sec) * 1000000000ull + Ts.tv_nsec;

  std::vector<std::string> Parent;
  for (char **E = environ; E && *E; ++E)
    Parent.push_back(*E);
  auto Env = capture::buildChildEnvironment(Parent, Opts, AbsLibrary, !NoNvtx);
  if (!Env) {
    removeEmptyFolders(*Created);
    reportError("capture: " + llvm::toString(Env.takeError()));
    return ExitUsage;
  }
  for (const std::string &Note : Env->Notes)
    llvm::errs() << "tracelint capture: note: " << Note << "\n";

  std::string Program = Command[0];
  if (!llvm::StringRef(Program).contains('/')) {
    auto Found = llvm::sys::findProgramByName(Program);
    if (!Found) {
      removeEmptyFolders(*Created);
      reportError("capture: " + Program + ": command not found in PATH");
      return ExitUsage;
    }
    Program = *Found;
  }
  std::vector<llvm::StringRef> Args(Command.begin(), Command.end());
  std::vector<llvm::StringRef> EnvRefs(Env->Entries.begin(),
                                       Env->Entries.end());

  std::set<std::string> Before =
      capture::listTraceFiles(Dir, std::string(TracePrefix));
  // Ctrl-C reaches the program through the terminal; the launcher waits for
  // it to finish flushing instead of dying first. A handler (not SIG_IGN),
  // so that the program does not inherit an ignored SIGINT.
  struct sigaction Quiet = {}, OldInt;
  Quiet.sa_handler = noteSignal;
  sigaction(SIGINT, &Quiet, &OldInt);
  std::string ErrMsg;
  bool ExecFailed = false;
  int RC = llvm::sys::ExecuteAndWait(
      Program, Args, llvm::Optional<llvm::ArrayRef<llvm::StringRef>>(EnvRefs),
      {}, 0, 0, &ErrMsg, &ExecFailed);
  sigaction(SIGINT, &OldInt, nullptr);
  if (ExecFailed) {
    removeEmptyFolders(*Created);
    reportError("capture: cannot run " + Program + ": " + ErrMsg);
    return ExitUsage;
  }
  if (RC != 0)
    llvm::errs() << "tracelint capture: note: " << Command[0]
                 << (RC < 0 ? " ended abnormally: " + ErrMsg
                            : " exited with status " + std::to_string(RC))
                 << "\n";

  std::vector<std::string> Traces =
      capture::newTraceFiles(Dir, std::string(TracePrefix), Before);
  if (Traces.empty()) {
    // The folders made for this run go again; one that held something
    // before stays, named in the message.
    removeEmptyFolders(*Created);
    std::string Where =
        llvm::sys::fs::exists(Dir) ? " to " + std::string(Dir) : "";
    reportError("capture: no trace was written" + Where + ": " +
                whyNoTrace(LoadProblem));
    return ExitBadInput;
  }
  if (NoLint) {
    for (const std::string &T : Traces)
      llvm::outs() << T << "\n";
    return ExitOk;
  }
  return runLintOn(Traces);
#endif
}
