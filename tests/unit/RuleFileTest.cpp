//===- RuleFileTest.cpp - Rule files: schema, errors, catalogue -----------===//
//
// Every error names the file, line and column; the expected places below are
// counted by hand in the TOML texts (lines and columns start at 1).
//
//===----------------------------------------------------------------------===//
#include "rules/BuiltinRules.h"
#include "rules/Catalogue.h"
#include "rules/Detector.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

using namespace tracelint;
using namespace tracelint::rules;

namespace {

/// A minimal valid declarative rule; tests append or replace lines.
const char *const Minimal = R"toml(code = "X001"
name = "nonzero-in-step"
summary = "aten::nonzero inside the step"
[signature.select]
kind = "op"
name = "aten::nonzero"
inside = "steps"
[text]
hypothesis = "{count} aten::nonzero calls"
[experiment]
change = "avoid nonzero"
)toml";

std::string errorOf(llvm::StringRef Text, llvm::StringRef Origin = "x.toml") {
  auto Spec = Catalogue::parseRule(Text, Origin);
  if (Spec) {
    ADD_FAILURE() << "expected an error for:\n" << Text.str();
    return "";
  }
  return llvm::toString(Spec.takeError());
}

TEST(RuleFile, MinimalRuleParses) {
  auto Spec = Catalogue::parseRule(Minimal, "x.toml");
  ASSERT_TRUE(bool(Spec)) << llvm::toString(Spec.takeError());
  EXPECT_EQ(Spec->Code, "X001");
  EXPECT_EQ(Spec->Name, "nonzero-in-step");
  EXPECT_EQ(Spec->Status, RuleStatus::Preview);
  EXPECT_EQ(Spec->DefaultSeverity, Severity::Warning);
  ASSERT_EQ(Spec->Sig.Select.Kinds.size(), 1u);
  EXPECT_EQ(Spec->Sig.Select.Kinds[0], model::EventKind::Op);
  EXPECT_EQ(Spec->Sig.Select.Inside, Selector::Where::InsideSteps);
  // Defaults: count over the trace, fires at one or more.
  EXPECT_EQ(Spec->Sig.Aggregate.GroupBy, Aggregation::Per::Trace);
  EXPECT_EQ(Spec->Sig.Aggregate.Measure, Aggregation::Value::Count);
  EXPECT_EQ(Spec->Sig.Aggregate.Op, Aggregation::Compare::GreaterEqual);
  EXPECT_EQ(std::get<double>(Spec->Sig.Aggregate.Threshold), 1.0);
  // inside = "steps" implies the steps need.
  EXPECT_EQ(Spec->Needs, std::vector<Need>{Need::Steps});
  EXPECT_EQ(Spec->Origin, "x.toml");
}

