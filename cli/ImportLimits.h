//===- cli/ImportLimits.h - Resource options of stats and lint --*- C++ -*-===//
#ifndef TRACELINT_CLI_IMPORTLIMITS_H
#define TRACELINT_CLI_IMPORTLIMITS_H

#include "import/Import.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>

namespace tracelint::cli {

/// Parses a --memory-budget value: a number of bytes with an optional
/// binary unit, K, M, G or T (also KB/KiB, ...; case-insensitive), and an
/// optional fraction ("1.5G"). "0" or "" means no budget.
llvm::Expected<uint64_t> parseByteSize(llvm::StringRef Text,
                                       llvm::StringRef Option);

/// The import options from the command line's --max-events,
/// --memory-budget and --input-timeout (seconds).
llvm::Expected<import::ImportOptions>
importOptions(uint64_t MaxEvents, llvm::StringRef MemoryBudget,
              unsigned InputTimeoutSeconds);

} // namespace tracelint::cli

#endif
