//===- LintReportTest.cpp - Lint report, rule list and rule pages ---------===//
#include "report/LintReport.h"

#include "model/TraceBuilder.h"
#include "support/Format.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include "UnitTestTimes.h"

using namespace tracelint;
using namespace tracelint::report;
using model::EventKind;

using tracelint::testing::Ms;

namespace {

/// Two steps of 10 ms on thread 1; a kernel named with an escape sequence
/// on device 0 stream 7 at [2, 6] ms.
model::Trace lintReportTrace() {
  model::TraceBuilder B;
  uint32_t H = B.lane(1, 1);
  uint32_t D = B.lane(0, 7);
  B.setDeviceLane(D, 0, 7);
  auto Add = [&](uint32_t Lane, EventKind K, llvm::StringRef Name,
                 int64_t Start, int64_t End) {
    model::Event E;
    E.Lane = Lane;
    E.Kind = K;
    E.Name = B.strings().intern(Name);
    E.Start = Start;
    E.Duration = End - Start;
    B.addEvent(E);
  };
  Add(H, EventKind::Annotation, "ProfilerStep#1", 0, 10 * Ms);
  Add(H, EventKind::Annotation, "ProfilerStep#2", 10 * Ms, 20 * Ms);
  Add(D, EventKind::Kernel, "evil\x1b[31mkernel", 2 * Ms, 6 * Ms);
  return B.finish();
}

rules::RuleSpec lintReportRule() {
  auto Spec = rules::Catalogue::parseRule(R"toml(code = "X001"
name = "any-kernel"
summary = "any kernel at all"
[options.limit]
default = "2ms"
description = "the limit"
why = "because"
[signature.select]
kind = "kernel"
[text]
hypothesis = "{count} kernels ({subject}) take {total}"
evidence = ["longest {max}"]
alternatives = ["nothing else"]
[experiment]
change = "remove {subject}"
predict-trace = "no kernels"
predict-metric = "step time falls by at most {impact}"
verify = "time it"
refuted-if = "nothing changes"
[doc]
what = "kernels"
why = "they take time"
)toml",
                                          "user/X001.toml");
  EXPECT_TRUE(bool(Spec));
  if (!Spec) {
    ADD_FAILURE() << llvm::toString(Spec.takeError());
    return rules::RuleSpec();
  }
  return std::move(*Spec);
}

struct Fixture {
  model::Trace T = lintReportTrace();
  analysis::TraceIndex Ctx{T};
  analysis::TraceStats Stats = analysis::computeStats(T);
  rules::Catalogue Cat;
  rules::LintResult Result;
  Fixture() {
    EXPECT_FALSE(bool(Cat.add(lintReportRule())));
    Result = rules::runRules(Ctx, Cat, rules::Config(), "t.json");
  }
  LintedTrace linted() { return LintedTrace{"t.json", T, Stats, Result}; }
};

TEST(LintReport, TextStartsWithTheTargetAndRanksFindings) {
  Fixture F;
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  writeLintText(OS, F.linted(), /*Color=*/false);
  OS.flush();
  // The header in order: input, producer, target, devices.
  size_t Input = Out.find("tracelint lint: t.json\n");
  size_t Target = Out.find("target      median step time 10 ms (2 steps)");
  size_t Devices = Out.find("devices     device 0: busy 4 ms");
  // Confidence 0.6, lowered x0.8 because the window holds only two steps.
  size_t First = Out.find("1. X001 [any-kernel] warning, confidence 0.48, "
                          "impact up to 4 ms (40.0 % of step)");
  EXPECT_EQ(Input, 0u) << Out;
  EXPECT_NE(Target, std::string::npos) << Out;
  EXPECT_NE(Devices, std::string::npos) << Out;
  EXPECT_NE(First, std::string::npos) << Out;
  EXPECT_LT(Target, Devices);
  EXPECT_LT(Devices, First);
  // Trace strings are sanitized everywhere: no raw escape reaches the text.
  EXPECT_EQ(Out.find('\x1b'), std::string::npos) << Out;
  EXPECT_NE(Out.find("1 kernels (evil\\x1B[31mkernel) take 4 ms"),
            std::string::npos)
      << Out;
  EXPECT_NE(Out.find("   evidence (step #1): longest 4 ms\n"),
            std::string::npos)
      << Out;
  // One finding is its own card: no ranked list above it.
  EXPECT_EQ(Out.find("ranked"), std::string::npos) << Out;
  // The alternatives, verify and refuted-if are for --verbose.
  EXPECT_EQ(Out.find("could also be:"), std::string::npos) << Out;
  EXPECT_EQ(Out.find("refuted if:"), std::string::npos) << Out;
  EXPECT_NE(Out.find("   experiment: remove evil"), std::string::npos) << Out;
  EXPECT_NE(Out.find("   expect:     step time falls by at most 4 ms"),
            std::string::npos)
      << Out;
  // Located from the trace's first event, which the header names once.
  EXPECT_NE(Out.find("   example: evil\\x1B[31mkernel on "), std::string::npos)
      << Out;
  EXPECT_NE(Out.find(" at +0.002000 s, 4 ms\n"), std::string::npos) << Out;
  EXPECT_NE(Out.find("times       +s from the first event (ts "),
            std::string::npos)
      << Out;
  // The fingerprint is for baselines and JSON, and --verbose.
  EXPECT_EQ(Out.find("fingerprint"), std::string::npos) << Out;
  EXPECT_NE(Out.find("summary     1 finding (1 warning)"), std::string::npos)
      << Out;
}

