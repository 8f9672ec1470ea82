//===- rules/RuleFile.cpp - One rule table, validated ---------------------===//
//
// The schema is docs/rule-format.md. Every check reports the file, line and
// column of the offending key or value, in lower case, with what was
// expected.
//
//===----------------------------------------------------------------------===//
#include "analysis/TraceFeatures.h"
#include "rules/Detector.h"
#include "rules/TomlSupport.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/GlobPattern.h"
#include "llvm/Support/Regex.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

using namespace tracelint;
using namespace tracelint::rules;
using namespace tracelint::rules::toml_support;
using model::EventKind;

namespace {

/// The place of a table; the root table of a document has no place of its
/// own, so point at the start of the file.
toml::source_region regionOf(const toml::node &N) {
  toml::source_region R = N.source();
  if (R.begin.line == 0) {
    R.begin.line = 1;
    R.begin.column = 1;
  }
  return R;
}

std::string joinNames(llvm::ArrayRef<llvm::StringRef> Names) {
  std::string Out;
  for (llvm::StringRef N : Names)
    Out += (Out.empty() ? "" : ", ") + N.str();
  return Out;
}

/// The most atoms a name regex may unroll to: as many as the longest pattern
/// allowed can write out by hand, so counted repetitions cannot make a
/// pattern costlier than a long literal one.
constexpr uint64_t MaxUnrolledRegex = 256;

/// The number of atoms a POSIX extended regex has once its counted
/// repetitions are written out, which is what LLVM's Regex (Henry Spencer's
/// engine) does when it compiles one: `(a{1,255}){1,255}` becomes 65,025
/// states, and matching costs time per state for every character of a
/// name. `*`, `+` and `?` are not unrolled and cost nothing extra here. The
/// pattern need not be valid (the regex compiler judges that afterwards):
/// this only has to be an upper bound, computed without compiling, and it
/// saturates rather than overflowing.
uint64_t unrolledRegexSize(llvm::StringRef Re) {
  constexpr uint64_t Cap = uint64_t(1) << 40;
  auto Mul = [&](uint64_t A, uint64_t B) {
    return (B != 0 && A > Cap / B) ? Cap : std::min(Cap, A * B);
  };
  // Per open group: atoms so far and the size of the last atom (what a
  // repetition that follows applies to).
  struct Level {
    uint64_t Total = 0, Last = 0;
  };
  std::vector<Level> Stack(1);
  auto Atom = [&](uint64_t Size) {
    Stack.back().Total = std::min(Cap, Stack.back().Total + Size);
    Stack.back().Last = Size;
  };
  for (size_t I = 0; I < Re.size(); ++I) {
    char C = Re[I];
    if (C == '\\') {
      ++I; // an escaped character is one atom
      Atom(1);
    } else if (C == '[') {
      // A bracket expression is one atom; `]` right after `[` or `[^` is a
      // member, and `[:alpha:]`-style classes contain a `]` of their own.
      size_t J = I + 1;
      if (J < Re.size() && Re[J] == '^')
        ++J;
      if (J < Re.size() && Re[J] == ']')
        ++J;
      while (J < Re.size() && Re[J] != ']') {
        if (Re[J] == '[' && J + 1 < Re.size() &&
            (Re[J + 1] == ':' || Re[J + 1] == '.' || Re[J + 1] == '=')) {
          size_t End = Re.find(std::string{Re[J + 1], ']'}, J + 2);
          J = End == llvm::StringRef::npos ? Re.size() : End + 2;
          continue;
        }
        ++J;
      }
      I = J;
      Atom(1);
    } else if (C == '(') {
      Stack.emplace_back();
    } else if (C == ')') {
      if (Stack.size() > 1) {
        uint64_t Inner = std::max<uint64_t>(Stack.back().Total, 1);
        Stack.pop_back();
        Atom(Inner);
      }
    } else if (C == '{') {
      // {m}, {m,} or {m,n}: the last atom is copied max(m, n) times ({m,}
      // as m copies and a loop).
      size_t J = I + 1;
      auto Number = [&](uint64_t &N) {
        size_t Start = J;
        N = 0;
        while (J < Re.size() && llvm::isDigit(Re[J]) && N < Cap)
          N = N * 10 + uint64_t(Re[J++] - '0');
        return J > Start;
      };
      uint64_t M = 0, N = 0;
      if (!Number(M)) {
        Atom(1);
        continue;
      }
      uint64_t Copies = M;
      if (J < Re.size() && Re[J] == ',') {
        ++J;
        Copies = Number(N) ? std::max(M, N) : M + 1;
      }
      Copies = std::max<uint64_t>(Copies, 1);
      Level &L = Stack.back();
      uint64_t Grown = Mul(L.Last, Copies);
      L.Total = std::min(Cap, L.Total - L.Last + Grown);
      L.Last = Grown;
      I = J; // at the closing brace
    } else if (C == '*' || C == '+' || C == '?' || C == '|' || C == '^' ||
               C == '$') {
      continue;
    } else {
      Atom(1);
    }
  }
  while (Stack.size() > 1) { // unclosed groups: count what they hold
    uint64_t Inner = Stack.back().Total;
    Stack.pop_back();
    Atom(Inner);
  }
  return Stack.back().Total;
}

/// Parses an enum-like string against a fixed list of spellings.
template <typename T> struct Choice {
  llvm::StringRef Spelling;
  T Value;
};

class RuleReader {
public:
  explicit RuleReader(llvm::StringRef Origin) : Origin(Origin) {}

  llvm::Expected<RuleSpec> read(const toml::table &T);

private:
  llvm::Error fail(const toml::node &N, const llvm::Twine &Msg) {
    return errorAt(Origin, regionOf(N), Msg);
  }
  llvm::Error fail(const toml::key &K, const llvm::Twine &Msg) {
    return errorAt(Origin, K.source(), Msg);
  }

  template <typename T>
  llvm::Error choose(const toml::node &N, llvm::StringRef Key,
                     llvm::ArrayRef<Choice<T>> Choices, T &Out);

