//===- ConfigTest.cpp - tracelint.toml: errors and precedence -------------===//
#include "rules/Config.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

using namespace tracelint;
using namespace tracelint::rules;

namespace {

/// A rule in code \p Code named \p Name with one numeric option "limit"
/// (a count, default 20) and one duration option "min-wait" (1 ms).
std::string ruleText(llvm::StringRef Code, llvm::StringRef Name) {
  return (R"(code = ")" + Code + R"("
name = ")" +
          Name + R"("
summary = "s"
[options.limit]
default = 20
[options.min-wait]
default = "1ms"
[options.strict]
default = false
[signature.select]
kind = "runtime"
[signature.fires-when]
threshold = "limit"
[text]
hypothesis = "h"
[experiment]
change = "c"
)")
      .str();
}

/// The same rule as a [[rule]] table of tracelint.toml: its sub-tables are
/// written [rule.options.NAME], [rule.signature.select]...
std::string inlineRule(llvm::StringRef Code, llvm::StringRef Name) {
  std::string Text = ruleText(Code, Name);
  std::string Out = "[[rule]]\n";
  llvm::StringRef Rest = Text;
  while (!Rest.empty()) {
    auto [Line, Tail] = Rest.split('\n');
    if (Line.startswith("["))
      Out += "[rule." + Line.drop_front().str() + "\n";
    else
      Out += Line.str() + "\n";
    Rest = Tail;
  }
  return Out;
}

RuleSpec makeRule(llvm::StringRef Code, llvm::StringRef Name) {
  auto Spec = Catalogue::parseRule(ruleText(Code, Name),
                                   ("builtin:" + Code + ".toml").str());
  EXPECT_TRUE(bool(Spec));
  if (!Spec) {
    llvm::consumeError(Spec.takeError());
    return RuleSpec();
  }
  return std::move(*Spec);
}

/// S001 sync-wait, S002 sync-item, M001 copy-extra, L001 launch-bound.
Catalogue makeCatalogue() {
  Catalogue C;
  for (auto [Code, Name] :
       {std::pair{"S001", "sync-wait"}, std::pair{"S002", "sync-item"},
        std::pair{"M001", "copy-extra"}, std::pair{"L001", "launch-bound"}}) {
    EXPECT_FALSE(bool(C.add(makeRule(Code, Name))));
  }
  return C;
}

Config parseOk(llvm::StringRef Text, const Catalogue &C,
               llvm::StringRef Path = "tracelint.toml") {
  auto Cfg = Config::parse(Text, Path, C);
  EXPECT_TRUE(bool(Cfg));
  if (!Cfg) {
    ADD_FAILURE() << llvm::toString(Cfg.takeError());
    return Config();
  }
  return std::move(*Cfg);
}

std::string parseError(llvm::StringRef Text, const Catalogue &C) {
  auto Cfg = Config::parse(Text, "tracelint.toml", C);
  if (Cfg) {
    ADD_FAILURE() << "expected an error for:\n" << Text.str();
    return "";
  }
  return llvm::toString(Cfg.takeError());
}

/// Codes of the enabled rules, in catalogue order.
std::string enabled(const Config &Cfg, const Catalogue &C,
                    llvm::StringRef Trace = "run/trace.json") {
  std::string Out;
  for (const RuleSpec &R : C.rules())
    if (Cfg.isEnabled(R, Trace))
      Out += (Out.empty() ? "" : " ") + R.Code;
  return Out;
}

TEST(Config, DefaultsEnableEverything) {
  Catalogue C = makeCatalogue();
  Config Cfg;
  EXPECT_EQ(enabled(Cfg, C), "L001 M001 S001 S002");
  EXPECT_EQ(enabled(parseOk("", C), C), "L001 M001 S001 S002");
}

TEST(Config, IgnoreBeatsSelectAtTheSameSpecificity) {
  Catalogue C = makeCatalogue();
  EXPECT_EQ(enabled(parseOk("select = [\"S\"]\nignore = [\"S\"]\n", C), C), "");
  EXPECT_EQ(
      enabled(parseOk("select = [\"S001\"]\nignore = [\"sync-wait\"]\n", C), C),
      "");
}

TEST(Config, MoreSpecificWins) {
  Catalogue C = makeCatalogue();
  // A code beats its family, either way round.
  EXPECT_EQ(enabled(parseOk("select = [\"S\"]\nignore = [\"S002\"]\n", C), C),
            "S001");
  EXPECT_EQ(enabled(parseOk("select = [\"S001\"]\nignore = [\"S\"]\n", C), C),
            "S001");
  // A family beats ALL.
  EXPECT_EQ(enabled(parseOk("ignore = [\"S\"]\n", C), C), "L001 M001");
  EXPECT_EQ(enabled(parseOk("select = [\"M\"]\nignore = [\"ALL\"]\n", C), C),
            "M001");
  // A name counts as a code.
  EXPECT_EQ(
      enabled(parseOk("select = [\"S\"]\nignore = [\"sync-item\"]\n", C), C),
      "S001");
}

TEST(Config, ExtendSelectAddsToSelect) {
  Catalogue C = makeCatalogue();
  EXPECT_EQ(
      enabled(parseOk("select = [\"S001\"]\nextend-select = [\"M\"]\n", C), C),
      "M001 S001");
  EXPECT_EQ(enabled(parseOk("select = []\n", C), C), "");
}

TEST(Config, CommandLineSelectStartsANewSelection) {
  Catalogue C = makeCatalogue();
  Config Cfg = parseOk("ignore = [\"S001\"]\n", C);
  Cfg.applyCommandLine({"S"}, {});
  EXPECT_EQ(enabled(Cfg, C), "S001 S002");
  Config Cfg2 = parseOk("select = [\"M\"]\n", C);
  Cfg2.applyCommandLine({"ALL"}, {"copy-extra", "L"});
  EXPECT_EQ(enabled(Cfg2, C), "S001 S002");
}

TEST(Config, CommandLineIgnoreAloneRemovesFromTheFileSelection) {
  Catalogue C = makeCatalogue();
  Config Cfg = parseOk("select = [\"S\", \"M\"]\n", C);
  Cfg.applyCommandLine({}, {"S002"});
  EXPECT_EQ(enabled(Cfg, C), "M001 S001");
  Config Cfg2 = parseOk("select = [\"S\"]\n", C);
  Cfg2.applyCommandLine({}, {"ALL"});
  EXPECT_EQ(enabled(Cfg2, C), "");
}

TEST(Config, PerTraceIgnores) {
  Catalogue C = makeCatalogue();
  Config Cfg = parseOk(R"(
[[per-trace-ignores]]
glob = "*-warmup.json"
ignore = ["U", "S001"]
[[per-trace-ignores]]
glob = "cpu-only/**"
ignore = ["ALL"]
)",
                       C, "/proj/tracelint.toml");
  EXPECT_EQ(enabled(Cfg, C, "runs/a-warmup.json"), "L001 M001 S002");
  EXPECT_EQ(enabled(Cfg, C, "runs/a.json"), "L001 M001 S001 S002");
  // A glob with '/' matches the path as given or relative to the config.
  EXPECT_EQ(enabled(Cfg, C, "cpu-only/x/t.json"), "");
  EXPECT_EQ(enabled(Cfg, C, "/proj/cpu-only/t.json"), "");
  EXPECT_EQ(enabled(Cfg, C, "/other/cpu-only-not/t.json"),
            "L001 M001 S001 S002");
}

