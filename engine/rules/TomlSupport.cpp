//===- rules/TomlSupport.cpp ----------------------------------------------===//
#include "rules/TomlSupport.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <string_view>

using namespace tracelint;
using namespace tracelint::rules;
using namespace tracelint::rules::toml_support;

llvm::Error toml_support::errorAt(llvm::StringRef Origin,
                                  const toml::source_region &Region,
                                  const llvm::Twine &Message) {
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      llvm::formatv("{0}:{1}:{2}: {3}", Origin, Region.begin.line,
                    Region.begin.column, Message.str())
          .str());
}

llvm::Expected<toml::table> toml_support::parse(llvm::StringRef Text,
                                                llvm::StringRef Origin) {
  try {
    return toml::parse(std::string_view(Text.data(), Text.size()),
                       std::string_view(Origin.data(), Origin.size()));
  } catch (const toml::parse_error &E) {
    std::string Description(E.description());
    // tomlplusplus starts its messages with a capital ("Error while parsing
    // key-value pair: ..."); our messages start in lower case.
    if (!Description.empty())
      Description[0] = llvm::toLower(Description[0]);
    return errorAt(Origin, E.source(), "invalid TOML: " + Description);
  }
}

llvm::StringRef toml_support::typeName(const toml::node &N) {
  switch (N.type()) {
  case toml::node_type::none:
    return "nothing";
  case toml::node_type::table:
    return "a table";
  case toml::node_type::array:
    return "an array";
  case toml::node_type::string:
    return "a string";
  case toml::node_type::integer:
    return "an integer";
  case toml::node_type::floating_point:
    return "a floating-point number";
  case toml::node_type::boolean:
    return "a boolean";
  case toml::node_type::date:
    return "a date";
  case toml::node_type::time:
    return "a time";
  case toml::node_type::date_time:
    return "a date-time";
  }
  return "a value";
}

llvm::Error toml_support::checkKeys(const toml::table &T,
                                    llvm::ArrayRef<llvm::StringRef> Allowed,
                                    llvm::StringRef TableName,
                                    llvm::StringRef Origin) {
  for (auto &&[Key, Value] : T) {
    llvm::StringRef K(Key.str().data(), Key.str().size());
    if (llvm::is_contained(Allowed, K))
      continue;
    (void)Value;
    std::string List;
    for (llvm::StringRef A : Allowed)
      List += (List.empty() ? "" : ", ") + A.str();
    return errorAt(Origin, Key.source(),
                   llvm::formatv("unknown key '{0}' in {1}; allowed keys: {2}",
                                 K, TableName, List)
                       .str());
  }
  return llvm::Error::success();
}

llvm::Expected<std::string> toml_support::getString(const toml::node &N,
                                                    llvm::StringRef Key,
                                                    llvm::StringRef Origin) {
  if (const auto *S = N.as_string())
    return std::string(S->get());
  return errorAt(
      Origin, N.source(),
      llvm::formatv("'{0}' must be a string, not {1}", Key, typeName(N)).str());
}

llvm::Expected<std::vector<std::string>>
toml_support::getStringList(const toml::node &N, llvm::StringRef Key,
                            llvm::StringRef Origin) {
  std::vector<std::string> Out;
  if (const auto *S = N.as_string()) {
    Out.push_back(std::string(S->get()));
    return Out;
  }
  const auto *A = N.as_array();
  if (!A)
    return errorAt(Origin, N.source(),
                   llvm::formatv("'{0}' must be a string or an array of "
                                 "strings, not {1}",
                                 Key, typeName(N))
                       .str());
  for (const toml::node &E : *A) {
    const auto *S = E.as_string();
    if (!S)
      return errorAt(Origin, E.source(),
                     llvm::formatv("'{0}' must hold strings only, not {1}", Key,
                                   typeName(E))
                         .str());
    Out.push_back(std::string(S->get()));
  }
  return Out;
}

