//===- rules/StaticDecodeLaunchBoundTest.cpp - L004 and its split with ----===//
//
// Each test lays out a decode loop by hand; the expected figures are worked
// out in the comments from the event times.
//
//===----------------------------------------------------------------------===//
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

const char *const Kernels[] = {"embed", "norm",   "qkv",  "attn",
                               "oproj", "mlp_up", "down", "sample"};

/// \p Prefill kernels with distinct names (100 us each, back to back from
/// time 0, each launched by a 5 us call that returns as it starts), then
/// \p Tokens tokens from \p T0: token k launches the 8 kernels above one
/// every 20 us (10 us calls), each running \p KernelUs from its call's end.
/// After each token's launches the host reads the token back (a 1 us
/// cudaStreamSynchronize at 155 us into the token) unless \p Reads is false.
model::Trace decodeTrace(int Tokens, int64_t KernelUs, int Prefill = 0,
                         int64_t T0 = 0, bool Reads = true) {
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  for (int P = 0; P < Prefill; ++P) {
    int64_t C = P * 100 * Us;
    M.launch(S, "prefill_" + std::to_string(P), C, C + 5 * Us, C + 5 * Us,
             C + 105 * Us);
  }
  for (int K = 0; K < Tokens; ++K) {
    for (int I = 0; I < 8; ++I) {
      int64_t C = T0 + (160 * K + 20 * I) * Us;
      M.launch(S, Kernels[I], C, C + 10 * Us, C + 10 * Us,
               C + (10 + KernelUs) * Us);
    }
    int64_t R = T0 + (160 * K + 155) * Us;
    if (Reads)
      M.runtime("cudaStreamSynchronize", R, R + Us);
  }
  return M.finish();
}

TEST(StaticDecodeDetector, FindsThePeriodAndSplitsTheIdle) {
  // 12 tokens of 8 kernels of 4 us: the loop runs from 10 us to
  // 11 x 160 + 140 + 14 = 1914 us (1904 us), busy 12 x 32 = 384 us, idle
  // 1520 us. Inside a token each 16 us gap [c+14, c+30) ends with a kernel
  // whose launch call [c+20, c+30) follows the previous one by 20 us (under
  // 200 us): launch path. Between tokens the gap [h+154, h+170) splits into
  // 1 us after the last launch (launch), 1 us in the sync [h+155, h+156)
  // and 4 us refilling after it until the next launch at h+160 (host
  // waits), and the 10 us launch call (launch): 11 x 5 us = 55 us of host
  // waits, 1465 us of launch path.
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
  EXPECT_EQ(L->Idle.LaunchNs, 1465 * Us);
  // The last token's read (1915 us) starts after the loop's last kernel.
  EXPECT_EQ(L->Reads, 11u);
  EXPECT_TRUE(L->LaunchBound);

  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("L004", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  const rules::Detection &D = Out.front();
  // No steps: the window [0, 1914) us is the target; the loop's launch idle
  // lies inside it entirely.
  EXPECT_EQ(D.ImpactNs, 1465 * Us);
  EXPECT_EQ(D.Values.at("tokens"), "12");
  EXPECT_EQ(D.Values.at("kernels_per_token"), "8");
  EXPECT_EQ(D.Values.at("launch_share"), "76.9 %");
  EXPECT_EQ(D.Values.at("first_kernel"), "embed");
  EXPECT_EQ(D.Subject, "device 0 decode loop");
}

TEST(StaticDecodeDetector, PrefillIsNotPartOfTheLoop) {
  // 4 prefill kernels fill [5, 405) us; the decode starts at 500 us. The
  // loop begins with the first token's first kernel (510 us), and the
  // prefill's distinct names never repeat.
  model::Trace T = decodeTrace(12, 4, 4, 500 * Us);
  TraceIndex Ctx(T);
  std::optional<DecodeLoop> L = findDecodeLoop(Ctx, 0, DecodeLoopOptions{});
  ASSERT_TRUE(L.has_value());
  EXPECT_EQ(L->Range.Begin, 510 * Us);
  EXPECT_EQ(L->Repeats, 12u);
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

TEST(StaticDecodeDetector, CannotJudgeWithoutCorrelation) {
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  for (int K = 0; K < 10; ++K)
    for (int I = 0; I < 8; ++I) {
      int64_t C = (160 * K + 20 * I) * Us;
      M.runtime("cudaLaunchKernel", C, C + 10 * Us);
      M.add(S, model::EventKind::Kernel, Kernels[I], C + 10 * Us, C + 14 * Us);
    }
  model::Trace T = M.finish();
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_NE(run("L004", Ctx, Out).find("cannot judge"), std::string::npos);
  EXPECT_TRUE(Out.empty());
}

TEST(StaticDecodeDetector, LaunchBoundLeavesTheLoopToL004) {
  // The same launch idle would make L001 fire (1520 us, 79 % of the
  // window); L001 leaves the reported loop out and finds only the 10 us
  // before it, so exactly one of the two rules claims the time.
  model::Trace T = decodeTrace(12, 4);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> L001, L004;
  EXPECT_EQ(run("L001", Ctx, L001), "");
  EXPECT_EQ(run("L004", Ctx, L004), "");
  EXPECT_TRUE(L001.empty());
  EXPECT_EQ(L004.size(), 1u);
  // Below min-tokens L004 stays quiet, and L001 keeps the time.
  model::Trace Short = decodeTrace(7, 4);
  TraceIndex ShortCtx(Short);
  L001.clear();
  L004.clear();
  EXPECT_EQ(run("L001", ShortCtx, L001), "");
  EXPECT_EQ(run("L004", ShortCtx, L004), "");
  EXPECT_EQ(L001.size(), 1u);
  EXPECT_TRUE(L004.empty());
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
      M.launch(S, Kernels[I], C, C + 10 * Us, C + 10 * Us, C + 14 * Us);
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
