//===- import/BatchPipeline.cpp -------------------------------------------===//
#include "import/BatchPipeline.h"

#include <cassert>
#include <system_error>

using namespace tracelint::import;

void EventBatch::decodeRange(size_t From, size_t Len, DecodeCache &Cache) {
  if (Len == 0) {
    // Only separators: nothing to parse.
    Decoded.clear();
    return;
  }
  // Wrap the events in '[' ... ']' in place; the bytes around them belong to
  // this batch alone.
  char SavedBefore = Buf[From - 1];
  char SavedAfter = Buf[From + Len];
  Buf[From - 1] = '[';
  Buf[From + Len] = ']';
  size_t Allocated = allocationSize(Capacity) - (From - 1);
  decodeEventArray(Parser, Cache, Buf.get() + From - 1, Len + 2, Allocated,
                   offsetOf(From) - 1, Decoded);
  Buf[From - 1] = SavedBefore;
  Buf[From + Len] = SavedAfter;
}

BatchPipeline::BatchPipeline(unsigned NumSlots) {
  assert(NumSlots >= 2 && "a pipeline needs room to overlap");
  for (unsigned I = 0; I < NumSlots; ++I)
    Slots.push_back(std::make_unique<Slot>());
}

BatchPipeline::~BatchPipeline() {
  {
    std::lock_guard<std::mutex> G(Lock);
    Stop = true;
  }
  WorkQueued.notify_all();
  if (Worker.joinable())
    Worker.join();
}

BatchPipeline::Slot *BatchPipeline::claimQueued() {
  for (uint64_t N = Committed; N < Submitted; ++N) {
    Slot &S = slot(N);
    if (S.St == State::Queued) {
      S.St = State::Decoding;
      return &S;
    }
  }
  return nullptr;
}

llvm::Expected<bool> BatchPipeline::step(CommitFn Commit) {
  std::unique_lock<std::mutex> L(Lock);
  if (Committed == Submitted)
    return false;
  Slot &Head = slot(Committed);
  if (Head.St == State::Decoded) {
    L.unlock();
    llvm::Error E = Commit(Head.Batch);
    L.lock();
    Head.St = State::Free;
    ++Committed;
    if (E)
      return E;
    return true;
  }
  if (Slot *S = claimQueued()) {
    L.unlock();
    S->Batch.decode(CallerCache);
    L.lock();
    S->St = State::Decoded;
    return true;
  }
  // The oldest batch is with the worker and nothing else is queued.
  WorkDecoded.wait(L, [&] { return Head.St == State::Decoded; });
  return true;
}

llvm::Expected<EventBatch &> BatchPipeline::acquire(CommitFn Commit) {
  while (true) {
    {
      std::lock_guard<std::mutex> G(Lock);
      // Commit eagerly whatever is ready, so that a free slot comes before
      // the thread turns to decoding.
      bool HeadReady =
          Committed < Submitted && slot(Committed).St == State::Decoded;
      if (!HeadReady && Submitted - Committed < Slots.size()) {
        Slot &S = slot(Submitted);
        assert(S.St == State::Free && "slots are freed in order");
        S.St = State::Filling;
        return S.Batch;
      }
    }
    auto Progress = step(Commit);
    if (!Progress)
      return Progress.takeError();
  }
}

void BatchPipeline::submit(bool UseWorker) {
  {
    std::lock_guard<std::mutex> G(Lock);
    Slot &S = slot(Submitted);
    assert(S.St == State::Filling && "submit() without acquire()");
    S.St = State::Queued;
    ++Submitted;
  }
  if (UseWorker && !Worker.joinable()) {
    try {
      Worker = std::thread([this] { runWorker(); });
    } catch (const std::system_error &) {
      // No thread to be had: the caller decodes every batch itself.
    }
  }
  WorkQueued.notify_one();
}

llvm::Error BatchPipeline::drain(CommitFn Commit) {
  while (true) {
    auto Progress = step(Commit);
    if (!Progress)
      return Progress.takeError();
    if (!*Progress)
      return llvm::Error::success();
  }
}

void BatchPipeline::runWorker() {
  std::unique_lock<std::mutex> L(Lock);
  while (true) {
    Slot *S = nullptr;
    WorkQueued.wait(L, [&] { return Stop || (S = claimQueued()); });
    if (Stop)
      return;
    L.unlock();
    S->Batch.decode(WorkerCache);
    L.lock();
    S->St = State::Decoded;
    WorkDecoded.notify_one();
  }
}