TEST(LintReport, VerboseShowsTheWholeCard) {
  Fixture F;
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  TextOptions O;
  O.Verbose = true;
  writeLintText(OS, F.linted(), O);
  OS.flush();
  EXPECT_NE(Out.find("   could also be:\n     - nothing else\n"),
            std::string::npos)
      << Out;
  EXPECT_NE(Out.find("     refuted if:       nothing changes\n"),
            std::string::npos)
      << Out;
  EXPECT_NE(Out.find("   fingerprint " + F.Result.Findings[0].Fingerprint),
            std::string::npos)
      << Out;
}

/// A finding made by hand: \p Code, impact, severity, one example event.
rules::Finding handMade(llvm::StringRef Code, int64_t ImpactNs,
                        rules::Severity Sev, int64_t AtNs, int64_t DurNs) {
  rules::Finding F;
  F.Code = Code.str();
  F.Name = "rule-" + Code.lower();
  F.Sev = Sev;
  F.Confidence = 1;
  F.ImpactNs = ImpactNs;
  F.ImpactShare = double(ImpactNs) / double(10 * Ms);
  F.Hypothesis = Code.str() + " says so";
  F.Examples.push_back({"ev", "thread 1", 0, AtNs, DurNs});
  F.Fingerprint = rules::fingerprint(F.Code, "x");
  // As the catalogue's [signature] claims says: the waits' and copies'
  // rules claim a wait.
  if (Code.startswith("S") || Code.startswith("M"))
    F.Claims = "wait";
  return F;
}

/// S001 and M002 share their wait [1, 3) ms; L001 and X005 are elsewhere;
/// K003 has no impact.
struct LayoutFixture : Fixture {
  LayoutFixture() {
    using rules::Severity;
    Result.Findings = {
        handMade("S001", 2 * Ms, Severity::Warning, 1 * Ms, 2 * Ms),
        handMade("M002", 1 * Ms, Severity::Warning, 2 * Ms, Ms / 2),
        handMade("L001", Ms / 2, Severity::Warning, 5 * Ms, Ms),
        handMade("X005", Ms / 5, Severity::Info, 7 * Ms, Ms),
        handMade("K003", 0, Severity::Warning, 1 * Ms, Ms),
    };
  }
  std::string text(const TextOptions &O) {
    std::string Out;
    llvm::raw_string_ostream OS(Out);
    writeLintText(OS, linted(), O);
    return OS.str();
  }
};

TEST(LintReport, OneCardPerWaitNotesForZeroImpactAndTop) {
  LayoutFixture F;
  TextOptions O;
  O.Top = 2;
  std::string Out = F.text(O);
  // The ranked list comes first: every finding on one line, in rank order,
  // with its impact and the change to try (here: none, so the hypothesis),
  // a folded finding naming its card and a note saying it is one.
  size_t Ranked =
      Out.find("\nranked (the most each could shorten the step, "
               "then the change to try):\n"
               "  1. S001 [rule-s001] 2 ms (20.0 %): S001 says so\n"
               "  2. M002 [rule-m002] 1 ms (10.0 %): the same wait "
               "as 1\n"
               "  3. L001 [rule-l001] 500 us (5.0 %): L001 says so\n"
               "  4. X005 [rule-x005] 200 us (2.0 %): X005 says so\n"
               "  5. K003 [rule-k003] 0: a note, seen with no impact "
               "(below)\n"
               "  --top 3 adds the cards of 4\n");
  EXPECT_NE(Ranked, std::string::npos) << Out;
  EXPECT_LT(Ranked, Out.find("\n1. S001"));
  // S001 carries the card; M002 is one line in it.
  EXPECT_NE(Out.find("\n1. S001 [rule-s001]"), std::string::npos) << Out;
  EXPECT_NE(Out.find("   same wait: 2. M002 [rule-m002] warning, impact up to "
                     "1 ms: M002 says so\n"),
            std::string::npos)
      << Out;
  EXPECT_EQ(Out.find("\n2. M002"), std::string::npos) << Out;
  // Two cards (X005 has only its line above), then the zero-impact note.
  EXPECT_NE(Out.find("\n3. L001 [rule-l001]"), std::string::npos) << Out;
  EXPECT_EQ(Out.find("\n4. X005"), std::string::npos) << Out;
  EXPECT_NE(Out.find("notes (seen, but with no impact on the target):\n  5. "
                     "K003 [rule-k003]: K003 says so; impact 0:"),
            std::string::npos)
      << Out;
  EXPECT_EQ(Out.find("\n5. K003"), std::string::npos) << Out;
  // No experiment is offered for a zero-impact note.
  EXPECT_EQ(Out.find("next experiment:", Out.find("notes (")),
            std::string::npos)
      << Out;

  // --verbose: every finding its own card.
  O.Verbose = true;
  Out = F.text(O);
  for (const char *Card :
       {"\n1. S001", "\n2. M002", "\n3. L001", "\n4. X005", "\n5. K003"})
    EXPECT_NE(Out.find(Card), std::string::npos) << Card << "\n" << Out;
  EXPECT_EQ(Out.find("same wait:"), std::string::npos) << Out;
}

