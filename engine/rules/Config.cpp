//===- rules/Config.cpp - tracelint.toml ----------------------------------===//
//
// Reference: docs/configuration.md. Selection follows ruff: within one layer
// (the file, then the command line), selectors apply from the least specific
// ("ALL") through families to codes and names, and at each level an ignore
// overrides a select; a layer with `select` starts a new selection, a layer
// with only ignores removes rules from the previous one. Per-trace ignores
// apply last.
//
//===----------------------------------------------------------------------===//
#include "rules/Config.h"
#include "rules/TomlSupport.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/GlobPattern.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <cmath>

using namespace tracelint;
using namespace tracelint::rules;
using namespace tracelint::rules::toml_support;

namespace {

llvm::Error makeError(const llvm::Twine &Msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Msg.str());
}

/// Why \p S is not a selector of \p Known, or "" when it is one.
std::string selectorProblem(llvm::StringRef S, const Catalogue &Known) {
  switch (classifySelector(S)) {
  case SelectorKind::All:
  case SelectorKind::Family:
    return "";
  case SelectorKind::Code:
    if (Known.find(S))
      return "";
    return llvm::formatv("unknown rule code '{0}' (`tracelint rules` lists "
                         "the catalogue)",
                         S)
        .str();
  case SelectorKind::Name:
    if (Known.find(S))
      return "";
    return llvm::formatv("unknown rule name '{0}' (`tracelint rules` lists "
                         "the catalogue)",
                         S)
        .str();
  case SelectorKind::Invalid:
    break;
  }
  return llvm::formatv("invalid selector '{0}': expected \"ALL\", a family "
                       "letter (one of SMLDKCNUTX), a code such as \"S001\" "
                       "or a rule name",
                       S)
      .str();
}

/// 0 for "ALL", 1 for a family, 2 for a code or name; -1 when \p Selector
/// does not match \p Spec.
int matchSpecificity(llvm::StringRef Selector, const RuleSpec &Spec) {
  if (Selector == "ALL")
    return 0;
  if (Selector.size() == 1)
    return Selector[0] == Spec.family() ? 1 : -1;
  return Selector == Spec.Code || Selector == Spec.Name ? 2 : -1;
}

/// The decision of one layer for \p Spec, or nullopt when none of its
/// selectors matches. More specific selectors win; at equal specificity an
/// ignore wins over a select.
std::optional<bool> decide(llvm::ArrayRef<std::string> Select,
                           llvm::ArrayRef<std::string> ExtendSelect,
                           llvm::ArrayRef<std::string> Ignore,
                           const RuleSpec &Spec) {
  int Best = -1;
  bool Enabled = false;
  auto Consider = [&](llvm::ArrayRef<std::string> List, bool Value) {
    for (const std::string &S : List) {
      int Level = matchSpecificity(S, Spec);
      if (Level < 0)
        continue;
      // Ignores are considered after selects, so at equal level they win.
      if (Level > Best || (Level == Best && !Value)) {
        Best = Level;
        Enabled = Value;
      }
    }
  };
  Consider(Select, true);
  Consider(ExtendSelect, true);
  Consider(Ignore, false);
  if (Best < 0)
    return std::nullopt;
  return Enabled;
}

class ConfigReader {
public:
  ConfigReader(llvm::StringRef Path, const Catalogue &Known)
      : Path(Path), Known(Known) {}
  llvm::Expected<Config> read(llvm::StringRef Text);

private:
  llvm::Error fail(const toml::node &N, const llvm::Twine &Msg) {
    toml::source_region R = N.source();
    if (R.begin.line == 0)
      R.begin.line = R.begin.column = 1;
    return errorAt(Path, R, Msg);
  }
  llvm::Error readSelectors(const toml::table &T, llvm::StringRef Key,
                            std::vector<std::string> &Out);
  llvm::Error readRuleSettings(const toml::table &T);
  llvm::Error readPerTraceIgnores(const toml::node &N);
  llvm::Error readNames(const toml::node &N);
  llvm::Error readDevices(const toml::node &N);
  llvm::Error readDevice(llvm::StringRef Name, const toml::table &T);
  llvm::Error readNamePatterns(const toml::node &N, model::NameClass C,
                               bool Exclude);
  llvm::Error readOptionValue(const toml::node &N, const OptionSpec &O,
                              const RuleSpec &Spec, OptionValue &Out);

