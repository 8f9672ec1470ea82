//===- fuzz/GzipFuzzer.cpp - The gzip layer alone -------------------------===//
//
// The input is read through the byte-source layer (gzip detection, streaming
// inflation of one or more members, truncation and trailing-byte checks) to
// its end, into a fixed buffer, so that a small input that inflates to a lot
// costs time but not memory.
//
//===----------------------------------------------------------------------===//
#include "import/ByteSource.h"

#include <cstddef>
#include <cstdint>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef Bytes(reinterpret_cast<const char *>(Data), Size);
  auto Opened = tracelint::import::openMemorySource("fuzz.gz", Bytes);
  if (!Opened) {
    llvm::consumeError(Opened.takeError());
    return 0;
  }
  std::vector<char> Buf(1 << 16);
  uint64_t Total = 0;
  // 64 MiB of output is plenty to reach every state of the inflater.
  while (Total < (64u << 20)) {
    auto Got = Opened->Source->read(Buf.data(), Buf.size());
    if (!Got) {
      llvm::consumeError(Got.takeError());
      return 0;
    }
    if (*Got == 0)
      break;
    Total += *Got;
  }
  (void)Opened->Source->truncated();
  (void)Opened->Source->trailingBytes();
  return 0;
}