/// Splits "1.5 ms" into a finite non-negative number and its unit.
static bool splitNumber(llvm::StringRef S, double &Value,
                        llvm::StringRef &Unit) {
  S = S.trim();
  size_t End = 0;
  while (End < S.size() && (llvm::isDigit(S[End]) || S[End] == '.' ||
                            S[End] == 'e' || S[End] == 'E' ||
                            ((S[End] == '+' || S[End] == '-') && End > 0 &&
                             (S[End - 1] == 'e' || S[End - 1] == 'E'))))
    ++End;
  // "1e" followed by a unit letter: the 'e' belongs to the unit (none of
  // ours starts with 'e', but keep the number well-formed).
  llvm::StringRef Num = S.take_front(End);
  if (Num.empty() || Num.getAsDouble(Value) || !std::isfinite(Value) ||
      Value < 0)
    return false;
  Unit = S.drop_front(End).trim();
  return true;
}

std::optional<int64_t> toml_support::parseDuration(llvm::StringRef S) {
  double V;
  llvm::StringRef Unit;
  if (!splitNumber(S, V, Unit))
    return std::nullopt;
  double Scale;
  if (Unit == "ns")
    Scale = 1;
  else if (Unit == "us" || Unit == "\xC2\xB5s" || Unit == "\xCE\xBCs")
    Scale = 1e3;
  else if (Unit == "ms")
    Scale = 1e6;
  else if (Unit == "s")
    Scale = 1e9;
  else
    return std::nullopt;
  double Ns = V * Scale;
  if (Ns > 9e18)
    return std::nullopt;
  return static_cast<int64_t>(std::llround(Ns));
}

std::optional<double> toml_support::parseShare(llvm::StringRef S) {
  double V;
  llvm::StringRef Unit;
  if (!splitNumber(S, V, Unit) || Unit != "%" || V > 100)
    return std::nullopt;
  return V / 100;
}

std::optional<int64_t> toml_support::parseBytes(llvm::StringRef S) {
  double V;
  llvm::StringRef Unit;
  if (!splitNumber(S, V, Unit))
    return std::nullopt;
  static const struct {
    const char *Name;
    double Scale;
  } Units[] = {{"B", 1},
               {"kB", 1e3},
               {"KB", 1e3},
               {"MB", 1e6},
               {"GB", 1e9},
               {"TB", 1e12},
               {"KiB", 1024.0},
               {"MiB", 1048576.0},
               {"GiB", 1073741824.0},
               {"TiB", 1099511627776.0}};
  for (const auto &U : Units)
    if (Unit == U.Name) {
      double B = V * U.Scale;
      if (B > 9e18)
        return std::nullopt;
      return static_cast<int64_t>(std::llround(B));
    }
  return std::nullopt;
}

std::optional<Number> toml_support::parseNumberWithUnit(llvm::StringRef S) {
  if (auto D = parseDuration(S))
    return Number{double(*D), NumberUnit::Duration};
  if (auto Sh = parseShare(S))
    return Number{*Sh, NumberUnit::Share};
  if (auto B = parseBytes(S))
    return Number{double(*B), NumberUnit::Bytes};
  return std::nullopt;
}

OptionValue toml_support::toOptionValue(const toml::node &N, NumberUnit &Unit) {
  Unit = NumberUnit::Plain;
  if (const auto *I = N.as_integer())
    return double(I->get());
  if (const auto *F = N.as_floating_point())
    return F->get();
  if (const auto *B = N.as_boolean())
    return B->get();
  if (const auto *S = N.as_string()) {
    std::string Text(S->get());
    if (auto Num = parseNumberWithUnit(Text)) {
      Unit = Num->Unit;
      return Num->Value;
    }
    return Text;
  }
  return std::string();
}

SelectorKind toml_support::classifySelector(llvm::StringRef S) {
  if (S == "ALL")
    return SelectorKind::All;
  if (S.size() == 1 && !familyName(S[0]).empty())
    return SelectorKind::Family;
  if (isValidCode(S))
    return SelectorKind::Code;
  if (isValidRuleName(S))
    return SelectorKind::Name;
  return SelectorKind::Invalid;
}
