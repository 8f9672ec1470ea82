//===- import/SqliteImport.h - Which profiler wrote SQLite ------*- C++ -*-===//
//
// Two profilers write SQLite: rocprofv3 (its default rocpd output) and Nsight
// Systems (`nsys export --type sqlite`). The file's tables tell them apart;
// the bytes of the header cannot.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_IMPORT_SQLITEIMPORT_H
#define TRACELINT_IMPORT_SQLITEIMPORT_H

#include "import/Import.h"
#include "model/Trace.h"

#include "llvm/Support/Error.h"

namespace tracelint::import {

/// Imports the SQLite database at \p Path: a rocprofv3 rocpd database, or
/// else an Nsight Systems export, whose importer explains what any other
/// SQLite file is. rocmProfileData's (RPD) databases, whose tables are also
/// named rocpd_*, are rejected with what to do instead.
llvm::Expected<model::Trace> importSqliteFile(llvm::StringRef Path,
                                              const ImportOptions &Opts = {});

/// The same for a database image in memory (fuzzers, tests); \p Name stands
/// for the file in messages.
llvm::Expected<model::Trace> importSqliteBytes(llvm::StringRef Name,
                                               llvm::StringRef Bytes,
                                               const ImportOptions &Opts = {});

} // namespace tracelint::import

#endif
