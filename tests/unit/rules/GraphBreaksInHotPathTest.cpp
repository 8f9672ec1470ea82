//===- rules/GraphBreaksInHotPathTest.cpp - C002 graph breaks in the hot --===//
#include "../DetectorTestSupport.h"

#include "gtest/gtest.h"

using namespace tracelint;
using namespace tracelint::testing;
using analysis::TraceIndex;

namespace {

enum class Shape { Break, Sequential, Single };

/// 4 steps of 10 ms; in each (t0 = step start, us):
///  - region 0/0 [100, 3100) runs graph a [110, 1110), whose kernel runs
///    [120, 1020); then aten::nonzero [1120, 1200) launches a kernel
///    [1140, 1190); then region 1/0 [1300, 3000) runs graph b, whose
///    kernel runs [1320, 2820).
/// Sequential: the same, but the second region is 0/0 after the first
/// (which ends at 1250): a function called twice. Single: no second region.
model::Trace trace(Shape S, bool Steps = true) {
  TraceMaker M;
  uint32_t Dev = M.stream(0, 7);
  for (int K = 0; K < 4; ++K) {
    int64_t T0 = K * 10 * Ms;
    if (Steps)
      M.step(K + 1, T0, T0 + 10 * Ms);
    int64_t OuterEnd = S == Shape::Break ? 3100 : 1250;
    M.op("Torch-Compiled Region: 0/0", T0 + 100 * Us, T0 + OuterEnd * Us);
    M.add(M.Host, model::EventKind::Annotation, "## Call CompiledFxGraph a ##",
          T0 + 110 * Us, T0 + 1110 * Us);
    M.launch(Dev, "triton_poi_fused_a", T0 + 115 * Us, T0 + 118 * Us,
             T0 + 120 * Us, T0 + 1020 * Us);
    M.op("aten::nonzero", T0 + 1120 * Us, T0 + 1200 * Us);
    M.launch(Dev, "nonzero_kernel", T0 + 1130 * Us, T0 + 1138 * Us,
             T0 + 1140 * Us, T0 + 1190 * Us);
    if (S == Shape::Single)
      continue;
    M.op(S == Shape::Break ? "Torch-Compiled Region: 1/0"
                           : "Torch-Compiled Region: 0/0",
         T0 + 1300 * Us, T0 + 3000 * Us);
    M.add(M.Host, model::EventKind::Annotation, "## Call CompiledFxGraph b ##",
          T0 + 1310 * Us, T0 + 2990 * Us);
    M.launch(Dev, "triton_poi_fused_b", T0 + 1315 * Us, T0 + 1318 * Us,
             T0 + 1320 * Us, T0 + 2820 * Us);
  }
  return M.finish();
}

TEST(GraphBreaksDetector, FiresOnANestedResumeRegion) {
  model::Trace T = trace(Shape::Break);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("C002", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  const rules::Detection &D = Out.front();
  // Idle inside [100, 3100): 20 + 120 + 130 + 280 = 550 us; with the eager
  // kernel [1140, 1190): 600 us per step.
  EXPECT_EQ(D.Values.at("breaks"), "1");
  EXPECT_EQ(D.Values.at("pairs"), "0/0 -> 1/0 (3x)");
  EXPECT_EQ(D.Values.at("eager_ops"), "aten::nonzero (3x)");
  EXPECT_EQ(D.Values.at("eager_kernels"), "3");
  EXPECT_EQ(D.Values.at("idle"), "1.65 ms");
  EXPECT_EQ(D.ImpactNs, 600 * Us);
  EXPECT_EQ(D.Subject, "Torch-Compiled Region: 0/0");
}

TEST(GraphBreaksDetector, QuietOnAFunctionCalledTwice) {
  model::Trace T = trace(Shape::Sequential);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("C002", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
}

TEST(GraphBreaksDetector, QuietOnOneGraph) {
  model::Trace T = trace(Shape::Single);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("C002", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
}

TEST(GraphBreaksDetector, UnderTheStepShareIsQuiet) {
  // 600 us of a 10 ms step is 6 %: quiet at a 10 % threshold.
  model::Trace T = trace(Shape::Break);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("C002", Ctx, Out, {{"min-share-of-step", 0.1}}), "");
  EXPECT_TRUE(Out.empty());
}

TEST(GraphBreaksDetector, WholeWindowWithoutSteps) {
  // Without steps the window is the target: 4 calls, 4 breaks, and the
  // cost is 4 x 600 us.
  model::Trace T = trace(Shape::Break, /*Steps=*/false);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("C002", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_EQ(Out[0].Values.at("breaks"), "4");
  EXPECT_EQ(Out[0].ImpactNs, 2400 * Us);
}

} // namespace
