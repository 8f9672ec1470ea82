//===- fuzz/NsysFuzzer.cpp - Any bytes as an SQLite profile ---------------===//
//
// The input is an SQLite database image, opened with sqlite3_deserialize
// (read-only) under the importers' restrictions, imported as the command
// line would (a rocprofv3 rocpd database, else an nsys export) and linted.
// Seeds are the fixtures' exports and rocpd databases; most mutations damage
// pages, which must give an error naming the table, never a crash.
//
//===----------------------------------------------------------------------===//
#include "FuzzLint.h"

#include "import/SqliteImport.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef Bytes(reinterpret_cast<const char *>(Data), Size);
  tracelint::import::ImportOptions Opts;
  Opts.MaxEvents = 100000;
  auto Trace = tracelint::import::importSqliteBytes("fuzz.sqlite", Bytes, Opts);
  if (!Trace) {
    llvm::consumeError(Trace.takeError());
    return 0;
  }
  tracelint::fuzz::lintTrace(*Trace, "fuzz.sqlite");
  return 0;
}
