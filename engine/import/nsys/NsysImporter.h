//===- import/nsys/NsysImporter.h - Nsight Systems SQLite exports -*- C++
//-*-===//
//
// Reads the SQLite file written by `nsys export --type sqlite` (nsys 2022.2
// to 2025.x) into the trace model: CUDA kernels, copies, memsets, runtime and
// driver calls, synchronisation records, NVTX ranges and marks, OS runtime
// calls, profiler overhead and the GPUs. docs/import.md describes the mapping.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_IMPORT_NSYS_NSYSIMPORTER_H
#define TRACELINT_IMPORT_NSYS_NSYSIMPORTER_H

#include "import/Import.h"
#include "model/Trace.h"

#include "llvm/Support/Error.h"

namespace tracelint::import {

/// Imports the SQLite database at \p Path if it is an Nsight Systems export
/// (it has the tables StringIds and EXPORT_META_DATA or META_DATA_EXPORT).
/// Any other SQLite file (an nvprof database, say) is rejected with an error
/// that says what was found. The file is opened read-only and treated as
/// untrusted; a damaged file gives an error naming the table being read.
llvm::Expected<model::Trace> importNsysExport(llvm::StringRef Path,
                                              const ImportOptions &Opts = {});

/// The same for a database image in memory (fuzzers, tests), opened with
/// sqlite3_deserialize, read-only; \p Name stands for the file in messages.
llvm::Expected<model::Trace>
importNsysExportBytes(llvm::StringRef Name, llvm::StringRef Bytes,
                      const ImportOptions &Opts = {});

} // namespace tracelint::import

#endif
