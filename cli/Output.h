//===- cli/Output.h - Where reports go --------------------------*- C++ -*-===//
#ifndef TRACELINT_CLI_OUTPUT_H
#define TRACELINT_CLI_OUTPUT_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

namespace tracelint::cli {

/// Exit codes (DESIGN.md section 6).
enum ExitCode : int {
  ExitOk = 0,
  ExitFindings = 1,
  ExitUsage = 2,
  ExitBadInput = 3,
};

/// Writes a report to standard output ("" or "-") or to \p Path. A file is
/// written to a temporary name beside it and renamed into place only when
/// the whole report was written, so an error never leaves a half-written or
/// clobbered file behind.
llvm::Error writeOutput(llvm::StringRef Path,
                        llvm::function_ref<void(llvm::raw_ostream &)> Write);

enum class ColorMode { Auto, Always, Never };

/// Colour for text reports. Auto: only on a terminal, never into a file or a
/// pipe, never with NO_COLOR. Always/Never: as asked.
bool useColor(ColorMode Mode, llvm::StringRef OutputPath);

/// Prints "tracelint: error: MESSAGE" to standard error.
void reportError(const llvm::Twine &Message);

} // namespace tracelint::cli

#endif