TEST(RuleFile, FullRuleParses) {
  const char *Text = R"toml(code = "X002"
name = "direct-copy-share"
summary = "direct_copy kernels take over 2 % of device busy time"
status = "stable"
severity = "info"
needs = ["correlation"]
[options.share]
default = "2%"
description = "smallest share reported"
why = "below 2 % the copies are noise"
[options.long]
default = "1.5ms"
[options.big]
default = "1MB"
[options.flag]
default = true
[options.mode]
default = "strict"
[signature.select]
kind = ["kernel"]
name = ["*direct_copy*", "exact_name"]
name-regex = "^void at::.*$"
lane = "device"
min-duration = "250us"
max-duration = 1000000000
min-bytes = "big"
[signature.aggregate]
per = "name"
value = "union(duration)"
[signature.fires-when]
compare = ">"
threshold = "share"
relative-to = "device-busy"
[text]
hypothesis = "h"
evidence = ["e1", "e2"]
alternatives = ["a"]
[experiment]
change = "c"
predict-trace = "pt"
predict-metric = "pm"
verify = "v"
refuted-if = "r"
[doc]
what = "w"
why = "y"
false-positives = "fp"
real-traces = "rt"
)toml";
  auto Spec = Catalogue::parseRule(Text, "x.toml");
  ASSERT_TRUE(bool(Spec)) << llvm::toString(Spec.takeError());
  EXPECT_EQ(Spec->Status, RuleStatus::Stable);
  EXPECT_EQ(Spec->DefaultSeverity, Severity::Info);
  ASSERT_EQ(Spec->Options.size(), 5u);
  const OptionSpec *Share = Spec->option("share");
  ASSERT_TRUE(Share);
  EXPECT_DOUBLE_EQ(std::get<double>(Share->Default), 0.02);
  EXPECT_EQ(Share->Unit, NumberUnit::Share);
  EXPECT_EQ(Share->Why, "below 2 % the copies are noise");
  EXPECT_DOUBLE_EQ(std::get<double>(Spec->option("long")->Default), 1.5e6);
  EXPECT_EQ(Spec->option("long")->Unit, NumberUnit::Duration);
  EXPECT_DOUBLE_EQ(std::get<double>(Spec->option("big")->Default), 1e6);
  EXPECT_TRUE(std::get<bool>(Spec->option("flag")->Default));
  EXPECT_EQ(std::get<std::string>(Spec->option("mode")->Default), "strict");
  const Selector &S = Spec->Sig.Select;
  EXPECT_EQ(S.Names.size(), 2u);
  EXPECT_EQ(S.NameRegex, "^void at::.*$");
  EXPECT_EQ(S.Lane, model::LaneKind::DeviceStream);
  EXPECT_EQ(S.MinDurationNs, 250000);
  EXPECT_EQ(S.MaxDurationNs, 1000000000);
  EXPECT_FALSE(S.MinBytes);
  EXPECT_EQ(S.BoundOptions.at("min-bytes"), "big");
  const Aggregation &A = Spec->Sig.Aggregate;
  EXPECT_EQ(A.GroupBy, Aggregation::Per::Name);
  EXPECT_EQ(A.Over, Aggregation::Statistic::Any); // the default per name
  EXPECT_EQ(A.Measure, Aggregation::Value::UnionDuration);
  EXPECT_EQ(A.Op, Aggregation::Compare::Greater);
  EXPECT_EQ(std::get<std::string>(A.Threshold), "share");
  EXPECT_EQ(A.Relative, Aggregation::RelativeTo::DeviceBusy);
  // needs: declared correlation, plus device implied by kernels/device-busy.
  EXPECT_EQ(Spec->Needs,
            (std::vector<Need>{Need::DeviceActivity, Need::Correlation}));
  EXPECT_EQ(Spec->Evidence, (std::vector<std::string>{"e1", "e2"}));
  EXPECT_EQ(Spec->Next.RefutedIf, "r");
  EXPECT_EQ(Spec->RealTraces, "rt");
}

TEST(RuleFile, UnknownKeysNameTheirPlaceAndTheAllowedKeys) {
  std::string Text = Minimal;
  Text.insert(Text.find("[signature"), "colour = \"red\"\n"); // line 4
  EXPECT_EQ(errorOf(Text), "x.toml:4:1: unknown key 'colour' in a rule; "
                           "allowed keys: code, name, summary, status, "
                           "severity, needs, options, signature, text, "
                           "experiment, doc, producer, producers");
  // Inside [signature.select] (line 4), key on line 8 after "inside".
  std::string Nested = Minimal;
  Nested.insert(Nested.find("[text]"), "  knd = \"op\"\n");
  EXPECT_EQ(errorOf(Nested),
            "x.toml:8:3: unknown key 'knd' in [signature.select]; allowed "
            "keys: kind, name, name-regex, lane, min-duration, max-duration, "
            "copy, src, dst, min-bytes, max-bytes, inside, steps");
}

TEST(RuleFile, SyntaxErrorsHaveLineAndColumn) {
  std::string E = errorOf("code = \"X001\"\nname = \n");
  EXPECT_TRUE(llvm::StringRef(E).startswith("x.toml:2:")) << E;
  EXPECT_NE(E.find("invalid TOML: "), std::string::npos) << E;
  std::string Dup = errorOf("code = \"X001\"\ncode = \"X002\"\n");
  EXPECT_TRUE(llvm::StringRef(Dup).startswith("x.toml:2:")) << Dup;
}

TEST(RuleFile, WrongTypes) {
  std::string Text = Minimal;
  Text.replace(Text.find("\"X001\""), 6, "1");
  EXPECT_EQ(errorOf(Text), "x.toml:1:8: 'code' must be a string, not an "
                           "integer");
  std::string Kinds = Minimal;
  Kinds.replace(Kinds.find("kind = \"op\""), 11, "kind = [1]");
  EXPECT_EQ(errorOf(Kinds), "x.toml:5:9: 'kind' must hold strings only, not "
                            "an integer");
}