  llvm::StringRef Path;
  const Catalogue &Known;
  Catalogue All; ///< Known plus this file's rules: what selectors may name
  Config Cfg;
};

} // namespace

llvm::Error ConfigReader::readSelectors(const toml::table &T,
                                        llvm::StringRef Key,
                                        std::vector<std::string> &Out) {
  const toml::node *N = T.get(std::string_view(Key.data(), Key.size()));
  if (!N)
    return llvm::Error::success();
  const toml::array *A = N->as_array();
  if (!A)
    return fail(*N, llvm::formatv("'{0}' must be an array of selectors, not "
                                  "{1}",
                                  Key, typeName(*N)));
  Out.clear();
  for (const toml::node &E : *A) {
    const auto *S = E.as_string();
    if (!S)
      return fail(E, llvm::formatv("'{0}' must hold strings (codes, family "
                                   "letters or rule names), not {1}",
                                   Key, typeName(E)));
    std::string Sel(S->get());
    std::string Problem = selectorProblem(Sel, All);
    if (!Problem.empty())
      return fail(E, llvm::formatv("in '{0}': {1}", Key, Problem));
    Out.push_back(Sel);
  }
  return llvm::Error::success();
}

llvm::Error ConfigReader::readOptionValue(const toml::node &N,
                                          const OptionSpec &O,
                                          const RuleSpec &Spec,
                                          OptionValue &Out) {
  auto Mismatch = [&](llvm::StringRef Want) {
    return fail(N, llvm::formatv("option '{0}' of {1} must be {2}, not {3}",
                                 O.Name, Spec.Code, Want, typeName(N)));
  };
  if (std::holds_alternative<bool>(O.Default)) {
    if (!N.is_boolean())
      return Mismatch("a boolean");
    Out = N.as_boolean()->get();
    return llvm::Error::success();
  }
  if (std::holds_alternative<std::string>(O.Default)) {
    if (!N.is_string())
      return Mismatch("a string");
    Out = std::string(N.as_string()->get());
    return llvm::Error::success();
  }
  llvm::StringRef Want;
  switch (O.Unit) {
  case NumberUnit::Plain:
    Want = "a number";
    break;
  case NumberUnit::Duration:
    Want = "a duration (ns, or \"250us\", \"2ms\", \"1.5s\")";
    break;
  case NumberUnit::Share:
    Want = "a share (\"5%\" or a fraction such as 0.05)";
    break;
  case NumberUnit::Bytes:
    Want = "a size (bytes, or \"512kB\", \"1MB\")";
    break;
  }
  double V;
  if (const auto *I = N.as_integer()) {
    V = double(I->get());
  } else if (const auto *F = N.as_floating_point()) {
    V = F->get();
  } else if (const auto *S = N.as_string()) {
    std::optional<Number> Num = parseNumberWithUnit(std::string(S->get()));
    if (!Num || (O.Unit != NumberUnit::Plain && Num->Unit != O.Unit))
      return fail(N, llvm::formatv("option '{0}' of {1} must be {2}, not "
                                   "'{3}'",
                                   O.Name, Spec.Code, Want, S->get()));
    V = Num->Value;
  } else {
    return Mismatch(Want);
  }
  if (!std::isfinite(V) || V < 0)
    return fail(N, llvm::formatv("option '{0}' of {1} must be at least 0",
                                 O.Name, Spec.Code));
  if (O.Name == "confidence" && (V <= 0 || V > 1))
    return fail(N, llvm::formatv("option 'confidence' of {0} must be in "
                                 "(0, 1]",
                                 Spec.Code));
  Out = V;
  return llvm::Error::success();
}

