//===- CiFormatsTest.cpp - Baselines, escaping, SARIF/JUnit/Markdown ------===//
#include "report/LintWriters.h"
#include "rules/Baseline.h"
#include "rules/Engine.h"
#include "rules/Predictions.h"
#include "support/Escape.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

using namespace tracelint;
using namespace tracelint::report;
using namespace tracelint::support;
using rules::Finding;

namespace {

/// Every trouble a trace name can bring: Markdown and HTML syntax, a pipe,
/// backticks, an ANSI escape, a NUL, U+FFFF (no XML 1.0 character), a
/// right-to-left override and invalid UTF-8.
const char Hostile[] = "op`x`|<script>[a](http://e)\x1b[31m\x01"
                       "\xEF\xBF\xBF\xE2\x80\xAE\xff\xfe end";

Finding finding(llvm::StringRef Code, llvm::StringRef Subject, int64_t Impact) {
  Finding F;
  F.Code = Code.str();
  F.Name = "some-rule";
  F.Subject = Subject.str();
  F.Fingerprint = rules::fingerprint(Code, Subject);
  F.ImpactNs = Impact;
  F.Hypothesis = "the host waits in " + Subject.str();
  F.Next.Change = "remove " + Subject.str();
  F.Next.PredictTrace = "no wait in " + Subject.str();
  F.Next.PredictMetric = "falls";
  rules::ExampleEvent E;
  E.Name = Subject.str();
  F.Examples.push_back(E);
  return F;
}

std::string str(llvm::function_ref<void(llvm::raw_ostream &)> W) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  W(OS);
  OS.flush();
  return S;
}

TEST(Escape, XmlTextHasOnlyXml10Characters) {
  std::string X = xmlText(Hostile);
  EXPECT_EQ(X.find('<'), std::string::npos);
  EXPECT_EQ(X.find('\x1b'), std::string::npos);
  EXPECT_EQ(X.find('\x01'), std::string::npos);
  EXPECT_EQ(X.find("\xEF\xBF\xBF"), std::string::npos);
  EXPECT_EQ(X.find('\xff'), std::string::npos);
  EXPECT_NE(X.find("&lt;script&gt;"), std::string::npos);
  EXPECT_NE(X.find("\\x1B"), std::string::npos);
  EXPECT_NE(X.find("\\u{FFFF}"), std::string::npos);
  EXPECT_EQ(xmlText("a&b\"c'd"), "a&amp;b&quot;c&apos;d");
}

TEST(Escape, MarkdownTextCannotStartMarkup) {
  std::string M = markdownText(Hostile);
  EXPECT_NE(M.find("\\[a\\]"), std::string::npos);
  EXPECT_NE(M.find("\\<script\\>"), std::string::npos);
  EXPECT_NE(M.find("http\\://e"), std::string::npos);
  EXPECT_NE(M.find("op\\`x\\`\\|"), std::string::npos);
  EXPECT_EQ(M.find('\x1b'), std::string::npos);
  EXPECT_EQ(markdownText("a:b (c)"), "a:b (c)");
}

TEST(Escape, MarkdownCodeSpanIsLongerThanAnyBacktickRun) {
  EXPECT_EQ(markdownCode("plain"), "`plain`");
  EXPECT_EQ(markdownCode("a`b"), "``a`b``");
  EXPECT_EQ(markdownCode("``x"), "``` ``x ```");
  EXPECT_EQ(markdownCode("a|b", /*InTable=*/true), "`a\\|b`");
  EXPECT_EQ(markdownCode(""), "`  `");
  std::string C = markdownCode(Hostile);
  EXPECT_EQ(C.find('\x1b'), std::string::npos);
  EXPECT_EQ(C.find('\n'), std::string::npos);
}

TEST(Escape, PathsBecomeUriReferences) {
  EXPECT_EQ(pathToUri("runs/a b.json"), "runs/a%20b.json");
  EXPECT_EQ(pathToUri("/tmp/x#1.json"), "file:///tmp/x%231.json");
  EXPECT_EQ(pathToUri("c:x"), "c%3Ax");
}

TEST(Escape, ShellQuote) {
  EXPECT_EQ(shellQuote("runs/a.json"), "runs/a.json");
  EXPECT_EQ(shellQuote("it's $x"), "'it'\\''s $x'");
  EXPECT_EQ(shellQuote(""), "''");
}

