//===- rules/TeardownArtifactsTest.cpp - U003 teardown in the window ------===//
#include "../DetectorTestSupport.h"
#include "analysis/TraceFeatures.h"

#include "gtest/gtest.h"

using namespace tracelint;
using namespace tracelint::testing;
using analysis::TraceIndex;
using model::EventKind;

namespace {

/// Five rounds of 1 ms, each a launch and a 900 us kernel (the last launch
/// call ends at 4.01 ms); \p Steps marks each round as a step, and
/// \p LastStepEnd stretches the last step's range to that time. Then four
/// 1 ms cudaFree calls from 5 ms and cuModuleUnload [9, 9.5) ms.
model::Trace teardownTrace(bool Steps, int64_t LastStepEnd = 0) {
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  for (int K = 0; K < 5; ++K) {
    int64_t T0 = K * Ms;
    if (Steps)
      M.step(K + 1, T0, K == 4 && LastStepEnd ? LastStepEnd : T0 + Ms);
    M.launch(S, "k", T0 + 5 * Us, T0 + 10 * Us, T0 + 10 * Us, T0 + 910 * Us);
  }
  for (int I = 0; I < 4; ++I)
    M.runtime("cudaFree", 5 * Ms + I * Ms, 6 * Ms + I * Ms);
  M.add(M.Host, EventKind::Driver, "cuModuleUnload", 9 * Ms, 9500 * Us);
  return M.finish();
}

TEST(TeardownArtifacts, ATeardownStormEndsAWindowWithoutSteps) {
  model::Trace T = teardownTrace(false);
  TraceIndex Ctx(T);
  EXPECT_EQ(Ctx.lastSubmissionEnd(), 4010 * Us);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("U003", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  const rules::Detection &D = Out.front();
  EXPECT_EQ(D.Values.at("metric_kind"), "window");
  EXPECT_EQ(D.Values.at("count"), "5");
  // 4 ms of frees and 0.5 ms of unloading in a 9.5 ms window.
  EXPECT_EQ(D.ImpactNs, 4500 * Us);
  EXPECT_EQ(D.Values.at("teardown_share"), "47.4 %");
  ASSERT_TRUE(D.SeverityOverride.has_value());
  EXPECT_EQ(*D.SeverityOverride, rules::Severity::Warning);
  EXPECT_EQ(D.Values.at("flushes"),
            "no final synchronization follows the last submission");
  // tracelint diff measures the same time.
  analysis::FeatureValue F =
      analysis::measureFeature(Ctx, analysis::Feature::TeardownTime, "");
  ASSERT_TRUE(F.Value.has_value());
  EXPECT_DOUBLE_EQ(*F.Value, double(4500 * Us));
}

TEST(TeardownArtifacts, TeardownAfterTheStepsChangesNoStep) {
  model::Trace T = teardownTrace(true);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("U003", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_EQ(Out[0].Values.at("metric_kind"), "after the steps");
  EXPECT_EQ(Out[0].ImpactNs, 0);
  EXPECT_EQ(*Out[0].SeverityOverride, rules::Severity::Info);
}

TEST(TeardownArtifacts, TeardownInsideTheLastStepInflatesIt) {
  // The last step's range runs to 7 ms and so holds two of the frees.
  model::Trace T = teardownTrace(true, 7 * Ms);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("U003", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_EQ(Out[0].Values.at("metric_kind"), "last step");
  EXPECT_EQ(Out[0].Window, "step 5");
  // 2 ms of frees in step 5, capped by the 1 ms median step.
  EXPECT_EQ(Out[0].ImpactNs, Ctx.targetNs());
  EXPECT_EQ(*Out[0].SeverityOverride, rules::Severity::Warning);
}

TEST(TeardownArtifacts, FreesBetweenLaunchesAreNotTeardown) {
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  for (int K = 0; K < 5; ++K) {
    int64_t T0 = K * Ms;
    M.runtime("cudaFree", T0, T0 + 900 * Us);
    M.launch(S, "k", T0 + 905 * Us, T0 + 910 * Us, T0 + 910 * Us,
             T0 + 990 * Us);
  }
  model::Trace T = M.finish();
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("U003", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
}

TEST(TeardownArtifacts, ShortTeardownIsNotReported) {
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  M.launch(S, "k", 0, 5 * Us, 5 * Us, 500 * Us);
  M.runtime("cudaFree", 600 * Us, 900 * Us);
  model::Trace T = M.finish();
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("U003", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
  // A lower threshold reports it.
  EXPECT_EQ(run("U003", Ctx, Out, {{"min-duration", 100'000}}), "");
  EXPECT_EQ(Out.size(), 1u);
}

} // namespace
