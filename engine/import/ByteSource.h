//===- import/ByteSource.h - Streaming input bytes --------------*- C++ -*-===//
//
// Traces are read as a stream of bytes, never mapped or loaded whole: the
// importer keeps memory bounded by its batch buffers whatever the file size,
// and a FIFO or a gzip stream reads the same way as a plain file. Compression
// is detected from the magic bytes, not from the file name.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_IMPORT_BYTESOURCE_H
#define TRACELINT_IMPORT_BYTESOURCE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <string>

namespace tracelint::import {

class ByteSource {
public:
  virtual ~ByteSource();
  /// Reads up to \p N bytes into \p Dst. Returns 0 only at the end of input.
  virtual llvm::Expected<size_t> read(char *Dst, size_t N) = 0;
  /// True when the input ended before its format said it would (a gzip
  /// stream cut short). Meaningful once read() returned 0.
  virtual bool truncated() const { return false; }
  /// Bytes after the end of the compressed stream that are not another
  /// gzip member.
  virtual uint64_t trailingBytes() const { return 0; }
  /// When decoding stopped at damaged compressed data after some content
  /// had been produced: what and where ("gzip data corrupt near compressed
  /// byte 244 (incorrect checksum)"); the content before it was delivered
  /// and truncated() is true. Empty otherwise.
  virtual std::string damage() const { return {}; }
};

struct OpenedSource {
  std::unique_ptr<ByteSource> Source;
  bool Gzip = false;
  /// Size of the file on disk (0 for a FIFO).
  uint64_t FileSize = 0;
  /// A regular file (or memory), not a pipe, FIFO or device.
  bool Regular = true;
  /// The first bytes of the (decompressed) content, for sniffing. They are
  /// not consumed: Source starts with them.
  std::string Head;
};

/// Opens \p Path (a regular file or a FIFO; not a directory), detects gzip by
/// its magic bytes and returns a source of the decompressed content, with its
/// first bytes available for sniffing. Reading and inflating happen on the
/// calling thread, straight into the caller's buffers (the importer overlaps
/// them with decoding on its own worker thread).
///
/// A pipe, FIFO or device may never deliver (a FIFO nobody writes to): each
/// read from one waits at most \p WaitMs for data (0: forever), then fails
/// with an error that says so.
llvm::Expected<OpenedSource> openSource(llvm::StringRef Path,
                                        unsigned WaitMs = 0);

/// The same for bytes in memory (which must outlive the source); \p Name
/// stands for the file in messages.
llvm::Expected<OpenedSource> openMemorySource(llvm::StringRef Name,
                                              llvm::StringRef Bytes);

/// Everything that can be read from the open descriptor \p FD (standard
/// input), undecoded: the importer detects compression in memory as it does
/// in a file. \p Name stands for the input in messages; a pipe or device
/// waits at most \p WaitMs for each read, as in openSource(). \p FD stays
/// open.
llvm::Expected<std::string> readDescriptor(int FD, llvm::StringRef Name,
                                           unsigned WaitMs = 0);

} // namespace tracelint::import

#endif
