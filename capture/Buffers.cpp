//===- capture/Buffers.cpp - Activity buffers for CUPTI -------------------===//
#include "Buffers.h"

#include <cstdlib>

using namespace tracelint::capture;

namespace {
constexpr size_t Alignment = 8;
} // namespace

BufferPool::BufferPool(size_t S, size_t MaxPooled, AllocFn A)
    : Size((S + Alignment - 1) / Alignment * Alignment), MaxPooled(MaxPooled),
      Alloc(A ? A
              : [](size_t Al, size_t N) { return std::aligned_alloc(Al, N); }) {
  if (Size == 0)
    Size = Alignment;
}

BufferPool::~BufferPool() {
  for (uint8_t *B : Free)
    std::free(B);
}

uint8_t *BufferPool::request(size_t &OutSize) {
  std::lock_guard<std::mutex> Lock(M);
  ++Counts.Requested;
  uint8_t *B = nullptr;
  if (!Free.empty()) {
    B = Free.back();
    Free.pop_back();
  } else {
    B = static_cast<uint8_t *>(Alloc(Alignment, Size));
    if (!B) {
      ++Counts.Failed;
      OutSize = 0;
      return nullptr;
    }
    ++Counts.Allocated;
  }
  ++Counts.Outstanding;
  OutSize = Size;
  return B;
}

void BufferPool::release(uint8_t *Buffer) {
  if (!Buffer)
    return;
  std::lock_guard<std::mutex> Lock(M);
  ++Counts.Completed;
  if (Counts.Outstanding)
    --Counts.Outstanding;
  if (Free.size() < MaxPooled)
    Free.push_back(Buffer);
  else
    std::free(Buffer);
}

BufferCounts BufferPool::counts() const {
  std::lock_guard<std::mutex> Lock(M);
  return Counts;
}
