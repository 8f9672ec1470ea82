//===- rules/LaunchBoundShortKernelsTest.cpp - L001, attributeIdle --------===//
//------===//
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
/// work ends (unlinked).
model::Trace launchBoundTrace(int Steps) {
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  for (int K = 0; K < Steps; ++K) {
    int64_t T0 = K * Ms;
    M.step(K + 1, T0, T0 + Ms);
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
  EXPECT_EQ(Last.UnlinkedNs, 35 * Us);

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
  // previous launch was at 8.95 ms, a 9.05 ms stretch: other host work;
  // [18, 18.01) is inside the launch. Then 19 x 45 us of launch path and
  // the trailing [18.965, 20) ms, a stretch of 9.05 ms again: other work.
  EXPECT_EQ(B.HostOtherNs, 8 * Ms + 1035 * Us);
  EXPECT_EQ(B.LaunchNs, 10 * Us + 19 * 45 * Us);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("L001", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
}

TEST(LaunchBoundDetector, AttributesIdleToWaitsQueuesAndMissingLinks) {
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  // Wait: kernel A [0, 500) us; the host waits in cudaStreamSynchronize
  // [10, 500) and launches B at 520, which starts at 525. Gap [500, 525):
  // [500, 520) is the refill after the wait, [520, 525) inside the launch.
  M.launch(S, "A", 0, 5 * Us, 5 * Us, 500 * Us);
  M.runtime("cudaStreamSynchronize", 10 * Us, 500 * Us);
  M.launch(S, "B", 520 * Us, 525 * Us, 525 * Us, 600 * Us);
  // Queued: C is launched at [560, 565) but starts at 700 (it waited for
  // another stream): the gap [600, 700) began after the call returned.
  M.launch(S, "C", 560 * Us, 565 * Us, 700 * Us, 710 * Us);
  // Unlinked: D has no correlation; gap [710, 800).
  M.add(S, EventKind::Kernel, "D", 800 * Us, 810 * Us);
  // A slow launch (lazy module loading): E's call takes 2 ms, [900, 2900),
  // and E starts at 2900. In the gap [810, 2900), [810, 900) is other work
  // (the stretch from the previous launch at 560 us is 340 us > 200 us)
  // and so is [900, 2900), inside a call far longer than a launch.
  // Finally the gap [0, 5) before A is inside A's own launch call.
  M.launch(S, "E", 900 * Us, 2900 * Us, 2900 * Us, 2910 * Us);
  model::Trace T = M.finish();
  TraceIndex Ctx(T);
  IdleBreakdown B = Ctx.attributeIdle(0, {0, 2910 * Us});
  EXPECT_EQ(B.HostWaitNs, 20 * Us);
  EXPECT_EQ(B.QueuedNs, 100 * Us);
  EXPECT_EQ(B.UnlinkedNs, 90 * Us);
  EXPECT_EQ(B.LaunchNs, 5 * Us + 5 * Us);
  EXPECT_EQ(B.HostOtherNs, 90 * Us + 2000 * Us);
  EXPECT_EQ(B.IdleNs, 5 * Us + 25 * Us + 100 * Us + 90 * Us + 2090 * Us);
}

TEST(LaunchBoundDetector, WorkStartingLongAfterItsLaunchIsHeldBack) {
  // The launch returns at 15 us but its kernel starts at 8 ms (an excerpt,
  // or clock skew): after the 50 us launch latency the gap is queued.
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  M.launch(S, "k", 10 * Us, 15 * Us, 8 * Ms, 8 * Ms + 10 * Us);
  model::Trace T = M.finish();
  TraceIndex Ctx(T);
  IdleBreakdown B = Ctx.attributeIdle(0, {0, 8 * Ms});
  // [0, 10) us: before the only launch, no earlier submission: other work.
  EXPECT_EQ(B.HostOtherNs, 10 * Us);
  EXPECT_EQ(B.LaunchNs, 55 * Us); // [10, 65): the call and its latency
  EXPECT_EQ(B.QueuedNs, 8 * Ms - 65 * Us);
}

TEST(LaunchBoundDetector, CannotJudgeWithoutLinksOrDevice) {
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  M.step(1, 0, Ms);
  M.add(S, EventKind::Kernel, "k", 10 * Us, 20 * Us); // no correlation
  M.runtime("cudaLaunchKernel", 0, 5 * Us);
  model::Trace T = M.finish();
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_NE(run("L001", Ctx, Out).find("cannot judge"), std::string::npos);

  TraceMaker HostOnly;
  HostOnly.runtime("cudaLaunchKernel", 0, 5 * Us);
  model::Trace T2 = HostOnly.finish();
  TraceIndex Ctx2(T2);
  // The engine checks the rule's needs before its detector runs.
  EXPECT_TRUE(llvm::StringRef(run("L001", Ctx2, Out))
                  .startswith("cannot judge: the trace has kernel launch calls "
                              "but no device activity"));
  EXPECT_TRUE(Out.empty());
}

TEST(LaunchBoundDetector, OptionsMoveTheThreshold) {
  model::Trace T = launchBoundTrace(4);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  // 90 % launch-path idle is under a 95 % threshold.
  EXPECT_EQ(run("L001", Ctx, Out, {{"min-idle-share", 0.95}}), "");
  EXPECT_TRUE(Out.empty());
  // With a 40 us interval limit the 50 us stretches become other work.
  EXPECT_EQ(run("L001", Ctx, Out, {{"max-launch-interval", 40.0 * Us}}), "");
  EXPECT_TRUE(Out.empty());
}

} // namespace

namespace {

TEST(LaunchBoundDetector, LongHostWorkAfterAWaitIsNotRefill) {
  // Kernel A [0, 500) us; the host waits [10, 500), then works 1 ms before
  // launching B at 1500. The gap [500, 1505): [500, 1500) is a 1 ms stretch
  // after the wait, longer than a launch interval: other host work;
  // [1500, 1505) is inside B's launch.
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  M.launch(S, "A", 0, 5 * Us, 5 * Us, 500 * Us);
  M.runtime("cudaStreamSynchronize", 10 * Us, 500 * Us);
  M.launch(S, "B", 1500 * Us, 1505 * Us, 1505 * Us, 1600 * Us);
  model::Trace T = M.finish();
  TraceIndex Ctx(T);
  IdleBreakdown B = Ctx.attributeIdle(0, {5 * Us, 1600 * Us});
  EXPECT_EQ(B.HostWaitNs, 0);
  EXPECT_EQ(B.HostOtherNs, 1000 * Us);
  EXPECT_EQ(B.LaunchNs, 5 * Us);
}

} // namespace