TEST(RuleFile, InvalidCodesAndNames) {
  auto WithCode = [](llvm::StringRef Code) {
    std::string Text = Minimal;
    Text.replace(Text.find("X001"), 4, Code.str());
    return errorOf(Text);
  };
  EXPECT_EQ(WithCode("Q001"),
            "x.toml:1:8: invalid code 'Q001': expected a family letter (one "
            "of SMLDKCNUTX) and three digits, e.g. \"X001\"");
  EXPECT_NE(WithCode("X01").find("invalid code 'X01'"), std::string::npos);
  EXPECT_NE(WithCode("x001").find("invalid code"), std::string::npos);
  EXPECT_NE(WithCode("X0001").find("invalid code"), std::string::npos);
  auto WithName = [](llvm::StringRef Name) {
    std::string Text = Minimal;
    Text.replace(Text.find("nonzero-in-step"), 15, Name.str());
    return errorOf(Text);
  };
  EXPECT_NE(WithName("NonZero").find("x.toml:2:8: invalid name 'NonZero'"),
            std::string::npos);
  EXPECT_NE(WithName("non--zero").find("invalid name"), std::string::npos);
  EXPECT_NE(WithName("-nonzero").find("invalid name"), std::string::npos);
  EXPECT_NE(WithName("nonzero-").find("invalid name"), std::string::npos);
  EXPECT_NE(WithName("non_zero").find("invalid name"), std::string::npos);
  EXPECT_NE(WithName("x001").find("must not look like a code"),
            std::string::npos);
}

TEST(RuleFile, EnumsAndNeeds) {
  std::string Text = Minimal;
  Text.replace(Text.find("kind = \"op\""), 11, "kind = \"kernal\"");
  std::string E = errorOf(Text);
  EXPECT_TRUE(llvm::StringRef(E).startswith(
      "x.toml:5:8: unknown event kind 'kernal'; known kinds: op, python,"))
      << E;
  std::string Needs = Minimal;
  Needs.insert(Needs.find("[signature"), "needs = [\"device\", \"gpu\"]\n");
  EXPECT_EQ(errorOf(Needs),
            "x.toml:4:20: unknown need 'gpu'; known needs: device, launches, "
            "correlation, steps, shapes, stacks, memory");
  std::string Status = Minimal;
  Status.insert(Status.find("[signature"), "status = \"beta\"\n");
  EXPECT_EQ(errorOf(Status),
            "x.toml:4:10: 'status' must be one of preview, stable, not "
            "'beta'");
  std::string Copy = Minimal;
  Copy.insert(Copy.find("[text]"), "copy = \"H2D\"\n");
  EXPECT_EQ(errorOf(Copy), "x.toml:8:8: 'copy' must be one of HtoD, DtoH, "
                           "DtoD, HtoH, PtoP, not 'H2D'");
}

TEST(RuleFile, DurationsSharesAndSizes) {
  auto WithSelect = [](llvm::StringRef Line) {
    std::string Text = Minimal;
    Text.insert(Text.find("[text]"), Line.str() + "\n");
    return Catalogue::parseRule(Text, "x.toml");
  };
  auto Ns = [&](llvm::StringRef V) -> int64_t {
    auto S = WithSelect(("min-duration = " + V).str());
    if (!S) {
      ADD_FAILURE() << llvm::toString(S.takeError());
      return -1;
    }
    return *S->Sig.Select.MinDurationNs;
  };
  EXPECT_EQ(Ns("\"250us\""), 250000);
  EXPECT_EQ(Ns("\"2ms\""), 2000000);
  EXPECT_EQ(Ns("\"1.5s\""), 1500000000);
  EXPECT_EQ(Ns("\"100ns\""), 100);
  EXPECT_EQ(Ns("\"2 ms\""), 2000000);
  EXPECT_EQ(Ns("12345"), 12345); // plain numbers are ns
  auto Bad = WithSelect("min-duration = \"2 minutes\"");
  ASSERT_FALSE(bool(Bad));
  EXPECT_EQ(llvm::toString(Bad.takeError()),
            "x.toml:8:16: 'min-duration' must be a duration (a number of "
            "ns, or \"250us\", \"2ms\", \"1.5s\") or the name of an option "
            "of this rule; '2 minutes' is neither");
  auto Bytes = WithSelect("min-bytes = \"1MB\"");
  ASSERT_TRUE(bool(Bytes)) << llvm::toString(Bytes.takeError());
  EXPECT_EQ(*Bytes->Sig.Select.MinBytes, 1000000);
  auto MiB = WithSelect("max-bytes = \"4MiB\"");
  ASSERT_TRUE(bool(MiB));
  EXPECT_EQ(*MiB->Sig.Select.MaxBytes, 4 * 1048576);
  auto Inverted = WithSelect("min-bytes = 10\nmax-bytes = 5");
  ASSERT_FALSE(bool(Inverted));
  EXPECT_EQ(llvm::toString(Inverted.takeError()),
            "x.toml:9:13: 'max-bytes' is below 'min-bytes': nothing can "
            "match");
}

