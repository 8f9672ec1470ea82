//===- JobHtmlTest.cpp - The HTML page of `lint --job` --------------------===//
//
// What the text and the browser tests do not reach: a job larger than the
// picture's lanes and the tables' rows, and a finding without a collective.
//
//===----------------------------------------------------------------------===//
#include "JobTestSupport.h"

#include "report/JobHtml.h"
#include "rules/Config.h"

#include "gtest/gtest.h"

using namespace tracelint;
using namespace tracelint::testing;

namespace {

size_t occurrences(const std::string &Text, llvm::StringRef What) {
  size_t N = 0;
  for (size_t At = Text.find(What.str()); At != std::string::npos;
       At = Text.find(What.str(), At + 1))
    ++N;
  return N;
}

std::string jobPage(analysis::JobAnalysis &J, rules::JobLintResult &R) {
  auto Cat = rules::Catalogue::builtin();
  EXPECT_TRUE(bool(Cat));
  R = rules::runJobRules(J, *Cat, rules::Config());
  return report::jobHtmlSection(J, R, report::HtmlOptions()).Body;
}

TEST(JobHtml, ManyRanksDrawTheLateRankAndTheLongestWaits) {
  // 80 ranks, rank 37 late by 3 ms: the lanes hold rank 37 and the 15
  // ranks that waited longest; the tables stop at 64 rows.
  analysis::JobAnalysis J = analysis::analyzeJob(makeJob(80, 37, 3 * Ms));
  rules::JobLintResult R;
  std::string Page = jobPage(J, R);
  ASSERT_FALSE(R.Findings.empty());
  EXPECT_EQ(occurrences(Page, "class=\"timeline swimlane\""),
            R.Findings.size());
  EXPECT_EQ(occurrences(Page, "<g class=\"sw-coll sw-late\">"),
            R.Findings.size());
  EXPECT_EQ(occurrences(Page, "<g class=\"sw-coll"), 16 * R.Findings.size());
  EXPECT_NE(Page.find("; 64 more ranks not drawn"), std::string::npos);
  EXPECT_NE(Page.find(">rank 37</text><g class=\"sw-coll sw-late\">"),
            std::string::npos);
  EXPECT_NE(Page.find("16 more ranks (--format json lists every rank)"),
            std::string::npos);
  EXPECT_EQ(occurrences(Page, "<tr"), 65u) << "a head and 64 rows";
}

TEST(JobHtml, AFindingWithoutACollectiveHasNoPicture) {
  analysis::JobAnalysis J = analysis::analyzeJob(makeJob(4, 2, 5 * Ms));
  rules::JobLintResult R;
  jobPage(J, R);
  ASSERT_FALSE(R.Findings.empty());
  for (rules::Finding &F : R.Findings)
    F.Collective = -1;
  std::string Page = report::jobHtmlSection(J, R, report::HtmlOptions()).Body;
  EXPECT_EQ(occurrences(Page, "class=\"card "), R.Findings.size());
  EXPECT_EQ(Page.find("swimlane"), std::string::npos);
}

TEST(JobHtml, TheIndexListsEveryJobFindingByItsCard) {
  analysis::JobAnalysis J = analysis::analyzeJob(makeJob(4, 2, 5 * Ms));
  rules::JobLintResult R;
  jobPage(J, R);
  ASSERT_FALSE(R.Findings.empty());
  report::HtmlSection S = report::jobHtmlSection(J, R, report::HtmlOptions());
  EXPECT_EQ(S.Anchor, "job");
  ASSERT_EQ(S.Index.size(), R.Findings.size());
  for (size_t I = 0; I < S.Index.size(); ++I) {
    EXPECT_EQ(S.Index[I].Code, R.Findings[I].Code);
    EXPECT_EQ(S.Index[I].Of, "job step");
    EXPECT_NE(S.Body.find("id=\"" + S.Index[I].Anchor + "\""),
              std::string::npos)
        << S.Index[I].Anchor;
  }
}

TEST(JobHtml, NoJobFindingsIsSaid) {
  analysis::JobAnalysis J = analysis::analyzeJob(makeJob(4, -1, 0));
  rules::JobLintResult R;
  std::string Page = jobPage(J, R);
  EXPECT_TRUE(R.Findings.empty());
  EXPECT_NE(Page.find("No job findings."), std::string::npos);
}

} // namespace
