//===- JobAnalysisTest.cpp - Joining the ranks of a job -------------------===//
//
// The inputs a job can go wrong with (a missing, duplicated or foreign rank,
// a rank without collectives, a damaged summary), rank identity from file
// names, and the summary format's round trip.
//
//===----------------------------------------------------------------------===//
#include "JobTestSupport.h"

#include "analysis/SummaryFormat.h"

#include "gtest/gtest.h"

using namespace tracelint;
using namespace tracelint::testing;
using analysis::JobAnalysis;
using analysis::RankSummary;

namespace {

/// \p S as `summarize` writes it.
std::string summaryText(const RankSummary &S) {
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  analysis::writeRankSummary(OS, S);
  OS.flush();
  return Text;
}

/// \p Text with the fields \p Keys taken out of every line: a summary
/// written before those fields existed.
std::string withoutFields(llvm::StringRef Text,
                          std::initializer_list<llvm::StringRef> Keys) {
  std::string Old;
  for (llvm::StringRef Line : llvm::split(Text, '\n')) {
    std::string L = Line.str();
    for (llvm::StringRef Key : Keys) {
      size_t At = L.find(("\"" + Key + "\":").str());
      if (At == std::string::npos)
        continue;
      size_t End = L.find_first_of(",}", At);
      if (L[End] == ',')
        ++End; // and its comma
      else if (At > 0 && L[At - 1] == ',')
        --At; // the last field: the comma before it
      L.erase(At, End - At);
    }
    Old += L + "\n";
  }
  return Old;
}

bool anyProblem(const JobAnalysis &J, llvm::StringRef Needle) {
  for (const std::string &P : J.Problems)
    if (llvm::StringRef(P).contains(Needle))
      return true;
  return false;
}

std::string problems(const JobAnalysis &J) {
  return llvm::join(J.Problems, "\n");
}

TEST(JobAnalysis, MissingRankIsReportedAndTheRestAnalysed) {
  std::vector<RankSummary> R = makeJob(4, 1, 5 * Ms);
  R.erase(R.begin() + 2);
  JobAnalysis J = analysis::analyzeJob(std::move(R));
  EXPECT_EQ(J.Ranks.size(), 3u);
  EXPECT_EQ(J.MissingRanks, std::vector<int64_t>{2});
  EXPECT_TRUE(anyProblem(J, "1 of the job's 4 ranks is missing (rank 2)"))
      << problems(J);
  ASSERT_FALSE(J.Collectives.empty());
  EXPECT_EQ(J.rankName(J.Collectives.front().Last), "rank 1");
}

TEST(JobAnalysis, DuplicateRankKeepsTheFirst) {
  std::vector<RankSummary> R = makeJob(4, -1, 0);
  RankSummary Again = R[3];
  Again.Input = "copy-of-rank3.json";
  R.push_back(Again);
  JobAnalysis J = analysis::analyzeJob(std::move(R));
  EXPECT_EQ(J.Ranks.size(), 4u);
  EXPECT_TRUE(anyProblem(J, "rank 3 appears twice (rank3.json and "
                            "copy-of-rank3.json)"))
      << problems(J);
}

TEST(JobAnalysis, RankOfAnotherJobIsLeftOut) {
  std::vector<RankSummary> R = makeJob(4, -1, 0);
  RankLayout Other;
  Other.Rank = 1;
  Other.World = 2;
  R.push_back(summarizeRank(Other, "other-job-rank1.json"));
  JobAnalysis J = analysis::analyzeJob(std::move(R));
  EXPECT_EQ(J.Ranks.size(), 4u);
  EXPECT_EQ(J.WorldSize, 4);
  EXPECT_TRUE(anyProblem(J, "other-job-rank1.json: rank 1 of a job of 2 "
                            "ranks, the others are of 4"))
      << problems(J);
}

TEST(JobAnalysis, DifferentJobIdsAreMixedJobs) {
  std::vector<RankSummary> R = makeJob(4, -1, 0);
  for (RankSummary &S : R)
    S.JobId = "job-a";
  R[2].JobId = "job-b";
  JobAnalysis J = analysis::analyzeJob(std::move(R));
  EXPECT_EQ(J.Ranks.size(), 3u);
  EXPECT_TRUE(anyProblem(J, "of job 'job-b', the others are of job 'job-a'"))
      << problems(J);
}

TEST(JobAnalysis, RankWithoutCollectivesTakesNoPart) {
  std::vector<RankSummary> R = makeJob(4, 1, 5 * Ms);
  R[3].Collectives.clear();
  JobAnalysis J = analysis::analyzeJob(std::move(R));
  EXPECT_EQ(J.Ranks.size(), 4u);
  EXPECT_TRUE(anyProblem(J, "rank 3 (rank3.json) records no collectives"))
      << problems(J);
  EXPECT_FALSE(J.Ranks[3].Aligned);
  ASSERT_FALSE(J.Collectives.empty());
  EXPECT_EQ(J.Collectives.front().Present, 3u);
  EXPECT_EQ(J.rankName(J.Collectives.front().Last), "rank 1");
}

TEST(JobAnalysis, FewerThanTwoMatchedCollectivesKeepTheTraceClock) {
  RankLayout L;
  L.Steps = 1; // one collective per rank
  std::vector<RankSummary> R;
  for (int64_t Rank = 0; Rank < 2; ++Rank) {
    L.Rank = Rank;
    L.World = 2;
    L.ClockShiftNs = Rank * 30 * Ms;
    R.push_back(summarizeRank(L));
  }
  JobAnalysis J = analysis::analyzeJob(std::move(R));
  EXPECT_FALSE(J.ClocksAligned);
  EXPECT_FALSE(J.Ranks[1].Aligned);
  EXPECT_EQ(J.Ranks[1].OffsetNs, 0);
}

TEST(JobAnalysis, RankFromTheFileName) {
  RankLayout L;
  L.Distributed = false;
  RankSummary S = summarizeRank(L, "/tmp/job/trace_worker_12.pt.trace.json");
  EXPECT_EQ(S.Rank, 12);
  EXPECT_EQ(S.RankFrom, analysis::RankSource::FileName);
  EXPECT_EQ(llvm::cantFail(
                analysis::rankFromFileName("host-a.gpu3.json", "gpu([0-9]+)")),
            3);
  EXPECT_EQ(llvm::cantFail(analysis::rankFromFileName(
                "trace.json", analysis::DefaultRankPattern)),
            -1);
  EXPECT_FALSE(bool(analysis::rankFromFileName("x", "(")));
}

TEST(JobAnalysis, UnknownRankIsLeftOut) {
  RankLayout L;
  L.Distributed = false;
  std::vector<RankSummary> R = makeJob(2, -1, 0);
  R.push_back(summarizeRank(L, "trace.json"));
  JobAnalysis J = analysis::analyzeJob(std::move(R));
  EXPECT_EQ(J.Ranks.size(), 2u);
  EXPECT_TRUE(anyProblem(J, "trace.json: its rank is unknown")) << problems(J);
}

TEST(SummaryFormat, RoundTripKeepsEveryField) {
  RankSummary S = makeJob(4, 2, 5 * Ms)[2];
  S.Findings.push_back(
      {"L002", "host-bound-gaps", "warning", 1234, 0.5, "aten::index_select"});
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  analysis::writeRankSummary(OS, S);
  OS.flush();
  EXPECT_TRUE(analysis::looksLikeRankSummary(Text));
  EXPECT_EQ(
      llvm::StringRef(Text).take_until([](char C) { return C == '\n'; }),
      R"({"type":"header","format":"tracelint-rank-summary","version":1})");
  analysis::SummaryFile F = analysis::readRankSummaries(Text, "r2");
  ASSERT_TRUE(F.Errors.empty()) << F.Errors.front();
  ASSERT_EQ(F.Ranks.size(), 1u);
  const RankSummary &B = F.Ranks[0];
  EXPECT_EQ(B.Rank, 2);
  EXPECT_EQ(B.WorldSize, 4);
  EXPECT_EQ(B.RankFrom, analysis::RankSource::DistributedInfo);
  ASSERT_EQ(B.Steps.size(), S.Steps.size());
  EXPECT_EQ(B.Steps[1].Idle.HostOtherNs, S.Steps[1].Idle.HostOtherNs);
  // The split's device and span, said once per rank and by the step's
  // bounds, come back as the summarized split had them.
  EXPECT_EQ(B.Steps[1].Idle.Device, S.Steps[1].Idle.Device);
  EXPECT_EQ(B.Steps[1].Idle.SpanNs, S.Steps[1].Idle.SpanNs);
  ASSERT_EQ(B.Collectives.size(), S.Collectives.size());
  EXPECT_EQ(B.Collectives[0].StartNs, S.Collectives[0].StartNs);
  EXPECT_EQ(B.Collectives[0].Kind, "AllReduce");
  ASSERT_EQ(B.Findings.size(), 1u);
  EXPECT_EQ(B.Findings[0].Subject, "aten::index_select");
  EXPECT_EQ(B.topIdleCause(), S.topIdleCause());
}

TEST(SummaryFormat, StartupAndProfilerIdleRoundTripAndMayBeAbsent) {
  RankSummary S = makeJob(2, -1, 0)[1];
  ASSERT_GE(S.Steps.size(), 2u);
  S.Steps[1].Idle.StartupNs = 1234;
  S.Steps[1].Idle.ProfilerNs = 567;
  std::string Text = summaryText(S);
  analysis::SummaryFile F = analysis::readRankSummaries(Text, "r1");
  ASSERT_TRUE(F.Errors.empty()) << F.Errors.front();
  ASSERT_EQ(F.Ranks.size(), 1u);
  EXPECT_EQ(F.Ranks[0].Steps[1].Idle.StartupNs, 1234);
  EXPECT_EQ(F.Ranks[0].Steps[1].Idle.ProfilerNs, 567);
  // A summary written before the two fields existed (same version) reads,
  // with nothing in either.
  std::string Old = withoutFields(Text, {"startup_ns", "profiler_ns"});
  ASSERT_EQ(Old.find("startup_ns"), std::string::npos);
  ASSERT_EQ(Old.find("profiler_ns"), std::string::npos);
  analysis::SummaryFile G = analysis::readRankSummaries(Old, "old");
  ASSERT_TRUE(G.Errors.empty()) << G.Errors.front();
  ASSERT_EQ(G.Ranks.size(), 1u);
  EXPECT_EQ(G.Ranks[0].Steps[1].Idle.StartupNs, 0);
  EXPECT_EQ(G.Ranks[0].Steps[1].Idle.HostOtherNs, S.Steps[1].Idle.HostOtherNs);
}

TEST(JobAnalysis, ProcessGroupComesFromTheCollectivesArguments) {
  RankLayout L;
  L.Rank = 1;
  L.Group = "0";
  RankSummary S = summarizeRank(L);
  ASSERT_FALSE(S.Collectives.empty());
  EXPECT_EQ(S.Collectives[0].Group, "0");
  RankLayout NoGroup;
  EXPECT_EQ(summarizeRank(NoGroup).Collectives[0].Group, "");
}

TEST(SummaryFormat, TruncatedRankIsAnErrorAndTheOthersAreRead) {
  std::vector<RankSummary> R = makeJob(3, -1, 0);
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  analysis::writeRankSummary(OS, R[0]);
  std::string Second;
  llvm::raw_string_ostream OS2(Second);
  analysis::writeRankSummary(OS2, R[1]);
  OS2.flush();
  OS << Second.substr(0, Second.size() / 2); // cut mid-line
  OS << "\n";
  analysis::writeRankSummary(OS, R[2]);
  OS.flush();
  analysis::SummaryFile F = analysis::readRankSummaries(Text, "job.jsonl");
  ASSERT_EQ(F.Ranks.size(), 2u);
  EXPECT_EQ(F.Ranks[0].Rank, 0);
  EXPECT_EQ(F.Ranks[1].Rank, 2);
  ASSERT_EQ(F.Errors.size(), 1u);
  EXPECT_NE(F.Errors[0].find("job.jsonl:"), std::string::npos) << F.Errors[0];
}

TEST(SummaryFormat, NewerVersionIsRefused) {
  analysis::SummaryFile F = analysis::readRankSummaries(
      R"({"type":"header","format":"tracelint-rank-summary","version":9})",
      "new.jsonl");
  ASSERT_EQ(F.Errors.size(), 1u);
  EXPECT_NE(F.Errors[0].find("version 9"), std::string::npos) << F.Errors[0];
}

TEST(JobAnalysis, CollectiveKindFromKernelNames) {
  EXPECT_EQ(analysis::collectiveKind(AllReduceKernel, ""), "AllReduce");
  EXPECT_EQ(analysis::collectiveKind(
                "ncclDevKernel_SendRecv(ncclDevComm*, unsigned long)", ""),
            "SendRecv");
  EXPECT_EQ(analysis::collectiveKind("anything", "allreduce"), "allreduce");
}

} // namespace