  llvm::Error readIdentity(const toml::table &T);
  llvm::Error readOptions(const toml::table &T);
  llvm::Error readSignature(const toml::table &T);
  llvm::Error readSelect(const toml::table &T);
  llvm::Error readAggregate(const toml::table *Aggregate,
                            const toml::table *FiresWhen);
  llvm::Error readTexts(const toml::table &T);
  llvm::Error readProducerTexts(const toml::table &T);
  /// A duration or byte bound: a number, a string with a unit, or an option.
  llvm::Error readBound(const toml::node &N, llvm::StringRef Key,
                        NumberUnit Unit, std::optional<int64_t> &Out);
  llvm::Error readStringKey(const toml::table &T, llvm::StringRef Key,
                            std::string &Out);
  llvm::Error readStringArray(const toml::table &T, llvm::StringRef Key,
                              std::vector<std::string> &Out);
  void addImpliedNeeds();

  llvm::StringRef Origin;
  RuleSpec Spec;
};

} // namespace

template <typename T>
llvm::Error RuleReader::choose(const toml::node &N, llvm::StringRef Key,
                               llvm::ArrayRef<Choice<T>> Choices, T &Out) {
  auto S = getString(N, Key, Origin);
  if (!S)
    return S.takeError();
  for (const Choice<T> &C : Choices)
    if (C.Spelling == *S) {
      Out = C.Value;
      return llvm::Error::success();
    }
  std::vector<llvm::StringRef> Names;
  for (const Choice<T> &C : Choices)
    Names.push_back(C.Spelling);
  return fail(N, llvm::formatv("'{0}' must be one of {1}, not '{2}'", Key,
                               joinNames(Names), *S));
}

llvm::Error RuleReader::readStringKey(const toml::table &T, llvm::StringRef Key,
                                      std::string &Out) {
  const toml::node *N = T.get(std::string_view(Key.data(), Key.size()));
  if (!N)
    return llvm::Error::success();
  auto S = getString(*N, Key, Origin);
  if (!S)
    return S.takeError();
  Out = std::move(*S);
  return llvm::Error::success();
}

llvm::Error RuleReader::readStringArray(const toml::table &T,
                                        llvm::StringRef Key,
                                        std::vector<std::string> &Out) {
  const toml::node *N = T.get(std::string_view(Key.data(), Key.size()));
  if (!N)
    return llvm::Error::success();
  if (!N->is_array())
    return fail(*N, llvm::formatv("'{0}' must be an array of strings, not {1}",
                                  Key, typeName(*N)));
  auto L = getStringList(*N, Key, Origin);
  if (!L)
    return L.takeError();
  Out = std::move(*L);
  return llvm::Error::success();
}

llvm::Expected<RuleSpec> RuleReader::read(const toml::table &T) {
  static const llvm::StringRef TopKeys[] = {
      "code",  "name",     "summary",   "status", "severity",
      "needs", "options",  "signature", "text",   "experiment",
      "doc",   "producer", "producers"};
  if (llvm::Error E = checkKeys(T, TopKeys, "a rule", Origin))
    return E;
  if (llvm::Error E = readIdentity(T))
    return E;
  if (llvm::Error E = readOptions(T))
    return E;
  if (llvm::Error E = readSignature(T))
    return E;
  if (llvm::Error E = readTexts(T))
    return E;
  if (llvm::Error E = readProducerTexts(T))
    return E;
  addImpliedNeeds();
  Spec.Origin = Origin.str();
  return Spec;
}

llvm::Error RuleReader::readIdentity(const toml::table &T) {
  for (llvm::StringRef Required : {"code", "name", "summary"})
    if (!T.contains(std::string_view(Required.data(), Required.size())))
      return fail(T, llvm::formatv("a rule needs '{0}'", Required));
  if (llvm::Error E = readStringKey(T, "code", Spec.Code))
    return E;
  if (!isValidCode(Spec.Code))
    return fail(*T.get("code"),
                llvm::formatv("invalid code '{0}': expected a family letter "
                              "(one of SMLDKCNUTX) and three digits, e.g. "
                              "\"X001\"",
                              Spec.Code));
  if (llvm::Error E = readStringKey(T, "name", Spec.Name))
    return E;
  if (!isValidRuleName(Spec.Name))
    return fail(*T.get("name"),
                llvm::formatv("invalid name '{0}': expected kebab-case (lower-"
                              "case letters and digits joined by single "
                              "hyphens, starting with a letter, at most 64 "
                              "characters)",
                              Spec.Name));
  if (isValidCode(llvm::StringRef(Spec.Name).upper()))
    return fail(*T.get("name"),
                llvm::formatv("invalid name '{0}': a name must not look like "
                              "a code",
                              Spec.Name));
  if (llvm::Error E = readStringKey(T, "summary", Spec.Summary))
    return E;
  if (Spec.Summary.empty())
    return fail(*T.get("summary"), "'summary' must not be empty");

  if (const toml::node *N = T.get("status"))
    if (llvm::Error E = choose<RuleStatus>(
            *N, "status",
            {{"preview", RuleStatus::Preview}, {"stable", RuleStatus::Stable}},
            Spec.Status))
      return E;
  if (const toml::node *N = T.get("severity"))
    if (llvm::Error E = choose<Severity>(*N, "severity",
                                         {{"info", Severity::Info},
                                          {"warning", Severity::Warning},
                                          {"error", Severity::Error}},
                                         Spec.DefaultSeverity))
      return E;
  if (const toml::node *N = T.get("needs")) {
    auto L = getStringList(*N, "needs", Origin);
    if (!L)
      return L.takeError();
    const toml::array *A = N->as_array();
    for (size_t I = 0; I < L->size(); ++I) {
      std::optional<Need> Nd = parseNeed((*L)[I]);
      const toml::node &At = A ? *A->get(I) : *N;
      if (!Nd)
        return fail(At, llvm::formatv("unknown need '{0}'; known needs: "
                                      "device, launches, correlation, steps, "
                                      "shapes, stacks, memory",
                                      (*L)[I]));
      if (!llvm::is_contained(Spec.Needs, *Nd))
        Spec.Needs.push_back(*Nd);
    }
  }
  return llvm::Error::success();
}