TEST(Baseline, RoundTripsSortedOneFindingPerLine) {
  rules::Baseline B;
  B.add({finding("S001", "aten::item > cudaStreamSynchronize", 2000),
         finding("M001", "aten::reshape", 500),
         finding("S001", "aten::item > cudaStreamSynchronize", 3000)});
  std::string Text = str([&](llvm::raw_ostream &OS) { B.write(OS); });
  // M001 before S001; the two S001 findings are one entry, count 2, the
  // larger impact.
  size_t M = Text.find("\"code\":\"M001\""), S = Text.find("\"code\":\"S001\"");
  ASSERT_NE(M, std::string::npos);
  ASSERT_NE(S, std::string::npos);
  EXPECT_LT(M, S);
  EXPECT_NE(Text.find("\"count\":2,"), std::string::npos);
  EXPECT_NE(Text.find("\"impact_ns\":3000,"), std::string::npos);
  // {, "findings": [, two entries, ], tool, version, }.
  EXPECT_EQ(std::count(Text.begin(), Text.end(), '\n'), 8);
  auto Back = rules::Baseline::parse(Text, "b.json");
  ASSERT_TRUE(bool(Back)) << llvm::toString(Back.takeError());
  EXPECT_EQ(Back->size(), 2u);
  EXPECT_EQ(str([&](llvm::raw_ostream &OS) { Back->write(OS); }), Text);
}

TEST(Baseline, InvalidUtf8SubjectStillWritesValidJson) {
  rules::Baseline B;
  B.add({finding("S001", Hostile, 1)});
  std::string Text = str([&](llvm::raw_ostream &OS) { B.write(OS); });
  EXPECT_TRUE(llvm::json::isUTF8(Text));
  EXPECT_TRUE(bool(rules::Baseline::parse(Text, "b.json")));
}

TEST(Baseline, ClassifiesSingleValuesByTheTolerance) {
  // Findings without a spread (one value each) reduce to the tolerance.
  rules::Baseline B;
  B.add({finding("S001", "a", 1000)});
  const int64_t Target = 10000; // growth under 100 ns cannot be measured
  EXPECT_EQ(B.classify(finding("S001", "a", 1000), 0.25, Target),
            rules::BaselineState::Known);
  EXPECT_EQ(B.classify(finding("S001", "a", 1250), 0.25, Target),
            rules::BaselineState::Known);
  EXPECT_EQ(B.classify(finding("S001", "a", 1251), 0.25, Target),
            rules::BaselineState::Grew);
  EXPECT_EQ(B.classify(finding("S001", "a", 1251), 0.5, Target),
            rules::BaselineState::Known);
  // 25 % more, but under 1 % of a 1 s step: not measurable growth.
  EXPECT_EQ(B.classify(finding("S001", "a", 1300), 0.25, 1000000000),
            rules::BaselineState::Known);
  EXPECT_EQ(B.classify(finding("S001", "b", 1), 0.25, Target),
            rules::BaselineState::New);
  EXPECT_EQ(B.classify(finding("S002", "a", 1), 0.25, Target),
            rules::BaselineState::New);
}

/// A finding whose per-step impacts have the quartiles Q1 and Q3 over
/// Steps steps.
static Finding spread(llvm::StringRef Subject, int64_t Median, int64_t Q1,
                      int64_t Q3, uint64_t Steps = 5) {
  Finding F = finding("K001", Subject, Median);
  F.ImpactQ1Ns = Q1;
  F.ImpactQ3Ns = Q3;
  F.ImpactSteps = Steps;
  return F;
}

TEST(Baseline, GrowthMustLeaveTheBaselinesSpread) {
  // The two ResNet-50 captures of docs/ci.md: K001's per-step gains were
  // 0, 0, 3.1, 3.4, 8.2 ms in one and 4.6, 5.6, 12.2, 12.2, 12.9 ms in the
  // other. Neither direction grew; a capture whose steps all gain 20 ms did.
  const int64_t Ms = 1000000, Step = 123 * Ms;
  rules::Baseline A, B;
  A.add({spread("fp32", 3089000, 0, 3373000)});
  B.add({spread("fp32", 12163000, 5552000, 12211000)});
  EXPECT_EQ(A.entries()[0].growthFloorNs(1.0), 8432500); // Q3 + 1.5 IQR
  EXPECT_EQ(A.classify(spread("fp32", 12163000, 5552000, 12211000), 1.0, Step),
            rules::BaselineState::Known);
  EXPECT_EQ(B.classify(spread("fp32", 3089000, 0, 3373000), 1.0, Step),
            rules::BaselineState::Known);
  EXPECT_EQ(A.classify(spread("fp32", 20 * Ms, 19 * Ms, 21 * Ms), 1.0, Step),
            rules::BaselineState::Grew);
  // The median alone beyond the fence is not enough: most steps must be.
  EXPECT_EQ(A.classify(spread("fp32", 20 * Ms, 4 * Ms, 21 * Ms), 1.0, Step),
            rules::BaselineState::Known);
  // A tight baseline keeps the tolerance as its margin.
  rules::Baseline Tight;
  Tight.add({spread("fp32", 10 * Ms, 10 * Ms - 100000, 10 * Ms + 100000)});
  EXPECT_EQ(
      Tight.classify(spread("fp32", 19 * Ms, 18 * Ms, 20 * Ms), 1.0, Step),
      rules::BaselineState::Known);
  EXPECT_EQ(
      Tight.classify(spread("fp32", 23 * Ms, 21 * Ms, 24 * Ms), 1.0, Step),
      rules::BaselineState::Grew);
}

