//===- import/Import.h - Reading trace files into the model -----*- C++ -*-===//
//
// The entry point of the import layer: sniff what a file is (by its bytes,
// never by its name) and build a model::Trace from it, or explain why not.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_IMPORT_IMPORT_H
#define TRACELINT_IMPORT_IMPORT_H

#include "model/NameClasses.h"
#include "model/Trace.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>

namespace tracelint::import {

struct ImportOptions {
  /// Stop with an error once a trace holds more events than this (0: no
  /// limit). A guard against unexpectedly huge inputs.
  uint64_t MaxEvents = 0;
  /// How long a read from a pipe, FIFO or device may wait for data before
  /// the import gives up, in milliseconds (0: forever). Regular files never
  /// wait.
  unsigned InputTimeoutMs = 30000;
  /// Stop with an error once the trace read so far would need more memory
  /// than this many bytes at the command's peak
  /// (model::TraceBuilder::estimatedPeakBytes; 0: no limit).
  uint64_t MemoryBudget = 0;
  /// What each name is (model/NameClasses.h): the importers read it to tell
  /// communication kernels from compute. Null: the built-in classes.
  std::shared_ptr<const model::NameClassifier> Names;
  const model::NameClassifier &names() const {
    return Names ? *Names : *model::NameClassifier::builtin();
  }
};

/// The error for a trace over \p Opts's event or memory limit, or success.
/// \p Where names the place reached ("byte 123", "table X").
llvm::Error checkLimits(const ImportOptions &Opts, uint64_t Events,
                        uint64_t PeakBytes, llvm::StringRef Path,
                        llvm::StringRef Where);

/// "8 GiB", "512 MiB", "1.5 GiB": a byte count for messages.
std::string formatByteCount(uint64_t Bytes);

/// Reads the trace at \p Path. Errors name the file, the place (byte offset
/// or event index) and what was expected. A trace that is readable but damaged
/// (truncated, bad events) imports with the damage counted in Trace::Stats.
llvm::Expected<model::Trace> importTraceFile(llvm::StringRef Path,
                                             const ImportOptions &Opts = {});

/// The same for a whole input in memory (tests, fuzzers); \p Name stands for
/// the file in messages.
llvm::Expected<model::Trace> importTraceBytes(llvm::StringRef Name,
                                              llvm::StringRef Bytes,
                                              const ImportOptions &Opts = {});

} // namespace tracelint::import

#endif