llvm::Error RuleReader::readOptions(const toml::table &T) {
  const toml::node *N = T.get("options");
  if (!N)
    return llvm::Error::success();
  const toml::table *Opts = N->as_table();
  if (!Opts)
    return fail(*N, llvm::formatv("'options' must be a table of option "
                                  "tables ([options.NAME]), not {0}",
                                  typeName(*N)));
  for (auto &&[Key, Value] : *Opts) {
    std::string Name(Key.str());
    if (!isValidRuleName(Name))
      return fail(Key, llvm::formatv("invalid option name '{0}': expected "
                                     "kebab-case",
                                     Name));
    if (Name == "severity")
      return fail(Key, "'severity' is reserved (tracelint.toml sets a rule's "
                       "severity with it) and cannot name an option");
    const toml::table *O = Value.as_table();
    if (!O)
      return fail(Value,
                  llvm::formatv("option '{0}' must be a table with 'default', "
                                "'description' and 'why' "
                                "([options.{0}]), not {1}",
                                Name, typeName(Value)));
    static const llvm::StringRef OptionKeys[] = {"default", "description",
                                                 "why"};
    if (llvm::Error E = checkKeys(*O, OptionKeys,
                                  ("[options." + Name + "]").c_str(), Origin))
      return E;
    const toml::node *D = O->get("default");
    if (!D)
      return fail(*O, llvm::formatv("option '{0}' needs a 'default'", Name));
    if (!(D->is_number() || D->is_string() || D->is_boolean()))
      return fail(*D, llvm::formatv("the default of option '{0}' must be a "
                                    "number, a string or a boolean, not {1}",
                                    Name, typeName(*D)));
    OptionSpec Spec1;
    Spec1.Name = Name;
    Spec1.Default = toOptionValue(*D, Spec1.Unit);
    if (Name == "confidence") {
      const double *C = std::get_if<double>(&Spec1.Default);
      if (!C || *C <= 0 || *C > 1)
        return fail(*D, "option 'confidence' must be a number in (0, 1]");
    }
    if (llvm::Error E = readStringKey(*O, "description", Spec1.Description))
      return E;
    if (llvm::Error E = readStringKey(*O, "why", Spec1.Why))
      return E;
    Spec.Options.push_back(std::move(Spec1));
  }
  return llvm::Error::success();
}

llvm::Error RuleReader::readSignature(const toml::table &T) {
  const toml::node *N = T.get("signature");
  if (!N)
    return fail(T, "a rule needs a [signature] table with 'detector' or "
                   "[signature.select]");
  const toml::table *Sig = N->as_table();
  if (!Sig)
    return fail(*N, llvm::formatv("'signature' must be a table, not {0}",
                                  typeName(*N)));
  static const llvm::StringRef SigKeys[] = {
      "detector", "select", "aggregate", "fires-when", "what-if", "input",
      "claims"};
  if (llvm::Error E = checkKeys(*Sig, SigKeys, "[signature]", Origin))
    return E;
  if (const toml::node *W = Sig->get("what-if")) {
    std::string Text, Error;
    if (llvm::Error E = readStringKey(*Sig, "what-if", Text))
      return E;
    if (!analysis::WhatIfQuery::parse(Text, Spec.Sig.WhatIf, Error))
      return fail(*W, "'what-if': " + Error);
  }
  if (const toml::node *C = Sig->get("claims")) {
    if (llvm::Error E = readStringKey(*Sig, "claims", Spec.Sig.Claims))
      return E;
    if (Spec.Sig.Claims.empty() ||
        !llvm::all_of(Spec.Sig.Claims, [](char Ch) {
          return (Ch >= 'a' && Ch <= 'z') || Ch == '-';
        }))
      return fail(*C, "'claims' is a lower-case noun such as \"wait\" or "
                      "\"collective\" (what the findings describe)");
  }
  const toml::node *Det = Sig->get("detector");
  const toml::node *Sel = Sig->get("select");
  if (Det && Sel)
    return fail(*Sel, "a signature has either 'detector' or 'select', not "
                      "both");
  if (!Det && !Sel)
    return fail(*Sig, "[signature] needs 'detector' (a C++ detector) or "
                      "[signature.select] (a declarative signature)");
  if (const toml::node *In = Sig->get("input"); In && !Det)
    return fail(*In, "'input' chooses what a C++ detector reads; a "
                     "declarative signature always reads one trace");
  if (Det) {
    for (llvm::StringRef K : {"aggregate", "fires-when"})
      if (const toml::node *X = Sig->get(std::string_view(K.data(), K.size())))
        return fail(*X, llvm::formatv("'{0}' belongs to declarative "
                                      "signatures; a detector reads its "
                                      "parameters from [options]",
                                      K));
    if (llvm::Error E = readStringKey(*Sig, "detector", Spec.Sig.Detector))
      return E;
    if (const toml::node *In = Sig->get("input")) {
      std::string Input;
      if (llvm::Error E = readStringKey(*Sig, "input", Input))
        return E;
      if (Input != "job" && Input != "trace")
        return fail(*In, "'input' is \"trace\" (the default: one trace's "
                         "index) or \"job\" (the ranks of a job, "
                         "lint --job), not '" +
                             Input + "'");
      Spec.Sig.JobInput = Input == "job";
    }
    if (Spec.Sig.JobInput) {
      if (!findJobDetector(Spec.Sig.Detector)) {
        std::vector<llvm::StringRef> Known;
        for (const JobDetectorEntry &D : jobDetectorTable())
          Known.push_back(D.Name);
        return fail(*Det, llvm::formatv("unknown job detector '{0}'; known "
                                        "job detectors: {1}",
                                        Spec.Sig.Detector,
                                        Known.empty() ? std::string("(none)")
                                                      : joinNames(Known)));
      }
      return llvm::Error::success();
    }
    if (!findDetector(Spec.Sig.Detector)) {
      std::vector<llvm::StringRef> Known;
      for (const DetectorEntry &D : detectors())
        Known.push_back(D.Name);
      return fail(*Det, llvm::formatv("unknown detector '{0}'; known "
                                      "detectors: {1}",
                                      Spec.Sig.Detector,
                                      Known.empty() ? std::string("(none)")
                                                    : joinNames(Known)));
    }
    return llvm::Error::success();
  }
  const toml::table *SelT = Sel->as_table();
  if (!SelT)
    return fail(*Sel, llvm::formatv("'select' must be a table, not {0}",
                                    typeName(*Sel)));
  if (llvm::Error E = readSelect(*SelT))
    return E;
  const toml::table *Agg = nullptr, *Fires = nullptr;
  if (const toml::node *A = Sig->get("aggregate")) {
    Agg = A->as_table();
    if (!Agg)
      return fail(*A, llvm::formatv("'aggregate' must be a table, not {0}",
                                    typeName(*A)));
  }
  if (const toml::node *F = Sig->get("fires-when")) {
    Fires = F->as_table();
    if (!Fires)
      return fail(*F, llvm::formatv("'fires-when' must be a table, not {0}",
                                    typeName(*F)));
  }
  return readAggregate(Agg, Fires);
}