TEST(RuleFile, ThresholdsMustFitWhatIsCompared) {
  auto With = [](llvm::StringRef Lines) {
    std::string Text = Minimal;
    Text.insert(Text.find("[text]"), Lines.str());
    return Catalogue::parseRule(Text, "x.toml");
  };
  // A share without relative-to.
  auto A = With("[signature.aggregate]\nvalue = \"sum(duration)\"\n"
                "[signature.fires-when]\nthreshold = \"2%\"\n");
  ASSERT_FALSE(bool(A));
  EXPECT_EQ(llvm::toString(A.takeError()),
            "x.toml:11:13: threshold '2%' is not a duration, which this "
            "signature compares (a share needs 'relative-to')");
  // A duration compared with a count.
  auto B = With("[signature.fires-when]\nthreshold = \"2ms\"\n");
  ASSERT_FALSE(bool(B));
  EXPECT_EQ(llvm::toString(B.takeError()),
            "x.toml:9:13: threshold '2ms' is not a count, which this "
            "signature compares");
  // relative-to with a count.
  auto C = With("[signature.fires-when]\nrelative-to = \"step\"\n");
  ASSERT_FALSE(bool(C));
  EXPECT_EQ(llvm::toString(C.takeError()),
            "x.toml:9:15: 'relative-to' compares a time with a time: it "
            "needs 'value' = sum(duration), max(duration) or "
            "union(duration)");
  // An option that does not exist.
  auto D = With("[signature.fires-when]\nthreshold = \"max-calls\"\n");
  ASSERT_FALSE(bool(D));
  EXPECT_EQ(llvm::toString(D.takeError()),
            "x.toml:9:13: threshold 'max-calls' is neither a number with a "
            "unit nor an option of this rule");
  // An option that exists but holds a string.
  std::string E = Minimal;
  E.insert(E.find("[signature"), "[options.max-calls]\ndefault = \"many\"\n");
  E.insert(E.find("[text]"), "[signature.fires-when]\nthreshold = "
                             "\"max-calls\"\n");
  EXPECT_EQ(errorOf(E), "x.toml:11:13: threshold names option 'max-calls', "
                        "whose default is not a number");
  // A valid share with relative-to.
  auto F = With("[signature.aggregate]\nvalue = \"union(duration)\"\n"
                "[signature.fires-when]\nthreshold = \"2%\"\n"
                "relative-to = \"window\"\n");
  ASSERT_TRUE(bool(F)) << llvm::toString(F.takeError());
  EXPECT_DOUBLE_EQ(std::get<double>(F->Sig.Aggregate.Threshold), 0.02);
  // per = "name" judges each name: only "any".
  auto G = With("[signature.aggregate]\nper = \"name\"\n"
                "[signature.fires-when]\nstatistic = \"median\"\n");
  ASSERT_FALSE(bool(G));
  EXPECT_NE(llvm::toString(G.takeError())
                .find("x.toml:11:13: with per = "
                      "\"name\""),
            std::string::npos);
}

TEST(RuleFile, SignatureNeedsDetectorOrSelect) {
  EXPECT_EQ(errorOf("code = \"X001\"\nname = \"a\"\nsummary = \"s\"\n"
                    "[signature]\n[text]\nhypothesis = \"h\"\n"),
            "x.toml:4:1: [signature] needs 'detector' (a C++ detector) or "
            "[signature.select] (a declarative signature)");
  EXPECT_EQ(errorOf("code = \"X001\"\nname = \"a\"\nsummary = \"s\"\n"),
            "x.toml:1:1: a rule needs a [signature] table with 'detector' "
            "or [signature.select]");
  std::string Both = Minimal;
  Both.insert(Both.find("[signature.select]"),
              "[signature]\ndetector = \"x\"\n");
  EXPECT_EQ(errorOf(Both), "x.toml:6:1: a signature has either 'detector' "
                           "or 'select', not both");
}

