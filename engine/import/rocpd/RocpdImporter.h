//===- import/rocpd/RocpdImporter.h - rocprofv3 rocpd databases -*- C++ -*-===//
//
// Reads the SQLite database that rocprofv3 (ROCm's rocprofiler-sdk) writes by
// default, its "rocpd" output (schema 3, ROCm 7.x), into the trace model: HIP
// and HSA API calls, roctx ranges and marks, kernel dispatches, memory copies
// and allocations, and the GPUs. docs/import.md describes the mapping.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_IMPORT_ROCPD_ROCPDIMPORTER_H
#define TRACELINT_IMPORT_ROCPD_ROCPDIMPORTER_H

#include "import/Import.h"
#include "model/Trace.h"

#include "llvm/Support/Error.h"

namespace tracelint::import {

namespace nsys {
class Database;
}

/// True when the open database \p Db holds rocprofv3's rocpd tables.
bool isRocpdDatabase(const nsys::Database &Db);

/// Imports the rocpd database \p Db, already opened read-only and untrusted
/// (nsys::Database). Every run in the file (one per profiled process, each
/// with its own table suffix) is read; runs from different machines, or two
/// runs of one process id, are rejected with an error naming them.
llvm::Expected<model::Trace> importRocpdDatabase(nsys::Database &Db,
                                                 const ImportOptions &Opts);

/// Opens and imports the rocpd database at \p Path.
llvm::Expected<model::Trace> importRocpd(llvm::StringRef Path,
                                         const ImportOptions &Opts = {});

/// The same for a database image in memory (fuzzers, tests), opened with
/// sqlite3_deserialize, read-only; \p Name stands for the file in messages.
llvm::Expected<model::Trace> importRocpdBytes(llvm::StringRef Name,
                                              llvm::StringRef Bytes,
                                              const ImportOptions &Opts = {});

} // namespace tracelint::import

#endif