TEST(Baseline, RecordsTheEnvelopeOfEveryCapture) {
  rules::Baseline B;
  B.add({spread("fp32", 3089000, 0, 3373000)});
  B.add({spread("fp32", 12163000, 5552000, 12211000)});
  rules::BaselineEntry E = B.entries().at(0);
  EXPECT_EQ(E.Count, 2u);
  EXPECT_EQ(E.Steps, 10u);
  EXPECT_EQ(E.ImpactNs, 12163000);
  EXPECT_EQ(E.ImpactQ1Ns, 0);
  EXPECT_EQ(E.ImpactQ3Ns, 12211000);
  std::string Text = str([&](llvm::raw_ostream &OS) { B.write(OS); });
  EXPECT_NE(Text.find("\"impact_q1_ns\":0,\"impact_q3_ns\":12211000,"),
            std::string::npos)
      << Text;
  EXPECT_NE(Text.find("\"steps\":10,"), std::string::npos) << Text;
  EXPECT_NE(Text.find("\"version\": 2"), std::string::npos) << Text;
}

TEST(Baseline, ReadsVersionOneAsASpreadOfOneValue) {
  auto B = rules::Baseline::parse(
      "{\"version\": 1, \"findings\": [{\"code\": \"S001\", "
      "\"fingerprint\": \"0123456789abcdef\", \"count\": 1, "
      "\"impact_ns\": 1000}]}",
      "old.json");
  ASSERT_TRUE(bool(B)) << llvm::toString(B.takeError());
  const rules::BaselineEntry *E = B->find("0123456789abcdef");
  ASSERT_NE(E, nullptr);
  EXPECT_EQ(E->ImpactQ1Ns, 1000);
  EXPECT_EQ(E->ImpactQ3Ns, 1000);
  EXPECT_EQ(E->Steps, 0u);
  EXPECT_EQ(E->growthFloorNs(1.0), 2000);
}

TEST(Baseline, NewFindingsNearTheirGateDoNotFail) {
  rules::Baseline Empty;
  Finding F = finding("S001", "a", 1000);
  EXPECT_EQ(Empty.classify(F, 1.0, 10000), rules::BaselineState::New);
  F.GateMargin = 1.1; // 5.5 % against a 5 % threshold
  EXPECT_EQ(Empty.classify(F, 1.0, 10000), rules::BaselineState::NearFloor);
  F.GateMargin = 0.8; // kept at info under its threshold
  EXPECT_EQ(Empty.classify(F, 1.0, 10000), rules::BaselineState::NearFloor);
  F.GateMargin = 1.25;
  EXPECT_EQ(Empty.classify(F, 1.0, 10000), rules::BaselineState::New);

  std::vector<Finding> Fs = {finding("S001", "a", 1000),
                             finding("S001", "b", 1000),
                             finding("M001", "c", 1000)};
  Fs[1].GateMargin = 1.1;
  rules::Baseline Known;
  Known.add({finding("M001", "c", 1000)});
  rules::BaselineTally T =
      rules::applyBaseline(Known, "base.json", 1.0, 10000, Fs);
  ASSERT_EQ(Fs.size(), 2u);
  EXPECT_EQ(Fs[0].BaselineMark, rules::BaselineState::New);
  EXPECT_TRUE(Fs[0].countsForFailure());
  EXPECT_EQ(Fs[1].BaselineMark, rules::BaselineState::NearFloor);
  EXPECT_FALSE(Fs[1].countsForFailure());
  EXPECT_EQ(T.describe(), "1 new, 0 grew beyond noise, 1 new near its "
                          "floor (not failing), 1 known (not shown)");
  EXPECT_EQ(rules::BaselineTally().describe(), "0 new, 0 grew beyond noise");
}