llvm::Error RuleReader::readBound(const toml::node &N, llvm::StringRef Key,
                                  NumberUnit Unit,
                                  std::optional<int64_t> &Out) {
  llvm::StringRef What = Unit == NumberUnit::Duration ? "a duration" : "a size";
  llvm::StringRef Example = Unit == NumberUnit::Duration
                                ? "(a number of ns, or \"250us\", \"2ms\", "
                                  "\"1.5s\")"
                                : "(a number of bytes, or \"512kB\", "
                                  "\"1MB\", \"4MiB\")";
  if (N.is_number()) {
    double V = N.is_integer() ? double(N.as_integer()->get())
                              : N.as_floating_point()->get();
    if (!(V >= 0) || V > 9e18)
      return fail(N, llvm::formatv("'{0}' must be {1} of at least 0 {2}", Key,
                                   What, Example));
    Out = static_cast<int64_t>(V);
    return llvm::Error::success();
  }
  const toml::value<std::string> *S = N.as_string();
  if (!S)
    return fail(N, llvm::formatv("'{0}' must be {1} {2}, not {3}", Key, What,
                                 Example, typeName(N)));
  std::string Text(S->get());
  std::optional<int64_t> V =
      Unit == NumberUnit::Duration ? parseDuration(Text) : parseBytes(Text);
  if (V) {
    Out = *V;
    return llvm::Error::success();
  }
  if (const OptionSpec *O = Spec.option(Text)) {
    if (!std::holds_alternative<double>(O->Default))
      return fail(N, llvm::formatv("'{0}' names option '{1}', whose default "
                                   "is not a number",
                                   Key, Text));
    if (O->Unit != Unit && O->Unit != NumberUnit::Plain)
      return fail(N, llvm::formatv("'{0}' names option '{1}', which is not "
                                   "{2}",
                                   Key, Text, What));
    Spec.Sig.Select.BoundOptions[Key.str()] = Text;
    return llvm::Error::success();
  }
  return fail(N, llvm::formatv("'{0}' must be {1} {2} or the name of an "
                               "option of this rule; '{3}' is neither",
                               Key, What, Example, Text));
}