llvm::Error ConfigReader::readRuleSettings(const toml::table &T) {
  for (auto &&[Key, Value] : T) {
    std::string Sel(Key.str());
    const RuleSpec *Spec = All.find(Sel);
    if (!Spec) {
      std::string Problem = selectorProblem(Sel, All);
      if (Problem.empty())
        Problem = llvm::formatv("'{0}' is not a rule: [rules.X] takes a code "
                                "or a rule name",
                                Sel)
                      .str();
      return errorAt(Path, Key.source(), "in [rules]: " + Problem);
    }
    const toml::table *Settings = Value.as_table();
    if (!Settings)
      return fail(Value, llvm::formatv("[rules.{0}] must be a table, not {1}",
                                       Sel, typeName(Value)));
    if (Cfg.PerRule.count(Spec->Code))
      return errorAt(Path, Key.source(),
                     llvm::formatv("settings for {0} are given twice (as a "
                                   "code and as a name)",
                                   Spec->Code));
    RuleSettings &RS = Cfg.PerRule[Spec->Code];
    for (auto &&[OptKey, OptValue] : *Settings) {
      llvm::StringRef K(OptKey.str().data(), OptKey.str().size());
      if (K == "severity") {
        auto S = getString(OptValue, "severity", Path);
        if (!S)
          return S.takeError();
        std::optional<Severity> Sev = parseSeverity(*S);
        if (!Sev)
          return fail(OptValue, llvm::formatv("'severity' must be one of "
                                              "info, warning, error, not "
                                              "'{0}'",
                                              *S));
        RS.SeverityOverride = Sev;
        continue;
      }
      const OptionSpec *O = Spec->option(K);
      if (!O) {
        std::string Allowed = "severity";
        for (const OptionSpec &Opt : Spec->Options)
          Allowed += ", " + Opt.Name;
        return errorAt(Path, OptKey.source(),
                       llvm::formatv("unknown key '{0}' in [rules.{1}]; {2} "
                                     "({3}) takes: {4}",
                                     K, Sel, Spec->Code, Spec->Name, Allowed));
      }
      OptionValue V;
      if (llvm::Error E = readOptionValue(OptValue, *O, *Spec, V))
        return E;
      RS.Options[O->Name] = V;
    }
  }
  return llvm::Error::success();
}

llvm::Error ConfigReader::readPerTraceIgnores(const toml::node &N) {
  const toml::array *A = N.as_array();
  if (!A || !A->is_array_of_tables())
    return fail(N, "'per-trace-ignores' must be an array of tables "
                   "([[per-trace-ignores]] with 'glob' and 'ignore')");
  for (const toml::node &E : *A) {
    const toml::table &T = *E.as_table();
    static const llvm::StringRef Keys[] = {"glob", "ignore"};
    if (llvm::Error Err = checkKeys(T, Keys, "[[per-trace-ignores]]", Path))
      return Err;
    const toml::node *G = T.get("glob");
    const toml::node *I = T.get("ignore");
    if (!G || !I)
      return fail(T, "[[per-trace-ignores]] needs 'glob' and 'ignore'");
    auto Glob = getString(*G, "glob", Path);
    if (!Glob)
      return Glob.takeError();
    if (auto P = llvm::GlobPattern::create(*Glob); !P)
      return fail(*G, llvm::formatv("invalid glob '{0}': {1}", *Glob,
                                    llvm::toString(P.takeError())));
    TraceIgnore TI;
    TI.Glob = *Glob;
    if (llvm::Error Err = readSelectors(T, "ignore", TI.Selectors))
      return Err;
    Cfg.PerTraceIgnores.push_back(std::move(TI));
  }
  return llvm::Error::success();
}

