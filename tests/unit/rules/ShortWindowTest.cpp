//===- rules/ShortWindowTest.cpp - T004 too few steps ---------------------===//
#include "../DetectorTestSupport.h"

#include "gtest/gtest.h"

using namespace tracelint;
using namespace tracelint::testing;
using analysis::TraceIndex;

namespace {

/// \p Steps steps of 1 ms and one op.
model::Trace stepsTrace(int Steps) {
  TraceMaker M;
  for (int K = 0; K < Steps; ++K)
    M.step(K + 1, K * Ms, (K + 1) * Ms);
  M.op("aten::add", 0, 10 * Us);
  return M.finish();
}

TEST(ShortWindow, FiresOnOneOrTwoSteps) {
  for (int Steps : {1, 2}) {
    model::Trace T = stepsTrace(Steps);
    TraceIndex Ctx(T);
    std::vector<rules::Detection> Out;
    EXPECT_EQ(run("T004", Ctx, Out), "");
    ASSERT_EQ(Out.size(), 1u) << Steps;
    EXPECT_EQ(Out[0].Values.at("value"), std::to_string(Steps));
    EXPECT_EQ(Out[0].Values.at("steps"), Steps == 1 ? "1 step" : "2 steps");
    EXPECT_EQ(Out[0].Values.at("min_steps"), "3");
  }
}

TEST(ShortWindow, QuietWithoutStepsOrWithEnough) {
  // Without steps the window is T002's.
  for (int Steps : {0, 3}) {
    model::Trace T = stepsTrace(Steps);
    TraceIndex Ctx(T);
    std::vector<rules::Detection> Out;
    EXPECT_EQ(run("T004", Ctx, Out), "");
    EXPECT_TRUE(Out.empty()) << Steps;
  }
}

TEST(ShortWindow, TheMinimumIsAnOption) {
  model::Trace T = stepsTrace(3);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("T004", Ctx, Out, {{"min-steps", 5}}), "");
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_EQ(Out[0].Values.at("min_steps"), "5");
}

} // namespace