llvm::Error RuleReader::readSelect(const toml::table &T) {
  static const llvm::StringRef SelectKeys[] = {
      "kind",         "name",   "name-regex", "lane", "min-duration",
      "max-duration", "copy",   "src",        "dst",  "min-bytes",
      "max-bytes",    "inside", "steps"};
  if (llvm::Error E = checkKeys(T, SelectKeys, "[signature.select]", Origin))
    return E;
  Selector &S = Spec.Sig.Select;

  if (const toml::node *N = T.get("kind")) {
    auto L = getStringList(*N, "kind", Origin);
    if (!L)
      return L.takeError();
    for (const std::string &K : *L) {
      bool Found = false;
      for (unsigned I = 0; I < model::NumEventKinds; ++I)
        if (model::eventKindName(EventKind(I)) == K) {
          if (!llvm::is_contained(S.Kinds, EventKind(I)))
            S.Kinds.push_back(EventKind(I));
          Found = true;
        }
      if (!Found) {
        std::vector<llvm::StringRef> Names;
        for (unsigned I = 0; I < model::NumEventKinds; ++I)
          Names.push_back(model::eventKindName(EventKind(I)));
        return fail(*N, llvm::formatv("unknown event kind '{0}'; known "
                                      "kinds: {1}",
                                      K, joinNames(Names)));
      }
    }
  }
  if (const toml::node *N = T.get("name")) {
    auto L = getStringList(*N, "name", Origin);
    if (!L)
      return L.takeError();
    if (L->empty())
      return fail(*N, "'name' must not be an empty list (leave it out to "
                      "select any name)");
    for (const std::string &Name : *L) {
      if (Name.empty())
        return fail(*N, "'name' must not hold an empty string");
      if (llvm::StringRef(Name).find_first_of("*?[\\") !=
          llvm::StringRef::npos) {
        auto G = llvm::GlobPattern::create(Name);
        if (!G)
          return fail(*N, llvm::formatv("invalid glob '{0}': {1}", Name,
                                        llvm::toString(G.takeError())));
      }
      S.Names.push_back(Name);
    }
  }
  if (const toml::node *N = T.get("name-regex")) {
    auto R = getString(*N, "name-regex", Origin);
    if (!R)
      return R.takeError();
    if (R->empty())
      return fail(*N, "'name-regex' must not be empty");
    if (R->size() > 256)
      return fail(*N, llvm::formatv("'name-regex' is {0} characters long; "
                                    "the limit is 256",
                                    R->size()));
    for (size_t I = 0; I + 1 < R->size(); ++I) {
      if ((*R)[I] != '\\')
        continue;
      if (llvm::isDigit((*R)[I + 1]) && (*R)[I + 1] != '0')
        return fail(*N, llvm::formatv("'name-regex' uses a backreference "
                                      "(\\{0}) at character {1}; "
                                      "backreferences are not supported "
                                      "(they make matching exponential)",
                                      (*R)[I + 1], I + 1));
      ++I; // skip the escaped character
    }
    // Checked before compiling: compiling such a pattern alone takes seconds.
    uint64_t Unrolled = unrolledRegexSize(*R);
    if (Unrolled > MaxUnrolledRegex)
      return fail(*N, llvm::formatv("'name-regex' '{0}' has {1} atoms once "
                                    "its counted repetitions are written out; "
                                    "the limit is {2} (matching costs time per "
                                    "atom for every character of every name)",
                                    *R, Unrolled, MaxUnrolledRegex));
    llvm::Regex Re(*R);
    std::string Why;
    if (!Re.isValid(Why))
      return fail(*N,
                  llvm::formatv("invalid 'name-regex' '{0}': {1}", *R, Why));
    S.NameRegex = *R;
  }
  if (const toml::node *N = T.get("lane")) {
    model::LaneKind L;
    if (llvm::Error E =
            choose<model::LaneKind>(*N, "lane",
                                    {{"host", model::LaneKind::HostThread},
                                     {"device", model::LaneKind::DeviceStream}},
                                    L))
      return E;
    S.Lane = L;
  }
  if (const toml::node *N = T.get("min-duration"))
    if (llvm::Error E = readBound(*N, "min-duration", NumberUnit::Duration,
                                  S.MinDurationNs))
      return E;
  if (const toml::node *N = T.get("max-duration"))
    if (llvm::Error E = readBound(*N, "max-duration", NumberUnit::Duration,
                                  S.MaxDurationNs))
      return E;
  if (const toml::node *N = T.get("min-bytes"))
    if (llvm::Error E =
            readBound(*N, "min-bytes", NumberUnit::Bytes, S.MinBytes))
      return E;
  if (const toml::node *N = T.get("max-bytes"))
    if (llvm::Error E =
            readBound(*N, "max-bytes", NumberUnit::Bytes, S.MaxBytes))
      return E;
  if (S.MinDurationNs && S.MaxDurationNs && *S.MinDurationNs > *S.MaxDurationNs)
    return fail(*T.get("max-duration"),
                "'max-duration' is below 'min-duration': nothing can match");
  if (S.MinBytes && S.MaxBytes && *S.MinBytes > *S.MaxBytes)
    return fail(*T.get("max-bytes"),
                "'max-bytes' is below 'min-bytes': nothing can match");

  if (const toml::node *N = T.get("copy")) {
    model::CopyKind C;
    if (llvm::Error E =
            choose<model::CopyKind>(*N, "copy",
                                    {{"HtoD", model::CopyKind::HtoD},
                                     {"DtoH", model::CopyKind::DtoH},
                                     {"DtoD", model::CopyKind::DtoD},
                                     {"HtoH", model::CopyKind::HtoH},
                                     {"PtoP", model::CopyKind::PtoP}},
                                    C))
      return E;
    S.Copy = C;
  }
  static const Choice<model::MemoryKind> Memories[] = {
      {"pageable", model::MemoryKind::Pageable},
      {"pinned", model::MemoryKind::Pinned},
      {"device", model::MemoryKind::Device},
      {"managed", model::MemoryKind::Managed},
      {"array", model::MemoryKind::Array},
      {"host", model::MemoryKind::Host}};
  if (const toml::node *N = T.get("src")) {
    model::MemoryKind M;
    if (llvm::Error E = choose<model::MemoryKind>(*N, "src", Memories, M))
      return E;
    S.Src = M;
  }
  if (const toml::node *N = T.get("dst")) {
    model::MemoryKind M;
    if (llvm::Error E = choose<model::MemoryKind>(*N, "dst", Memories, M))
      return E;
    S.Dst = M;
  }
  if (const toml::node *N = T.get("inside"))
    if (llvm::Error E = choose<Selector::Where>(
            *N, "inside",
            {{"anywhere", Selector::Where::Anywhere},
             {"steps", Selector::Where::InsideSteps},
             {"outside-steps", Selector::Where::OutsideSteps}},
            S.Inside))
      return E;
  if (const toml::node *N = T.get("steps")) {
    if (llvm::Error E = choose<Selector::Which>(
            *N, "steps",
            {{"all", Selector::Which::AllSteps},
             {"first", Selector::Which::FirstStep},
             {"after-first", Selector::Which::AfterFirstStep}},
            S.StepsSelected))
      return E;
    if (S.StepsSelected != Selector::Which::AllSteps &&
        S.Inside == Selector::Where::OutsideSteps)
      return fail(*N, "'steps' picks steps, but 'inside' = "
                      "\"outside-steps\" selects events outside them");
  }
  return llvm::Error::success();
}

