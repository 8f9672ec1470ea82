//===- JobReportTest.cpp - The text report of `lint --job` ----------------===//
//
// The options the job report shares with the trace report: --min-severity
// hides findings and counts them, --long-names keeps names as recorded,
// --color paints codes and severities.
//
//===----------------------------------------------------------------------===//
#include "JobTestSupport.h"

#include "report/JobReport.h"
#include "rules/Config.h"

#include "gtest/gtest.h"

using namespace tracelint;
using namespace tracelint::testing;

namespace {

constexpr llvm::StringLiteral LongKernel =
    "void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_256x128_16x3_tn_"
    "align4>(cutlass_80_tensorop_s1688gemm_256x128_16x3_tn_align4::Params)";

/// Rank 2 of 4 is 5 ms late at every collective (an N004 warning); every
/// rank also carries an info finding named after a long kernel.
std::string jobReport(const report::TextOptions &O) {
  std::vector<analysis::RankSummary> Ranks = makeJob(4, 2, 5 * Ms);
  for (analysis::RankSummary &R : Ranks)
    R.Findings.push_back({"K002", "small-grid-long-kernels", "info", 1 * Ms,
                          0.5, LongKernel.str()});
  analysis::JobAnalysis J = analysis::analyzeJob(std::move(Ranks));
  auto Cat = rules::Catalogue::builtin();
  EXPECT_TRUE(bool(Cat));
  rules::JobLintResult R = rules::runJobRules(J, *Cat, rules::Config());
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  report::writeJobText(OS, J, R, {}, O);
  return OS.str();
}

TEST(JobReport, MinSeverityHidesAndCountsFindings) {
  report::TextOptions O;
  O.Width = 0;
  std::string All = jobReport(O);
  EXPECT_NE(All.find("N004 [late-rank-at-collective] warning"),
            std::string::npos)
      << All;
  EXPECT_NE(All.find("K002 [small-grid-long-kernels] info on 4 of 4 ranks"),
            std::string::npos)
      << All;
  EXPECT_EQ(All.find("not shown"), std::string::npos) << All;

  O.MinSeverity = rules::Severity::Warning;
  std::string Warnings = jobReport(O);
  EXPECT_NE(Warnings.find("N004 [late-rank-at-collective] warning"),
            std::string::npos)
      << Warnings;
  EXPECT_EQ(Warnings.find("K002 [small-grid-long-kernels]"), std::string::npos)
      << Warnings;
  EXPECT_NE(Warnings.find("; 1 rank finding under --min-severity warning not "
                          "shown"),
            std::string::npos)
      << Warnings;

  O.MinSeverity = rules::Severity::Error;
  std::string Errors = jobReport(O);
  EXPECT_EQ(Errors.find("1. N004"), std::string::npos) << Errors;
  EXPECT_NE(Errors.find("; 1 job and 1 rank findings under --min-severity "
                        "error not shown"),
            std::string::npos)
      << Errors;
}

TEST(JobReport, NamesAreShortUnlessLongNames) {
  report::TextOptions O;
  O.Width = 0;
  std::string Short = jobReport(O);
  EXPECT_EQ(Short.find(LongKernel), std::string::npos) << Short;
  // shortName()'s form: no return type, no parameter list.
  EXPECT_NE(Short.find(": cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_"
                       "256x128_16x3_tn_align4>\n"),
            std::string::npos)
      << Short;
  O.LongNames = true;
  std::string Long = jobReport(O);
  EXPECT_NE(Long.find(LongKernel), std::string::npos) << Long;
}

TEST(JobReport, ColorPaintsCodesAndSeverities) {
  report::TextOptions O;
  O.Width = 0;
  EXPECT_EQ(jobReport(O).find('\x1b'), std::string::npos);
  O.Color = true;
  std::string Painted = jobReport(O);
  EXPECT_NE(Painted.find("\x1b[1mN004\x1b[0m"), std::string::npos) << Painted;
  EXPECT_NE(Painted.find("\x1b[33mwarning\x1b[0m"), std::string::npos)
      << Painted;
}

} // namespace
