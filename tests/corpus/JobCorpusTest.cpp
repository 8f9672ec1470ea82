//===- JobCorpusTest.cpp - lint --job on the 8 real DLRM ranks ------------===//
//
// The eight PARAM DLRM ranks (param-dlrm-8rank-v100, one step each, on one
// host) joined as one job, from the traces and from their summaries; skipped
// when ../shared/traces is absent. What the unmodified job shows, and
// docs/multi-rank.md documents: the ranks share one host clock (offsets of
// about a microsecond); rank 7 is the natural late rank at the first
// all-to-alls (it starts its SendRecv kernels about 0.5 ms after ranks 2
// and 6, the second-last, while ranks 0, 1, 3, 4 and 5 spin in theirs for
// milliseconds); ranks 4 and 5 are last, by tens of microseconds, at the
// later all-reduces.
//
//===----------------------------------------------------------------------===//
#include "CorpusCatalogue.h"
#include "CorpusFiles.h"

#include "analysis/JobAnalysis.h"
#include "analysis/RankSummary.h"
#include "analysis/SummaryFormat.h"
#include "import/Import.h"
#include "rules/Config.h"
#include "rules/Engine.h"

#include "gtest/gtest.h"

using namespace tracelint;

namespace {

std::vector<analysis::RankSummary> dlrmRanks() {
  std::vector<analysis::RankSummary> Out;
  for (const std::string &P : corpus::corpusFiles())
    if (llvm::StringRef(P).contains("param-dlrm-8rank-v100")) {
      auto T = import::importTraceFile(P, {});
      if (!T) {
        ADD_FAILURE() << llvm::toString(T.takeError());
        continue;
      }
      analysis::TraceIndex Ctx(*T);
      rules::Config Cfg;
      Cfg.Jobs = 1;
      rules::LintResult R = rules::runRules(Ctx, corpus::catalogue(), Cfg, P);
      auto S = llvm::cantFail(
          analysis::summarizeTrace(Ctx, P, analysis::DefaultRankPattern));
      for (const rules::Finding &F : R.Findings)
        S.Findings.push_back({F.Code, F.Name, rules::severityName(F.Sev).str(),
                              F.ImpactNs, F.Confidence, F.Subject});
      Out.push_back(std::move(S));
    }
  return Out;
}

const rules::Finding *find(const rules::JobLintResult &R,
                           llvm::StringRef Code) {
  for (const rules::Finding &F : R.Findings)
    if (F.Code == Code)
      return &F;
  return nullptr;
}

TEST(JobCorpus, DlrmRanksAsOneJob) {
  std::vector<analysis::RankSummary> Ranks = dlrmRanks();
  if (Ranks.empty())
    GTEST_SKIP() << "no param-dlrm-8rank-v100 in " << corpus::tracesDir();
  ASSERT_EQ(Ranks.size(), 8u);
  analysis::JobAnalysis J = analysis::analyzeJob(Ranks);
  EXPECT_EQ(J.WorldSize, 8);
  EXPECT_TRUE(J.Problems.empty()) << J.Problems.front();
  EXPECT_TRUE(J.ClocksAligned);
  EXPECT_EQ(J.Collectives.size(), 8u);
  EXPECT_EQ(J.Mismatched, 0u);
  for (const analysis::JobRank &R : J.Ranks)
    EXPECT_LT(std::abs(R.OffsetNs), 10'000) << "one host, one clock";
  // The natural late arrival: rank 7 at the first all-to-all.
  ASSERT_NE(J.Collectives.front().Last, SIZE_MAX);
  EXPECT_EQ(J.rankName(J.Collectives.front().Last), "rank 7");
  EXPECT_EQ(J.Collectives.front().Kind, "SendRecv");
  EXPECT_GT(J.Collectives.front().LateByNs, 300'000);
  EXPECT_LT(J.Collectives.front().LateByNs, 700'000);

  rules::JobLintResult R =
      rules::runJobRules(J, corpus::catalogue(), rules::Config());
  const rules::Finding *Late = find(R, "N004");
  ASSERT_NE(Late, nullptr);
  EXPECT_EQ(Late->Subject, "rank 7");
  // Bounded by the job's step, and no more than the two 0.5 ms leads.
  EXPECT_LT(Late->ImpactNs, 1'500'000);
  size_t N004 = 0;
  for (const rules::Finding &F : R.Findings)
    N004 += F.Code == "N004";
  EXPECT_EQ(N004, 1u) << "no rank beyond the natural late one";
  // Rank 7 runs as much compute as the others before its late all-to-alls
  // (about 105 us): the arrivals are N004's, not a compute imbalance.
  EXPECT_EQ(find(R, "N007"), nullptr);
  // Work per step outside waits: ranks 5 and 4, which compute more before
  // the last two all-reduces, work the most (docs/multi-rank.md).
  ASSERT_NE(J.Pacing, SIZE_MAX);
  EXPECT_EQ(J.rankName(J.Pacing), "rank 5");

  // The same findings from the summaries written and read back.
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  for (const analysis::RankSummary &S : Ranks)
    analysis::writeRankSummary(OS, S);
  OS.flush();
  EXPECT_LT(Text.size(), 8u * 8 * 1024) << "kilobytes per rank";
  analysis::SummaryFile F = analysis::readRankSummaries(Text, "dlrm");
  ASSERT_TRUE(F.Errors.empty()) << F.Errors.front();
  analysis::JobAnalysis J2 = analysis::analyzeJob(std::move(F.Ranks));
  rules::JobLintResult R2 =
      rules::runJobRules(J2, corpus::catalogue(), rules::Config());
  ASSERT_EQ(R2.Findings.size(), R.Findings.size());
  for (size_t I = 0; I < R.Findings.size(); ++I) {
    EXPECT_EQ(R2.Findings[I].Fingerprint, R.Findings[I].Fingerprint);
    EXPECT_EQ(R2.Findings[I].ImpactNs, R.Findings[I].ImpactNs);
    EXPECT_EQ(R2.Findings[I].Hypothesis, R.Findings[I].Hypothesis);
  }
}

/// Every time of \p S moved by \p Ns: another clock.
void shiftClock(analysis::RankSummary &S, int64_t Ns) {
  for (analysis::RankStep &St : S.Steps) {
    St.StartNs += Ns;
    St.EndNs += Ns;
  }
  for (analysis::RankCollective &C : S.Collectives) {
    C.StartNs += Ns;
    C.EndNs += Ns;
  }
}

/// Rank \p Rank reaches the first collective \p Ns late: the others wait
/// inside it that much longer, and everything after it moves as much.
void delayAtFirstCollective(std::vector<analysis::RankSummary> &Ranks,
                            int64_t Rank, int64_t Ns) {
  for (analysis::RankSummary &S : Ranks) {
    for (size_t I = 0; I < S.Collectives.size(); ++I) {
      analysis::RankCollective &C = S.Collectives[I];
      if (I > 0 || S.Rank == Rank)
        C.StartNs += Ns;
      C.EndNs += Ns;
    }
    for (analysis::RankStep &St : S.Steps)
      St.EndNs += Ns;
  }
}

std::string firstSubject(const rules::JobLintResult &R) {
  for (const rules::Finding &F : R.Findings)
    if (F.Sev != rules::Severity::Info)
      return F.Subject;
  return "";
}

TEST(JobCorpus, OneRankDelaysTheJobAndEveryLineSaysWhich) {
  std::vector<analysis::RankSummary> Ranks = dlrmRanks();
  if (Ranks.empty())
    GTEST_SKIP() << "no param-dlrm-8rank-v100 in " << corpus::tracesDir();
  {
    // As recorded: rank 1's step is the longest only because it waits
    // 11 ms inside collectives; rank 7, late at the first all-to-alls,
    // owns most of the job's path. The target line, the pace line and the
    // first job finding name rank 7; rank 1 is named by none.
    analysis::JobAnalysis J = analysis::analyzeJob(Ranks);
    ASSERT_NE(J.Path.Critical, SIZE_MAX);
    EXPECT_EQ(J.rankName(J.Path.Critical), "rank 7");
    EXPECT_EQ(J.rankName(J.Slowest), "rank 1");
    EXPECT_EQ(J.Path.OwnedNs[J.Slowest], 0) << "a rank that only waited";
    EXPECT_NE(J.describeTarget().find("critical rank 7"), std::string::npos);
    EXPECT_NE(J.describePace().find("wait mostly for rank 7"),
              std::string::npos);
    rules::JobLintResult R =
        rules::runJobRules(J, corpus::catalogue(), rules::Config());
    EXPECT_EQ(firstSubject(R), "rank 7");
    for (const rules::Finding &F : R.Findings) {
      if (F.Code == "N004" || F.Code == "N005" || F.Code == "N007") {
        EXPECT_EQ(F.Subject, "rank 7") << F.Code;
      }
    }
  }
  {
    // Clocks shifted by tens of milliseconds per rank and rank 5 made
    // 20 ms late at the first collective: rank 5 delays the job.
    std::vector<analysis::RankSummary> Late = Ranks;
    delayAtFirstCollective(Late, 5, 20'000'000);
    for (analysis::RankSummary &S : Late)
      shiftClock(S, (S.Rank * 37 % 8) * 11'000'000);
    analysis::JobAnalysis J = analysis::analyzeJob(Late);
    ASSERT_NE(J.Path.Critical, SIZE_MAX);
    EXPECT_EQ(J.rankName(J.Path.Critical), "rank 5");
    EXPECT_GT(J.Path.shareOf(J.Path.Critical), 0.5);
    EXPECT_NE(J.describeTarget().find("critical rank 5"), std::string::npos);
    rules::JobLintResult R =
        rules::runJobRules(J, corpus::catalogue(), rules::Config());
    EXPECT_EQ(firstSubject(R), "rank 5");
    for (const rules::Finding &F : R.Findings) {
      if (F.Code == "N004" || F.Code == "N005" || F.Code == "N007") {
        EXPECT_EQ(F.Subject, "rank 5") << F.Code;
      }
    }
  }
  {
    // The collectives' ends jitter by 4 ms from rank to rank, so the clock
    // alignment's spread (3 x 4 ms) is larger than rank 5's 6 ms delay:
    // nobody is blamed, and the reports say the clocks cannot tell.
    std::vector<analysis::RankSummary> Jittered = Ranks;
    delayAtFirstCollective(Jittered, 5, 6'000'000);
    for (analysis::RankSummary &S : Jittered)
      for (size_t I = 0; I < S.Collectives.size(); ++I)
        S.Collectives[I].EndNs += (I + size_t(S.Rank)) % 2 ? 4'000'000 : 0;
    analysis::JobAnalysis J = analysis::analyzeJob(Jittered);
    EXPECT_EQ(J.Path.Critical, SIZE_MAX);
    EXPECT_NE(J.describeTarget().find("the clocks cannot tell"),
              std::string::npos);
    rules::JobLintResult R =
        rules::runJobRules(J, corpus::catalogue(), rules::Config());
    for (const rules::Finding &F : R.Findings)
      EXPECT_TRUE(F.Code != "N004" && F.Code != "N005" && F.Code != "N007")
          << F.Code << " blames " << F.Subject;
    bool ClocksSaid = false;
    for (const rules::Skipped &S : R.Skipped)
      ClocksSaid |=
          S.Code == "N004" && S.Reason.find("clocks") != std::string::npos;
    EXPECT_TRUE(ClocksSaid);
  }
}

} // namespace
