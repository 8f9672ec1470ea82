//===- rules/StartupInWindowTest.cpp - U001 start-up in the window --------===//
#include "../CaptureTraces.h"
#include "../DetectorTestSupport.h"

#include "gtest/gtest.h"

using namespace tracelint;
using namespace tracelint::testing;
using analysis::TraceIndex;
using model::EventKind;

namespace {

/// 5 steps of 1 ms, each with one 500 us kernel; step 1 is 4 ms long and
/// holds cuModuleLoadData (1 ms) and cudaMalloc (1.5 ms).
model::Trace firstStepTrace() {
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  M.step(1, 0, 4 * Ms);
  M.add(M.Host, EventKind::Driver, "cuModuleLoadData", 100 * Us, 1100 * Us);
  M.runtime("cudaMalloc", 1200 * Us, 2700 * Us);
  M.launch(S, "k", 3 * Ms, 3005 * Us, 3005 * Us, 3505 * Us);
  for (int K = 1; K < 5; ++K) {
    int64_t T0 = 3 * Ms + K * Ms;
    M.step(K + 1, T0, T0 + Ms);
    M.launch(S, "k", T0, T0 + 5 * Us, T0 + 5 * Us, T0 + 505 * Us);
  }
  return M.finish();
}

TEST(StartupInWindow, AFirstStepOutlierIsStartupOfASteadyTarget) {
  model::Trace T = firstStepTrace();
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("U001", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  const rules::Detection &D = Out.front();
  EXPECT_EQ(D.Values.at("metric_kind"), "steady state");
  EXPECT_EQ(D.Values.at("ratio"), "4.0");
  EXPECT_EQ(D.Values.at("startup_time"), "2.5 ms");
  EXPECT_EQ(D.Values.at("warmup"), "1 more step");
  EXPECT_NE(
      D.Values.at("categories").text().find("context and module loading 1 ms"),
      std::string::npos);
  EXPECT_NE(D.Values.at("categories").text().find("allocator calls 1.5 ms"),
            std::string::npos);
  // The median step leaves the first step out: nothing to gain there.
  EXPECT_EQ(D.ImpactNs, 0);
  ASSERT_TRUE(D.SeverityOverride.has_value());
  EXPECT_EQ(*D.SeverityOverride, rules::Severity::Info);
  EXPECT_DOUBLE_EQ(D.Confidence, 0.8);
}

TEST(StartupInWindow, AGraphCaptureWindowIsStartup) {
  // No steps: the host captures a graph ([1, 3) ms between Begin and End
  // capture) and instantiates it; the device does almost nothing.
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  M.launch(S, "k", 0, 5 * Us, 5 * Us, 15 * Us);
  M.runtime("cudaStreamBeginCapture", 1 * Ms, 1010 * Us);
  M.runtime("cudaLaunchKernel", 1500 * Us, 1505 * Us);
  M.runtime("cudaStreamEndCapture", 2990 * Us, 3 * Ms);
  M.runtime("cudaGraphInstantiate", 3 * Ms, 4 * Ms);
  M.runtime("cudaDeviceSynchronize", 4 * Ms, 10 * Ms);
  model::Trace T = M.finish();
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("U001", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_EQ(Out[0].Values.at("metric_kind"), "start-up");
  EXPECT_EQ(*Out[0].SeverityOverride, rules::Severity::Warning);
  // The capture span and the instantiation: [1, 4) ms.
  EXPECT_EQ(Out[0].ImpactNs, 3 * Ms);
  EXPECT_EQ(Out[0].Window, "whole window");
}

TEST(StartupInWindow, AStepThatIsMostlyCaptureIsStartupWithItsImpact) {
  // 32 ms of the one 34 ms step is capture and instantiation: the target
  // is start-up, and the start-up time in it is the impact (it was 0 when
  // only steps after the first counted).
  model::Trace T = hipCaptureStep();
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("U001", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  const rules::Detection &D = Out.front();
  EXPECT_EQ(D.Values.at("metric_kind"), "start-up");
  EXPECT_NE(D.Values.at("classification")
                .text()
                .find("is start-up, not steady state: graph capture and "
                      "other start-up work takes 94.1 % of the median step"),
            std::string::npos);
  EXPECT_EQ(D.ImpactNs, 32 * Ms);
  EXPECT_EQ(*D.SeverityOverride, rules::Severity::Warning);
  EXPECT_EQ(D.Window, "step 1");
}

TEST(StartupInWindow, RecurringCallsAreNotStartup) {
  // cudaMalloc in every step is allocator churn, not start-up; the steps
  // are equal, so nothing fires.
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  for (int K = 0; K < 5; ++K) {
    int64_t T0 = K * Ms;
    M.step(K + 1, T0, T0 + Ms);
    M.runtime("cudaMalloc", T0 + 10 * Us, T0 + 200 * Us);
    M.launch(S, "k", T0 + 300 * Us, T0 + 305 * Us, T0 + 305 * Us,
             T0 + 805 * Us);
  }
  model::Trace T = M.finish();
  TraceIndex Ctx(T);
  EXPECT_TRUE(Ctx.startup().Found.empty());
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("U001", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
}

TEST(StartupInWindow, QuietOnASteadyWindow) {
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  for (int K = 0; K < 5; ++K) {
    int64_t T0 = K * Ms;
    M.step(K + 1, T0, T0 + Ms);
    M.launch(S, "k", T0 + 5 * Us, T0 + 10 * Us, T0 + 10 * Us, T0 + 900 * Us);
  }
  model::Trace T = M.finish();
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("U001", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
}

TEST(StartupInWindow, StartupInAWindowWithoutStepsMixesTheTarget) {
  // No steps: a launch every 1 ms from 0 to 9 ms and a 980 us cudaMalloc
  // between two of them, 9.9 % of the 9.9 ms window: above the 5 % floor,
  // below the 50 % at which the window is start-up.
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  for (int K = 0; K < 10; ++K)
    M.launch(S, "k", K * Ms, K * Ms + 5 * Us, K * Ms + 5 * Us,
             K * Ms + 900 * Us);
  M.runtime("cudaMalloc", 2010 * Us, 2990 * Us);
  model::Trace T = M.finish();
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("U001", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  const rules::Detection &D = Out.front();
  EXPECT_EQ(D.Values.at("metric_kind"), "mixed");
  EXPECT_EQ(D.ImpactNs, 980 * Us);
  EXPECT_EQ(D.Window, "whole window");
  EXPECT_EQ(*D.SeverityOverride, rules::Severity::Warning);
  EXPECT_EQ(D.Values.at("step_comparison"),
            "no step markers: the whole window is the target");
}

TEST(StartupInWindow, StartupInsideALaterStepIsSteadyState) {
  // Five equal 1 ms steps; step 3 holds a 100 us cudaStreamCreate (10 % of
  // the median step). The first step is no outlier; one steady step in
  // four holds the call, so the median steady step holds none of it.
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  for (int K = 0; K < 5; ++K) {
    int64_t T0 = K * Ms;
    M.step(K + 1, T0, T0 + Ms);
    M.launch(S, "k", T0 + 5 * Us, T0 + 10 * Us, T0 + 10 * Us, T0 + 900 * Us);
    if (K == 2)
      M.runtime("cudaStreamCreate", T0 + 20 * Us, T0 + 120 * Us);
  }
  model::Trace T = M.finish();
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("U001", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  const rules::Detection &D = Out.front();
  EXPECT_EQ(D.Values.at("metric_kind"), "steady state");
  EXPECT_NE(D.Values.at("classification")
                .text()
                .find("start-up calls lie inside the window"),
            std::string::npos);
  EXPECT_EQ(D.ImpactNs, 0);
  EXPECT_EQ(D.Window, "steps");
  EXPECT_EQ(*D.SeverityOverride, rules::Severity::Info);
}

TEST(StartupInWindow, ASlowFirstStepWithoutStartupCallsIsLessCertain) {
  // Step 1 (4 ms) runs ten kernels, the later 1 ms steps one each: trial
  // kernels, but no start-up call is recorded.
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  M.step(1, 0, 4 * Ms);
  for (int I = 0; I < 10; ++I)
    M.launch(S, "trial", I * 300 * Us, I * 300 * Us + 5 * Us,
             I * 300 * Us + 5 * Us, I * 300 * Us + 250 * Us);
  for (int K = 1; K < 5; ++K) {
    int64_t T0 = 3 * Ms + K * Ms;
    M.step(K + 1, T0, T0 + Ms);
    M.launch(S, "k", T0, T0 + 5 * Us, T0 + 5 * Us, T0 + 505 * Us);
  }
  model::Trace T = M.finish();
  TraceIndex Ctx(T);
  ASSERT_TRUE(Ctx.startup().Found.empty());
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("U001", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  const rules::Detection &D = Out.front();
  EXPECT_DOUBLE_EQ(D.Confidence, 0.5);
  ASSERT_EQ(D.ConfidenceNotes.size(), 1u);
  EXPECT_EQ(D.Values.at("example"), "the first step");
  EXPECT_EQ(D.Values.at("top_names"), "none");
  EXPECT_EQ(D.Window, "step 1");
  ASSERT_EQ(D.ExtraEvidence.size(), 1u);
  EXPECT_NE(D.ExtraEvidence[0].find("runs 10 device operations against a "
                                    "median of 1"),
            std::string::npos);
}

TEST(StartupInWindow, FreesAfterTheLastSubmissionAreTeardown) {
  // No steps: five launches, then four 1 ms cudaFree calls from 5 ms (U003
  // reports them): not start-up allocation.
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  for (int K = 0; K < 5; ++K)
    M.launch(S, "k", K * Ms + 5 * Us, K * Ms + 10 * Us, K * Ms + 10 * Us,
             K * Ms + 910 * Us);
  for (int I = 0; I < 4; ++I)
    M.runtime("cudaFree", 5 * Ms + I * Ms, 6 * Ms + I * Ms);
  model::Trace T = M.finish();
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("U001", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
}

} // namespace