TEST(Baseline, FingerprintIgnoresRunSpecificNumbers) {
  EXPECT_EQ(rules::fingerprint("S001", "ProfilerStep#12 > aten::item"),
            rules::fingerprint("S001", "ProfilerStep#7 > aten::item"));
  EXPECT_EQ(rules::fingerprint("M001", "op at 0x7f00aa"),
            rules::fingerprint("M001", "op at 0x7f11bb"));
  EXPECT_NE(rules::fingerprint("S001", "aten::item"),
            rules::fingerprint("S002", "aten::item"));
}

TEST(Baseline, RejectsBadFilesWithTheirPlace) {
  auto Check = [](llvm::StringRef Text, llvm::StringRef Expect) {
    auto B = rules::Baseline::parse(Text, "f.json");
    ASSERT_FALSE(bool(B));
    std::string Msg = llvm::toString(B.takeError());
    EXPECT_NE(Msg.find("f.json: not a tracelint baseline"), std::string::npos)
        << Msg;
    EXPECT_NE(Msg.find(Expect.str()), std::string::npos) << Msg;
  };
  Check("[", "invalid JSON");
  Check("[]", "expected a JSON object");
  Check("{\"findings\": []}", "expected an integer \"version\"");
  Check("{\"version\": 3, \"findings\": []}", "format version 3");
  Check("{\"version\": 2, \"findings\": [{\"code\": \"S001\", \"fingerprint\":"
        " \"0123456789abcdef\", \"count\": 1, \"impact_ns\": 1}]}",
        "findings[0]: expected integers \"impact_q1_ns\"");
  Check("{\"version\": 1}", "expected an array \"findings\"");
  Check("{\"version\": 1, \"findings\": [1]}", "findings[0]: expected an "
                                               "object");
  Check("{\"version\": 1, \"findings\": [{\"code\": \"S001\", \"fingerprint\":"
        " \"0123456789abcdef\", \"count\": 0, \"impact_ns\": 1}]}",
        "positive integer \"count\"");
  Check("{\"version\": 1, \"findings\": [{\"code\": \"S001\", \"fingerprint\":"
        " \"0123456789abcdef\", \"count\": 1, \"impact_ns\": 1}, {\"code\": "
        "\"S001\", \"fingerprint\": \"0123456789abcdef\", \"count\": 1, "
        "\"impact_ns\": 1}]}",
        "findings[1]: fingerprint 0123456789abcdef is listed twice");
}

TEST(Predictions, JudgesEachChange) {
  using analysis::FeatureChange;
  std::string Why;
  EXPECT_EQ(rules::judgeFeature(FeatureChange::Decrease, 100, 80, Why),
            rules::Verdict::Confirmed);
  EXPECT_EQ(rules::judgeFeature(FeatureChange::Decrease, 100, 95, Why),
            rules::Verdict::NotConfirmed);
  EXPECT_EQ(rules::judgeFeature(FeatureChange::Decrease, 100, 120, Why),
            rules::Verdict::NotConfirmed);
  EXPECT_NE(Why.find("rose"), std::string::npos);
  EXPECT_EQ(rules::judgeFeature(FeatureChange::Decrease, 0, 0, Why),
            rules::Verdict::Inconclusive);
  EXPECT_EQ(rules::judgeFeature(FeatureChange::Vanish, 100, 4, Why),
            rules::Verdict::Confirmed);
  EXPECT_EQ(rules::judgeFeature(FeatureChange::Vanish, 100, 50, Why),
            rules::Verdict::NotConfirmed);
  EXPECT_NE(Why.find("did not vanish"), std::string::npos);
  EXPECT_EQ(rules::judgeFeature(FeatureChange::Increase, 10, 11, Why),
            rules::Verdict::Confirmed);
  EXPECT_EQ(rules::judgeFeature(FeatureChange::Increase, 10, 10.5, Why),
            rules::Verdict::NotConfirmed);
  EXPECT_EQ(rules::judgeFeature(FeatureChange::Appear, 0, 3, Why),
            rules::Verdict::Confirmed);
  EXPECT_EQ(rules::judgeFeature(FeatureChange::Appear, 2, 3, Why),
            rules::Verdict::Inconclusive);
}