TEST(LintReport, FindingsAboutOneCollectiveShareACard) {
  // N001 and N002 describe the same SendRecv kernel: their rules claim a
  // collective, so the larger impact carries the card. A finding of a rule
  // that claims nothing (K003) overlapping it in time stands alone.
  LayoutFixture F;
  using rules::Severity;
  F.Result.Findings = {handMade("N001", 3 * Ms, Severity::Warning, Ms, Ms),
                       handMade("N002", 2 * Ms, Severity::Warning, Ms, Ms),
                       handMade("K003", 1 * Ms, Severity::Warning, Ms, Ms)};
  F.Result.Findings[0].Claims = F.Result.Findings[1].Claims = "collective";
  std::string Out = F.text(TextOptions());
  EXPECT_NE(Out.find("   same collective: 2. N002 [rule-n002] warning, "
                     "impact up to 2 ms: N002 says so\n"),
            std::string::npos)
      << Out;
  EXPECT_NE(Out.find("\n3. K003 [rule-k003]"), std::string::npos) << Out;
}

TEST(LintReport, MinSeverityCountsWhatItHides) {
  LayoutFixture F;
  TextOptions O;
  O.MinSeverity = rules::Severity::Warning;
  std::string Out = F.text(O);
  EXPECT_EQ(Out.find("X005"), std::string::npos) << Out;
  EXPECT_NE(Out.find("summary     5 findings (4 warnings, 1 info); 1 under "
                     "--min-severity warning not shown"),
            std::string::npos)
      << Out;
}

TEST(LintReport, JsonLinksFindingsAboutTheSameWait) {
  LayoutFixture F;
  auto Doc = llvm::json::parse(lintJsonObject(F.linted(), 0));
  ASSERT_TRUE(bool(Doc)) << llvm::toString(Doc.takeError());
  const llvm::json::Array *Fs = Doc->getAsObject()->getArray("findings");
  ASSERT_TRUE(Fs && Fs->size() == 5);
  auto SeeAlso = [&](size_t I) {
    std::vector<std::string> Out;
    for (const llvm::json::Value &V :
         *(*Fs)[I].getAsObject()->getArray("see_also"))
      Out.push_back(V.getAsString()->str());
    return Out;
  };
  EXPECT_EQ(SeeAlso(0),
            std::vector<std::string>{F.Result.Findings[1].Fingerprint});
  EXPECT_EQ(SeeAlso(1),
            std::vector<std::string>{F.Result.Findings[0].Fingerprint});
  EXPECT_TRUE(SeeAlso(2).empty());
  // K003 overlaps the wait in time but is not about a wait or a copy.
  EXPECT_TRUE(SeeAlso(4).empty());
}

TEST(LintReport, NoLineIsWiderThanTheWidth) {
  // A line is as wide as the width asks, but for one word that has no
  // place to break (`/`, `::`, `,`): it stands whole on its own line, up to
  // MaxLineWidth, and only a word wider than that is cut.
  LayoutFixture F;
  F.Result.Findings[0].Evidence.push_back(
      "the host waits for void at::native::vectorized_elementwise_kernel<4, "
      "at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3> >(int, "
      "at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>) and " +
      std::string(500, 'w'));
  for (size_t Width : {100u, 240u, 1000u}) {
    for (bool Long : {false, true}) {
      TextOptions O;
      O.Width = Width;
      O.LongNames = Long;
      std::string Out = F.text(O);
      llvm::SmallVector<llvm::StringRef, 64> Lines;
      llvm::StringRef(Out).split(Lines, '\n');
      for (llvm::StringRef L : Lines) {
        EXPECT_LE(support::displayWidth(L), MaxLineWidth) << L.str();
        if (L.trim().contains(' ')) {
          EXPECT_LE(support::displayWidth(L), std::min<size_t>(Width, 240))
              << L.str();
        }
      }
      EXPECT_EQ(Out.find("CUDAFunctor_add") != std::string::npos, Long);
    }
  }
}

