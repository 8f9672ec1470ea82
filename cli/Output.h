//===- cli/Output.h - Where reports go --------------------------*- C++ -*-===//
#ifndef TRACELINT_CLI_OUTPUT_H
#define TRACELINT_CLI_OUTPUT_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace tracelint::cli {

/// Exit codes (DESIGN.md section 6).
enum ExitCode : int {
  ExitOk = 0,
  ExitFindings = 1,
  ExitUsage = 2,
  ExitBadInput = 3,
};

/// Writes a report to standard output ("" or "-") or to \p Path. A file is
/// written to a temporary name beside it ("PATH.tmp-XXXXXXXX", removed on
/// any error and on a fatal signal) and renamed into place only when the
/// whole report was written, so an error never leaves a half-written or
/// clobbered file behind: the old file stays as it was. A write error on
/// standard output (a full disk) is returned, not fatal. Every format
/// writer (text, JSON, and whatever a command adds) goes through here.
llvm::Error writeOutput(llvm::StringRef Path,
                        llvm::function_ref<void(llvm::raw_ostream &)> Write);

/// writeOutput for a JSON document (JSON, SARIF, ...): the characters JSON
/// leaves raw but a terminal would act on (C1 controls, bidirectional
/// overrides) are escaped as \uXXXX (support::escapeInvisibleInJson), so that
/// `cat report.json` is as safe as the text report.
llvm::Error
writeJsonOutput(llvm::StringRef Path,
                llvm::function_ref<void(llvm::raw_ostream &)> Write);

enum class ColorMode { Auto, Always, Never };

/// Colour for text reports. Auto: only on a terminal, never into a file or a
/// pipe, never with NO_COLOR. Always/Never: as asked.
bool useColor(ColorMode Mode, llvm::StringRef OutputPath);

/// The width text reports wrap at: the terminal's when standard output is
/// one (at least 80, at most \p Max columns), \p Default otherwise (a file,
/// a pipe, CI logs).
size_t textWidth(llvm::StringRef OutputPath, size_t Default, size_t Max);

/// \p Message with control characters and escape sequences (which may come
/// from file names or trace contents) shown as escapes; line breaks kept.
std::string sanitizeMessage(llvm::StringRef Message);

/// Prints "tracelint: error: MESSAGE" to standard error, sanitized: a file
/// name or a trace string in the message cannot drive the terminal.
void reportError(const llvm::Twine &Message);

} // namespace tracelint::cli

#endif
