//===- rules/TomlSupport.h - Reading TOML strictly --------------*- C++ -*-===//
//
// Internal to the rules library (not installed with the public headers):
// shared by the rule-file loader (Catalogue.cpp) and the configuration
// loader (Config.cpp). tomlplusplus reports syntax errors with exceptions;
// they are caught here, at the call, and become llvm::Error values that name
// the file, line and column. Every other check (unknown keys, types, values)
// reports the same way.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_RULES_TOMLSUPPORT_H
#define TRACELINT_RULES_TOMLSUPPORT_H

#include "rules/RuleSpec.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <toml++/toml.h>

#include <optional>
#include <string>

namespace tracelint::rules::toml_support {

/// Parses \p Text; a syntax error becomes "ORIGIN:LINE:COL: message".
llvm::Expected<toml::table> parse(llvm::StringRef Text, llvm::StringRef Origin);

/// "ORIGIN:LINE:COL: MESSAGE" for the place where \p Region begins.
llvm::Error errorAt(llvm::StringRef Origin, const toml::source_region &Region,
                    const llvm::Twine &Message);

/// "string", "integer", "array"... for messages.
llvm::StringRef typeName(const toml::node &N);

/// Fails on the first key of \p T that is not in \p Allowed, naming the
/// table (\p TableName, e.g. "[signature.select]" or "the top level") and
/// listing the allowed keys.
llvm::Error checkKeys(const toml::table &T,
                      llvm::ArrayRef<llvm::StringRef> Allowed,
                      llvm::StringRef TableName, llvm::StringRef Origin);

/// Reads a string value, or fails with the value's place.
llvm::Expected<std::string> getString(const toml::node &N, llvm::StringRef Key,
                                      llvm::StringRef Origin);
/// A string or an array of strings (a single string is one element).
llvm::Expected<std::vector<std::string>>
getStringList(const toml::node &N, llvm::StringRef Key, llvm::StringRef Origin);

/// "250us", "2 ms", "1.5s", "100ns" -> ns (rounded). Plain numbers in TOML
/// are already ns and are not strings.
std::optional<int64_t> parseDuration(llvm::StringRef S);
/// "2%", "2.5 %" -> 0.02, 0.025.
std::optional<double> parseShare(llvm::StringRef S);
/// "1MB", "512 kB", "4MiB" -> bytes (decimal kB/MB/GB/TB, binary KiB...).
std::optional<int64_t> parseBytes(llvm::StringRef S);

/// A number written as a TOML number or as a duration/share/size string.
struct Number {
  double Value = 0;
  NumberUnit Unit = NumberUnit::Plain;
};
/// The number that \p S spells with a unit, if any.
std::optional<Number> parseNumberWithUnit(llvm::StringRef S);

/// A TOML value as an option value; strings that spell a duration, share or
/// size become numbers.
OptionValue toOptionValue(const toml::node &N, NumberUnit &Unit);

/// Parses one rule table (a rule file's top level, or a [[rule]] table of
/// tracelint.toml). Validates everything the table alone can tell: keys,
/// types, code and name syntax, enums, durations, option references and
/// detector names.
llvm::Expected<RuleSpec> parseRuleTable(const toml::table &T,
                                        llvm::StringRef Origin);

/// The selector kinds of a configuration: "ALL", a family letter, a code or
/// a rule name.
enum class SelectorKind : uint8_t { All, Family, Code, Name, Invalid };
SelectorKind classifySelector(llvm::StringRef S);

} // namespace tracelint::rules::toml_support

#endif