llvm::Error RuleReader::readAggregate(const toml::table *Agg,
                                      const toml::table *Fires) {
  Aggregation &A = Spec.Sig.Aggregate;
  bool StatisticGiven = false;
  if (Agg) {
    static const llvm::StringRef AggKeys[] = {"per", "value"};
    if (llvm::Error E =
            checkKeys(*Agg, AggKeys, "[signature.aggregate]", Origin))
      return E;
    if (const toml::node *N = Agg->get("per"))
      if (llvm::Error E =
              choose<Aggregation::Per>(*N, "per",
                                       {{"trace", Aggregation::Per::Trace},
                                        {"step", Aggregation::Per::Step},
                                        {"name", Aggregation::Per::Name}},
                                       A.GroupBy))
        return E;
    if (const toml::node *N = Agg->get("value"))
      if (llvm::Error E = choose<Aggregation::Value>(
              *N, "value",
              {{"count", Aggregation::Value::Count},
               {"sum(duration)", Aggregation::Value::SumDuration},
               {"max(duration)", Aggregation::Value::MaxDuration},
               {"union(duration)", Aggregation::Value::UnionDuration},
               {"sum(bytes)", Aggregation::Value::SumBytes}},
              A.Measure))
        return E;
  }
  const toml::node *ThresholdNode = nullptr;
  const toml::node *RelativeNode = nullptr;
  if (Fires) {
    static const llvm::StringRef FireKeys[] = {"statistic", "compare",
                                               "threshold", "relative-to"};
    if (llvm::Error E =
            checkKeys(*Fires, FireKeys, "[signature.fires-when]", Origin))
      return E;
    if (const toml::node *N = Fires->get("statistic")) {
      StatisticGiven = true;
      if (llvm::Error E = choose<Aggregation::Statistic>(
              *N, "statistic",
              {{"max", Aggregation::Statistic::Max},
               {"median", Aggregation::Statistic::Median},
               {"min", Aggregation::Statistic::Min},
               {"total", Aggregation::Statistic::Total},
               {"any", Aggregation::Statistic::Any}},
              A.Over))
        return E;
      if (A.GroupBy == Aggregation::Per::Name &&
          A.Over != Aggregation::Statistic::Any)
        return fail(*N, "with per = \"name\" every name is judged on its own "
                        "and reported separately; 'statistic' must be "
                        "\"any\" (or left out)");
    }
    if (const toml::node *N = Fires->get("compare"))
      if (llvm::Error E = choose<Aggregation::Compare>(
              *N, "compare",
              {{">", Aggregation::Compare::Greater},
               {">=", Aggregation::Compare::GreaterEqual},
               {"<", Aggregation::Compare::Less},
               {"<=", Aggregation::Compare::LessEqual}},
              A.Op))
        return E;
    if ((RelativeNode = Fires->get("relative-to")))
      if (llvm::Error E = choose<Aggregation::RelativeTo>(
              *RelativeNode, "relative-to",
              {{"none", Aggregation::RelativeTo::None},
               {"step", Aggregation::RelativeTo::Step},
               {"device-busy", Aggregation::RelativeTo::DeviceBusy},
               {"window", Aggregation::RelativeTo::Window}},
              A.Relative))
        return E;
    ThresholdNode = Fires->get("threshold");
  }
  if (!StatisticGiven)
    A.Over = A.GroupBy == Aggregation::Per::Name ? Aggregation::Statistic::Any
                                                 : Aggregation::Statistic::Max;

  bool DurationMeasure = A.Measure == Aggregation::Value::SumDuration ||
                         A.Measure == Aggregation::Value::MaxDuration ||
                         A.Measure == Aggregation::Value::UnionDuration;
  bool Relative = A.Relative != Aggregation::RelativeTo::None;
  if (Relative && !DurationMeasure)
    return fail(*RelativeNode,
                "'relative-to' compares a time with a time: it needs 'value' "
                "= sum(duration), max(duration) or union(duration)");

  // What unit the threshold must have.
  NumberUnit Want = Relative          ? NumberUnit::Share
                    : DurationMeasure ? NumberUnit::Duration
                    : A.Measure == Aggregation::Value::SumBytes
                        ? NumberUnit::Bytes
                        : NumberUnit::Plain;
  auto UnitWords = [](NumberUnit U) -> llvm::StringRef {
    switch (U) {
    case NumberUnit::Plain:
      return "a count";
    case NumberUnit::Duration:
      return "a duration";
    case NumberUnit::Share:
      return "a share (\"2%\" or a fraction such as 0.02)";
    case NumberUnit::Bytes:
      return "a size";
    }
    return "";
  };
  if (!ThresholdNode)
    return llvm::Error::success(); // the default: at least one (count >= 1)
  const toml::node &N = *ThresholdNode;
  if (N.is_number()) {
    double V = N.is_integer() ? double(N.as_integer()->get())
                              : N.as_floating_point()->get();
    if (!std::isfinite(V) || V < 0)
      return fail(N, "'threshold' must be a finite number of at least 0");
    A.Threshold = V;
    return llvm::Error::success();
  }
  const toml::value<std::string> *S = N.as_string();
  if (!S)
    return fail(N, llvm::formatv("'threshold' must be a number, a duration, "
                                 "a share, a size or the name of an option, "
                                 "not {0}",
                                 typeName(N)));
  std::string Text(S->get());
  if (std::optional<Number> Num = parseNumberWithUnit(Text)) {
    if (Num->Unit != Want)
      return fail(N, llvm::formatv("threshold '{0}' is not {1}, which this "
                                   "signature compares{2}",
                                   Text, UnitWords(Want),
                                   Num->Unit == NumberUnit::Share && !Relative
                                       ? " (a share needs 'relative-to')"
                                       : ""));
    A.Threshold = Num->Value;
    return llvm::Error::success();
  }
  const OptionSpec *O = Spec.option(Text);
  if (!O)
    return fail(N, llvm::formatv("threshold '{0}' is neither a number with a "
                                 "unit nor an option of this rule",
                                 Text));
  if (!std::holds_alternative<double>(O->Default))
    return fail(N, llvm::formatv("threshold names option '{0}', whose "
                                 "default is not a number",
                                 Text));
  if (O->Unit != Want && O->Unit != NumberUnit::Plain)
    return fail(N, llvm::formatv("threshold names option '{0}', which is "
                                 "not {1}",
                                 Text, UnitWords(Want)));
  A.Threshold = Text;
  return llvm::Error::success();
}

