//===- capture/Buffers.h - Activity buffers for CUPTI -----------*- C++ -*-===//
//
// CUPTI asks for a buffer when it needs one and hands it back full; the
// library walks the records and returns the buffer here. A few buffers are
// kept for reuse so that steady capture does not allocate; the rest are
// freed. Allocation failure is not fatal: CUPTI then drops records and
// reports how many.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_CAPTURE_BUFFERS_H
#define TRACELINT_CAPTURE_BUFFERS_H

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

namespace tracelint::capture {

struct BufferCounts {
  uint64_t Requested = 0; ///< buffers handed to CUPTI
  uint64_t Failed = 0;    ///< requests that got no memory
  uint64_t Completed = 0; ///< buffers handed back
  uint64_t Allocated = 0; ///< buffers allocated (the rest were reused)
  uint64_t Records = 0;   ///< records walked in completed buffers
  size_t Outstanding = 0; ///< with CUPTI now
};

class BufferPool {
public:
  /// Buffers of \p Size bytes (rounded up to 8); at most \p MaxPooled free
  /// buffers are kept for reuse.
  /// \p Alloc(alignment, size) allocates (std::aligned_alloc; tests inject
  /// failures); buffers are released with std::free.
  using AllocFn = void *(*)(size_t Alignment, size_t Size);
  explicit BufferPool(size_t Size = 4 << 20, size_t MaxPooled = 4,
                      AllocFn Alloc = nullptr);
  ~BufferPool();
  BufferPool(const BufferPool &) = delete;
  BufferPool &operator=(const BufferPool &) = delete;

  /// An 8-byte aligned buffer and its size, or nullptr (Size 0) when memory
  /// is exhausted.
  uint8_t *request(size_t &Size);
  /// Takes back a buffer that request() returned (nullptr is ignored).
  void release(uint8_t *Buffer);

  /// Walks the records of a completed buffer: \p Next(Buffer, Valid, Record)
  /// returns false after the last record (CUPTI's cuptiActivityGetNextRecord
  /// in the library, an in-memory format in tests); \p Handle is called on
  /// each. Returns the number of records.
  template <typename RecordT, typename NextFn, typename HandleFn>
  size_t walk(uint8_t *Buffer, size_t Valid, NextFn Next, HandleFn Handle) {
    size_t N = 0;
    RecordT *Record = nullptr;
    if (Buffer && Valid)
      while (Next(Buffer, Valid, &Record)) {
        Handle(Record);
        ++N;
      }
    std::lock_guard<std::mutex> Lock(M);
    Counts.Records += N;
    return N;
  }

  BufferCounts counts() const;
  size_t bufferSize() const { return Size; }

private:
  size_t Size, MaxPooled;
  AllocFn Alloc;
  mutable std::mutex M;
  std::vector<uint8_t *> Free;
  BufferCounts Counts;
};

} // namespace tracelint::capture

#endif