namespace {

TEST(JobAnalysis, ThePacingRankIsTheOneTheOthersWaitFor) {
  // Rank 2 runs 3 ms of host work before its compute in every step: the
  // other three wait 3 ms inside each all-reduce, so per step rank 2 works
  // its whole 20 ms step and the others 17 ms.
  JobAnalysis J = analysis::analyzeJob(makeJob(4, 2, 3 * Ms));
  ASSERT_NE(J.Pacing, SIZE_MAX);
  EXPECT_EQ(J.Ranks[J.Pacing].S.Rank, 2);
  EXPECT_EQ(J.Ranks[J.Pacing].waitPerStepNs(), 0);
  EXPECT_NEAR(double(J.Ranks[J.Pacing].workPerStepNs()), double(20 * Ms),
              double(10 * Us));
  EXPECT_NEAR(double(J.OthersWorkNs), double(17 * Ms), double(10 * Us));
  EXPECT_NEAR(double(J.Ranks[0].waitPerStepNs()), double(3 * Ms),
              double(10 * Us));
  EXPECT_EQ(J.describePace().rfind("rank 2 works 20 ms per step", 0), 0u)
      << J.describePace();
}

TEST(JobAnalysis, NoRankSetsThePaceOfABalancedJob) {
  // Every rank works its whole 20 ms step: none is named, lest the lowest
  // rank read as the slow one; 40 us more is still jitter.
  JobAnalysis J = analysis::analyzeJob(makeJob(4, -1, 0));
  EXPECT_TRUE(J.PaceKnown);
  EXPECT_EQ(J.Pacing, SIZE_MAX);
  EXPECT_EQ(J.describePace(), "no rank stands out: the ranks work a median "
                              "20 ms per step outside waits for other "
                              "ranks, the most 20 ms");
  JobAnalysis Jitter = analysis::analyzeJob(makeJob(4, 1, 40 * Us));
  EXPECT_EQ(Jitter.Pacing, SIZE_MAX);
  JobAnalysis Late = analysis::analyzeJob(makeJob(4, 1, 300 * Us));
  ASSERT_NE(Late.Pacing, SIZE_MAX);
  EXPECT_EQ(Late.Ranks[Late.Pacing].S.Rank, 1);
}

TEST(JobAnalysis, NoPaceWithoutAlignedClocks) {
  std::vector<RankSummary> Ranks;
  for (int64_t R = 0; R < 3; ++R) {
    RankLayout L;
    L.Rank = R;
    L.World = 3;
    L.Steps = 1; // one collective per rank: no offset can be estimated
    L.ClockShiftNs = R * 17 * Ms;
    Ranks.push_back(summarizeRank(L));
  }
  JobAnalysis J = analysis::analyzeJob(std::move(Ranks));
  EXPECT_FALSE(J.ClocksAligned);
  EXPECT_FALSE(J.PaceKnown);
  EXPECT_EQ(J.Pacing, SIZE_MAX);
  EXPECT_EQ(J.describePace(), "");
}

TEST(RankSummary, ComputeBeforeEachCollective) {
  // 8 ms of compute before the first all-reduce of each step; the second
  // follows the first with nothing in between.
  RankLayout L;
  L.Collectives = 2;
  L.ExtraComputeNs = 2 * Ms;
  L.JobDelayNs = 2 * Ms;
  RankSummary S = summarizeRank(L);
  ASSERT_EQ(S.Collectives.size(), 8u);
  EXPECT_EQ(S.Collectives[0].ComputeBeforeNs, 8 * Ms);
  EXPECT_EQ(S.Collectives[1].ComputeBeforeNs, 0);
  EXPECT_EQ(S.Collectives[2].ComputeBeforeNs, 8 * Ms);
}

TEST(SummaryFormat, ComputeBeforeRoundTripsAndMayBeAbsent) {
  RankSummary S = makeJob(2, -1, 0)[0];
  ASSERT_FALSE(S.Collectives.empty());
  ASSERT_EQ(S.Collectives[0].ComputeBeforeNs, 6 * Ms);
  std::string Text = summaryText(S);
  analysis::SummaryFile F = analysis::readRankSummaries(Text, "r0");
  ASSERT_TRUE(F.Errors.empty()) << F.Errors.front();
  EXPECT_EQ(F.Ranks[0].Collectives[0].ComputeBeforeNs, 6 * Ms);
  std::string Old = withoutFields(Text, {"compute_ns"});
  ASSERT_EQ(Old.find("compute_ns"), std::string::npos);
  analysis::SummaryFile G = analysis::readRankSummaries(Old, "old");
  ASSERT_TRUE(G.Errors.empty()) << G.Errors.front();
  EXPECT_EQ(G.Ranks[0].Collectives[0].ComputeBeforeNs, -1);
}

} // namespace