TEST(RuleFile, UnknownDetectorListsTheKnownOnes) {
  std::string Text = Minimal;
  size_t From = Text.find("[signature.select]");
  size_t To = Text.find("[text]");
  Text.replace(From, To - From,
               "[signature]\ndetector = \"no-such-detector\"\n");
  std::string Known;
  for (const DetectorEntry &D : detectors())
    Known += (Known.empty() ? "" : ", ") + D.Name.str();
  EXPECT_EQ(errorOf(Text),
            "x.toml:5:12: unknown detector 'no-such-detector'; known "
            "detectors: " +
                (Known.empty() ? std::string("(none)") : Known));
}

TEST(RuleFile, RegexGuards) {
  auto WithRegex = [](llvm::StringRef Re) {
    std::string Text = Minimal;
    Text.insert(Text.find("[text]"), "name-regex = '" + Re.str() + "'\n");
    return errorOf(Text);
  };
  EXPECT_EQ(WithRegex("(a+)\\1"),
            "x.toml:8:14: 'name-regex' uses a backreference (\\1) at "
            "character 5; backreferences are not supported (they make "
            "matching exponential)");
  EXPECT_EQ(WithRegex(std::string(257, 'a')),
            "x.toml:8:14: 'name-regex' is 257 characters long; the limit is "
            "256");
  // Counted repetitions are unrolled when LLVM's Regex compiles a pattern;
  // nested ones would make a few characters into tens of thousands of
  // states (seconds to compile, seconds per long name to match).
  EXPECT_EQ(WithRegex("(a{1,255}){1,255}$"),
            "x.toml:8:14: 'name-regex' '(a{1,255}){1,255}$' has 65025 atoms "
            "once its counted repetitions are written out; the limit is 256 "
            "(matching costs time per atom for every character of every "
            "name)");
  EXPECT_NE(WithRegex("((ab){2,}[x-z]{3}){40}").find("has 360 atoms"),
            std::string::npos);
  EXPECT_NE(WithRegex("([[:alpha:]]{16}|\\{{8}){16}").find("has 384 atoms"),
            std::string::npos);
  // Within the limit, and the classic catastrophic-backtracking shapes
  // (they have no counted repetition to unroll) load.
  for (const char *Ok : {"a{1,255}$", "(a+)+$", "^(a|aa)+$", "(x{2}y{3}){50}",
                         "[]{}]{3}", "^cuda\\{x"}) {
    std::string Text = Minimal;
    Text.insert(Text.find("[text]"),
                "name-regex = '" + std::string(Ok) + "'\n");
    auto Spec = Catalogue::parseRule(Text, "x.toml");
    EXPECT_TRUE(bool(Spec)) << Ok << ": " << llvm::toString(Spec.takeError());
  }
  EXPECT_NE(WithRegex("(unclosed")
                .find("x.toml:8:14: invalid 'name-regex' "
                      "'(unclosed'"),
            std::string::npos);
}

TEST(RuleFile, TextsAndExperimentAreRequired) {
  std::string NoHyp = Minimal;
  NoHyp.replace(NoHyp.find("hypothesis"), 10, "evidence = [\"e\"]\n#");
  EXPECT_NE(errorOf(NoHyp).find("a rule needs [text] hypothesis"),
            std::string::npos);
  std::string NoChange = Minimal;
  NoChange.replace(NoChange.find("change"), 6, "verify");
  EXPECT_EQ(errorOf(NoChange),
            "x.toml:10:1: a rule needs [experiment] change: the one variable "
            "to change to test the hypothesis");
}

TEST(RuleFile, OptionsAreValidated) {
  std::string Reserved = Minimal;
  Reserved.insert(Reserved.find("[signature"),
                  "[options.severity]\ndefault = 1\n");
  EXPECT_NE(errorOf(Reserved).find("x.toml:4:10: 'severity' is reserved"),
            std::string::npos);
  std::string NoDefault = Minimal;
  NoDefault.insert(NoDefault.find("[signature"),
                   "[options.limit]\ndescription = \"d\"\n");
  EXPECT_EQ(errorOf(NoDefault), "x.toml:4:1: option 'limit' needs a "
                                "'default'");
  std::string BadKey = Minimal;
  BadKey.insert(BadKey.find("[signature"),
                "[options.limit]\ndefault = 1\nunit = \"ms\"\n");
  EXPECT_EQ(errorOf(BadKey), "x.toml:6:1: unknown key 'unit' in "
                             "[options.limit]; allowed keys: default, "
                             "description, why");
  std::string BadConfidence = Minimal;
  BadConfidence.insert(BadConfidence.find("[signature"),
                       "[options.confidence]\ndefault = 1.5\n");
  EXPECT_EQ(errorOf(BadConfidence), "x.toml:5:11: option 'confidence' must "
                                    "be a number in (0, 1]");
}