TEST(Predictions, NoiseFloorIsTwoPercentOrHalfTheSpread) {
  analysis::MetricSummary B, A;
  B.MedianNs = 10'000'000;
  EXPECT_EQ(rules::metricNoiseNs(B, A), 200'000);
  A.SpreadNs = 1'000'000;
  EXPECT_EQ(rules::metricNoiseNs(B, A), 500'000);
}

/// One outcome holding a finding with the hostile subject.
std::vector<LintOutcome> hostileRun() {
  LintOutcome O;
  O.Input = "dir/x y.json";
  O.Target = "median step time 10 ms (5 steps)";
  O.Result.Findings.push_back(finding("S001", Hostile, 1'000'000));
  O.RulesRun = {"S001"};
  std::vector<LintOutcome> V;
  V.push_back(std::move(O));
  return V;
}

TEST(Writers, SarifIsValidJsonWithHostileNames) {
  auto Cat = rules::Catalogue::builtin();
  ASSERT_TRUE(bool(Cat));
  auto Runs = hostileRun();
  std::string S = str([&](llvm::raw_ostream &OS) {
    writeLintSarif(OS, Runs, {{"bad\xff.json", "bad\xff.json: cannot open"}},
                   *Cat, WriterOptions{"1.0", "", rules::Severity::Warning});
  });
  EXPECT_TRUE(llvm::json::isUTF8(S));
  auto Doc = llvm::json::parse(S);
  ASSERT_TRUE(bool(Doc)) << llvm::toString(Doc.takeError());
  const llvm::json::Object *Run =
      (*Doc->getAsObject()->getArray("runs"))[0].getAsObject();
  const llvm::json::Object *Result =
      (*Run->getArray("results"))[0].getAsObject();
  EXPECT_EQ(*Result->getString("ruleId"), "S001");
  EXPECT_EQ(*Result->getObject("partialFingerprints")
                 ->getString("tracelintFingerprint/v1"),
            rules::fingerprint("S001", Hostile));
  EXPECT_EQ(*(*Run->getArray("artifacts"))[0]
                 .getAsObject()
                 ->getObject("location")
                 ->getString("uri"),
            "dir/x%20y.json");
}

TEST(Writers, JUnitHoldsNoForbiddenCharacter) {
  auto Cat = rules::Catalogue::builtin();
  ASSERT_TRUE(bool(Cat));
  auto Runs = hostileRun();
  std::string X = str([&](llvm::raw_ostream &OS) {
    writeLintJUnit(OS, Runs, {{"bad\x01.json", "bad\x01.json: no"}}, *Cat,
                   WriterOptions{"1.0", "", rules::Severity::Warning});
  });
  EXPECT_TRUE(llvm::json::isUTF8(X));
  for (char C : X)
    EXPECT_TRUE(static_cast<uint8_t>(C) >= 0x20 || C == '\n') << int(C);
  EXPECT_EQ(X.find("\xEF\xBF\xBF"), std::string::npos);
  EXPECT_EQ(X.find("<script"), std::string::npos);
  EXPECT_NE(X.find("<failure type=\"warning\""), std::string::npos);
  EXPECT_NE(X.find("errors=\"1\""), std::string::npos);
}

TEST(Writers, MarkdownKeepsNamesInertAndOrdered) {
  auto Runs = hostileRun();
  Runs[0].Result.Findings.push_back(finding("M001", "second", 10));
  std::string M = str([&](llvm::raw_ostream &OS) {
    writeLintMarkdown(OS, Runs, {}, WriterOptions{});
  });
  EXPECT_TRUE(llvm::json::isUTF8(M));
  // In running text the markup is escaped; the subject is a code span.
  EXPECT_NE(M.find("**Hypothesis:** the host waits in op\\`x\\`\\|\\<script\\>"
                   "\\[a\\](http\\://e)"),
            std::string::npos);
  EXPECT_NE(M.find("**Subject:** ``op`x`|<script>[a](http://e)"),
            std::string::npos);
  size_t First = M.find("- [ ] **1. S001**");
  size_t Second = M.find("- [ ] **2. M001**");
  ASSERT_NE(First, std::string::npos);
  ASSERT_NE(Second, std::string::npos);
  EXPECT_LT(First, Second);
  EXPECT_NE(M.find("`tracelint diff 'dir/x y.json' 'dir/x y.after.json'`"),
            std::string::npos);
  EXPECT_NE(M.find("**Observed:** _not yet run_"), std::string::npos);
}

} // namespace
