//===- rules/HostBoundGapsTest.cpp - L002 host-bound gaps -----------------===//
//
// Each test lays out a timeline by hand; the expected figures are worked out
// in the comments from the event times.
//
//===----------------------------------------------------------------------===//
#include "../DetectorTestSupport.h"

#include "gtest/gtest.h"

using namespace tracelint;
using namespace tracelint::testing;
using analysis::TraceIndex;
using model::EventKind;

namespace {

/// Four 2 ms steps (t0 = step start): a gemm [t0 + 10, t0 + 300) us launched
/// by a call [t0 + 5, t0 + 10) us; host work \p Work over [t0 + 60,
/// t0 + 1260) us (an op, or a runtime call, or a loader range; nothing
/// when \p Work is empty); then
/// aten::add [t0 + 1295, t0 + 1320) us launches a 700 us kernel (call
/// [t0 + 1300, t0 + 1310) us, kernel [t0 + 1310, t0 + 2010) us). The device
/// idles [300, 1310) us per step: [300, 1300) is host work (1000 us),
/// [1300, 1310) the launch call (10 us).
model::Trace hostWorkTrace(EventKind WorkKind, llvm::StringRef Work) {
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  for (int K = 0; K < 4; ++K) {
    int64_t T0 = K * 2 * Ms;
    M.step(K + 1, T0, T0 + 2 * Ms);
    M.op("aten::mm", T0, T0 + 20 * Us);
    M.launch(S, "gemm", T0 + 5 * Us, T0 + 10 * Us, T0 + 10 * Us, T0 + 300 * Us);
    if (!Work.empty())
      M.add(M.Host, WorkKind, Work, T0 + 60 * Us, T0 + 1260 * Us);
    M.op("aten::add", T0 + 1295 * Us, T0 + 1320 * Us);
    M.launch(S, "add_kernel", T0 + 1300 * Us, T0 + 1310 * Us, T0 + 1310 * Us,
             T0 + 2010 * Us);
  }
  return M.finish();
}

TEST(HostBoundDetector, FiresWithTheOpThatHeldTheHost) {
  model::Trace T = hostWorkTrace(EventKind::Op, "aten::sort");
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("L002", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  const rules::Detection &D = Out.front();
  // Of the 1.01 ms idle per step: aten::sort [300, 1260) = 960 us is host
  // work; nothing is recorded over [1260, 1295) = 35 us (untraced, T005's);
  // aten::add's dispatch [1295, 1300) submits work: it is on the launch
  // path (L001's), with the call: 15 us.
  EXPECT_EQ(D.ImpactNs, 960 * Us);
  EXPECT_EQ(D.Values.at("share"), "48.0 %");
  EXPECT_EQ(D.Values.at("top_op"), "aten::sort");
  EXPECT_EQ(D.Values.at("top_op_share"), "100.0 %");
  EXPECT_EQ(D.Values.at("launch_idle"), "15 us");
  EXPECT_EQ(D.Values.at("idle"), "1.01 ms");
  EXPECT_EQ(D.Subject, "aten::sort");
  EXPECT_EQ(D.Window, "steps 2-4");
  EXPECT_DOUBLE_EQ(D.Confidence, 0.7);
  // The figure is the target line's host-work part, the same number.
  EXPECT_EQ(Ctx.targetIdle().HostOtherNs, 960 * Us);
  EXPECT_EQ(Ctx.targetIdle().UntracedNs, 35 * Us);
  // A higher bar than 48 % is not met.
  std::vector<rules::Detection> High;
  run("L002", Ctx, High, {{"min-idle-share", 0.49}});
  EXPECT_TRUE(High.empty());
}

TEST(HostBoundDetector, LeavesDataLoaderTimeToD001) {
  // The same stretch spent in the data loader: D001's, not L002's. What is
  // left is [1260, 1295) us = 35 us in which nothing is recorded (T005's;
  // aten::add's dispatch is the launch path): no host work at all.
  model::Trace T = hostWorkTrace(
      EventKind::Annotation,
      "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__");
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  run("L002", Ctx, Out, {{"min-idle-share", 0.01}});
  EXPECT_TRUE(Out.empty());
  EXPECT_EQ(Ctx.targetIdle().DataLoadingNs, 960 * Us);
  EXPECT_EQ(Ctx.targetIdle().UntracedNs, 35 * Us);
}

TEST(HostBoundDetector, NamesARuntimeCallThatSubmitsNothing) {
  // A 1.2 ms cudaStreamQuery-like call between the launches that submits
  // nothing is host work too: L002 claims the target line's figure and
  // names the call.
  model::Trace T = hostWorkTrace(EventKind::Runtime, "cudaStreamGetPriority");
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("L002", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_EQ(Out[0].ImpactNs, Ctx.targetIdle().HostOtherNs);
  EXPECT_EQ(Out[0].Values.at("top_op"), "cudaStreamGetPriority");
}

TEST(HostBoundDetector, LeavesUntracedHostTimeToT005) {
  // Nothing recorded between the launches: the 995 us off the launch path
  // are untraced host time, which T005 claims; L002 has nothing to name.
  model::Trace T = hostWorkTrace(EventKind::Op, "");
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("L002", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
  std::vector<rules::Detection> Untraced;
  EXPECT_EQ(run("T005", Ctx, Untraced), "");
  ASSERT_EQ(Untraced.size(), 1u);
  EXPECT_EQ(Untraced[0].ImpactNs, 995 * Us);
  EXPECT_EQ(Ctx.targetIdle().UntracedNs, 995 * Us);
}

TEST(HostBoundDetector, CountsCodeBetweenTracedOsCallsAsHostWork) {
  // The steps of hostWorkTrace with no op between the launches, but OS
  // runtime calls (nsys OSRT) in the host phase: read [60, 460) and
  // pthread_join [700, 1000) us. Of the 1.01 ms idle per step: read
  // [300, 460) = 160 us, pthread_join 300 us, and the thread's own code
  // between and after the calls, [460, 700) + [1000, 1295) = 535 us, which
  // the host timeline calls host work (the phase's OS calls are traced):
  // 995 us, all L002's, none T005's; [1295, 1310) is the launch path.
  model::Trace T = [] {
    TraceMaker M;
    uint32_t S = M.stream(0, 7);
    for (int K = 0; K < 4; ++K) {
      int64_t T0 = K * 2 * Ms;
      M.step(K + 1, T0, T0 + 2 * Ms);
      M.op("aten::mm", T0, T0 + 20 * Us);
      M.launch(S, "gemm", T0 + 5 * Us, T0 + 10 * Us, T0 + 10 * Us,
               T0 + 300 * Us);
      M.add(M.Host, EventKind::OsRuntime, "read", T0 + 60 * Us, T0 + 460 * Us);
      M.add(M.Host, EventKind::OsRuntime, "pthread_join", T0 + 700 * Us,
            T0 + 1000 * Us);
      M.op("aten::add", T0 + 1295 * Us, T0 + 1320 * Us);
      M.launch(S, "add_kernel", T0 + 1300 * Us, T0 + 1310 * Us, T0 + 1310 * Us,
               T0 + 2010 * Us);
    }
    return M.finish();
  }();
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("L002", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_EQ(Out[0].ImpactNs, 995 * Us);
  EXPECT_EQ(Ctx.targetIdle().HostOtherNs, 995 * Us);
  EXPECT_EQ(Ctx.targetIdle().UntracedNs, 0);
  EXPECT_EQ(Out[0].Values.at("top_op"),
            "code between OS runtime calls (no event names it)");
  EXPECT_EQ(Out[0].Values.at("top_op_share"), "53.8 %");
  // Three steps with one phase each: no one phase holds half of the time.
  EXPECT_EQ(Out[0].Subject, "code between OS runtime calls (no event names "
                            "it)");
  std::vector<rules::Detection> Untraced;
  EXPECT_EQ(run("T005", Ctx, Untraced), "");
  EXPECT_TRUE(Untraced.empty());
}

TEST(HostBoundDetector, NamesOneLongHostPhase) {
  // No steps: a kernel [10, 1000) us, then a 4 ms host phase on the
  // launching thread, read [1200, 2200) and pthread_join [3000, 4500) with
  // untraced code between and after them, then the next launch at
  // [5000, 5010) us. The device idles [1000, 5010): 4 ms of host work in
  // one phase (+ 10 us of launch call), the phase named with what the
  // thread did in it.
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  M.launch(S, "build", 0, 10 * Us, 10 * Us, 1000 * Us);
  M.add(M.Host, EventKind::OsRuntime, "read", 1200 * Us, 2200 * Us);
  M.add(M.Host, EventKind::OsRuntime, "pthread_join", 3000 * Us, 4500 * Us);
  M.launch(S, "probe", 5000 * Us, 5010 * Us, 5010 * Us, 6000 * Us);
  model::Trace T = M.finish();
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("L002", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_EQ(Out[0].ImpactNs, 4 * Ms);
  EXPECT_EQ(Ctx.targetIdle().HostOtherNs, 4 * Ms);
  EXPECT_EQ(Out[0].Subject, "host phase");
  EXPECT_NE(Out[0].Values.at("top_op").text().find("the 4 ms host phase of"),
            std::string::npos);
  ASSERT_EQ(Out[0].ExtraEvidence.size(), 2u);
  EXPECT_NE(Out[0].ExtraEvidence[0].find(
                "the thread spent it in pthread_join 1.5 ms and read 1 ms, "
                "and 1.5 ms in its own code between OS runtime calls"),
            std::string::npos)
      << Out[0].ExtraEvidence[0];
}

TEST(HostBoundDetector, QuietOnLaunchOverhead) {
  // Launches 50 us apart with 5 us kernels: all idle is launch path (L001).
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  for (int K = 0; K < 4; ++K) {
    int64_t T0 = K * Ms;
    M.step(K + 1, T0, T0 + Ms);
    for (int I = 0; I < 20; ++I) {
      int64_t C = T0 + 50 * I * Us;
      M.op("aten::add", C, C + 12 * Us);
      M.launch(S, "add_kernel", C + 1 * Us, C + 10 * Us, C + 10 * Us,
               C + 15 * Us);
    }
  }
  model::Trace T = M.finish();
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("L002", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
}

} // namespace
