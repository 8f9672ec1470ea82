//===- capture/Launcher.h - Running a program under capture -----*- C++ -*-===//
//
// The launcher's side of `tracelint capture`: which injection library to
// load, the child's environment, and which trace files the run produced.
// Running the child and linting belong to cli/.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_CAPTURE_LAUNCHER_H
#define TRACELINT_CAPTURE_LAUNCHER_H

#include "CaptureOptions.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <set>
#include <string>
#include <vector>

namespace tracelint::capture {

/// The injection library to load: \p Explicit when given (it must exist);
/// else the first existing of \p Candidates. The error lists every place
/// that was searched.
llvm::Expected<std::string>
findInjectionLibrary(llvm::StringRef Explicit,
                     llvm::ArrayRef<std::string> Candidates);

/// Where the injection library may be, relative to the tracelint binary
/// \p ExecutablePath, then the build tree's \p BuildPath.
std::vector<std::string>
injectionLibraryCandidates(llvm::StringRef ExecutablePath,
                           llvm::StringRef BuildPath);

/// Why the injection library at \p Path does not load on its own in this
/// process (the loader's message), or "" when it does.
std::string injectionLoadProblem(llvm::StringRef Path);

/// Whether a loader message from injectionLoadProblem() says only that
/// libcupti was not found. That is not fatal: a program that loads its own
/// libcupti (PyTorch does) supplies it to the library.
bool isOnlyCuptiMissing(llvm::StringRef LoaderMessage);

/// Why no program on this machine can use a CUDA device, or "" when the
/// CUDA driver \p DriverLibrary loads, initialises and reports a device.
/// Asked after a capture that wrote no trace, to say why: the launcher
/// itself never runs CUDA otherwise. "no CUDA driver was found (...)", "the
/// CUDA driver found no device (cuInit: CUDA_ERROR_NO_DEVICE)", ...
std::string cudaDeviceProblem(llvm::StringRef DriverLibrary = "libcuda.so.1");

struct ChildEnvironment {
  std::vector<std::string> Entries; ///< KEY=VALUE
  /// Notes for the user (a variable that was replaced).
  std::vector<std::string> Notes;
};

/// The child's environment: \p Parent (KEY=VALUE entries) with the capture
/// options, CUDA_INJECTION64_PATH=\p InjectionLib and, unless \p Nvtx is
/// false or the parent already sets it, NVTX_INJECTION64_PATH=\p InjectionLib
/// (the library forwards NVTX to the libcupti it is bound to).
/// Fails when the parent already injects another library into CUDA (another
/// profiler is active): two injections cannot share CUPTI.
llvm::Expected<ChildEnvironment>
buildChildEnvironment(llvm::ArrayRef<std::string> Parent,
                      const CaptureOptions &Opts, llvm::StringRef InjectionLib,
                      bool Nvtx);

/// Names of the trace files in \p Dir written for \p Prefix (PREFIX.*.json).
std::set<std::string> listTraceFiles(llvm::StringRef Dir,
                                     llvm::StringRef Prefix);

/// Trace files present now that were not in \p Before, as paths, sorted.
std::vector<std::string> newTraceFiles(llvm::StringRef Dir,
                                       llvm::StringRef Prefix,
                                       const std::set<std::string> &Before);

} // namespace tracelint::capture

#endif
