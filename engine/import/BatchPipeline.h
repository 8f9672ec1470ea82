//===- import/BatchPipeline.h - Decoding batches in parallel ----*- C++ -*-===//
//
// Parsing the event array (simdjson plus field decoding) is most of an
// import's work, and it needs nothing from the model. The pipeline decodes
// batches on a worker thread while the importing thread reads and cuts the
// next ones, and hands decoded batches back strictly in file order, so that
// the model, its statistics and its messages are exactly those of a serial
// import whatever the threads' timing.
//
// A batch owns the buffer that holds its bytes and the simdjson parser whose
// string buffer its decoded strings point into, so both live until it is
// committed. The slots form a small ring that is reused from batch to batch:
// memory stays bounded and warm (first touches of fresh memory are a large
// part of an import's cost). The importing thread does not sit idle while
// the ring is full: it decodes queued batches itself, so both cores work.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_IMPORT_BATCHPIPELINE_H
#define TRACELINT_IMPORT_BATCHPIPELINE_H

#include "import/KinetoEvents.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"

#include <simdjson.h>

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace tracelint::import {

/// A run of whole events cut from the input, with everything its decoded
/// form refers to.
struct EventBatch {
  /// Input goes to Buf[1, Capacity + 1); see allocate().
  std::unique_ptr<char[]> Buf;
  size_t Capacity = 0;
  /// The events are Buf[Pos, Pos + Size), inside that window.
  size_t Pos = 0, Size = 0;
  /// Input offset of Buf[0] (negative for the first bytes of the input).
  int64_t BufOffset = 0;
  simdjson::ondemand::parser Parser;
  DecodedBatch Decoded;

  /// A buffer for \p Capacity bytes of input after a byte of headroom (so
  /// that batches can be wrapped in '[' ... ']' in place), with room for the
  /// ']' and simdjson's padding after.
  static std::unique_ptr<char[]> allocate(size_t Capacity) {
    return std::unique_ptr<char[]>(new char[allocationSize(Capacity)]);
  }
  static size_t allocationSize(size_t Capacity) {
    return 1 + Capacity + 1 + simdjson::SIMDJSON_PADDING;
  }

  uint64_t offsetOf(size_t BufPos) const {
    return uint64_t(BufOffset + int64_t(BufPos));
  }
  /// Parses the events into Decoded.
  void decode(DecodeCache &Cache) { decodeRange(Pos, Size, Cache); }
  /// Parses Buf[From, From + Len), whole elements, into Decoded.
  void decodeRange(size_t From, size_t Len, DecodeCache &Cache);
};

class BatchPipeline {
public:
  using CommitFn = llvm::function_ref<llvm::Error(EventBatch &)>;

  /// \p Slots batches may be in flight (cut, queued, decoding or decoded).
  explicit BatchPipeline(unsigned Slots);
  /// Stops the worker, dropping batches not yet committed.
  ~BatchPipeline();
  BatchPipeline(const BatchPipeline &) = delete;
  BatchPipeline &operator=(const BatchPipeline &) = delete;

  /// The batch to fill next. Its buffer is the one an earlier batch used (or
  /// empty at first): the caller swaps it with its own. While every slot is
  /// in flight, this commits decoded batches in order through \p Commit and
  /// decodes queued ones on the calling thread; an error from \p Commit is
  /// returned.
  llvm::Expected<EventBatch &> acquire(CommitFn Commit);
  /// Queues the batch returned by the last acquire() for decoding. The worker
  /// thread is started by the first submit with \p UseWorker set, so that an
  /// input of a single batch is decoded on the calling thread alone.
  void submit(bool UseWorker);
  /// Decodes and commits every submitted batch.
  llvm::Error drain(CommitFn Commit);
  /// The cache for decoding on the calling thread (in a CommitFn, say).
  DecodeCache &callerCache() { return CallerCache; }
  /// The name classes both decoding threads classify kernels by.
  void setNames(const model::NameClassifier *N) {
    CallerCache.setNames(N);
    WorkerCache.setNames(N);
  }

private:
  enum class State : uint8_t { Free, Filling, Queued, Decoding, Decoded };
  struct Slot {
    EventBatch Batch;
    State St = State::Free;
  };

  Slot &slot(uint64_t Seq) { return *Slots[Seq % Slots.size()]; }
  /// Does one piece of work on the calling thread: commits the oldest batch
  /// if it is decoded, or else decodes the oldest queued batch, or else
  /// waits for the worker. Returns false when nothing is in flight.
  llvm::Expected<bool> step(CommitFn Commit);
  /// Claims the oldest queued batch, if any. Needs Lock held.
  Slot *claimQueued();
  void runWorker();

  std::vector<std::unique_ptr<Slot>> Slots;
  // One per decoding thread: the caller's and the worker's.
  DecodeCache CallerCache{0}, WorkerCache{1};
  // Batch numbers, in input order: [Committed, Submitted) are in flight and
  // batch N lives in slot N % Slots.size().
  uint64_t Submitted = 0, Committed = 0;
  // Guards the slots' states and Stop. A slot's batch belongs to whichever
  // thread moved it to Filling or Decoding, or committed it: the state
  // changes under the lock hand its memory over between threads.
  std::mutex Lock;
  std::condition_variable WorkQueued, WorkDecoded;
  bool Stop = false;
  std::thread Worker;
};

} // namespace tracelint::import

#endif
