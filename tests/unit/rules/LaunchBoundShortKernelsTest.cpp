//===- rules/LaunchBoundShortKernelsTest.cpp - L001 launch-bound kernels -===//
//
// Each test lays out a timeline by hand; the expected figures are worked out
// in the comments from the event times.
//
//===----------------------------------------------------------------------===//
#include "../DetectorTestSupport.h"

#include "gtest/gtest.h"

using namespace tracelint;
using namespace tracelint::testing;
using analysis::IdleBreakdown;
using analysis::TraceIndex;
using model::EventKind;
using model::Interval;

namespace {

/// \p Steps steps of 1 ms from time 0. In each, the host launches 20
/// kernels, one every 50 us; each launch call lasts 10 us and its 5 us
/// kernel starts when the call returns. Per step (t0 = step start):
///   kernel i = [t0 + 50i + 10, t0 + 50i + 15)
///   idle = 1000 - 20 * 5 = 900 us, in gaps of 10 us (before kernel 0),
///   19 x 45 us (between kernels), and 35 us (after kernel 19).
/// Every gap ends with work whose launch began at or after the gap's start
/// and the stretch between two launches is 50 us <= 200 us, so all 900 us
/// are launch path, except the last step's trailing 35 us, which no later
/// work ends (no later work). With \p FlushNs, a profiler buffer flush of that
/// length on a track of its own from t0 + 470 us in every step, inside the
/// gap between kernels 9 and 10 ([465, 510) us).
model::Trace launchBoundTrace(int Steps, int64_t FlushNs = 0) {
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  uint32_t Flush = FlushNs ? M.host(2) : 0;
  for (int K = 0; K < Steps; ++K) {
    int64_t T0 = K * Ms;
    M.step(K + 1, T0, T0 + Ms);
    if (FlushNs)
      M.add(Flush, EventKind::Overhead, "CUPTI Buffer Flush", T0 + 470 * Us,
            T0 + 470 * Us + FlushNs);
    for (int I = 0; I < 20; ++I) {
      int64_t C = T0 + 50 * I * Us;
      M.op("aten::add", C, C + 12 * Us);
      M.launch(S, "add_kernel", C + 1 * Us, C + 10 * Us, C + 10 * Us,
               C + 15 * Us);
    }
  }
  return M.finish();
}

TEST(LaunchBoundDetector, FiresOnShortKernelsBehindTheLaunchPath) {
  model::Trace T = launchBoundTrace(4);
  TraceIndex Ctx(T);
  // Steps 2-4 are measured (the first is left to U001): 900, 900 and
  // 900 - 35 us of launch-path idle; the median is 900 us of a 1 ms step.
  IdleBreakdown B = Ctx.attributeIdle(0, Ctx.steps()[1].Range);
  EXPECT_EQ(B.IdleNs, 900 * Us);
  EXPECT_EQ(B.LaunchNs, 900 * Us);
  EXPECT_EQ(B.Gaps, 21u);
  IdleBreakdown Last = Ctx.attributeIdle(0, Ctx.steps()[3].Range);
  EXPECT_EQ(Last.LaunchNs, 865 * Us);
  EXPECT_EQ(Last.TailNs, 35 * Us);

  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("L001", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  const rules::Detection &D = Out.front();
  EXPECT_EQ(D.ImpactNs, 900 * Us);
  EXPECT_EQ(D.Values.at("share"), "90.0 %");
  EXPECT_EQ(D.Values.at("median_kernel"), "5 us");
  EXPECT_EQ(D.Values.at("median_interval"), "50 us");
  EXPECT_EQ(D.Values.at("kernels_per_step"), "20");
  EXPECT_EQ(D.Values.at("top_op"), "aten::add");
  EXPECT_EQ(D.Window, "steps 2-4");
  EXPECT_EQ(D.Subject, "device 0");
  // Kernels shorter than the launch interval: the clearest case.
  EXPECT_DOUBLE_EQ(D.Confidence, 0.8);
}

TEST(LaunchBoundDetector, TheSplitItShowsAddsUpWithTheProfilersPart) {
  // A 30 us profiler flush in every step: 30 us of each step's idle is the
  // profiler's, and the evidence names it beside the launch path's 870 us.
  model::Trace T = launchBoundTrace(4, 30 * Us);
  TraceIndex Ctx(T);
  IdleBreakdown B = Ctx.attributeIdle(0, Ctx.steps()[1].Range);
  EXPECT_EQ(B.ProfilerNs, 30 * Us);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("L001", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_EQ(Out[0].Values.at("more_causes").text(), ", profiler 30 us (U004)");
  EXPECT_EQ(Out[0].Values.at("launch_idle").text(), "870 us");
}

TEST(LaunchBoundDetector, QuietWhenShortKernelsKeepTheDeviceBusy) {
  // 78 % of the kernels are 5 us long, yet the host launches every 10 us
  // and the first 11 kernels take 70 us: work queues up and the device is
  // busy for 965 of each 1000 us (idle [0, 5) and [970, 1000) us).
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  for (int K = 0; K < 4; ++K) {
    int64_t T0 = K * Ms;
    M.step(K + 1, T0, T0 + Ms);
    int64_t DeviceFree = T0;
    for (int I = 0; I < 50; ++I) {
      int64_t C = T0 + 10 * I * Us;
      int64_t Len = I < 11 ? 70 * Us : 5 * Us; // 39 of 50 short: 78 %
      int64_t Start = std::max(C + 5 * Us, DeviceFree);
      M.launch(S, "k", C, C + 5 * Us, Start, Start + Len);
      DeviceFree = Start + Len;
    }
  }
  model::Trace T = M.finish();
  TraceIndex Ctx(T);
  IdleBreakdown B = Ctx.attributeIdle(0, Ctx.steps()[1].Range);
  EXPECT_EQ(B.IdleNs, 35 * Us);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("L001", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
}

TEST(LaunchBoundDetector, QuietWhenTheHostIsBusyElsewhere) {
  // Steps of 10 ms: 8 ms in the data loader without launches, then 20
  // launches as above. The 8 ms stretch is other host work, so only about
  // 1 ms of each step is launch path (10 %, under the 20 % default).
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  for (int K = 0; K < 4; ++K) {
    int64_t T0 = K * 10 * Ms;
    M.step(K + 1, T0, T0 + 10 * Ms);
    M.op("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", T0,
         T0 + 8 * Ms);
    for (int I = 0; I < 20; ++I) {
      int64_t C = T0 + 8 * Ms + 50 * I * Us;
      M.launch(S, "k", C, C + 10 * Us, C + 10 * Us, C + 15 * Us);
    }
  }
  model::Trace T = M.finish();
  TraceIndex Ctx(T);
  IdleBreakdown B = Ctx.attributeIdle(0, Ctx.steps()[1].Range);
  // Step 2 starts at 10 ms; the last kernel of step 1 ended at 8.965 ms.
  // Gap [10, 18.01) ms: from the step start to the first launch (18 ms) the
  // previous launch was at 8.95 ms, a 9.05 ms stretch, not the launch
  // path; [18, 18.01) is inside the launch. Then 19 x 45 us of launch path
  // and the trailing [18.965, 20) ms, a stretch of 9.05 ms again. The 8 ms
  // inside the data-loader range are data loading, so that the causes stay
  // exclusive (D001 claims them); the rest, 1035 us, lies inside no
  // recorded event: untraced host time (T005's).
  EXPECT_EQ(B.DataLoadingNs, 8 * Ms);
  EXPECT_EQ(B.UntracedNs, 1035 * Us);
  EXPECT_EQ(B.HostOtherNs, 0);
  EXPECT_EQ(B.LaunchNs, 10 * Us + 19 * 45 * Us);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("L001", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
}

TEST(LaunchBoundDetector, OptionsMoveTheThreshold) {
  model::Trace T = launchBoundTrace(4);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  // 90 % launch-path idle is under a 95 % threshold.
  EXPECT_EQ(run("L001", Ctx, Out, {{"min-idle-share", 0.95}}), "");
  EXPECT_TRUE(Out.empty());
  // 5 us kernels may last at most 0.05 x 50 us = 2.5 us: the host would
  // run ahead of them.
  EXPECT_EQ(run("L001", Ctx, Out, {{"max-kernel-to-interval", 0.05}}), "");
  EXPECT_TRUE(Out.empty());
}

} // namespace
