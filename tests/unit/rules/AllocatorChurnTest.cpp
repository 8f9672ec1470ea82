//===- rules/AllocatorChurnTest.cpp - M004 allocator churn ----------------===//
#include "../DetectorTestSupport.h"

#include "gtest/gtest.h"

using namespace tracelint;
using namespace tracelint::testing;
using analysis::TraceIndex;
using model::EventKind;

namespace {

struct Layout {
  bool Steps = true;
  /// Which steps (1-based) allocate with \p Malloc before the gemm.
  std::vector<int> AllocIn = {1, 2, 3, 4, 5};
  /// Which steps call empty_cache (a Python frame around \p Free).
  std::vector<int> EmptyIn = {1, 2, 3, 4, 5};
  llvm::StringRef Malloc = "cudaMalloc";
  llvm::StringRef Free = "cudaFree";
  /// Start of the second kernel's launch (ms * 1000 = us from step start).
  int64_t SecondLaunchUs = 6400;
  /// End of the second kernel (us from step start).
  int64_t SecondEndUs = 9000;
};

bool has(const std::vector<int> &V, int K) {
  return std::find(V.begin(), V.end(), K) != V.end();
}

/// 5 steps of 10 ms (t0 = step start, times in ms): Malloc [0.06, 0.09)
/// under aten::empty, a gemm launched [0.1, 0.11) runs [0.11, 6.0), an
/// empty_cache frame [0.2, 6.3) holds Free [0.25, 6.25), and the second
/// kernel is launched at SecondLaunch and runs to 9.0.
model::Trace churnTrace(const Layout &L) {
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  for (int K = 0; K < 5; ++K) {
    int64_t T0 = K * 10 * Ms;
    if (L.Steps)
      M.step(K + 1, T0, T0 + 10 * Ms);
    if (has(L.AllocIn, K + 1)) {
      M.op("aten::empty", T0 + 50 * Us, T0 + 100 * Us);
      M.runtime(L.Malloc, T0 + 60 * Us, T0 + 90 * Us);
    }
    M.launch(S, "gemm", T0 + 100 * Us, T0 + 110 * Us, T0 + 110 * Us,
             T0 + 6 * Ms);
    if (has(L.EmptyIn, K + 1)) {
      M.add(M.Host, EventKind::Python, "torch/cuda/memory.py(192): empty_cache",
            T0 + 200 * Us, T0 + 6300 * Us);
      M.runtime(L.Free, T0 + 250 * Us, T0 + 6250 * Us);
    }
    int64_t Second = T0 + L.SecondLaunchUs * Us;
    M.launch(S, "add", Second, Second + 10 * Us, Second + 10 * Us,
             T0 + L.SecondEndUs * Us);
  }
  return M.finish();
}

TEST(AllocatorChurnDetector, FiresOnEmptyCacheInTheLoop) {
  model::Trace T = churnTrace({});
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("M004", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  const rules::Detection &D = Out.front();
  // Host: cudaMalloc 0.03 + the frame 6.1 (its cudaFree inside) = 6.13 ms.
  EXPECT_EQ(D.Values.at("value"), "6.13 ms");
  EXPECT_EQ(D.Values.at("mallocs"), "1");
  EXPECT_EQ(D.Values.at("frees"), "1");
  EXPECT_EQ(D.Values.at("empty_cache"), "1");
  EXPECT_EQ(D.Values.at("steps_with_calls"), "4 of 4");
  // min(0.03, idle [0.06, 0.11) = 0.05) + min(6.1, idle [6.0, 6.41)).
  EXPECT_EQ(D.ImpactNs, 440 * Us);
  EXPECT_EQ(D.Values.at("idle"), "460 us");
  EXPECT_EQ(D.Subject, "torch/cuda/memory.py(192): empty_cache");
  EXPECT_EQ(D.Window, "steps 2-5");
  EXPECT_DOUBLE_EQ(D.Confidence, 0.75);
  EXPECT_FALSE(D.SeverityOverride.has_value());
}

TEST(AllocatorChurnDetector, AWarmCacheIsQuiet) {
  Layout L;
  L.AllocIn = {1};
  L.EmptyIn = {};
  model::Trace T = churnTrace(L);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("M004", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
}

TEST(AllocatorChurnDetector, ACacheGrowingInOneStepIsNotChurn) {
  // One synchronizing free and an allocation in step 3 only: the median
  // over steps 2-5 is 0.
  Layout L;
  L.AllocIn = {1, 3};
  L.EmptyIn = {3};
  model::Trace T = churnTrace(L);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("M004", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
}

TEST(AllocatorChurnDetector, HipAndDriverNamesCount) {
  Layout L;
  L.Malloc = "hipMalloc";
  L.Free = "cuMemFree_v2";
  L.EmptyIn = {};
  model::Trace T = churnTrace(L);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  // Without empty_cache only hipMalloc remains: 30 us, 0.3 % of the step,
  // over a 0.1 % floor.
  EXPECT_EQ(run("M004", Ctx, Out, {{"min-share-of-step", 0.001}}), "");
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_EQ(Out.front().Values.at("mallocs"), "1");
  EXPECT_EQ(Out.front().Subject, "aten::empty > hipMalloc");
}

TEST(AllocatorChurnDetector, PinnedAndManagedAllocationsAreNotCounted) {
  Layout L;
  L.Malloc = "cudaMallocHost";
  L.Free = "cudaFreeHost";
  L.EmptyIn = {};
  model::Trace T = churnTrace(L);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("M004", Ctx, Out, {{"min-share-of-step", 0.0}}), "");
  EXPECT_TRUE(Out.empty());
}

TEST(AllocatorChurnDetector, AFreeUnderBusyDeviceIsInfo) {
  // The second kernel is launched before empty_cache and runs [0.16, 10.1):
  // the device never idles during the frame or after it in the step, so
  // only the cudaMalloc bound remains: min(0.03, idle [0.1, 0.11) = 0.01),
  // 0.1 % of the step, under the 2 % gain floor.
  Layout L;
  L.SecondLaunchUs = 150;
  L.SecondEndUs = 10100;
  model::Trace T = churnTrace(L);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("M004", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_EQ(Out.front().ImpactNs, 10 * Us);
  EXPECT_EQ(Out.front().SeverityOverride, rules::Severity::Info);
}

TEST(AllocatorChurnDetector, IdleAfterTheFreeUntilTheNextWorkIsTheBound) {
  // As above, but the second kernel ends at 9.0: after the frame the device
  // idles [9.0, 10.0) to the step's end (the next work starts at 10.11), so
  // the frame's bound is min(6.1, 1.0) and the cudaMalloc's min(0.03,
  // [0.06, 0.11) idle = 0.05): 1.03 ms.
  Layout L;
  L.SecondLaunchUs = 150;
  model::Trace T = churnTrace(L);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("M004", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_EQ(Out.front().ImpactNs, 1030 * Us);
  EXPECT_FALSE(Out.front().SeverityOverride.has_value());
}

TEST(AllocatorChurnDetector, CheapCallsUnderTheFloorAreInfoNotSilent) {
  // Only the cudaMalloc in steps 2-5, no empty_cache: 30 us per 10 ms step
  // is 0.3 %, under the 2 % floor, and so is its bound, min(0.03, idle
  // [0.06, 0.11) = 0.05): under the 1 % min-info-share nothing is reported;
  // with a 0.2 % one the calls are on record, at info.
  Layout L;
  L.EmptyIn = {};
  model::Trace T = churnTrace(L);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("M004", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
  EXPECT_EQ(run("M004", Ctx, Out, {{"min-info-share", 0.002}}), "");
  ASSERT_EQ(Out.size(), 1u);
  const rules::Detection &D = Out.front();
  EXPECT_EQ(D.SeverityOverride, rules::Severity::Info);
  EXPECT_EQ(D.ImpactNs, 30 * Us);
  ASSERT_FALSE(D.ExtraEvidence.empty());
  EXPECT_EQ(D.ExtraEvidence.back(),
            "0.3 % is under the rule's min-share-of-step (2.0 % of the "
            "target), so the finding is info: small, but on record");
}

TEST(AllocatorChurnDetector, WithoutStepsItCannotJudgeAndCountsTheCalls) {
  Layout L;
  L.Steps = false;
  model::Trace T = churnTrace(L);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  std::string Why = run("M004", Ctx, Out);
  EXPECT_NE(Why.find("cannot judge: the trace has no step markers"),
            std::string::npos)
      << Why;
  EXPECT_NE(Why.find("15 allocator calls and empty_cache frames (30.65 ms"),
            std::string::npos)
      << Why;
  EXPECT_TRUE(Out.empty());
}

TEST(AllocatorChurnDetector, NoAllocatorCallsIsQuietEvenWithoutSteps) {
  Layout L;
  L.Steps = false;
  L.AllocIn = {};
  L.EmptyIn = {};
  model::Trace T = churnTrace(L);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("M004", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
}

TEST(AllocatorChurnDetector, WithoutRuntimeCallsItCannotJudge) {
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  for (int K = 0; K < 3; ++K) {
    M.step(K + 1, K * Ms, (K + 1) * Ms);
    M.add(S, EventKind::Kernel, "gemm", K * Ms + 10 * Us, K * Ms + 500 * Us);
  }
  model::Trace T = M.finish();
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  std::string Why = run("M004", Ctx, Out);
  EXPECT_NE(Why.find("no CUDA/HIP runtime or driver calls"), std::string::npos)
      << Why;
}

} // namespace
