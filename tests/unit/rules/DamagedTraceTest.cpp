//===- rules/DamagedTraceTest.cpp - T003 damaged trace --------------------===//
#include "../CaptureTraces.h"
#include "../DetectorTestSupport.h"

#include "gtest/gtest.h"

using namespace tracelint;
using namespace tracelint::testing;
using analysis::TraceIndex;
using model::ImportStat;

namespace {

/// One 1 ms step with three kernels; \p Early of them start before their
/// launch call.
TraceMaker kernels(int Early) {
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  M.step(1, 0, Ms);
  for (int K = 0; K < 3; ++K) {
    int64_t C = (K + 1) * 10 * Us;
    int64_t Start = K < Early ? C - 2 * Us : C + 5 * Us;
    M.launch(S, "k", C, C + 5 * Us, Start, Start + 3 * Us);
  }
  return M;
}

TEST(DamagedTrace, DamageIsReportedByKind) {
  TraceMaker M = kernels(2);
  M.B.stats().TruncatedAtByte = 12345;
  M.B.stats().addAt(ImportStat::Truncated, "event 7 at byte 12345");
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
  EXPECT_EQ(Out[0].Values.at("example"), "byte 12345");
  EXPECT_EQ(*Out[0].SeverityOverride, rules::Severity::Warning);
  EXPECT_EQ(Out[1].Subject, "device-before-launch");
  EXPECT_EQ(Out[1].Values.at("example"), "k at +0.000008 s");
  EXPECT_EQ(*Out[1].SeverityOverride, rules::Severity::Info);
}

TEST(DamagedTrace, DroppedAndAdjustedEvents) {
  TraceMaker M = kernels(0);
  M.B.stats().addAt(ImportStat::MalformedEvent, "event 3 at byte 100");
  M.B.stats().addAt(ImportStat::NegativeDuration, "event 4 at byte 200");
  model::Trace T = M.finish();
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("T003", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 2u);
  EXPECT_EQ(Out[0].Subject, "dropped-events");
  EXPECT_EQ(Out[0].Values.at("example"), "event 3 at byte 100");
  EXPECT_EQ(*Out[0].SeverityOverride, rules::Severity::Warning);
  EXPECT_EQ(Out[1].Subject, "adjusted-durations");
  EXPECT_EQ(Out[1].Values.at("example"), "event 4 at byte 200");
  EXPECT_EQ(*Out[1].SeverityOverride, rules::Severity::Info);
}

TEST(DamagedTrace, UnlinkedDeviceWorkAndLaunches) {
  // Two kernels without a host call, and two launches whose device work
  // the importer did not find: 2 of 5 device events (40 %) and 2 of 5
  // launch calls, both above the 5 % default.
  TraceMaker M = kernels(0);
  uint32_t S = M.stream(0, 7);
  M.add(S, model::EventKind::Kernel, "orphan", 100 * Us, 110 * Us);
  M.add(S, model::EventKind::Kernel, "orphan", 200 * Us, 210 * Us);
  M.runtime("cudaLaunchKernel", 300 * Us, 305 * Us);
  M.runtime("cudaLaunchKernel", 400 * Us, 405 * Us);
  M.B.stats().add(ImportStat::LaunchWithoutDevice, 2);
  model::Trace T = M.finish();
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("T003", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 2u);
  EXPECT_EQ(Out[0].Subject, "device-without-launch");
  EXPECT_EQ(Out[0].Values.at("example"), "not recorded by the importer");
  EXPECT_EQ(Out[1].Subject, "launch-without-device");
}

TEST(DamagedTrace, CapturedLaunchesAreNotLostDeviceWork) {
  // 100 of 111 launch calls have no device work, all of them inside the
  // stream capture: recorded into a graph, not lost. Quiet.
  model::Trace T = hipCaptureStep();
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("T003", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
}

TEST(DamagedTrace, LaunchesLostOutsideACaptureStillCount) {
  // Five captured launches and two more without device work after the
  // capture: 2 of 8 launch calls (25 %) are lost, and the captured ones
  // are named apart.
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  M.step(1, 0, 10 * Ms);
  M.launch(S, "k", 0, 5 * Us, 10 * Us, 60 * Us);
  M.runtime("cudaStreamBeginCapture", 1 * Ms, 1010 * Us);
  for (int K = 0; K < 5; ++K)
    M.runtime("cudaLaunchKernel", 1100 * Us + K * 100 * Us,
              1105 * Us + K * 100 * Us);
  M.runtime("cudaStreamEndCapture", 1990 * Us, 2 * Ms);
  for (int K = 0; K < 2; ++K)
    M.runtime("cudaLaunchKernel", 3 * Ms + K * 100 * Us,
              3005 * Us + K * 100 * Us);
  M.B.stats().add(ImportStat::LaunchWithoutDevice, 7);
  model::Trace T = M.finish();
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("T003", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_EQ(Out[0].Subject, "launch-without-device");
  EXPECT_EQ(Out[0].Values.at("problem"),
            "2 launch calls (25.0 %) have no device operation with their "
            "correlation id (besides 5 launched during graph capture, which "
            "record into a graph and run nothing)");
}

TEST(DamagedTrace, QuietOnACleanTrace) {
  TraceMaker M = kernels(0);
  model::Trace T = M.finish();
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("T003", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
}

TEST(DamagedTrace, AFewEarlyKernelsAreWithinTheTolerance) {
  // 1 of 3 kernels early is 33 %: reported by default, not with a higher
  // max-early-share.
  TraceMaker M = kernels(1);
  model::Trace T = M.finish();
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("T003", Ctx, Out, {{"max-early-share", 0.5}}), "");
  EXPECT_TRUE(Out.empty());
}

} // namespace
