//===- rules/SyncInputTransferTest.cpp - D002 sync input transfer ---------===//
#include "../DetectorTestSupport.h"

#include "gtest/gtest.h"

using namespace tracelint;
using namespace tracelint::testing;
using analysis::TraceIndex;
using model::EventKind;

namespace {

enum class InputVariant { Synced, NonBlocking, Pageable, PageableSynced };

/// 4 steps of 10 ms (times from the step start). aten::to [0.1, 1.5)
/// issues an HtoD copy of 1 MB: the call [0.2, 0.21) queues the copy
/// [0.21, 1.41) on the compute stream (a pageable call blocks until 1.41).
/// Synced variants then wait in cudaStreamSynchronize [0.22, 1.42). The host
/// does other work until it launches the first kernel at [2.0, 2.01) ->
/// [2.01, 9.5). NonBlocking: aten::to ends at 0.3 and the kernel is launched
/// at [0.8, 0.81), queued behind the copy: [1.41, 8.9).
model::Trace transferTrace(InputVariant V, bool Directed = true) {
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  bool Pageable =
      V == InputVariant::Pageable || V == InputVariant::PageableSynced;
  bool Synced = V == InputVariant::Synced || V == InputVariant::PageableSynced;
  model::EventArgs A;
  if (Directed) {
    A.Copy = model::CopyKind::HtoD;
    A.Src = Pageable ? model::MemoryKind::Pageable : model::MemoryKind::Pinned;
    A.Dst = model::MemoryKind::Device;
  }
  A.Bytes = 1'000'000;
  for (int K = 0; K < 4; ++K) {
    int64_t T0 = K * 10 * Ms;
    M.step(K + 1, T0, T0 + 10 * Ms);
    if (V == InputVariant::NonBlocking) {
      M.op("aten::to", T0 + 100 * Us, T0 + 300 * Us);
      M.launch(S, "Memcpy HtoD", T0 + 200 * Us, T0 + 210 * Us, T0 + 210 * Us,
               T0 + 1410 * Us, "cudaMemcpyAsync", EventKind::Memcpy, &A);
      M.launch(S, "conv", T0 + 800 * Us, T0 + 810 * Us, T0 + 1410 * Us,
               T0 + 8900 * Us);
      continue;
    }
    M.op("aten::to", T0 + 100 * Us, T0 + 1500 * Us);
    M.launch(S, "Memcpy HtoD", T0 + 200 * Us, T0 + (Pageable ? 1410 : 210) * Us,
             T0 + 210 * Us, T0 + 1410 * Us, "cudaMemcpyAsync",
             EventKind::Memcpy, &A);
    if (Synced)
      M.runtime("cudaStreamSynchronize", T0 + (Pageable ? 1415 : 220) * Us,
                T0 + 1420 * Us);
    M.launch(S, "conv", T0 + 2000 * Us, T0 + 2010 * Us, T0 + 2010 * Us,
             T0 + 9500 * Us);
  }
  return M.finish();
}

TEST(InputTransferDetector, AWaitAfterAPinnedCopyFires) {
  model::Trace T = transferTrace(InputVariant::Synced);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("D002", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  // The wait [0.22, 1.42) is 1.2 ms; the device is idle from the copy's end
  // (1.41) to the kernel (2.01): 0.6 ms.
  EXPECT_EQ(Out.front().ImpactNs, 600 * Us);
  EXPECT_EQ(Out.front().Values.at("wait_time"), "1.2 ms");
  EXPECT_EQ(Out.front().Values.at("claimed"), "0 ns");
  EXPECT_EQ(Out.front().Subject, "aten::to > cudaMemcpyAsync");
  EXPECT_EQ(Out.front().Window, "steps 2-4");
}

TEST(InputTransferDetector, ANonBlockingCopyIsQuiet) {
  model::Trace T = transferTrace(InputVariant::NonBlocking);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("D002", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
}

TEST(InputTransferDetector, PageableStagingIsLeftToM002) {
  // The pageable call blocks [0.2, 1.41): the 0.61 ms of idle behind
  // it is M002's, and nothing else waits.
  model::Trace T = transferTrace(InputVariant::Pageable);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("D002", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
}

TEST(InputTransferDetector, ASyncAfterAPageableCopyCountsOnlyItsOwnPart) {
  // The pageable call [0.2, 1.41) claims min(1.21, 0.61) = 0.61 ms for M002;
  // the sync [1.415, 1.42) adds nothing M002 does not already claim.
  model::Trace T = transferTrace(InputVariant::PageableSynced);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("D002", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
  // With a threshold of zero, nothing positive is left to report either.
  Out.clear();
  EXPECT_EQ(run("D002", Ctx, Out, {{"min-share-of-step", 0.0}}), "");
  EXPECT_TRUE(Out.empty());
}

TEST(InputTransferDetector, TheThresholdDecides) {
  model::Trace T = transferTrace(InputVariant::Synced);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("D002", Ctx, Out, {{"min-share-of-step", 0.07}}), "");
  EXPECT_TRUE(Out.empty());
}

TEST(InputTransferDetector, CannotJudgeCopiesWithoutDirection) {
  model::Trace T = transferTrace(InputVariant::Synced, /*Directed=*/false);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_NE(run("D002", Ctx, Out).find("do not say their direction"),
            std::string::npos);
  EXPECT_TRUE(Out.empty());
}

} // namespace