RuleSpec catalogueRule(llvm::StringRef Code, llvm::StringRef Name,
                       llvm::StringRef Origin = "user.toml") {
  std::string Text = Minimal;
  Text.replace(Text.find("X001"), 4, Code.str());
  Text.replace(Text.find("nonzero-in-step"), 15, Name.str());
  auto Spec = Catalogue::parseRule(Text, Origin);
  EXPECT_TRUE(bool(Spec));
  if (!Spec) {
    llvm::consumeError(Spec.takeError());
    return RuleSpec();
  }
  return std::move(*Spec);
}

TEST(Catalogue, UserRulesAreXUnlessTheyReplaceABuiltin) {
  Catalogue C;
  EXPECT_EQ(llvm::toString(C.add(catalogueRule("S001", "user-sync"))),
            "user.toml: user rule S001: family 'S' (synchronization) is "
            "reserved for built-in rules; give a user rule an X code "
            "(X001..X999), or the code of a built-in rule to replace it");
  // As a built-in it is accepted; a user file may then replace it.
  ASSERT_FALSE(
      bool(C.add(catalogueRule("S001", "sync-x", "builtin:rules/S/a.toml"))));
  ASSERT_FALSE(bool(C.add(catalogueRule("S001", "sync-y"))));
  ASSERT_EQ(C.rules().size(), 1u);
  EXPECT_EQ(C.rules()[0].Name, "sync-y");
  EXPECT_EQ(C.find("S001")->Origin, "user.toml");
}

TEST(Catalogue, UserRulesNamingABuiltinDetectorKeepItsOptionsAndNeeds) {
  auto C = Catalogue::builtin();
  ASSERT_TRUE(bool(C)) << llvm::toString(C.takeError());
  // The user sets one option and says nothing of needs: the detector still
  // reads every option it was written for, and runs only where S001 could.
  auto Spec = Catalogue::parseRule(R"toml(code = "X001"
name = "long-waits-strict"
summary = "S001 with a lower floor"
[signature]
detector = "sync-long-host-wait"
[options.min-share-of-step]
default = 0.01
description = "smallest wait, as a share of the step"
why = "this project's steps are long"
[text]
hypothesis = "host waits"
[experiment]
change = "remove them"
)toml",
                                   "user.toml");
  ASSERT_TRUE(bool(Spec)) << llvm::toString(Spec.takeError());
  ASSERT_FALSE(bool(C->add(std::move(*Spec))));
  const RuleSpec *User = C->find("X001");
  const RuleSpec *Builtin = C->find("S001");
  ASSERT_TRUE(User && Builtin);
  RuleOptions Opts(*User);
  EXPECT_EQ(Opts.number("min-share-of-step"), 0.01);
  for (const OptionSpec &O : Builtin->Options)
    EXPECT_TRUE(User->option(O.Name)) << O.Name;
  for (Need N : Builtin->Needs)
    EXPECT_TRUE(llvm::is_contained(User->Needs, N));
}

TEST(Catalogue, NamesBelongToOneCodeAndRulesStaySorted) {
  Catalogue C;
  ASSERT_FALSE(bool(C.add(catalogueRule("X002", "second"))));
  ASSERT_FALSE(bool(C.add(catalogueRule("X001", "first"))));
  EXPECT_EQ(llvm::toString(C.add(catalogueRule("X003", "first"))),
            "user.toml: rule X003: name 'first' already belongs to X001 "
            "(user.toml)");
  ASSERT_EQ(C.rules().size(), 2u);
  EXPECT_EQ(C.rules()[0].Code, "X001");
  EXPECT_EQ(C.rules()[1].Code, "X002");
  EXPECT_EQ(C.find("second"), &C.rules()[1]);
  EXPECT_EQ(C.find("X001"), &C.rules()[0]);
  EXPECT_EQ(C.find("X009"), nullptr);
}

