//===- capture/CaptureOptions.h - Options passed through the env -*- C++
//-*-===//
//
// `tracelint capture` runs the user's program with the injection library
// loaded by the CUDA driver; the library learns its options from environment
// variables that the launcher sets. Both sides use this file, so the names and
// the encoding live in one place. No CUPTI and no LLVM here: the injection
// library stays lean and these functions are testable anywhere.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_CAPTURE_CAPTUREOPTIONS_H
#define TRACELINT_CAPTURE_CAPTUREOPTIONS_H

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tracelint::capture {

/// Environment variable names (the launcher's and the library's contract).
inline constexpr const char *EnvDir = "TRACELINT_CAPTURE_DIR";
inline constexpr const char *EnvPrefix = "TRACELINT_CAPTURE_PREFIX";
inline constexpr const char *EnvDelay = "TRACELINT_CAPTURE_DELAY";
inline constexpr const char *EnvDuration = "TRACELINT_CAPTURE_DURATION";
inline constexpr const char *EnvRange = "TRACELINT_CAPTURE_RANGE";
inline constexpr const char *EnvRangeCount = "TRACELINT_CAPTURE_RANGE_COUNT";
inline constexpr const char *EnvProfilerApi = "TRACELINT_CAPTURE_PROFILER_API";
inline constexpr const char *EnvMaxEvents = "TRACELINT_CAPTURE_MAX_EVENTS";
inline constexpr const char *EnvLaunchNs = "TRACELINT_CAPTURE_LAUNCH_NS";
inline constexpr const char *EnvQuiet = "TRACELINT_CAPTURE_QUIET";

struct CaptureOptions {
  /// Folder that receives one trace per process.
  std::string OutputDir = ".";
  /// File names start with this (letters, digits, '-', '_' and '.').
  std::string Prefix = "tracelint-capture";
  /// Seconds (not iterations) from the program's launch before a window may
  /// open.
  double DelaySec = 0;
  /// Seconds the window stays open; 0: until its other end (range end,
  /// cudaProfilerStop) or the process exits.
  double DurationSec = 0;
  /// Open the window at the first NVTX range with exactly this name and close
  /// it when the RangeCount-th such range has ended ("" : no range).
  std::string RangeName;
  uint32_t RangeCount = 1;
  /// Open and close the window with cudaProfilerStart / cudaProfilerStop.
  bool ProfilerApi = false;
  /// Keep at most this many records (0: no limit); the rest are counted as
  /// dropped.
  uint64_t MaxEvents = 1000000;
  /// The launcher's CLOCK_MONOTONIC time at launch, in ns (0: unknown; the
  /// delay then counts from CUDA initialisation).
  uint64_t LaunchMonotonicNs = 0;
  /// Do not print the one-line summary on standard error.
  bool Quiet = false;
};

/// Looks an environment variable up; returns nullptr when it is unset.
using EnvLookupFn = const char *(*)(const char *Name, void *Ctx);

/// Reads the options from the environment. Unset variables keep their
/// defaults. Returns false with \p Error naming the variable, its value and
/// what was expected when a value is malformed.
bool readCaptureOptions(EnvLookupFn Lookup, void *Ctx, CaptureOptions &Out,
                        std::string &Error);

/// The (name, value) pairs that make readCaptureOptions return \p Opts.
std::vector<std::pair<std::string, std::string>>
captureOptionsToEnv(const CaptureOptions &Opts);

/// "rank3" from RANK, else "local1" from LOCAL_RANK, else "" (non-numeric
/// values are ignored, so that a name never carries a path).
std::string rankTag(EnvLookupFn Lookup, void *Ctx);

/// The trace path of process \p Pid: DIR/PREFIX[.RANKTAG].pidPID.json
std::string traceFilePath(const CaptureOptions &Opts,
                          const std::string &RankTag, long Pid);

/// Whether \p Prefix is a usable file-name prefix.
bool isValidPrefix(const std::string &Prefix);

} // namespace tracelint::capture

#endif
