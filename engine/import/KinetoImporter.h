//===- import/KinetoImporter.h - Chrome trace / Kineto JSON -----*- C++ -*-===//
//
// Reads the Chrome trace-event JSON that the PyTorch profiler (Kineto) and
// compatible tools write, in every era described in
// shared/research/trace-formats.md, streaming: the top-level object is
// tokenised by hand, and the event array is parsed by simdjson in batches of
// whole events cut by EventSplitter, with the batch buffer reused.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_IMPORT_KINETOIMPORTER_H
#define TRACELINT_IMPORT_KINETOIMPORTER_H

#include "import/ByteSource.h"
#include "import/Import.h"

namespace tracelint::import {

llvm::Expected<model::Trace> importChromeTrace(OpenedSource Source,
                                               llvm::StringRef Path,
                                               const ImportOptions &Opts);

} // namespace tracelint::import

#endif
