//===- cli/TraceInput.h - Trace paths and standard input --------*- C++ -*-===//
//
// Wherever a command takes a trace path, "-" stands for standard input. The
// input is read whole into memory once (the importer then detects gzip and
// the format from its bytes, as for a file) and is named "<stdin>" in
// reports and messages. Kept for the whole run, so that `lint --annotate`
// can copy it after the lint.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_CLI_TRACEINPUT_H
#define TRACELINT_CLI_TRACEINPUT_H

#include "import/Import.h"
#include "model/Trace.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace tracelint::cli {

/// What reports and messages call standard input.
inline constexpr llvm::StringLiteral StdinName = "<stdin>";

/// True for "-", the argument that stands for standard input.
inline bool isStdinArg(llvm::StringRef Arg) { return Arg == "-"; }

/// \p Arg as reports and messages name it: "<stdin>" for "-".
inline llvm::StringRef inputName(llvm::StringRef Arg) {
  return isStdinArg(Arg) ? llvm::StringRef(StdinName) : Arg;
}

/// The bytes of standard input, undecoded, read on the first call (a pipe
/// waits at most \p WaitMs for each read; 0: forever) and the same on every
/// later call. Fails on a terminal: nothing was piped in.
llvm::Expected<llvm::StringRef> stdinBytes(unsigned WaitMs);

/// Imports \p Arg: the file, or standard input for "-".
llvm::Expected<model::Trace> importInput(llvm::StringRef Arg,
                                         const import::ImportOptions &Opts);

/// An error when "-" is given more than once: standard input holds one
/// trace.
llvm::Error checkStdinOnce(llvm::ArrayRef<std::string> Args);

} // namespace tracelint::cli

#endif
