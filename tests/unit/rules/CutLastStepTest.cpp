//===- rules/CutLastStepTest.cpp - T007 cut-last-step ===//
#include "../DetectorTestSupport.h"

#include "gtest/gtest.h"

using namespace tracelint;
using namespace tracelint::testing;
using analysis::TraceIndex;

namespace {

/// The MI250 mini trainer's shape: a 9.3 ms step, then a second step the
/// profiler stopped after 50 us (with \p Fire), or a second 9 ms step.
model::Trace twoSteps(bool Fire) {
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  M.step(1, 0, 9300 * Us);
  M.launch(S, "kernel", 5 * Us, 10 * Us, 10 * Us, 9 * Ms);
  const int64_t Second = Fire ? 50 * Us : 9 * Ms;
  M.step(2, 9300 * Us, 9300 * Us + Second);
  M.launch(S, "kernel", 9305 * Us, 9310 * Us, 9310 * Us, 9340 * Us);
  return M.finish();
}

TEST(CutLastStep, FiresOnThePattern) {
  model::Trace T = twoSteps(/*Fire=*/true);
  TraceIndex Ctx(T);
  // The cut step is left out: the median step time is the whole step's,
  // not the mean of 9.3 ms and 50 us.
  EXPECT_TRUE(Ctx.lastStepCut());
  EXPECT_EQ(Ctx.targetNs(), 9300 * Us);
  EXPECT_EQ(Ctx.steadySteps().size(), 1u);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("T007", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
}

TEST(CutLastStep, QuietWithoutIt) {
  model::Trace T = twoSteps(/*Fire=*/false);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("T007", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
}

} // namespace
