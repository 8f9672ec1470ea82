//===- rules/StaticDecodeLaunchBoundTest.cpp - L004 static decode loop ----===//
//
// Each test lays out a decode loop by hand (DecodeLoopTraces.h); the
// expected figures are worked out in the comments from the event times.
// The finder itself and the split with L001 are tested in DecodeLoopTest.
//
//===----------------------------------------------------------------------===//
#include "../DecodeLoopTraces.h"
#include "../DetectorTestSupport.h"
#include "rules/detectors/DecodeLoop.h"

#include "gtest/gtest.h"

using namespace tracelint;
using namespace tracelint::testing;
using analysis::TraceIndex;
using rules::detect::DecodeLoop;
using rules::detect::DecodeLoopOptions;
using rules::detect::findDecodeLoop;

namespace {

TEST(StaticDecodeDetector, FindsThePeriodAndSplitsTheIdle) {
  // 12 tokens of 8 kernels of 4 us: the loop runs from 10 us to
  // 11 x 160 + 140 + 14 = 1914 us (1904 us), busy 12 x 32 = 384 us, idle
  // 1520 us. Inside a token each 16 us gap [c+14, c+30) ends with a kernel
  // whose launch call [c+20, c+30) follows the previous one by 20 us of
  // glue (under 200 us, no op): launch path. Between tokens the gap
  // [h+154, h+170) splits into 1 us after the last launch (untraced host
  // time: nothing is recorded, and the stretch up to the next launch holds
  // the sync, so it is not glue),
  // 1 us in the sync [h+155, h+156) and 4 us refilling after it until the
  // next launch at h+160 (host waits), and the 10 us launch call (launch):
  // 11 x 5 us = 55 us of host waits, 11 us of untraced host time, 1454 us
  // of launch path.
  model::Trace T = decodeTrace(12, 4);
  TraceIndex Ctx(T);
  std::optional<DecodeLoop> L = findDecodeLoop(Ctx, 0, DecodeLoopOptions{});
  ASSERT_TRUE(L.has_value());
  EXPECT_EQ(L->Period, 8u);
  EXPECT_EQ(L->Repeats, 12u);
  EXPECT_EQ(L->Range.Begin, 10 * Us);
  EXPECT_EQ(L->Range.End, 1914 * Us);
  EXPECT_EQ(L->TokenNs, 160 * Us);
  EXPECT_EQ(L->TokenBusyNs, 32 * Us);
  EXPECT_EQ(L->Idle.IdleNs, 1520 * Us);
  EXPECT_EQ(L->Idle.HostWaitNs, 55 * Us);
  EXPECT_EQ(L->Idle.LaunchNs, 1454 * Us);
  EXPECT_EQ(L->Idle.UntracedNs, 11 * Us);
  // The last token's read (1915 us) starts after the loop's last kernel.
  EXPECT_EQ(L->Reads, 11u);
  EXPECT_TRUE(L->LaunchBound);

  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("L004", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  const rules::Detection &D = Out.front();
  // No steps: the window [0, 1914) us is the target; the loop's launch idle
  // lies inside it entirely.
  EXPECT_EQ(D.ImpactNs, 1454 * Us);
  EXPECT_EQ(D.Values.at("tokens"), "12");
  EXPECT_EQ(D.Values.at("kernels_per_token"), "8");
  EXPECT_EQ(D.Values.at("launch_share"), "76.4 %");
  EXPECT_EQ(D.Values.at("first_kernel"), "embed");
  EXPECT_EQ(D.Subject, "device 0 decode loop");
}

TEST(StaticDecodeDetector, QuietOnALayerStackThatNeverReadsBack) {
  // The same launch-bound repeats without a host read per repeat: a stack
  // of identical layers inside one forward pass, not a token loop.
  model::Trace T = decodeTrace(12, 4, 0, 0, /*Reads=*/false);
  TraceIndex Ctx(T);
  std::optional<DecodeLoop> L = findDecodeLoop(Ctx, 0, DecodeLoopOptions{});
  ASSERT_TRUE(L.has_value());
  EXPECT_EQ(L->Reads, 0u);
  EXPECT_FALSE(L->LaunchBound);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("L004", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
}

TEST(StaticDecodeDetector, QuietWhenTheDeviceIsBusy) {
  // 30 us kernels behind a 20 us launch cadence queue up: the loop is found
  // but its device idles only before the first kernel.
  model::Trace T = decodeTrace(12, 30);
  TraceIndex Ctx(T);
  std::optional<DecodeLoop> L = findDecodeLoop(Ctx, 0, DecodeLoopOptions{});
  ASSERT_TRUE(L.has_value());
  EXPECT_FALSE(L->LaunchBound);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("L004", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
}

TEST(StaticDecodeDetector, QuietOnTooFewTokens) {
  // 7 repeats < min-tokens 8; with min-tokens 4 the same loop fires.
  model::Trace T = decodeTrace(7, 4);
  TraceIndex Ctx(T);
  EXPECT_FALSE(findDecodeLoop(Ctx, 0, DecodeLoopOptions{}).has_value());
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("L004", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
  EXPECT_EQ(run("L004", Ctx, Out, {{"min-tokens", 4}}), "");
  EXPECT_EQ(Out.size(), 1u);
}

TEST(StaticDecodeDetector, OneRepeatPerStepIsNotADecode) {
  // A 160 us step around each token: the repeating unit is the step itself
  // (a training or serving loop), so L004 leaves it to L001.
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  for (int K = 0; K < 12; ++K) {
    M.step(K + 1, 160 * K * Us, 160 * (K + 1) * Us);
    for (int I = 0; I < 8; ++I) {
      int64_t C = (160 * K + 20 * I) * Us;
      M.launch(S, DecodeKernels[I], C, C + 10 * Us, C + 10 * Us, C + 14 * Us);
    }
  }
  model::Trace T = M.finish();
  TraceIndex Ctx(T);
  std::optional<DecodeLoop> L = findDecodeLoop(Ctx, 0, DecodeLoopOptions{});
  ASSERT_TRUE(L.has_value());
  EXPECT_FALSE(L->LaunchBound);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("L004", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
}

} // namespace
