//===- IdleAttributionTest.cpp - TraceIndex::attributeIdle ----------------===//
//
// How the trace index splits a device's idle time by cause (the split that
// L001, L002 and L004 read). Each test lays out a timeline by hand; the
// expected figures are worked out in the comments from the event times.
//
//===----------------------------------------------------------------------===//
#include "CaptureTraces.h"
#include "DetectorTestSupport.h"

#include "gtest/gtest.h"

using namespace tracelint;
using namespace tracelint::testing;
using analysis::IdleBreakdown;
using analysis::TraceIndex;
using model::EventKind;

namespace {

TEST(IdleAttribution, AttributesIdleToWaitsStallsAndMissingLinks) {
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  // Wait: kernel A [0, 500) us; the host waits in cudaStreamSynchronize
  // [10, 500) and launches B at 520, which starts at 525. Gap [500, 525):
  // [500, 520) is the refill after the wait, [520, 525) inside the launch.
  M.launch(S, "A", 0, 5 * Us, 5 * Us, 500 * Us);
  M.runtime("cudaStreamSynchronize", 10 * Us, 500 * Us);
  M.launch(S, "B", 520 * Us, 525 * Us, 525 * Us, 600 * Us);
  // Unrecorded: C is launched at [560, 565) but starts at 700 (it waited
  // for something the trace does not show): the gap [600, 700) began after
  // the call returned; its first 15 us, up to 50 us after the call's
  // return, are ordinary launch latency, the other 85 us unrecorded.
  M.launch(S, "C", 560 * Us, 565 * Us, 700 * Us, 710 * Us);
  // Unlinked: D has no correlation; gap [710, 800).
  M.add(S, EventKind::Kernel, "D", 800 * Us, 810 * Us);
  // A slow launch (lazy module loading): E's call takes 2 ms, [900, 2900),
  // and E starts at 2900. In the gap [810, 2900), [810, 900) is untraced
  // host time (no event is open, and no op that submits work: off the
  // launch path), and
  // [900, 2900) is inside the only launch of E, 1 ms or longer: start-up
  // (loading E's module), as on the critical path. Finally the gap [0, 5)
  // before A is inside A's own launch call.
  M.launch(S, "E", 900 * Us, 2900 * Us, 2900 * Us, 2910 * Us);
  model::Trace T = M.finish();
  TraceIndex Ctx(T);
  IdleBreakdown B = Ctx.attributeIdle(0, {0, 2910 * Us});
  EXPECT_EQ(B.HostWaitNs, 20 * Us);
  EXPECT_EQ(B.UnrecordedNs, 85 * Us);
  EXPECT_EQ(B.UnlinkedNs, 90 * Us);
  EXPECT_EQ(B.LaunchNs, 5 * Us + 5 * Us + 15 * Us);
  EXPECT_EQ(B.StartupNs, 2000 * Us);
  EXPECT_EQ(B.HostOtherNs, 0);
  EXPECT_EQ(B.UntracedNs, 90 * Us);
  EXPECT_EQ(B.IdleNs, 5 * Us + 25 * Us + 100 * Us + 90 * Us + 2090 * Us);
}

TEST(IdleAttribution, WorkStartingLongAfterItsLaunchIsHeldBack) {
  // The launch returns at 15 us but its kernel starts at 8 ms (an excerpt,
  // or clock skew): after the 50 us launch latency the gap is an
  // unrecorded dependency.
  // The host records an op at [0, 5) us and another after the kernel, so
  // its record spans the gap.
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  M.op("aten::empty", 0, 5 * Us);
  M.launch(S, "k", 10 * Us, 15 * Us, 8 * Ms, 8 * Ms + 10 * Us);
  M.op("aten::empty", 8 * Ms + 20 * Us, 8 * Ms + 30 * Us);
  model::Trace T = M.finish();
  TraceIndex Ctx(T);
  IdleBreakdown B = Ctx.attributeIdle(0, {0, 8 * Ms});
  // [0, 10) us: before the only launch, no earlier submission: the op
  // [0, 5) is host work, [5, 10) untraced host time.
  EXPECT_EQ(B.HostOtherNs, 5 * Us);
  EXPECT_EQ(B.UntracedNs, 5 * Us);
  EXPECT_EQ(B.LaunchNs, 55 * Us); // [10, 65): the call and its latency
  EXPECT_EQ(B.UnrecordedNs, 8 * Ms - 65 * Us);
  EXPECT_EQ(B.CutNs, 0);
}

TEST(IdleAttribution, IdleOutsideTheHostRecordIsTheWindowsCut) {
  // A vLLM replay slice: the host's events end at 15 us, the device runs
  // from 8 ms. The host record does not reach the gap [15 us, 8 ms), so no
  // host cause and no unrecorded dependency can be named there: the window
  // was cut.
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  M.launch(S, "k", 10 * Us, 15 * Us, 8 * Ms, 8 * Ms + 10 * Us);
  model::Trace T = M.finish();
  TraceIndex Ctx(T);
  IdleBreakdown B = Ctx.attributeIdle(0, {0, 8 * Ms});
  EXPECT_EQ(Ctx.quality().HostSpan, (model::Interval{10 * Us, 15 * Us}));
  EXPECT_EQ(B.CutNs, 10 * Us + 8 * Ms - 15 * Us);
  EXPECT_EQ(B.LaunchNs, 5 * Us); // inside the call
  EXPECT_EQ(B.UnrecordedNs, 0);
  EXPECT_EQ(Ctx.quality().DeviceAfterHostNs, 10 * Us);
}

TEST(IdleAttribution, LongHostWorkAfterAWaitIsNotRefill) {
  // Kernel A [0, 500) us; the host waits [10, 500), then works 1 ms before
  // launching B at 1500. The gap [500, 1505): [500, 1500) is a 1 ms stretch
  // after the wait, longer than a launch interval, in which nothing is
  // recorded: untraced host time, not refill; [1500, 1505) is inside B's
  // launch.
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  M.launch(S, "A", 0, 5 * Us, 5 * Us, 500 * Us);
  M.runtime("cudaStreamSynchronize", 10 * Us, 500 * Us);
  M.launch(S, "B", 1500 * Us, 1505 * Us, 1505 * Us, 1600 * Us);
  model::Trace T = M.finish();
  TraceIndex Ctx(T);
  IdleBreakdown B = Ctx.attributeIdle(0, {5 * Us, 1600 * Us});
  EXPECT_EQ(B.HostWaitNs, 0);
  EXPECT_EQ(B.UntracedNs, 1000 * Us);
  EXPECT_EQ(B.LaunchNs, 5 * Us);
}

TEST(IdleAttribution, HostWorkInsideADataLoaderRangeIsDataLoading) {
  // Kernel A [0, 100) us; the host then sits 1 ms in a data-loader range
  // [105, 1105) before launching B at 1200 (starts 1205). Of the gap
  // [100, 1205): [100, 1200) is a stretch without submissions, 1000 us of
  // it inside the loader range (data loading) and 100 us outside, where
  // nothing is recorded (untraced); [1200, 1205) is B's launch.
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  M.launch(S, "A", 0, 5 * Us, 5 * Us, 100 * Us);
  M.add(M.Host, EventKind::Annotation,
        "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 105 * Us,
        1105 * Us);
  M.launch(S, "B", 1200 * Us, 1205 * Us, 1205 * Us, 1300 * Us);
  model::Trace T = M.finish();
  TraceIndex Ctx(T);
  IdleBreakdown B = Ctx.attributeIdle(0, {5 * Us, 1300 * Us});
  EXPECT_EQ(B.DataLoadingNs, 1000 * Us);
  EXPECT_EQ(B.UntracedNs, 100 * Us);
  EXPECT_EQ(B.LaunchNs, 5 * Us);
  EXPECT_EQ(B.IdleNs, 1105 * Us);
}

/// Two eager ops, each dispatching for 30 us before its launch call:
/// op1 [0, 40) us holds cudaLaunchKernel [30, 38), kernel [40, 45); op2
/// [100, 140) holds [130, 138), kernel [140, 145). Between them, [40, 100),
/// Python runs, with a CPU op that submits nothing at [50, 90) when
/// \p CpuOp.
model::Trace twoEagerOps(bool CpuOp) {
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  M.step(1, 0, 145 * Us);
  M.add(M.Host, EventKind::Python, "forward", 0, 145 * Us);
  M.op("aten::linear", 0, 40 * Us);
  M.launch(S, "k1", 30 * Us, 38 * Us, 40 * Us, 45 * Us);
  if (CpuOp)
    M.op("aten::clone", 50 * Us, 90 * Us);
  M.op("aten::relu", 100 * Us, 140 * Us);
  M.launch(S, "k2", 130 * Us, 138 * Us, 140 * Us, 145 * Us);
  return M.finish();
}

TEST(IdleAttribution, GlueBetweenEagerOpsIsOnTheLaunchPath) {
  // The 60 us of Python between the ops runs no op and is under 200 us:
  // glue, so the whole [0, 140) is launch path, and so is all the idle
  // (gaps [0, 40) and [45, 140): 135 us).
  model::Trace T = twoEagerOps(false);
  TraceIndex Ctx(T);
  IdleBreakdown B = Ctx.attributeIdle(0, {0, 145 * Us});
  EXPECT_EQ(B.IdleNs, 135 * Us);
  EXPECT_EQ(B.LaunchNs, 135 * Us);
  EXPECT_EQ(B.HostOtherNs, 0);
  ASSERT_EQ(Ctx.launchPath(0).parts().size(), 1u);
  EXPECT_EQ(Ctx.launchPath(0).length(), 140 * Us);
}

TEST(IdleAttribution, ACpuOpBetweenSubmissionsIsOtherHostWork) {
  // aten::clone submits nothing: [40, 100) is not glue. Gap [45, 140):
  // [45, 100) is other host work (55 us); [100, 140) is op2's dispatch
  // and call (40 us). With gap [0, 40): 80 us of launch path.
  model::Trace T = twoEagerOps(true);
  TraceIndex Ctx(T);
  IdleBreakdown B = Ctx.attributeIdle(0, {0, 145 * Us});
  EXPECT_EQ(B.IdleNs, 135 * Us);
  EXPECT_EQ(B.LaunchNs, 80 * Us);
  EXPECT_EQ(B.HostOtherNs, 55 * Us);
  ASSERT_EQ(Ctx.launchPath(0).parts().size(), 2u);
  EXPECT_EQ(Ctx.launchPath(0).length(), 80 * Us);
}

TEST(IdleAttribution, OnlyAKernelsOutstandingFirstLaunchIsStartUp) {
  // k's first launch takes 20 ms [0, 20) ms (loading its module); its two
  // later launches take 5 us. Gaps: [0, 20 ms) inside the first launch:
  // start-up; [20.1, 20.11) and [20.2, 20.21) ms: the later launches' calls
  // and latency, 10 us each.
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  M.launch(S, "k", 0, 20 * Ms, 20 * Ms, 20100 * Us);
  M.launch(S, "k", 20100 * Us, 20105 * Us, 20110 * Us, 20200 * Us);
  M.launch(S, "k", 20200 * Us, 20205 * Us, 20210 * Us, 20300 * Us);
  M.op("aten::empty", 20300 * Us, 20310 * Us); // the host record goes on
  model::Trace T = M.finish();
  TraceIndex Ctx(T);
  IdleBreakdown B = Ctx.attributeIdle(0, {0, 20300 * Us});
  EXPECT_EQ(B.StartupNs, 20 * Ms);
  EXPECT_EQ(B.LaunchNs, 20 * Us);
  ASSERT_EQ(Ctx.startup().Found.size(), 1u);
}

TEST(IdleAttribution, AKernelWhoseEveryLaunchIsSlowIsTheLaunchPath) {
  // Every launch of k takes 2 ms: the kernel pays for its submission each
  // time (a blocking launch, a slow driver), which is the launch path, not
  // a module loaded once. Idle: [0, 2), [2.1, 4.1), [4.2, 6.2) ms.
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  for (int K = 0; K < 3; ++K) {
    const int64_t C = K * 2100 * Us;
    M.launch(S, "k", C, C + 2 * Ms, C + 2 * Ms, C + 2100 * Us);
  }
  model::Trace T = M.finish();
  TraceIndex Ctx(T);
  IdleBreakdown B = Ctx.attributeIdle(0, {0, 6300 * Us});
  EXPECT_EQ(B.IdleNs, 6 * Ms);
  EXPECT_EQ(B.LaunchNs, 6 * Ms);
  EXPECT_EQ(B.StartupNs, 0);
  EXPECT_TRUE(Ctx.startup().Found.empty());
}

TEST(IdleAttribution, GraphCaptureIsStartUp) {
  // hipCaptureStep: after ten warm-up kernels the device idles from 870 us
  // to 33.01 ms while the host captures [1, 32) ms and instantiates the
  // graph [32, 33) ms: 32 ms of start-up; the graph launch's call and
  // latency [33, 33.01) ms are the launch path.
  model::Trace T = hipCaptureStep();
  TraceIndex Ctx(T);
  IdleBreakdown B = Ctx.attributeIdle(0, {0, 34 * Ms});
  EXPECT_EQ(B.StartupNs, 32 * Ms);
  // The rest is the warm-up's short gaps and the graph launch: under 1 ms.
  EXPECT_LT(B.IdleNs - B.StartupNs, 1 * Ms);
  EXPECT_GE(B.LaunchNs, 10 * Us);
  EXPECT_EQ(Ctx.targetIdle().StartupNs, 32 * Ms);
}

TEST(IdleAttribution, TheProfilersOwnWorkIsProfiler) {
  // A [5, 100) us. An overhead record (a buffer flush) [150, 650) us on a
  // track of its own in the host process, then B launched at [700, 705)
  // (starts 710); the profiler's step() frame [850, 1050) on the main
  // thread, then C launched at [1100, 1105) (starts 1110). Gaps
  // [100, 710) and [800, 1110): 500 + 200 us profiler, 10 + 10 us launch,
  // the rest (50 us on each side of each profiler stretch) untraced.
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  uint32_t Flush = M.host(2);
  M.launch(S, "A", 0, 5 * Us, 5 * Us, 100 * Us);
  M.add(Flush, EventKind::Overhead, "CUPTI Buffer Flush", 150 * Us, 650 * Us);
  M.launch(S, "B", 700 * Us, 705 * Us, 710 * Us, 800 * Us);
  M.add(M.Host, EventKind::Python, "torch/profiler/profiler.py(740): step",
        850 * Us, 1050 * Us);
  M.launch(S, "C", 1100 * Us, 1105 * Us, 1110 * Us, 1200 * Us);
  M.op("aten::empty", 1200 * Us, 1210 * Us); // the host record goes on
  model::Trace T = M.finish();
  TraceIndex Ctx(T);
  IdleBreakdown B = Ctx.attributeIdle(0, {5 * Us, 1200 * Us});
  EXPECT_EQ(B.ProfilerNs, 700 * Us);
  EXPECT_EQ(B.LaunchNs, 20 * Us);
  EXPECT_EQ(B.UntracedNs, 200 * Us);
  EXPECT_EQ(Ctx.profilerActivity().size(), 2u);
}

TEST(IdleAttribution, TheTypicalSplitAddsUpToTheMedianIdle) {
  // Three windows idle 100 us each, split launch/host work/untraced as
  // (50, 50, 0), (0, 50, 50) and (50, 0, 50): each cause's median is 50 us,
  // 150 us in all for 100 us of idle. Scaled, each is a third, and the
  // parts sum to exactly 100 us.
  auto Window = [](int64_t Launch, int64_t Other, int64_t Untraced) {
    analysis::TargetIdle W;
    W.Device = 0;
    W.SpanNs = 1000;
    W.IdleNs = Launch + Other + Untraced;
    W.LaunchNs = Launch;
    W.HostOtherNs = Other;
    W.UntracedNs = Untraced;
    return W;
  };
  const analysis::TargetIdle A = Window(50, 50, 0), B = Window(0, 50, 50),
                             C = Window(50, 0, 50);
  analysis::TargetIdle I = analysis::typicalSplit(0, {&A, &B, &C});
  EXPECT_EQ(I.IdleNs, 100);
  EXPECT_EQ(I.causesNs(), 100);
  EXPECT_GE(I.LaunchNs, 33);
  EXPECT_GE(I.HostOtherNs, 33);
  EXPECT_GE(I.UntracedNs, 33);
  // Medians that already add up are kept as they are: one odd window does
  // not move them.
  const analysis::TargetIdle D = Window(90, 10, 0), E = Window(90, 10, 0),
                             F = Window(0, 0, 100);
  analysis::TargetIdle J = analysis::typicalSplit(0, {&D, &E, &F});
  EXPECT_EQ(J.LaunchNs, 90);
  EXPECT_EQ(J.HostOtherNs, 10);
  EXPECT_EQ(J.UntracedNs, 0);
  // Every window idles for another reason: every median is zero, and the
  // windows' totals set the proportions.
  const analysis::TargetIdle G = Window(100, 0, 0), H = Window(0, 100, 0),
                             K = Window(0, 0, 100);
  analysis::TargetIdle L = analysis::typicalSplit(0, {&G, &H, &K});
  EXPECT_EQ(L.causesNs(), 100);
  EXPECT_GE(L.LaunchNs, 33);
  EXPECT_GE(L.UntracedNs, 33);
}

} // namespace
