//===- RankRepeatedlyLastTest.cpp - N005 rank-repeatedly-last -------------===//
#include "../JobTestSupport.h"

#include "gtest/gtest.h"

using namespace tracelint;
using namespace tracelint::testing;

namespace {

TEST(RankRepeatedlyLast, TheSameRankLastAtEveryCollective) {
  // Rank 1 is 300 us late before the all-reduces of each step: only the
  // first of each step waits for it (the second starts when the first
  // ends, together), so over the steady steps 2-4 it is last at 3 of 6.
  analysis::JobAnalysis J =
      analysis::analyzeJob(makeJob(4, 1, 300 * Us, /*Collectives=*/2));
  std::vector<rules::Detection> Out;
  ASSERT_EQ(run("N005", J, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_EQ(Out[0].Subject, "rank 1");
  EXPECT_EQ(Out[0].Values.at("times").text(), "3");
  EXPECT_EQ(Out[0].Values.at("judged").text(), "6");
  EXPECT_NEAR(double(Out[0].ImpactNs), double(300 * Us), 20.0 * Us);
}

TEST(RankRepeatedlyLast, QuietWhenNobodyIsLate) {
  analysis::JobAnalysis J = analysis::analyzeJob(makeJob(4, -1, 0, 2));
  std::vector<rules::Detection> Out;
  ASSERT_EQ(run("N005", J, Out), "");
  EXPECT_TRUE(Out.empty());
}

TEST(RankRepeatedlyLast, ConsistentJitterIsNotAStraggler) {
  // Rank 1 is 10 us late before every step's first all-reduce: last at 3
  // of 6 again, but by less than min-late (50 us), so it is not counted.
  analysis::JobAnalysis J = analysis::analyzeJob(makeJob(4, 1, 10 * Us, 2));
  std::vector<rules::Detection> Out;
  ASSERT_EQ(run("N005", J, Out), "");
  EXPECT_TRUE(Out.empty());
  ASSERT_EQ(run("N005", J, Out, {{"min-late", 0.0}}), "");
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_EQ(Out[0].Values.at("times").text(), "3");
}

TEST(RankRepeatedlyLast, TwoRanksAreNotJudged) {
  analysis::JobAnalysis J = analysis::analyzeJob(makeJob(2, 1, 300 * Us, 2));
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("N005", J, Out).rfind("not applicable", 0), 0u);
}

} // namespace
