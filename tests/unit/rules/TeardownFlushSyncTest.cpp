//===- rules/TeardownFlushSyncTest.cpp - U002 the window's final flush ----===//
#include "../DetectorTestSupport.h"

#include "gtest/gtest.h"

using namespace tracelint;
using namespace tracelint::testing;
using analysis::TraceIndex;

namespace {

/// Three 10 ms steps, each a launch and a 8.9 ms kernel, then a 4 ms
/// cudaDeviceSynchronize [30, 34) ms after the last step.
model::Trace finalSyncTrace() {
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  for (int K = 0; K < 3; ++K) {
    int64_t T0 = K * 10 * Ms;
    M.step(K + 1, T0, T0 + 10 * Ms);
    M.launch(S, "gemm", T0 + 100 * Us, T0 + 110 * Us, T0 + 110 * Us,
             T0 + 9 * Ms);
  }
  M.runtime("cudaDeviceSynchronize", 30 * Ms, 34 * Ms);
  return M.finish();
}

TEST(TeardownFlushSync, ReportsTheWaitAfterTheLastStep) {
  model::Trace T = finalSyncTrace();
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("U002", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  const rules::Detection &D = Out.front();
  EXPECT_EQ(D.ImpactNs, 0);
  EXPECT_EQ(D.Values.at("value"), "4 ms");
  EXPECT_EQ(D.Values.at("count"), "1");
  EXPECT_EQ(D.Values.at("where"), "after the last step");
  EXPECT_EQ(D.Window, "after the last step");
  EXPECT_EQ(D.Subject, "cudaDeviceSynchronize");
}

TEST(TeardownFlushSync, QuietUnderTheMinimumDuration) {
  // Shorter than min-duration: not worth a line.
  model::Trace T = finalSyncTrace();
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("U002", Ctx, Out, {{"min-duration", 5.0 * Ms}}), "");
  EXPECT_TRUE(Out.empty());
}

TEST(TeardownFlushSync, QuietOnWaitsInsideTheSteps) {
  // A 4 ms synchronization inside each step is an application wait
  // (S001's), not a flush.
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  for (int K = 0; K < 3; ++K) {
    int64_t T0 = K * 10 * Ms;
    M.step(K + 1, T0, T0 + 10 * Ms);
    M.launch(S, "gemm", T0 + 100 * Us, T0 + 110 * Us, T0 + 110 * Us,
             T0 + 4 * Ms);
    M.runtime("cudaDeviceSynchronize", T0 + 200 * Us, T0 + 4200 * Us);
  }
  model::Trace T = M.finish();
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("U002", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
}

TEST(TeardownFlushSync, WithoutStepsTheWaitAfterTheLastLaunchIsAFlush) {
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  M.launch(S, "a", 0, 10 * Us, 10 * Us, 1 * Ms);
  M.runtime("hipDeviceSynchronize", 20 * Us, 1 * Ms); // a launch follows
  M.launch(S, "b", 3 * Ms, 3010 * Us, 3010 * Us, 5 * Ms);
  M.runtime("hipDeviceSynchronize", 3020 * Us, 5 * Ms); // nothing follows
  model::Trace T = M.finish();
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("U002", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_EQ(Out[0].Values.at("value"), "1.98 ms");
  EXPECT_EQ(Out[0].Values.at("where"),
            "after the last submission of the window");
  EXPECT_EQ(Out[0].Window, "end of window");
}

} // namespace
