//===- rules/SyncAfterEveryLaunchTest.cpp - S002 launch, wait, launch -----===//
#include "../DetectorTestSupport.h"

#include "gtest/gtest.h"

using namespace tracelint;
using namespace tracelint::testing;
using analysis::TraceIndex;

namespace {

/// 4 steps of 2 ms, 20 launches per step, one every 100 us (c = launch
/// slot): cudaLaunchKernel [c + 1, c + 11) -> kernel [c + 11, c + 11 +
/// KernelUs). With \p SyncEvery = N, a cudaStreamSynchronize of
/// KernelUs + 1 us follows every N-th launch; the host then idles to c + 100.
model::Trace loop(int SyncEvery, int64_t KernelUs = 40, int Launches = 20) {
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  for (int K = 0; K < 4; ++K) {
    int64_t T0 = K * 2 * Ms;
    M.step(K + 1, T0, T0 + 2 * Ms);
    for (int I = 0; I < Launches; ++I) {
      int64_t C = T0 + I * 100 * Us;
      M.launch(S, "mul", C + 1 * Us, C + 11 * Us, C + 11 * Us,
               C + (11 + KernelUs) * Us);
      if (SyncEvery && (I + 1) % SyncEvery == 0)
        M.runtime("cudaStreamSynchronize", C + 12 * Us,
                  C + (12 + KernelUs + 1) * Us);
    }
  }
  return M.finish();
}

TEST(SyncAfterEveryLaunch, FiresOnALaunchWaitLoop) {
  model::Trace T = loop(1);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("S002", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  const rules::Detection &D = Out.front();
  // Per steady step: 20 waits of 41 us = 820 us; the device is busy
  // 20 x 40 = 800 us of 2 ms, idle 1.2 ms; the bound is the smaller.
  EXPECT_EQ(D.ImpactNs, 820 * Us);
  EXPECT_EQ(D.Values.at("value"), "100.0 %");
  EXPECT_EQ(D.Values.at("count"), "20");
  EXPECT_EQ(D.Values.at("launches"), "20");
  EXPECT_EQ(D.Values.at("serial_total"), "60"); // steps 2-4
  EXPECT_EQ(D.Values.at("wait"), "820 us");
  EXPECT_EQ(D.Values.at("idle"), "1.2 ms");
  EXPECT_EQ(D.Subject, "cudaStreamSynchronize");
  EXPECT_EQ(D.Window, "steps 2-4");
  EXPECT_EQ(D.Examples.size(), 2u);
}

TEST(SyncAfterEveryLaunch, EveryOtherLaunchIsStillSerial) {
  // 10 of 20 launches are followed by a wait: 50 %, at the default share,
  // and 10 per step, at the default count.
  model::Trace T = loop(2);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("S002", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_EQ(Out.front().Values.at("value"), "50.0 %");
  EXPECT_EQ(Out.front().ImpactNs, 410 * Us);
}

TEST(SyncAfterEveryLaunch, OneWaitPerStepIsNotThePattern) {
  model::Trace T = loop(20);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("S002", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
  // The thresholds are options: with none, the single wait is reported.
  EXPECT_EQ(
      run("S002", Ctx, Out,
          {{"min-serialised-share", 0.0}, {"min-serialised-per-step", 0.0}}),
      "");
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_EQ(Out.front().Values.at("value"), "5.0 %");
}

TEST(SyncAfterEveryLaunch, FewLaunchesPerStepStayQuiet) {
  // Every launch waits, but only 5 per step: single waits (S001's).
  model::Trace T = loop(1, 40, 5);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("S002", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
}

TEST(SyncAfterEveryLaunch, ABusyDeviceLeavesNothingToGain) {
  // Kernels of 99 us: the device is busy 1.98 ms of each 2 ms step, idle
  // 20 us (1 %), under the 2 % floor on the gain.
  model::Trace T = loop(1, 99);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("S002", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
  EXPECT_EQ(run("S002", Ctx, Out, {{"min-gain-share", 0.0}}), "");
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_EQ(Out.front().ImpactNs, 20 * Us);
}

TEST(SyncAfterEveryLaunch, AnotherThreadsWaitsDoNotSerialise) {
  // The launching thread never waits; a second thread synchronizes after
  // every launch of the first (it launches nothing itself).
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  uint32_t Other = M.host(2);
  for (int K = 0; K < 4; ++K) {
    int64_t T0 = K * 2 * Ms;
    M.step(K + 1, T0, T0 + 2 * Ms);
    for (int I = 0; I < 20; ++I) {
      int64_t C = T0 + I * 100 * Us;
      M.launch(S, "mul", C + 1 * Us, C + 11 * Us, C + 11 * Us, C + 51 * Us);
      M.runtime("cudaStreamSynchronize", C + 12 * Us, C + 53 * Us, Other);
    }
  }
  model::Trace T = M.finish();
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("S002", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
}

TEST(SyncAfterEveryLaunch, BlockingCopiesAreWaitsNotLaunches) {
  // launch, cudaMemcpy (a blocking HtoD copy), launch, cudaMemcpy...: the
  // copies are the waits; they are not counted as launches.
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  model::EventArgs A;
  A.Copy = model::CopyKind::HtoD;
  A.Src = model::MemoryKind::Pageable;
  A.Dst = model::MemoryKind::Device;
  A.Bytes = 1 << 20;
  for (int K = 0; K < 4; ++K) {
    int64_t T0 = K * 2 * Ms;
    M.step(K + 1, T0, T0 + 2 * Ms);
    for (int I = 0; I < 20; ++I) {
      int64_t C = T0 + I * 100 * Us;
      M.launch(S, "mul", C + 1 * Us, C + 11 * Us, C + 11 * Us, C + 51 * Us);
      M.launch(S, "Memcpy HtoD (Pageable -> Device)", C + 12 * Us, C + 70 * Us,
               C + 51 * Us, C + 69 * Us, "cudaMemcpy", model::EventKind::Memcpy,
               &A);
    }
  }
  model::Trace T = M.finish();
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("S002", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_EQ(Out.front().Values.at("launches"), "20");
  EXPECT_EQ(Out.front().Values.at("value"), "100.0 %");
  EXPECT_EQ(Out.front().Subject, "cudaMemcpy");
}

} // namespace