llvm::Error RuleReader::readTexts(const toml::table &T) {
  if (const toml::node *N = T.get("text")) {
    const toml::table *Text = N->as_table();
    if (!Text)
      return fail(
          *N, llvm::formatv("'text' must be a table, not {0}", typeName(*N)));
    static const llvm::StringRef TextKeys[] = {"hypothesis", "evidence",
                                               "alternatives"};
    if (llvm::Error E = checkKeys(*Text, TextKeys, "[text]", Origin))
      return E;
    if (llvm::Error E = readStringKey(*Text, "hypothesis", Spec.Hypothesis))
      return E;
    if (llvm::Error E = readStringArray(*Text, "evidence", Spec.Evidence))
      return E;
    if (llvm::Error E =
            readStringArray(*Text, "alternatives", Spec.Alternatives))
      return E;
  }
  if (Spec.Hypothesis.empty())
    return fail(T.contains("text") ? *T.get("text") : T,
                "a rule needs [text] hypothesis: the explanation a finding "
                "proposes");

  if (const toml::node *N = T.get("experiment")) {
    const toml::table *X = N->as_table();
    if (!X)
      return fail(*N, llvm::formatv("'experiment' must be a table, not {0}",
                                    typeName(*N)));
    static const llvm::StringRef ExpKeys[] = {
        "change",     "predict-trace",   "predict-metric", "verify",
        "refuted-if", "predict-feature", "predict-change"};
    if (llvm::Error E = checkKeys(*X, ExpKeys, "[experiment]", Origin))
      return E;
    if (llvm::Error E = readStringKey(*X, "change", Spec.Next.Change))
      return E;
    if (llvm::Error E =
            readStringKey(*X, "predict-trace", Spec.Next.PredictTrace))
      return E;
    if (llvm::Error E =
            readStringKey(*X, "predict-metric", Spec.Next.PredictMetric))
      return E;
    if (llvm::Error E = readStringKey(*X, "verify", Spec.Next.Verify))
      return E;
    if (llvm::Error E = readStringKey(*X, "refuted-if", Spec.Next.RefutedIf))
      return E;
    if (llvm::Error E =
            readStringKey(*X, "predict-feature", Spec.Next.PredictFeature))
      return E;
    if (llvm::Error E =
            readStringKey(*X, "predict-change", Spec.Next.PredictChange))
      return E;
    if (!Spec.Next.PredictFeature.empty() &&
        !analysis::parseFeature(Spec.Next.PredictFeature)) {
      std::string Known;
      for (const analysis::FeatureInfo &I : analysis::featureCatalogue())
        Known += (Known.empty() ? "" : ", ") + I.Name.str();
      return fail(*X->get("predict-feature"),
                  llvm::formatv("unknown predict-feature '{0}'; expected one "
                                "of {1}",
                                Spec.Next.PredictFeature, Known));
    }
    if (!Spec.Next.PredictChange.empty() &&
        !analysis::parseFeatureChange(Spec.Next.PredictChange))
      return fail(*X->get("predict-change"),
                  llvm::formatv("unknown predict-change '{0}'; expected "
                                "decrease, vanish, increase or appear",
                                Spec.Next.PredictChange));
    if (Spec.Next.PredictFeature.empty() != Spec.Next.PredictChange.empty())
      return fail(*X, "[experiment] predict-feature and predict-change go "
                      "together: name the feature and how it moves");
  }
  if (Spec.Next.Change.empty())
    return fail(T.contains("experiment") ? *T.get("experiment") : T,
                "a rule needs [experiment] change: the one variable to "
                "change to test the hypothesis");

  if (const toml::node *N = T.get("doc")) {
    const toml::table *D = N->as_table();
    if (!D)
      return fail(
          *N, llvm::formatv("'doc' must be a table, not {0}", typeName(*N)));
    static const llvm::StringRef DocKeys[] = {"what", "why", "false-positives",
                                              "real-traces"};
    if (llvm::Error E = checkKeys(*D, DocKeys, "[doc]", Origin))
      return E;
    if (llvm::Error E = readStringKey(*D, "what", Spec.WhatItDetects))
      return E;
    if (llvm::Error E = readStringKey(*D, "why", Spec.WhyItMatters))
      return E;
    if (llvm::Error E =
            readStringKey(*D, "false-positives", Spec.KnownFalsePositives))
      return E;
    if (llvm::Error E = readStringKey(*D, "real-traces", Spec.RealTraces))
      return E;
  }
  return llvm::Error::success();
}

