//===- rules/BlockingDeviceReadsTest.cpp - S003 blocking device reads -----===//
#include "../DetectorTestSupport.h"

#include "gtest/gtest.h"

using namespace tracelint;
using namespace tracelint::testing;
using analysis::TraceIndex;
using model::EventKind;

namespace {

model::EventArgs copyArgs(model::CopyKind K, model::MemoryKind Src,
                          model::MemoryKind Dst) {
  model::EventArgs A;
  A.Copy = K;
  A.Src = Src;
  A.Dst = Dst;
  A.Bytes = 4096;
  return A;
}

/// 4 steps of 10 ms (t0 = step start): a gemm [0.11, 2.0) ms, a read that
/// \p Read lays out between 0.2 and 2.1 ms, and a relu [5.01, 6.0) ms.
template <typename Fn> model::Trace readTrace(Fn Read) {
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  for (int K = 0; K < 4; ++K) {
    int64_t T0 = K * 10 * Ms;
    M.step(K + 1, T0, T0 + 10 * Ms);
    M.launch(S, "gemm", T0 + 100 * Us, T0 + 110 * Us, T0 + 110 * Us,
             T0 + 2 * Ms);
    Read(M, S, T0);
    M.launch(S, "relu", T0 + 5 * Ms, T0 + 5010 * Us, T0 + 5010 * Us,
             T0 + 6 * Ms);
  }
  return M.finish();
}

TEST(BlockingDeviceReads, AnItemWithoutRuntimeCallsIsAValueRead) {
  // aten::item [0.2, 2.1) ms with no runtime calls recorded: the op itself
  // is the wait (1.9 ms). The device is idle from 2.0 to 5.01 ms, so the
  // bound is min(1.9, 3.01) = 1.9 ms per step.
  model::Trace T = readTrace([](TraceMaker &M, uint32_t, int64_t T0) {
    M.op("aten::item", T0 + 200 * Us, T0 + 2100 * Us);
  });
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("S003", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  const rules::Detection &D = Out.front();
  EXPECT_EQ(D.Subject, "aten::item");
  EXPECT_EQ(D.ImpactNs, 1900 * Us);
  EXPECT_EQ(D.Values.at("count"), "1");
  EXPECT_EQ(D.Values.at("value_reads"), "3");
  EXPECT_EQ(D.Values.at("copy_reads"), "0");
  EXPECT_EQ(D.Values.at("share"), "19.0 %");
  EXPECT_FALSE(D.SeverityOverride.has_value());
}

TEST(BlockingDeviceReads, ASynchronousDtoHCopyIsACopyRead) {
  // A cudaMemcpy DtoH [0.2, 2.1) ms without ops (a runtime-only trace): the
  // copy runs [2.0, 2.1) after the gemm.
  model::EventArgs A =
      copyArgs(model::CopyKind::DtoH, model::MemoryKind::Device,
               model::MemoryKind::Pageable);
  model::Trace T = readTrace([&](TraceMaker &M, uint32_t S, int64_t T0) {
    M.launch(S, "Memcpy DtoH (Device -> Pageable)", T0 + 200 * Us,
             T0 + 2100 * Us, T0 + 2 * Ms, T0 + 2100 * Us, "cudaMemcpy",
             EventKind::Memcpy, &A);
  });
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("S003", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_EQ(Out.front().Subject, "cudaMemcpy");
  EXPECT_EQ(Out.front().Values.at("copy_reads"), "3");
  EXPECT_EQ(Out.front().Values.at("how"),
            "a device-to-host copy the host waits for");
  EXPECT_EQ(Out.front().Values.at("top_count"), "1.0");
  // Idle from the wait's start to the relu: [2.1, 5.01) = 2.91 ms, capped
  // by the 1.9 ms wait.
  EXPECT_EQ(Out.front().ImpactNs, 1900 * Us);
}

TEST(BlockingDeviceReads, ASyncInsideACopyToTheDeviceIsNotARead) {
  // aten::to holding an HtoD copy and a stream synchronize: the host waits,
  // but reads nothing back (S001's, not S003's).
  model::EventArgs A =
      copyArgs(model::CopyKind::HtoD, model::MemoryKind::Pinned,
               model::MemoryKind::Device);
  model::Trace T = readTrace([&](TraceMaker &M, uint32_t S, int64_t T0) {
    M.op("aten::to", T0 + 200 * Us, T0 + 2100 * Us);
    M.launch(S, "Memcpy HtoD (Pinned -> Device)", T0 + 250 * Us, T0 + 260 * Us,
             T0 + 2 * Ms, T0 + 2010 * Us, "cudaMemcpyAsync", EventKind::Memcpy,
             &A);
    M.runtime("cudaStreamSynchronize", T0 + 300 * Us, T0 + 2050 * Us);
  });
  TraceIndex Ctx(T);
  ASSERT_FALSE(Ctx.hostWaits().empty());
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("S003", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
}

TEST(BlockingDeviceReads, ACpuCopyWithItsSyncCountsOnce) {
  // .cpu(): aten::to > aten::copy_ holding a DtoH copy into pinned memory
  // (not itself blocking) and a stream synchronize [0.3, 2.05) ms: the sync
  // is a read because its op copies to the host; one read per step.
  model::EventArgs A =
      copyArgs(model::CopyKind::DtoH, model::MemoryKind::Device,
               model::MemoryKind::Pinned);
  model::Trace T = readTrace([&](TraceMaker &M, uint32_t S, int64_t T0) {
    M.op("aten::to", T0 + 200 * Us, T0 + 2100 * Us);
    M.op("aten::copy_", T0 + 210 * Us, T0 + 2090 * Us);
    M.launch(S, "Memcpy DtoH (Device -> Pinned)", T0 + 250 * Us, T0 + 260 * Us,
             T0 + 2 * Ms, T0 + 2010 * Us, "cudaMemcpyAsync", EventKind::Memcpy,
             &A);
    M.runtime("cudaStreamSynchronize", T0 + 300 * Us, T0 + 2050 * Us);
  });
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("S003", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_EQ(Out.front().Subject, "aten::to > aten::copy_");
  EXPECT_EQ(Out.front().Values.at("count"), "1");
  EXPECT_EQ(Out.front().Values.at("copy_reads"), "3");
  EXPECT_EQ(Out.front().Values.at("value"), "1.75 ms");
}

TEST(BlockingDeviceReads, AReadThroughABusyDeviceIsInfo) {
  // The gemm runs to 9 ms and the relu starts 10 us after the read returns:
  // 1.75 ms blocked, but only 10 us of idle to gain (0.1 % < 2 %).
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  for (int K = 0; K < 4; ++K) {
    int64_t T0 = K * 10 * Ms;
    M.step(K + 1, T0, T0 + 10 * Ms);
    M.launch(S, "gemm", T0 + 100 * Us, T0 + 110 * Us, T0 + 110 * Us,
             T0 + 9 * Ms);
    M.op("aten::item", T0 + 7200 * Us, T0 + 9 * Ms);
    M.runtime("cudaStreamSynchronize", T0 + 7250 * Us, T0 + 9 * Ms);
    M.launch(S, "relu", T0 + 9005 * Us, T0 + 9010 * Us, T0 + 9010 * Us,
             T0 + 9500 * Us);
  }
  model::Trace T = M.finish();
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("S003", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_EQ(Out.front().ImpactNs, 10 * Us);
  ASSERT_TRUE(Out.front().SeverityOverride.has_value());
  EXPECT_EQ(*Out.front().SeverityOverride, rules::Severity::Info);
}

TEST(BlockingDeviceReads, ShortReadsOnAnIdleDeviceAreInfo) {
  // A 100 us item per 10 ms step: 1 %, under the 2 % default; the device
  // is idle through it (the gemm ended at 2 ms), so its bound, 100 us,
  // reaches min-info-share (1 %): kept at info, with the idle verdict.
  model::Trace T = readTrace([](TraceMaker &M, uint32_t, int64_t T0) {
    M.op("aten::item", T0 + 2000 * Us, T0 + 2100 * Us);
  });
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("S003", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_EQ(*Out.front().SeverityOverride, rules::Severity::Info);
  EXPECT_EQ(Out.front().ImpactNs, 100 * Us);
  EXPECT_NE(Out.front().Values.at("verdict").text().find("the device idled"),
            std::string::npos);
}

TEST(BlockingDeviceReads, ShortReadsStayQuietUnderTheInfoFloor) {
  model::Trace T = readTrace([](TraceMaker &M, uint32_t, int64_t T0) {
    M.op("aten::item", T0 + 2000 * Us, T0 + 2100 * Us);
  });
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("S003", Ctx, Out, {{"min-info-share", 0.02}}), "");
  EXPECT_TRUE(Out.empty());
}

} // namespace