llvm::Error ConfigReader::readNamePatterns(const toml::node &N,
                                           model::NameClass C, bool Exclude) {
  auto Patterns = getStringList(N, model::nameClassInfo(C).Key, Path);
  if (!Patterns)
    return Patterns.takeError();
  for (std::string &P : *Patterns) {
    // Checked here, so that a bad glob is named with its place.
    model::NameClassChanges One;
    (Exclude ? One.Exclude : One.Include)[unsigned(C)].push_back(P);
    if (auto Check = model::NameClassifier::create(One); !Check)
      return fail(N, llvm::toString(Check.takeError()));
    (Exclude ? Cfg.NameChanges.Exclude : Cfg.NameChanges.Include)[unsigned(C)]
        .push_back(std::move(P));
  }
  return llvm::Error::success();
}

llvm::Error ConfigReader::readNames(const toml::node &N) {
  const toml::table *T = N.as_table();
  if (!T)
    return fail(N, llvm::formatv("'names' must be a table of name classes "
                                 "([names]), not {0}",
                                 typeName(N)));
  for (auto &&[K, V] : *T) {
    llvm::StringRef Key(K.str().data(), K.str().size());
    std::optional<model::NameClass> C = model::parseNameClass(Key);
    if (!C) {
      std::vector<std::string> Keys;
      for (const model::NameClassInfo &I : model::nameClassCatalogue())
        Keys.push_back(I.Key.str());
      return fail(V, llvm::formatv("unknown name class '{0}' in [names]; "
                                   "the classes are {1} (tracelint names "
                                   "lists them with their patterns)",
                                   Key, llvm::join(Keys, ", ")));
    }
    // data-loader = ["..."] adds patterns; [names.data-loader] takes `add`
    // and `exclude` lists.
    if (const toml::table *Sub = V.as_table()) {
      static const llvm::StringRef SubKeys[] = {"add", "exclude"};
      if (llvm::Error E =
              checkKeys(*Sub, SubKeys, ("[names." + Key + "]").str(), Path))
        return E;
      if (const toml::node *A = Sub->get("add"))
        if (llvm::Error E = readNamePatterns(*A, *C, /*Exclude=*/false))
          return E;
      if (const toml::node *X = Sub->get("exclude"))
        if (llvm::Error E = readNamePatterns(*X, *C, /*Exclude=*/true))
          return E;
      continue;
    }
    if (llvm::Error E = readNamePatterns(V, *C, /*Exclude=*/false))
      return E;
  }
  if (auto Names = model::NameClassifier::create(Cfg.NameChanges))
    Cfg.Names = std::move(*Names);
  else
    return fail(N, llvm::toString(Names.takeError()));
  return llvm::Error::success();
}

/// The keys of a [devices."NAME"] table: "memory-tbps", "source", and per
/// dtype class "CLASS-tflops" (matrix units) and "vector-CLASS-tflops".
static std::vector<std::string> deviceKeys() {
  std::vector<std::string> Keys = {"memory-tbps"};
  for (llvm::StringRef C : detect::dtypeClasses())
    Keys.push_back((C + "-tflops").str());
  for (llvm::StringRef C : detect::dtypeClasses())
    Keys.push_back(("vector-" + C + "-tflops").str());
  Keys.push_back("source");
  return Keys;
}

