//===- HostWaitsTest.cpp - The trace index's host waits and their bound ---===//
//
// What TraceIndex says about host waits, which S001, S002, S003, U002 and
// the idle attribution all read: which calls block the host, that no wait
// is counted twice, which waits flush the window, and the one bound on what
// removing waits can gain.
//
//===----------------------------------------------------------------------===//
#include "DetectorTestSupport.h"

#include "gtest/gtest.h"

using namespace tracelint;
using namespace tracelint::testing;
using analysis::HostWait;
using analysis::TraceIndex;
using analysis::WaitKind;
using model::EventKind;

namespace {

TEST(HostWaits, ClassifiesWaits) {
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  M.runtime("cudaStreamSynchronize", 0, 1);
  M.runtime("hipEventSynchronize", 10, 11);
  M.runtime("cuCtxSynchronize", 20, 21);
  M.runtime("cudaMemcpy", 30, 31);
  M.runtime("hipMemcpyWithStream", 40, 41);
  M.runtime("cudaEventRecord", 50, 51);
  M.runtime("cudaLaunchKernel", 60, 61);
  model::EventArgs Pageable;
  Pageable.Copy = model::CopyKind::DtoH;
  Pageable.Src = model::MemoryKind::Device;
  Pageable.Dst = model::MemoryKind::Pageable;
  M.launch(S, "Memcpy DtoH (Device -> Pageable)", 70, 71, 72, 73,
           "cudaMemcpyAsync", EventKind::Memcpy, &Pageable);
  model::EventArgs Pinned = Pageable;
  Pinned.Dst = model::MemoryKind::Pinned;
  M.launch(S, "Memcpy DtoH (Device -> Pinned)", 80, 81, 82, 83,
           "cudaMemcpyAsync", EventKind::Memcpy, &Pinned);
  M.op("aten::nonzero", 90, 91);
  M.op("aten::add", 100, 101);
  model::Trace T = M.finish();
  TraceIndex Ctx(T);
  std::vector<std::pair<std::string, WaitKind>> Got;
  for (const model::Event &E : T.events(T.Lanes[M.Host]))
    Got.push_back({T.name(E).str(), Ctx.waitKind(E)});
  std::vector<std::pair<std::string, WaitKind>> Want = {
      {"cudaStreamSynchronize", WaitKind::Explicit},
      {"hipEventSynchronize", WaitKind::Explicit},
      {"cuCtxSynchronize", WaitKind::Explicit},
      {"cudaMemcpy", WaitKind::BlockingCopy},
      {"hipMemcpyWithStream", WaitKind::BlockingCopy},
      {"cudaEventRecord", WaitKind::None},
      {"cudaLaunchKernel", WaitKind::None},
      {"cudaMemcpyAsync", WaitKind::BlockingCopy},
      {"cudaMemcpyAsync", WaitKind::None},
      {"aten::nonzero", WaitKind::ImplicitOp},
      {"aten::add", WaitKind::None},
  };
  EXPECT_EQ(Got, Want);
}

TEST(HostWaits, RecordsAndStreamWaitsAreNotHostWaits) {
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  M.launch(S, "gemm", 0, 10 * Us, 10 * Us, 1 * Ms);
  M.runtime("cudaEventRecord", 20 * Us, 3 * Ms);
  M.runtime("cudaStreamWaitEvent", 3 * Ms, 6 * Ms);
  M.runtime("cudaEventQuery", 6 * Ms, 8 * Ms);
  model::Trace T = M.finish();
  TraceIndex Ctx(T);
  EXPECT_TRUE(Ctx.hostWaits().empty());
}

TEST(HostWaits, AnOpsOwnRuntimeWaitReplacesIt) {
  // aten::item [0.2, 2.1) ms holds cudaStreamSynchronize [0.3, 2.05) ms:
  // one explicit wait, the synchronize, not two.
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  M.launch(S, "gemm", 100 * Us, 110 * Us, 110 * Us, 2 * Ms);
  M.op("aten::item", 200 * Us, 2100 * Us);
  M.runtime("cudaStreamSynchronize", 300 * Us, 2050 * Us);
  model::Trace T = M.finish();
  TraceIndex Ctx(T);
  ASSERT_EQ(Ctx.hostWaits().size(), 1u);
  EXPECT_EQ(Ctx.hostWaits()[0].Kind, WaitKind::Explicit);
  EXPECT_EQ(Ctx.hostWaits()[0].Range.length(), 1750 * Us);
  EXPECT_EQ(T.name(T.Events[Ctx.hostWaits()[0].Event]),
            "cudaStreamSynchronize");
}

TEST(HostWaits, TheWaitAfterTheLastStepFlushesTheWindow) {
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  for (int K = 0; K < 3; ++K) {
    int64_t T0 = K * 10 * Ms;
    M.step(K + 1, T0, T0 + 10 * Ms);
    M.launch(S, "gemm", T0 + 100 * Us, T0 + 110 * Us, T0 + 110 * Us,
             T0 + 9 * Ms);
    M.runtime("cudaStreamSynchronize", T0 + 200 * Us, T0 + 9 * Ms);
  }
  M.runtime("cudaDeviceSynchronize", 30 * Ms, 34 * Ms);
  model::Trace T = M.finish();
  TraceIndex Ctx(T);
  std::vector<bool> Flush;
  for (const HostWait &W : Ctx.hostWaits())
    Flush.push_back(Ctx.isFlushWait(W));
  EXPECT_EQ(Flush, (std::vector<bool>{false, false, false, true}));
}

TEST(HostWaits, WithoutStepsTheWaitAfterTheLastSubmissionFlushes) {
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  M.launch(S, "a", 0, 10 * Us, 10 * Us, 1 * Ms);
  M.runtime("hipDeviceSynchronize", 20 * Us, 1 * Ms); // a launch follows
  M.launch(S, "b", 3 * Ms, 3010 * Us, 3010 * Us, 5 * Ms);
  M.runtime("hipDeviceSynchronize", 3020 * Us, 5 * Ms); // nothing follows
  model::Trace T = M.finish();
  TraceIndex Ctx(T);
  ASSERT_EQ(Ctx.hostWaits().size(), 2u);
  EXPECT_FALSE(Ctx.isFlushWait(Ctx.hostWaits()[0]));
  EXPECT_TRUE(Ctx.isFlushWait(Ctx.hostWaits()[1]));
}

TEST(HostWaits, WaitsBeforeTheSameWorkShareOneGap) {
  // The device is idle from 1 ms to 10 ms. Two waits, [2, 4) and [5, 8) ms,
  // both before the next kernel at 10 ms: removing both moves it earlier by
  // at most 2 + 3 = 5 ms, within the 8 ms of idle time after 2 ms.
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  M.launch(S, "a", 0, 10 * Us, 10 * Us, 1 * Ms);
  M.runtime("cudaStreamSynchronize", 2 * Ms, 4 * Ms);
  M.runtime("cudaStreamSynchronize", 5 * Ms, 8 * Ms);
  M.launch(S, "b", 9 * Ms, 10 * Ms, 10 * Ms, 11 * Ms);
  // A third wait [10.2, 10.8) ms while b runs, before c at 11.5 ms: idle
  // [11, 11.5) = 0.5 ms, under its 0.6 ms length.
  M.runtime("cudaStreamSynchronize", 10200 * Us, 10800 * Us);
  M.launch(S, "c", 11400 * Us, 11500 * Us, 11500 * Us, 12 * Ms);
  model::Trace T = M.finish();
  TraceIndex Ctx(T);
  ASSERT_EQ(Ctx.hostWaits().size(), 3u);
  llvm::ArrayRef<HostWait> W = Ctx.hostWaits();
  EXPECT_EQ(Ctx.waitsGainBound(W, {0, 13 * Ms}), 5 * Ms + 500 * Us);
  // The first two only, in a range that ends at 3 ms: 1 ms of the first
  // wait is inside it.
  EXPECT_EQ(Ctx.waitsGainBound(W.take_front(2), {0, 3 * Ms}), 1 * Ms);
  // Only the second: min(3 ms, idle [5, 10) = 5 ms) = 3 ms.
  EXPECT_EQ(Ctx.waitsGainBound(W.slice(1, 1), {0, 13 * Ms}), 3 * Ms);
}

} // namespace