llvm::Error RuleReader::readProducerTexts(const toml::table &T) {
  std::vector<std::string> Allowed;
  for (analysis::ProducerKind K : analysis::textProducers())
    Allowed.push_back(analysis::producerName(K).str());
  if (const toml::node *L = T.get("producers")) {
    if (!L->is_array())
      return fail(*L, llvm::formatv("'producers' must be an array of "
                                    "producer names, not {0}",
                                    typeName(*L)));
    for (const toml::node &Item : *L->as_array()) {
      std::optional<analysis::ProducerKind> K;
      if (const auto *S = Item.as_string())
        K = analysis::parseProducer(S->get());
      if (!K || !llvm::is_contained(analysis::textProducers(), *K))
        return fail(Item, llvm::formatv("'producers' takes {0}",
                                        llvm::join(Allowed, ", ")));
      if (!llvm::is_contained(Spec.Producers, *K))
        Spec.Producers.push_back(*K);
    }
    if (Spec.Producers.empty())
      return fail(*L, "'producers' must name at least one producer (leave it "
                      "out for a rule about every program)");
  }
  const toml::node *N = T.get("producer");
  if (!N)
    return llvm::Error::success();
  const toml::table *All = N->as_table();
  if (!All)
    return fail(*N, llvm::formatv("'producer' must be a table of producers "
                                  "([producer.cuda.text]), not {0}",
                                  typeName(*N)));
  for (auto &&[Key, Node] : *All) {
    llvm::StringRef Name(Key.str().data(), Key.str().size());
    std::optional<analysis::ProducerKind> Kind = analysis::parseProducer(Name);
    if (!Kind || !llvm::is_contained(analysis::textProducers(), *Kind))
      return fail(Key, llvm::formatv("unknown producer '{0}' in [producer]; "
                                     "expected one of {1}",
                                     Name, llvm::join(Allowed, ", ")));
    const toml::table *P = Node.as_table();
    if (!P)
      return fail(Node, llvm::formatv("'producer.{0}' must be a table with "
                                      "'text' and 'experiment' tables, not "
                                      "{1}",
                                      Name, typeName(Node)));
    static const llvm::StringRef PartKeys[] = {"text", "experiment"};
    if (llvm::Error E =
            checkKeys(*P, PartKeys, ("[producer." + Name + "]").str(), Origin))
      return E;
    ProducerTexts O;
    O.Producer = *Kind;
    auto Str = [&](const toml::table &Tbl, llvm::StringRef K,
                   std::optional<std::string> &Out) -> llvm::Error {
      if (!Tbl.contains(std::string_view(K.data(), K.size())))
        return llvm::Error::success();
      std::string V;
      if (llvm::Error E = readStringKey(Tbl, K, V))
        return E;
      Out = std::move(V);
      return llvm::Error::success();
    };
    auto List =
        [&](const toml::table &Tbl, llvm::StringRef K,
            std::optional<std::vector<std::string>> &Out) -> llvm::Error {
      if (!Tbl.contains(std::string_view(K.data(), K.size())))
        return llvm::Error::success();
      std::vector<std::string> V;
      if (llvm::Error E = readStringArray(Tbl, K, V))
        return E;
      Out = std::move(V);
      return llvm::Error::success();
    };
    auto Part = [&](llvm::StringRef PartName,
                    const toml::table *&Out) -> llvm::Error {
      Out = nullptr;
      const toml::node *X =
          P->get(std::string_view(PartName.data(), PartName.size()));
      if (!X)
        return llvm::Error::success();
      Out = X->as_table();
      if (!Out)
        return fail(*X, llvm::formatv("'producer.{0}.{1}' must be a table, "
                                      "not {2}",
                                      Name, PartName, typeName(*X)));
      return llvm::Error::success();
    };
    const toml::table *Text = nullptr, *X = nullptr;
    if (llvm::Error E = Part("text", Text))
      return E;
    if (llvm::Error E = Part("experiment", X))
      return E;
    if (Text) {
      // Evidence describes what was measured; it has no vocabulary of its
      // own to change, but a rule may still word it for a producer.
      static const llvm::StringRef TextKeys[] = {"hypothesis", "evidence",
                                                 "alternatives"};
      if (llvm::Error E = checkKeys(
              *Text, TextKeys, ("[producer." + Name + ".text]").str(), Origin))
        return E;
      if (llvm::Error E = Str(*Text, "hypothesis", O.Hypothesis))
        return E;
      if (llvm::Error E = List(*Text, "evidence", O.Evidence))
        return E;
      if (llvm::Error E = List(*Text, "alternatives", O.Alternatives))
        return E;
    }
    if (X) {
      // predict-feature and predict-change are the rule's measurement and
      // stay the same for every producer, so they are not allowed here.
      static const llvm::StringRef ExpKeys[] = {
          "change", "predict-trace", "predict-metric", "verify", "refuted-if"};
      if (llvm::Error E =
              checkKeys(*X, ExpKeys,
                        ("[producer." + Name + ".experiment]").str(), Origin))
        return E;
      if (llvm::Error E = Str(*X, "change", O.Change))
        return E;
      if (llvm::Error E = Str(*X, "predict-trace", O.PredictTrace))
        return E;
      if (llvm::Error E = Str(*X, "predict-metric", O.PredictMetric))
        return E;
      if (llvm::Error E = Str(*X, "verify", O.Verify))
        return E;
      if (llvm::Error E = Str(*X, "refuted-if", O.RefutedIf))
        return E;
    }
    if (!O.Hypothesis && !O.Evidence && !O.Alternatives && !O.Change &&
        !O.PredictTrace && !O.PredictMetric && !O.Verify && !O.RefutedIf)
      return fail(Node, llvm::formatv("[producer.{0}] overrides no text: give "
                                      "it [producer.{0}.text] or "
                                      "[producer.{0}.experiment] keys",
                                      Name));
    if ((O.Change && O.Change->empty()) ||
        (O.Hypothesis && O.Hypothesis->empty()))
      return fail(Node, llvm::formatv("[producer.{0}] hypothesis and change "
                                      "must not be empty",
                                      Name));
    Spec.ByProducer.push_back(std::move(O));
  }
  llvm::sort(Spec.ByProducer,
             [](const ProducerTexts &A, const ProducerTexts &B) {
               return A.Producer < B.Producer;
             });
  return llvm::Error::success();
}

void RuleReader::addImpliedNeeds() {
  if (!Spec.Sig.Detector.empty())
    return;
  auto Add = [&](Need N) {
    if (!llvm::is_contained(Spec.Needs, N))
      Spec.Needs.push_back(N);
  };
  const Selector &S = Spec.Sig.Select;
  const Aggregation &A = Spec.Sig.Aggregate;
  if (S.Inside != Selector::Where::Anywhere ||
      S.StepsSelected != Selector::Which::AllSteps ||
      A.GroupBy == Aggregation::Per::Step)
    Add(Need::Steps);
  bool DeviceKinds = !S.Kinds.empty() && llvm::all_of(S.Kinds, [](EventKind K) {
    return model::isDeviceWork(K);
  });
  if (DeviceKinds || S.Lane == model::LaneKind::DeviceStream || S.Copy ||
      S.Src || S.Dst || A.Relative == Aggregation::RelativeTo::DeviceBusy)
    Add(Need::DeviceActivity);
  llvm::sort(Spec.Needs);
}

llvm::Expected<RuleSpec> toml_support::parseRuleTable(const toml::table &T,
                                                      llvm::StringRef Origin) {
  return RuleReader(Origin).read(T);
}