llvm::Error ConfigReader::readDevice(llvm::StringRef Name,
                                     const toml::table &T) {
  const std::string Table = "[devices.\"" + Name.str() + "\"]";
  detect::DevicePeaks P;
  P.Name = Name.str();
  P.FromConfig = true;
  P.Source = llvm::formatv("{0}, {1}", Path, Table).str();
  bool AnyFigure = false;
  for (auto &&[K, V] : T) {
    llvm::StringRef Key(K.str().data(), K.str().size());
    if (Key == "source") {
      auto S = getString(V, "source", Path);
      if (!S)
        return S.takeError();
      P.Source = llvm::formatv("{0} ({1}, {2})", *S, Path, Table).str();
      continue;
    }
    // memory-tbps, CLASS-tflops (matrix units) or vector-CLASS-tflops.
    const bool Memory = Key == "memory-tbps";
    std::map<std::string, double> *Into = nullptr;
    llvm::StringRef Class = Key;
    if (!Memory && Class.consume_back("-tflops")) {
      const bool Vector = Class.consume_front("vector-");
      if (llvm::is_contained(detect::dtypeClasses(), Class))
        Into = Vector ? &P.VectorTflops : &P.MatrixTflops;
    }
    if (!Memory && !Into) {
      std::vector<std::string> Keys = deviceKeys();
      // tracelint.toml's keys are kebab-case; say so to a snake_case one.
      std::string Dashed = Key.str();
      std::replace(Dashed.begin(), Dashed.end(), '_', '-');
      std::string Hint;
      if (Dashed != Key && llvm::is_contained(Keys, Dashed))
        Hint = " (did you mean '" + Dashed + "'?)";
      return errorAt(Path, K.source(),
                     llvm::formatv("unknown key '{0}' in {1}{2}; allowed "
                                   "keys: {3}",
                                   Key, Table, Hint, llvm::join(Keys, ", ")));
    }
    double X;
    if (const auto *I = V.as_integer())
      X = double(I->get());
    else if (const auto *F = V.as_floating_point())
      X = F->get();
    else
      return fail(V, llvm::formatv("'{0}' in {1} must be a number ({2}), not "
                                   "{3}",
                                   Key, Table,
                                   Memory ? "decimal TB/s" : "dense TFLOP/s",
                                   typeName(V)));
    if (!std::isfinite(X) || X <= 0)
      return fail(V, llvm::formatv("'{0}' in {1} must be a number above 0", Key,
                                   Table));
    AnyFigure = true;
    if (Memory)
      P.MemoryTBps = X;
    else
      (*Into)[Class.str()] = X;
  }
  if (!AnyFigure)
    return fail(T, llvm::formatv("{0} gives no figure: set memory-tbps or a "
                                 "CLASS-tflops key (docs/device-peaks.md)",
                                 Table));
  Cfg.DevicePeaks.push_back(std::move(P));
  return llvm::Error::success();
}

llvm::Error ConfigReader::readDevices(const toml::node &N) {
  const toml::table *T = N.as_table();
  if (!T)
    return fail(N, llvm::formatv("'devices' must be a table of "
                                 "[devices.\"NAME\"] tables, not {0}",
                                 typeName(N)));
  for (auto &&[K, V] : *T) {
    llvm::StringRef Name(K.str().data(), K.str().size());
    if (Name.trim().empty())
      return errorAt(Path, K.source(),
                     "a [devices.\"NAME\"] table needs a device name");
    // Names match devices without regard to case, so two that differ
    // only in case would be one part given twice.
    for (const detect::DevicePeaks &Seen : Cfg.DevicePeaks)
      if (Seen.Name.size() == Name.size() && Name.equals_insensitive(Seen.Name))
        return errorAt(Path, K.source(),
                       llvm::formatv("[devices.\"{0}\"] repeats "
                                     "[devices.\"{1}\"] (device names are "
                                     "compared without regard to case)",
                                     Name, Seen.Name));
    const toml::table *Sub = V.as_table();
    if (!Sub)
      return fail(V, llvm::formatv("[devices.\"{0}\"] must be a table of "
                                   "figures, not {1}",
                                   Name, typeName(V)));
    if (llvm::Error E = readDevice(Name, *Sub))
      return E;
  }
  return llvm::Error::success();
}