TEST(Config, RuleSettings) {
  Catalogue C = makeCatalogue();
  Config Cfg = parseOk(R"(
[rules.S001]
severity = "error"
limit = 5
min-wait = "250us"
[rules.copy-extra]
strict = true
)",
                       C);
  const RuleSpec &S1 = *C.find("S001");
  EXPECT_EQ(Cfg.severityFor(S1), Severity::Error);
  RuleOptions O = Cfg.optionsFor(S1);
  EXPECT_EQ(O.number("limit"), 5);
  EXPECT_EQ(O.number("min-wait"), 250000);
  EXPECT_FALSE(O.flag("strict"));
  EXPECT_TRUE(Cfg.optionsFor(*C.find("M001")).flag("strict"));
  EXPECT_EQ(Cfg.severityFor(*C.find("M001")), Severity::Warning);
  EXPECT_EQ(Cfg.optionsFor(*C.find("S002")).number("limit"), 20);
}

TEST(Config, ErrorsNameFileLineAndColumn) {
  Catalogue C = makeCatalogue();
  EXPECT_EQ(parseError("select = [\"S\"]\nselct = [\"M\"]\n", C),
            "tracelint.toml:2:1: unknown key 'selct' in tracelint.toml; "
            "allowed keys: select, ignore, extend-select, rules, rule, "
            "rule-dirs, per-trace-ignores, names, devices");
  EXPECT_EQ(parseError("select = [\"S\", \"S999\"]\n", C),
            "tracelint.toml:1:16: in 'select': unknown rule code 'S999' "
            "(`tracelint rules` lists the catalogue)");
  EXPECT_EQ(parseError("ignore = [\"no-such-rule\"]\n", C),
            "tracelint.toml:1:11: in 'ignore': unknown rule name "
            "'no-such-rule' (`tracelint rules` lists the catalogue)");
  EXPECT_EQ(parseError("ignore = [\"Q\"]\n", C),
            "tracelint.toml:1:11: in 'ignore': invalid selector 'Q': "
            "expected \"ALL\", a family letter (one of SMLDKCNUTX), a code "
            "such as \"S001\" or a rule name");
  EXPECT_EQ(parseError("select = \"S\"\n", C),
            "tracelint.toml:1:10: 'select' must be an array of selectors, "
            "not a string");
  EXPECT_EQ(parseError("[rules.S009]\nseverity = \"error\"\n", C),
            "tracelint.toml:1:8: in [rules]: unknown rule code 'S009' "
            "(`tracelint rules` lists the catalogue)");
  EXPECT_EQ(parseError("[rules.S001]\nseverity = \"fatal\"\n", C),
            "tracelint.toml:2:12: 'severity' must be one of info, warning, "
            "error, not 'fatal'");
  EXPECT_EQ(parseError("[rules.S001]\nlimt = 3\n", C),
            "tracelint.toml:2:1: unknown key 'limt' in [rules.S001]; S001 "
            "(sync-wait) takes: severity, limit, min-wait, strict");
  EXPECT_EQ(parseError("[rules.S001]\nlimit = \"many\"\n", C),
            "tracelint.toml:2:9: option 'limit' of S001 must be a number, "
            "not 'many'");
  EXPECT_EQ(parseError("[rules.S001]\nmin-wait = \"5%\"\n", C),
            "tracelint.toml:2:12: option 'min-wait' of S001 must be a "
            "duration (ns, or \"250us\", \"2ms\", \"1.5s\"), not '5%'");
  EXPECT_EQ(parseError("[rules.S001]\nstrict = 1\n", C),
            "tracelint.toml:2:10: option 'strict' of S001 must be a boolean, "
            "not an integer");
  EXPECT_EQ(parseError("[rules.S001]\nlimit = 1\n[rules.sync-wait]\n"
                       "limit = 2\n",
                       C),
            "tracelint.toml:3:8: settings for S001 are given twice (as a "
            "code and as a name)");
  EXPECT_EQ(parseError("[[per-trace-ignores]]\nglob = \"*.json\"\n", C),
            "tracelint.toml:1:1: [[per-trace-ignores]] needs 'glob' and "
            "'ignore'");
  std::string Syntax = parseError("select = [\"S\"\n", C);
  EXPECT_TRUE(llvm::StringRef(Syntax).startswith("tracelint.toml:")) << Syntax;
}

