//===- rules/NoStepMarkersTest.cpp - T002 no step markers -----------------===//
#include "../DetectorTestSupport.h"

#include "gtest/gtest.h"

using namespace tracelint;
using namespace tracelint::testing;
using analysis::TraceIndex;

namespace {

TEST(NoStepMarkers, FiresWithoutSteps) {
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  M.launch(S, "k", 0, 5 * Us, 5 * Us, 2 * Ms);
  model::Trace T = M.finish();
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("T002", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_EQ(Out[0].ImpactNs, 0);
  EXPECT_EQ(Out[0].Values.at("window_length"), "2 ms");
  EXPECT_EQ(Out[0].Subject, "no-step-markers");
}

TEST(NoStepMarkers, QuietWithSteps) {
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  M.step(1, 0, 3 * Ms);
  M.launch(S, "k", 0, 5 * Us, 5 * Us, 2 * Ms);
  model::Trace T = M.finish();
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("T002", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
}

} // namespace
