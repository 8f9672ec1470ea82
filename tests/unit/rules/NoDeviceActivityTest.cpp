//===- TraceQualityDetectorTest.cpp - T001-T004 and confidence penalties --===//
#include "../DetectorTestSupport.h"

#include "gtest/gtest.h"

using namespace tracelint;
using namespace tracelint::testing;
using analysis::TraceIndex;
using model::EventKind;

namespace {

TEST(TraceQualityDetector, NoDeviceActivityAlthoughLaunchesExist) {
  TraceMaker M;
  M.step(1, 0, Ms);
  M.runtime("cudaLaunchKernel", 10 * Us, 15 * Us);
  M.runtime("cudaLaunchKernel", 20 * Us, 25 * Us);
  model::Trace T = M.finish();
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("T001", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_EQ(Out[0].ImpactNs, 0);
  EXPECT_EQ(Out[0].Values.at("value"), "2 launch calls");
}

TEST(TraceQualityDetector, ACpuOnlyTraceIsNotMissingItsDevice) {
  TraceMaker M;
  M.step(1, 0, Ms);
  M.op("aten::add", 10 * Us, 20 * Us);
  model::Trace T = M.finish();
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("T001", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
}

TEST(TraceQualityDetector, NoStepMarkers) {
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  M.launch(S, "k", 0, 5 * Us, 5 * Us, 2 * Ms);
  model::Trace T = M.finish();
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("T002", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_EQ(Out[0].Values.at("window_length"), "2 ms");
}

TEST(TraceQualityDetector, DamageIsReportedByKind) {
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  M.step(1, 0, Ms);
  // Two of three kernels start before their launch call.
  M.launch(S, "k", 10 * Us, 15 * Us, 5 * Us, 8 * Us);
  M.launch(S, "k", 20 * Us, 25 * Us, 18 * Us, 19 * Us);
  M.launch(S, "k", 30 * Us, 35 * Us, 40 * Us, 50 * Us);
  M.B.stats().TruncatedAtByte = 12345;
  M.B.stats().addAt(model::ImportStat::Truncated, "event 7 at byte 12345");
  model::Trace T = M.finish();
  TraceIndex Ctx(T);
  EXPECT_TRUE(Ctx.quality().Truncated);
  EXPECT_EQ(Ctx.quality().DeviceBeforeLaunch, 2u);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("T003", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 2u);
  EXPECT_EQ(Out[0].Subject, "truncated");
  EXPECT_NE(Out[0].Values.at("problem").text().find("byte 12345"),
            std::string::npos);
  EXPECT_EQ(*Out[0].SeverityOverride, rules::Severity::Warning);
  EXPECT_EQ(Out[1].Subject, "device-before-launch");
  EXPECT_EQ(*Out[1].SeverityOverride, rules::Severity::Info);
}

TEST(TraceQualityDetector, ShortWindow) {
  for (int Steps : {0, 1, 2, 3}) {
    TraceMaker M;
    for (int K = 0; K < Steps; ++K)
      M.step(K + 1, K * Ms, (K + 1) * Ms);
    M.op("aten::add", 0, 10 * Us);
    model::Trace T = M.finish();
    TraceIndex Ctx(T);
    std::vector<rules::Detection> Out;
    EXPECT_EQ(run("T004", Ctx, Out), "");
    EXPECT_EQ(Out.size(), Steps == 1 || Steps == 2 ? 1u : 0u) << Steps;
  }
}

TEST(TraceQualityDetector, PenaltiesLowerConfidenceVisibly) {
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  M.step(1, 0, Ms);
  M.launch(S, "k", 10 * Us, 15 * Us, 15 * Us, 20 * Us);
  model::Trace T = M.finish();
  TraceIndex Ctx(T);
  std::vector<analysis::ConfidencePenalty> P = Ctx.confidencePenalties();
  ASSERT_EQ(P.size(), 1u);
  EXPECT_DOUBLE_EQ(P[0].Factor, 0.7);
  EXPECT_NE(P[0].Note.find("only 1 step"), std::string::npos);
  EXPECT_TRUE(P[0].Affects.empty());
}

} // namespace