TEST(Config, DevicePeaks) {
  Catalogue C = makeCatalogue();
  Config Cfg = parseOk(R"(
[devices."NVIDIA RTX 6000 Ada Generation"]
memory-tbps = 0.96
bf16-tflops = 364.2
fp32-tflops = 91
vector-fp32-tflops = 91.1
source = "my own measurement"

[devices."Foo GPU"]
memory-tbps = 1
)",
                       C);
  ASSERT_EQ(Cfg.DevicePeaks.size(), 2u);
  const detect::DevicePeaks *Ada = nullptr;
  for (const detect::DevicePeaks &P : Cfg.DevicePeaks)
    if (P.Name == "NVIDIA RTX 6000 Ada Generation")
      Ada = &P;
  ASSERT_TRUE(Ada);
  EXPECT_DOUBLE_EQ(Ada->MemoryTBps, 0.96);
  EXPECT_EQ(Ada->MatrixTflops,
            (std::map<std::string, double>{{"bf16", 364.2}, {"fp32", 91}}));
  EXPECT_EQ(Ada->VectorTflops, (std::map<std::string, double>{{"fp32", 91.1}}));
  EXPECT_TRUE(Ada->FromConfig);
  EXPECT_EQ(Ada->Source, "my own measurement (tracelint.toml, "
                         "[devices.\"NVIDIA RTX 6000 Ada Generation\"])");
  EXPECT_TRUE(parseOk("", C).DevicePeaks.empty());
}

