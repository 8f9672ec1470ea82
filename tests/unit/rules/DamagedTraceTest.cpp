//===- rules/DamagedTraceTest.cpp - T003 damaged trace --------------------===//
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
