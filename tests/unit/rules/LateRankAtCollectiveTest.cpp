//===- LateRankAtCollectiveTest.cpp - N004 late-rank-at-collective --------===//
//
// Synthetic jobs (JobTestSupport.h): every rank's clock is shifted by a
// different offset of tens of milliseconds; one rank is delayed by D before
// its all-reduce in each of four steps. N004 must name that rank with an
// impact near D per step, after aligning the clocks; without a delay it
// names no rank. The same from summaries written and read back.
//
//===----------------------------------------------------------------------===//
#include "../JobTestSupport.h"

#include "analysis/SummaryFormat.h"

#include "gtest/gtest.h"

using namespace tracelint;
using namespace tracelint::testing;

namespace {

std::vector<rules::Detection> lateRanks(std::vector<analysis::RankSummary> R) {
  analysis::JobAnalysis J = analysis::analyzeJob(std::move(R));
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("N004", J, Out), "");
  return Out;
}

TEST(LateRankAtCollective, NamesTheDelayedRankAfterClockAlignment) {
  const int64_t D = 5 * Ms;
  std::vector<rules::Detection> Out = lateRanks(makeJob(4, 2, D));
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_EQ(Out[0].Subject, "rank 2");
  EXPECT_EQ(Out[0].Values.at("rank").text(), "rank 2");
  // Late by D at the all-reduce of each steady step (2-4): D per step,
  // within the launch offsets of the layout.
  EXPECT_NEAR(double(Out[0].ImpactNs), double(D), 50.0 * Us);
  EXPECT_EQ(Out[0].Values.at("count").text(), "3");
  // Its own summary says what it was doing: host time that the trace does
  // not record (the layout records nothing between its launches).
  EXPECT_NE(Out[0].Values.at("cause").text().find("does not record"),
            std::string::npos)
      << Out[0].Values.at("cause").text();
}

TEST(LateRankAtCollective, ClockOffsetsAreTheShifts) {
  analysis::JobAnalysis J = analysis::analyzeJob(makeJob(4, 2, 5 * Ms));
  ASSERT_TRUE(J.ClocksAligned);
  ASSERT_EQ(J.Ranks.size(), 4u);
  // Rank r's clock is shifted by Shifts[r] + 3r ms (JobTestSupport.h);
  // offsets are against rank 0's.
  const int64_t Shift[] = {13 * Ms, 44 * Ms, 33 * Ms, 77 * Ms};
  for (size_t I = 0; I < 4; ++I)
    EXPECT_EQ(J.Ranks[I].OffsetNs, Shift[I] - Shift[0]) << "rank " << I;
  EXPECT_EQ(J.OffsetOutliers, 0u);
}

TEST(LateRankAtCollective, QuietWithoutDelay) {
  std::vector<rules::Detection> Out = lateRanks(makeJob(4, -1, 0));
  EXPECT_TRUE(Out.empty());
}

TEST(LateRankAtCollective, ADelayUnderMinLateIsNotReported) {
  std::vector<rules::Detection> Out = lateRanks(makeJob(4, 1, 100 * Us));
  EXPECT_TRUE(Out.empty());
}

TEST(LateRankAtCollective, LatenessWithinTheClockErrorNamesNobody) {
  // Rank 1 is 1 ms late at every all-reduce, but its collectives' ends
  // jitter by 1 ms against the others', so its clock spread is 1 ms and
  // three spreads (3 ms) cover the lead: N004 cannot judge, and says the
  // clocks are why.
  std::vector<analysis::RankSummary> Ranks = makeJob(4, 1, 1 * Ms);
  for (size_t I = 0; I < Ranks[1].Collectives.size(); ++I)
    Ranks[1].Collectives[I].EndNs += I % 2 ? 1 * Ms : -1 * Ms;
  analysis::JobAnalysis J = analysis::analyzeJob(std::move(Ranks));
  std::vector<rules::Detection> Out;
  std::string Why = run("N004", J, Out);
  EXPECT_TRUE(Out.empty());
  EXPECT_EQ(Why.rfind("cannot judge: clocks: at 3 collectives", 0), 0u) << Why;
  EXPECT_NE(Why.find("cannot be told from clock error"), std::string::npos)
      << Why;
}

TEST(LateRankAtCollective, SameFindingsFromSummaries) {
  std::vector<analysis::RankSummary> Ranks = makeJob(4, 3, 3 * Ms);
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  for (const analysis::RankSummary &S : Ranks)
    analysis::writeRankSummary(OS, S); // concatenated, as `cat` would
  OS.flush();
  analysis::SummaryFile Read = analysis::readRankSummaries(Text, "job.jsonl");
  ASSERT_TRUE(Read.Errors.empty()) << Read.Errors.front();
  ASSERT_EQ(Read.Ranks.size(), 4u);
  std::vector<rules::Detection> FromTraces = lateRanks(Ranks);
  std::vector<rules::Detection> FromSummaries = lateRanks(Read.Ranks);
  ASSERT_EQ(FromTraces.size(), 1u);
  ASSERT_EQ(FromSummaries.size(), 1u);
  EXPECT_EQ(FromSummaries[0].Subject, "rank 3");
  EXPECT_EQ(FromSummaries[0].ImpactNs, FromTraces[0].ImpactNs);
  for (const auto &[K, V] : FromTraces[0].Values)
    EXPECT_EQ(FromSummaries[0].Values.at(K).text(), V.text()) << K;
}

TEST(LateRankAtCollective, OneRankIsNotApplicable) {
  analysis::JobAnalysis J = analysis::analyzeJob(makeJob(1, -1, 0));
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("N004", J, Out).rfind("not applicable", 0), 0u);
}

} // namespace