TEST(LintReport, ColourOnlyWhenAsked) {
  Fixture F;
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  writeLintText(OS, F.linted(), /*Color=*/true);
  OS.flush();
  EXPECT_NE(Out.find("\x1b[1mX001\x1b[0m [any-kernel] \x1b[33mwarning\x1b[0m"),
            std::string::npos)
      << Out;
  // The trace's own escape is still neutralised.
  EXPECT_EQ(Out.find("\x1b[31m"), std::string::npos);
}

TEST(LintReport, JsonDocumentIsValidAndComplete) {
  Fixture F;
  std::string Obj = lintJsonObject(F.linted(), 4);
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  writeLintJsonDocument(OS, {Obj}, {{"bad.json", "bad.json: cannot open"}});
  OS.flush();
  auto V = llvm::json::parse(Out);
  ASSERT_TRUE(bool(V)) << llvm::toString(V.takeError()) << "\n" << Out;
  const llvm::json::Object *Doc = V->getAsObject();
  ASSERT_TRUE(Doc);
  EXPECT_EQ(Doc->getInteger("version"), int64_t(2));
  const llvm::json::Array *Results = Doc->getArray("results");
  ASSERT_TRUE(Results && Results->size() == 1);
  const llvm::json::Object *R = (*Results)[0].getAsObject();
  EXPECT_EQ(R->getString("input"), llvm::StringRef("t.json"));
  EXPECT_EQ(R->getObject("target")->getInteger("ns"), 10 * Ms);
  const llvm::json::Array *Findings = R->getArray("findings");
  ASSERT_TRUE(Findings && Findings->size() == 1);
  const llvm::json::Object *Finding = (*Findings)[0].getAsObject();
  EXPECT_EQ(Finding->getString("code"), llvm::StringRef("X001"));
  EXPECT_NEAR(*Finding->getNumber("confidence"), 0.48, 1e-12);
  EXPECT_EQ(Finding->getInteger("impact_ns"), 4 * Ms);
  EXPECT_EQ(Finding->getObject("experiment")->getString("refuted_if"),
            llvm::StringRef("nothing changes"));
  EXPECT_EQ(Finding->getArray("examples")->size(), 1u);
  // The texts' values travel as numbers, each with how the text shows it.
  const llvm::json::Object *Values = Finding->getObject("values");
  ASSERT_TRUE(Values);
  EXPECT_EQ(Values->getObject("impact")->getInteger("ns"), 4 * Ms);
  EXPECT_EQ(Values->getObject("impact")->getString("text"),
            llvm::StringRef("4 ms"));
  ASSERT_TRUE(Values->getObject("count"));
  EXPECT_TRUE(Values->getObject("count")->getInteger("count").hasValue());
  EXPECT_TRUE(Values->getObject("impact_share")->getNumber("share"));
  EXPECT_EQ(Doc->getArray("errors")->size(), 1u);
}

TEST(RulePage, MarkdownHasEverySection) {
  rules::RuleSpec Spec = lintReportRule();
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  writeRulePage(OS, Spec, PageFormat::Markdown, false);
  OS.flush();
  size_t Last = 0;
  for (const char *Section :
       {"# X001 any-kernel\n", "## What it detects\n\nkernels\n",
        "## Why it matters\n", "## Evidence shown\n",
        "- **Hypothesis:** `{count} kernels ({subject}) take {total}`",
        "## Next experiment\n", "- **Refuted if:** `nothing changes`",
        "## Signature\n", "- select events: kind kernel\n", "## Options\n",
        "| `limit` | 2 ms | the limit | because |", "## Needs\n",
        "- **device:** device activity", "## Known false positives\n",
        "Not documented yet.", "## Real traces\n"}) {
    size_t At = Out.find(Section, Last);
    EXPECT_NE(At, std::string::npos) << Section << "\n---\n" << Out;
    if (At != std::string::npos)
      Last = At;
  }
}

TEST(RulePage, ListHasOneLinePerRule) {
  rules::Catalogue Cat;
  ASSERT_FALSE(bool(Cat.add(lintReportRule())));
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  writeRuleList(OS, Cat, /*Json=*/false, false);
  OS.flush();
  EXPECT_EQ(Out, "code  name       family status   severity summary\n"
                 "X001  any-kernel X      preview  warning  any kernel at "
                 "all\n");
}

TEST(LintReport, FormatConfidence) {
  EXPECT_EQ(formatConfidence(0.6), "0.6");
  EXPECT_EQ(formatConfidence(0.42), "0.42");
  EXPECT_EQ(formatConfidence(1), "1");
  EXPECT_EQ(formatConfidence(0.336), "0.34");
}

} // namespace
