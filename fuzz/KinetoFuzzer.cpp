//===- fuzz/KinetoFuzzer.cpp - Any bytes as a trace file ------------------===//
//
// The input is a whole file: sniffing, gzip, the Chrome/Kineto JSON importer
// (and the nsys importer when the bytes look like SQLite), then statistics,
// rules and reports on whatever imported. Nothing may crash, hang or trip a
// sanitizer; errors are the expected outcome for most inputs.
//
//===----------------------------------------------------------------------===//
#include "FuzzLint.h"

#include "import/Import.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef Bytes(reinterpret_cast<const char *>(Data), Size);
  tracelint::import::ImportOptions Opts;
  Opts.MaxEvents = 100000; // bounded work per input
  auto Trace = tracelint::import::importTraceBytes("fuzz.json", Bytes, Opts);
  if (!Trace) {
    llvm::consumeError(Trace.takeError());
    return 0;
  }
  tracelint::fuzz::lintTrace(*Trace, "fuzz.json");
  return 0;
}