TEST(Catalogue, DirectoriesLoadEveryFileAndReportEveryError) {
  llvm::SmallString<128> Dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("tracelint-rules", Dir));
  auto Write = [&](llvm::StringRef Name, llvm::StringRef Text) {
    llvm::SmallString<128> P(Dir);
    llvm::sys::path::append(P, Name);
    std::error_code EC;
    llvm::raw_fd_ostream OS(P, EC);
    ASSERT_FALSE(EC);
    OS << Text;
  };
  Write("a.toml", Minimal);
  std::string Bad = Minimal;
  Bad.replace(Bad.find("X001"), 4, "X002");
  Bad += "oops = 1\n";
  Write("b.toml", Bad);
  Write("notes.txt", "not a rule");
  Catalogue C;
  llvm::Error E = C.addDirectory(Dir);
  ASSERT_TRUE(bool(E));
  std::string Msg = llvm::toString(std::move(E));
  EXPECT_NE(Msg.find("b.toml:12:1: unknown key 'oops'"), std::string::npos)
      << Msg;
  ASSERT_EQ(C.rules().size(), 1u); // a.toml still loaded
  // Two files with one code.
  Write("b.toml", Minimal);
  Catalogue D;
  std::string Dup = llvm::toString(D.addDirectory(Dir));
  EXPECT_NE(Dup.find("code X001 is already defined by"), std::string::npos)
      << Dup;
  std::string Missing =
      llvm::toString(D.addDirectory((Dir + "/no-such").str()));
  EXPECT_NE(Missing.find("cannot read the rule directory"), std::string::npos)
      << Missing;
  llvm::sys::fs::remove_directories(Dir);
}

// The built-in rules load, and each is complete: every text a finding and
// the rule's page show is written.
TEST(Catalogue, BuiltinRulesLoadAndAreComplete) {
  auto C = Catalogue::builtin();
  ASSERT_TRUE(bool(C)) << llvm::toString(C.takeError());
  EXPECT_EQ(C->rules().size(), builtinRuleFiles().size());
  for (const RuleSpec &R : C->rules()) {
    SCOPED_TRACE(R.Origin);
    EXPECT_NE(R.family(), 'X') << "X is the users' family";
    EXPECT_TRUE(llvm::StringRef(R.Origin).startswith("builtin:rules/"));
    EXPECT_FALSE(R.Hypothesis.empty());
    EXPECT_FALSE(R.Next.Change.empty());
    EXPECT_FALSE(R.Next.PredictTrace.empty());
    EXPECT_FALSE(R.Next.PredictMetric.empty());
    EXPECT_FALSE(R.Next.Verify.empty());
    EXPECT_FALSE(R.Next.RefutedIf.empty());
    EXPECT_FALSE(R.WhatItDetects.empty());
    EXPECT_FALSE(R.WhyItMatters.empty());
    for (const OptionSpec &O : R.Options) {
      EXPECT_FALSE(O.Description.empty()) << O.Name;
      EXPECT_FALSE(O.Why.empty()) << O.Name;
    }
  }
}

TEST(Detectors, TableIsSortedAndNamed) {
  llvm::ArrayRef<DetectorEntry> All = detectors();
  for (size_t I = 0; I < All.size(); ++I) {
    EXPECT_TRUE(isValidRuleName(All[I].Name)) << All[I].Name.str();
    EXPECT_TRUE(All[I].Run != nullptr);
    if (I) {
      EXPECT_LT(All[I - 1].Name, All[I].Name) << "keep Detectors.cpp sorted";
    }
    EXPECT_EQ(findDetector(All[I].Name), All[I].Run);
  }
  EXPECT_EQ(findDetector("no-such-detector"), nullptr);
}

TEST(RuleSpec, Names) {
  EXPECT_TRUE(isValidCode("S001"));
  EXPECT_TRUE(isValidCode("X999"));
  EXPECT_FALSE(isValidCode("A001"));
  EXPECT_FALSE(isValidCode("S01"));
  EXPECT_TRUE(isValidRuleName("sync-long-host-wait"));
  EXPECT_TRUE(isValidRuleName("m2-copies"));
  EXPECT_FALSE(isValidRuleName("2-copies"));
  EXPECT_EQ(parseSeverity("warning"), Severity::Warning);
  EXPECT_FALSE(parseSeverity("fatal"));
  EXPECT_EQ(parseNeed("memory"), Need::Memory);
  EXPECT_EQ(familyName('U'), "start-up and teardown");
}

} // namespace