llvm::Expected<Config> ConfigReader::read(llvm::StringRef Text) {
  auto Parsed = toml_support::parse(Text, Path);
  if (!Parsed)
    return Parsed.takeError();
  const toml::table &Top = *Parsed;
  static const llvm::StringRef TopKeys[] = {
      "select", "ignore",    "extend-select",     "rules",
      "rule",   "rule-dirs", "per-trace-ignores", "names",
      "devices"};
  if (llvm::Error E = checkKeys(Top, TopKeys, "tracelint.toml", Path))
    return E;
  Cfg.Path = Path.str();
  All = Known;

  llvm::SmallString<256> Dir(Path);
  llvm::sys::path::remove_filename(Dir);
  if (const toml::node *N = Top.get("rule-dirs")) {
    const toml::array *A = N->as_array();
    if (!A)
      return fail(*N, llvm::formatv("'rule-dirs' must be an array of "
                                    "directories, not {0}",
                                    typeName(*N)));
    for (const toml::node &E : *A) {
      auto D = getString(E, "rule-dirs", Path);
      if (!D)
        return D.takeError();
      llvm::SmallString<256> Full(*D);
      if (llvm::sys::path::is_relative(Full)) {
        Full = Dir;
        llvm::sys::path::append(Full, *D);
      }
      if (llvm::Error Err = All.addDirectory(Full))
        return errorAt(Path, E.source(),
                       "in 'rule-dirs': " + llvm::toString(std::move(Err)));
      Cfg.RuleDirs.push_back(std::string(Full));
    }
  }
  if (const toml::node *N = Top.get("rule")) {
    const toml::array *A = N->as_array();
    if (!A || !A->is_array_of_tables())
      return fail(*N, "'rule' must be an array of tables ([[rule]]), each a "
                      "rule in the rule-file format");
    for (const toml::node &E : *A) {
      auto Spec = parseRuleTable(*E.as_table(), Path);
      if (!Spec)
        return Spec.takeError();
      if (llvm::Error Err = All.add(*Spec)) {
        // add() names the origin (this file) itself; give the place instead.
        std::string Msg = llvm::toString(std::move(Err));
        llvm::StringRef M = Msg;
        M.consume_front((Path + ": ").str());
        return errorAt(Path, E.source(), M);
      }
      Cfg.InlineRules.push_back(std::move(*Spec));
    }
  }
  if (Top.contains("select")) {
    if (llvm::Error E = readSelectors(Top, "select", Cfg.Select))
      return E;
  }
  if (llvm::Error E = readSelectors(Top, "ignore", Cfg.Ignore))
    return E;
  if (llvm::Error E = readSelectors(Top, "extend-select", Cfg.ExtendSelect))
    return E;
  if (const toml::node *N = Top.get("rules")) {
    const toml::table *T = N->as_table();
    if (!T)
      return fail(*N, llvm::formatv("'rules' must be a table of "
                                    "[rules.CODE] tables, not {0}",
                                    typeName(*N)));
    if (llvm::Error E = readRuleSettings(*T))
      return E;
  }
  if (const toml::node *N = Top.get("per-trace-ignores"))
    if (llvm::Error E = readPerTraceIgnores(*N))
      return E;
  if (const toml::node *N = Top.get("names"))
    if (llvm::Error E = readNames(*N))
      return E;
  if (const toml::node *N = Top.get("devices"))
    if (llvm::Error E = readDevices(*N))
      return E;
  return Cfg;
}

llvm::Expected<Config> Config::parse(llvm::StringRef Text, llvm::StringRef Path,
                                     const Catalogue &Known) {
  return ConfigReader(Path, Known).read(Text);
}

std::optional<std::string> Config::findUpward(llvm::StringRef StartDir) {
  llvm::SmallString<256> Dir(StartDir);
  if (llvm::sys::fs::make_absolute(Dir))
    return std::nullopt;
  llvm::sys::path::remove_dots(Dir, /*remove_dot_dot=*/true);
  while (true) {
    llvm::SmallString<256> Candidate(Dir);
    llvm::sys::path::append(Candidate, "tracelint.toml");
    if (llvm::sys::fs::is_regular_file(Candidate))
      return std::string(Candidate);
    llvm::StringRef Parent = llvm::sys::path::parent_path(Dir);
    if (Parent.empty() || Parent.size() == Dir.size())
      return std::nullopt;
    Dir.resize(Parent.size()); // the parent is a prefix of Dir
  }
}

