//===- ComputeImbalanceTest.cpp - N007 compute-imbalance
//-------------------===//
#include "../JobTestSupport.h"

#include "gtest/gtest.h"

using namespace tracelint;
using namespace tracelint::testing;

namespace {

TEST(ComputeImbalance, LongerComputeOnTheLateRankExplainsItsLateness) {
  // Rank 3's kernel runs 8 ms where the others' run 6 ms: it reaches every
  // all-reduce 2 ms late, all of it explained by the compute.
  analysis::JobAnalysis J =
      analysis::analyzeJob(makeJob(4, 3, 2 * Ms, 1, /*ByCompute=*/true));
  std::vector<rules::Detection> Out;
  ASSERT_EQ(run("N007", J, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_EQ(Out[0].Subject, "rank 3");
  EXPECT_EQ(Out[0].Values.at("own").text(), "8 ms");
  EXPECT_EQ(Out[0].Values.at("median").text(), "6 ms");
  EXPECT_EQ(Out[0].Values.at("share").text(), "100.0 %");
  EXPECT_NEAR(double(Out[0].ImpactNs), double(2 * Ms), 20.0 * Us);
  // The same late arrivals are not N004's as well.
  std::vector<rules::Detection> Late;
  ASSERT_EQ(run("N004", J, Late), "");
  EXPECT_TRUE(Late.empty());
}

TEST(ComputeImbalance, HalfExplainedIsComputeLessIsNot) {
  // Rank 3 computes 1 ms more and is 2 ms late (1 ms of host work too):
  // half explained, so the arrival is N007's with 1 ms per step. With
  // 0.9 ms more compute it is N004's.
  for (auto [Extra, Rule] : {std::pair{1 * Ms, "N007"}, {900 * Us, "N004"}}) {
    std::vector<analysis::RankSummary> Ranks;
    for (int64_t R = 0; R < 4; ++R) {
      RankLayout L;
      L.Rank = R;
      L.ClockShiftNs = R * 11 * Ms;
      L.JobDelayNs = 2 * Ms;
      if (R == 3) {
        L.ExtraComputeNs = Extra;
        L.DelayNs = 2 * Ms - Extra;
      }
      Ranks.push_back(summarizeRank(L));
    }
    analysis::JobAnalysis J = analysis::analyzeJob(std::move(Ranks));
    std::vector<rules::Detection> N4, N7;
    ASSERT_EQ(run("N004", J, N4), "");
    ASSERT_EQ(run("N007", J, N7), "");
    EXPECT_EQ(N4.size(), std::string(Rule) == "N004" ? 1u : 0u) << Rule;
    EXPECT_EQ(N7.size(), std::string(Rule) == "N007" ? 1u : 0u) << Rule;
    if (!N7.empty()) {
      EXPECT_NEAR(double(N7[0].ImpactNs), double(1 * Ms), 20.0 * Us);
    }
  }
}

TEST(ComputeImbalance, ASmallExplainedLatenessIsStillReportedOnce) {
  // 300 us of extra compute (1.5 % of the 20 ms step): over min-late, so
  // the arrival is reported, by N007 and not by N004; nothing falls
  // between the two rules.
  analysis::JobAnalysis J =
      analysis::analyzeJob(makeJob(4, 3, 300 * Us, 1, /*ByCompute=*/true));
  std::vector<rules::Detection> N4, N7;
  ASSERT_EQ(run("N004", J, N4), "");
  ASSERT_EQ(run("N007", J, N7), "");
  EXPECT_TRUE(N4.empty());
  ASSERT_EQ(N7.size(), 1u);
  EXPECT_NEAR(double(N7[0].ImpactNs), double(300 * Us), 10.0 * Us);
}

TEST(ComputeImbalance, HostWorkLatenessIsNotCompute) {
  // Rank 3 is as late, from host work: its compute matches the others'.
  analysis::JobAnalysis J = analysis::analyzeJob(makeJob(4, 3, 2 * Ms));
  std::vector<rules::Detection> Out;
  ASSERT_EQ(run("N007", J, Out), "");
  EXPECT_TRUE(Out.empty());
  ASSERT_EQ(run("N004", J, Out), "");
  EXPECT_EQ(Out.size(), 1u) << "the late arrival is N004's";
}

TEST(ComputeImbalance, OlderSummariesWithoutComputeCannotBeJudged) {
  std::vector<analysis::RankSummary> Ranks =
      makeJob(4, 3, 2 * Ms, 1, /*ByCompute=*/true);
  for (analysis::RankSummary &S : Ranks)
    for (analysis::RankCollective &C : S.Collectives)
      C.ComputeBeforeNs = -1;
  analysis::JobAnalysis J = analysis::analyzeJob(std::move(Ranks));
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("N007", J, Out).rfind("cannot judge", 0), 0u);
}

} // namespace