namespace {

TEST(JobPath, TheDelayedRankOwnsThePathAndTheOthersNone) {
  // Rank 2 runs 3 ms of host work before its compute in every step, clocks
  // shifted by tens of ms: it reaches every all-reduce last, so the job's
  // path runs through its own time: steps 2-4 (60 ms) but the 1 ms of
  // communication after each arrival, 57 ms (95 %); ranks 0, 1 and 3 only
  // wait and own nothing.
  JobAnalysis J = analysis::analyzeJob(makeJob(4, 2, 3 * Ms));
  ASSERT_NE(J.Path.Critical, SIZE_MAX);
  EXPECT_EQ(J.rankName(J.Path.Critical), "rank 2");
  EXPECT_EQ(J.Path.Undecided, 0u);
  EXPECT_EQ(J.Path.TotalNs, 60 * Ms);
  EXPECT_EQ(J.Path.CommunicationNs, 3 * Ms);
  EXPECT_EQ(J.Path.OwnedNs[J.Path.Critical], 57 * Ms);
  for (size_t Slot = 0; Slot < J.Ranks.size(); ++Slot)
    if (Slot != J.Path.Critical) {
      EXPECT_EQ(J.Path.OwnedNs[Slot], 0) << J.rankName(Slot);
    }
  EXPECT_NE(J.describeTarget().find("; critical rank 2 ("), std::string::npos)
      << J.describeTarget();
  EXPECT_TRUE(J.mayBlame(J.Path.Critical));
  EXPECT_FALSE(J.mayBlame(J.slotOf(1)));
}

TEST(JobPath, AnOrderWithinTheClockErrorIsUndecided) {
  // Every rank arrives together: each all-reduce's order is a tie, so
  // nobody owns the path between them and no rank is critical.
  JobAnalysis J = analysis::analyzeJob(makeJob(4, -1, 0));
  EXPECT_EQ(J.Path.Critical, SIZE_MAX);
  EXPECT_EQ(J.Path.Undecided, J.Path.Collectives);
  EXPECT_NE(J.describeTarget().find("no critical rank: the clocks cannot "
                                    "tell who arrived last"),
            std::string::npos)
      << J.describeTarget();
  // A 1 ms lead with a rank whose clock spread is 1 ms: within three
  // spreads, undecided too.
  std::vector<RankSummary> Ranks = makeJob(4, 1, 1 * Ms);
  JobAnalysis Sure = analysis::analyzeJob(Ranks);
  ASSERT_NE(Sure.Path.Critical, SIZE_MAX);
  EXPECT_EQ(Sure.rankName(Sure.Path.Critical), "rank 1");
  for (size_t I = 0; I < Ranks[1].Collectives.size(); ++I)
    Ranks[1].Collectives[I].EndNs += I % 2 ? 1 * Ms : -1 * Ms;
  JobAnalysis Unsure = analysis::analyzeJob(Ranks);
  EXPECT_GE(Unsure.Ranks[Unsure.slotOf(1)].OffsetSpreadNs, 1 * Ms);
  EXPECT_EQ(Unsure.Path.Critical, SIZE_MAX) << Unsure.describeTarget();
}

TEST(JobPath, ThePaceLineSaysWhenTheMostWorkIsNotWhereThePathRuns) {
  JobAnalysis J = analysis::analyzeJob(makeJob(4, 2, 3 * Ms));
  // Here the same rank does both: the pace line says nothing more.
  EXPECT_EQ(J.describePace().find("but the collectives wait"),
            std::string::npos);
  J.Path.Critical = J.slotOf(1);
  J.Path.OwnedNs[J.slotOf(1)] = J.Path.TotalNs / 2;
  EXPECT_NE(J.describePace().find("; but the collectives wait mostly for "
                                  "rank 1"),
            std::string::npos)
      << J.describePace();
}

} // namespace