llvm::Error Config::addRulesTo(Catalogue &Cat) const {
  for (const std::string &D : RuleDirs)
    if (llvm::Error E = Cat.addDirectory(D))
      return E;
  for (const RuleSpec &R : InlineRules)
    if (llvm::Error E = Cat.add(R))
      return E;
  return llvm::Error::success();
}

llvm::Error Config::checkSelectors(llvm::ArrayRef<std::string> Selectors,
                                   const Catalogue &Known,
                                   llvm::StringRef Option) {
  for (const std::string &S : Selectors) {
    std::string Problem = selectorProblem(S, Known);
    if (!Problem.empty())
      return makeError(llvm::formatv("{0}: {1}", Option, Problem));
  }
  return llvm::Error::success();
}

void Config::applyCommandLine(llvm::ArrayRef<std::string> Sel,
                              llvm::ArrayRef<std::string> Ign) {
  if (!Sel.empty())
    CommandLineSelect = std::vector<std::string>(Sel.begin(), Sel.end());
  CommandLineIgnore.insert(CommandLineIgnore.end(), Ign.begin(), Ign.end());
}

/// Whether \p Glob matches the trace at \p TracePath: a glob without '/'
/// matches the file name; one with '/' matches the path as given, the
/// absolute path, or the path relative to the configuration's directory.
static bool traceMatches(llvm::StringRef Glob, llvm::StringRef TracePath,
                         llvm::StringRef ConfigPath) {
  auto Pattern = llvm::GlobPattern::create(Glob);
  if (!Pattern) {
    llvm::consumeError(Pattern.takeError());
    return false;
  }
  if (!Glob.contains('/'))
    return Pattern->match(llvm::sys::path::filename(TracePath));
  if (Pattern->match(TracePath))
    return true;
  llvm::SmallString<256> Abs(TracePath);
  if (llvm::sys::fs::make_absolute(Abs))
    return false;
  llvm::sys::path::remove_dots(Abs, /*remove_dot_dot=*/true);
  if (Pattern->match(Abs))
    return true;
  if (ConfigPath.empty())
    return false;
  llvm::SmallString<256> Dir(ConfigPath);
  llvm::sys::path::remove_filename(Dir);
  if (llvm::sys::fs::make_absolute(Dir))
    return false;
  llvm::sys::path::remove_dots(Dir, /*remove_dot_dot=*/true);
  llvm::StringRef Rel = Abs;
  if (!Rel.consume_front(Dir))
    return false;
  Rel = Rel.ltrim('/');
  return Pattern->match(Rel);
}

bool Config::isEnabled(const RuleSpec &Spec, llvm::StringRef TracePath) const {
  // Layer 1: the file (or the defaults: select = ["ALL"]).
  bool Enabled = decide(Select, ExtendSelect, Ignore, Spec).value_or(false);
  // Layer 2: the command line.
  if (CommandLineSelect)
    Enabled =
        decide(*CommandLineSelect, {}, CommandLineIgnore, Spec).value_or(false);
  else if (decide({}, {}, CommandLineIgnore, Spec).has_value())
    Enabled = false;
  if (!Enabled)
    return false;
  for (const TraceIgnore &TI : PerTraceIgnores)
    if (traceMatches(TI.Glob, TracePath, Path) &&
        decide({}, {}, TI.Selectors, Spec).has_value())
      return false;
  return true;
}

RuleOptions Config::optionsFor(const RuleSpec &Spec) const {
  RuleOptions Opts(Spec);
  auto It = PerRule.find(Spec.Code);
  if (It != PerRule.end())
    for (const auto &[Name, Value] : It->second.Options)
      if (Spec.option(Name))
        Opts.set(Name, Value);
  Opts.setDevicePeaks(DevicePeaks);
  return Opts;
}

Severity Config::severityFor(const RuleSpec &Spec) const {
  auto It = PerRule.find(Spec.Code);
  if (It != PerRule.end() && It->second.SeverityOverride)
    return *It->second.SeverityOverride;
  return Spec.DefaultSeverity;
}