TEST(Config, DevicePeaksErrors) {
  Catalogue C = makeCatalogue();
  EXPECT_EQ(parseError("[devices.\"Foo\"]\nmemory_tbps = 1\n", C),
            "tracelint.toml:2:1: unknown key 'memory_tbps' in "
            "[devices.\"Foo\"] (did you mean 'memory-tbps'?); allowed keys: "
            "memory-tbps, fp64-tflops, fp32-tflops, tf32-tflops, "
            "bf16-tflops, fp16-tflops, fp8-tflops, int8-tflops, "
            "vector-fp64-tflops, vector-fp32-tflops, vector-tf32-tflops, "
            "vector-bf16-tflops, vector-fp16-tflops, vector-fp8-tflops, "
            "vector-int8-tflops, source");
  EXPECT_EQ(parseError("[devices.\"Foo\"]\nfp4-tflops = 1\n", C).substr(0, 56),
            "tracelint.toml:2:1: unknown key 'fp4-tflops' in [devices");
  EXPECT_EQ(parseError("[devices.\"Foo\"]\nbf16-tflops = \"fast\"\n", C),
            "tracelint.toml:2:15: 'bf16-tflops' in [devices.\"Foo\"] must be "
            "a number (dense TFLOP/s), not a string");
  EXPECT_EQ(parseError("[devices.\"Foo\"]\nmemory-tbps = -2\n", C),
            "tracelint.toml:2:15: 'memory-tbps' in [devices.\"Foo\"] must be "
            "a number above 0");
  EXPECT_EQ(parseError("[devices.\"Foo\"]\nmemory-tbps = nan\n", C),
            "tracelint.toml:2:15: 'memory-tbps' in [devices.\"Foo\"] must be "
            "a number above 0");
  EXPECT_EQ(parseError("[devices.\"Foo\"]\nsource = 3\n", C),
            "tracelint.toml:2:10: 'source' must be a string, not an "
            "integer");
  EXPECT_EQ(parseError("[devices.\"Foo\"]\nsource = \"x\"\n", C),
            "tracelint.toml:1:1: [devices.\"Foo\"] gives no figure: set "
            "memory-tbps or a CLASS-tflops key (docs/device-peaks.md)");
  EXPECT_EQ(parseError("devices = 3\n", C),
            "tracelint.toml:1:11: 'devices' must be a table of "
            "[devices.\"NAME\"] tables, not an integer");
  EXPECT_EQ(parseError("[devices]\nFoo = 3\n", C),
            "tracelint.toml:2:7: [devices.\"Foo\"] must be a table of "
            "figures, not an integer");
  EXPECT_EQ(parseError("[devices.\"Foo\"]\nmemory-tbps = 1\n"
                       "[devices.\"foo\"]\nmemory-tbps = 2\n",
                       C),
            "tracelint.toml:3:10: [devices.\"foo\"] repeats "
            "[devices.\"Foo\"] (device names are compared without regard to "
            "case)");
  EXPECT_EQ(parseError("[devices.\"\"]\nmemory-tbps = 1\n", C),
            "tracelint.toml:1:10: a [devices.\"NAME\"] table needs a device "
            "name");
}

TEST(Config, InlineRulesCanBeSelectedAndConfigured) {
  Catalogue C = makeCatalogue();
  std::string Text = "select = [\"X001\"]\n[rules.X001]\nlimit = 3\n" +
                     inlineRule("X001", "my-rule");
  Config Cfg = parseOk(Text, C);
  ASSERT_EQ(Cfg.InlineRules.size(), 1u);
  Catalogue All = C;
  ASSERT_FALSE(bool(Cfg.addRulesTo(All)));
  EXPECT_EQ(enabled(Cfg, All), "X001");
  EXPECT_EQ(Cfg.optionsFor(*All.find("my-rule")).number("limit"), 3);
  // A user rule in a built-in family must replace a built-in code.
  std::string Bad = inlineRule("S005", "my-sync");
  EXPECT_EQ(parseError(Bad, C),
            "tracelint.toml:1:1: user rule S005: family 'S' "
            "(synchronization) is reserved for built-in rules; give a user "
            "rule an X code (X001..X999), or the code of a built-in rule to "
            "replace it");
  // An inline rule's own errors point into the configuration file.
  std::string BadRule = inlineRule("X001", "my-rule");
  BadRule.insert(BadRule.find("[rule.options"), "bogus = 1\n");
  EXPECT_EQ(parseError(BadRule, C),
            "tracelint.toml:5:1: unknown key 'bogus' in a rule; allowed "
            "keys: code, name, summary, status, severity, needs, options, "
            "signature, text, experiment, doc, producer, producers");
}

TEST(Config, CommandLineSelectorsAreChecked) {
  Catalogue C = makeCatalogue();
  EXPECT_FALSE(bool(Config::checkSelectors({"S", "M001", "ALL", "sync-wait"}, C,
                                           "--select")));
  EXPECT_EQ(
      llvm::toString(Config::checkSelectors({"S", "S777"}, C, "--select")),
      "--select: unknown rule code 'S777' (`tracelint rules` lists the "
      "catalogue)");
}

TEST(Config, FindUpward) {
  llvm::SmallString<128> Root;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("tracelint-cfg", Root));
  llvm::SmallString<128> Deep(Root);
  llvm::sys::path::append(Deep, "a", "b");
  ASSERT_FALSE(llvm::sys::fs::create_directories(Deep));
  llvm::SmallString<128> File(Root);
  llvm::sys::path::append(File, "a", "tracelint.toml");
  {
    std::error_code EC;
    llvm::raw_fd_ostream OS(File, EC);
    ASSERT_FALSE(EC);
  }
  std::optional<std::string> Found = Config::findUpward(Deep);
  ASSERT_TRUE(Found.has_value());
  EXPECT_TRUE(llvm::sys::fs::equivalent(*Found, File));
  llvm::sys::fs::remove_directories(Root);
}

} // namespace
