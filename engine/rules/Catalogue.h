//===- rules/Catalogue.h - The rule catalogue -------------------*- C++ -*-===//
//
// The built-in rules (rules/**/*.toml, compiled into the binary) plus user
// rules from --rules DIR and [[rule]] tables in the configuration. A user
// file with a built-in rule's code replaces it.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_RULES_CATALOGUE_H
#define TRACELINT_RULES_CATALOGUE_H

#include "rules/RuleSpec.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <vector>

namespace tracelint::rules {

class Catalogue {
public:
  /// The built-in rules. Fails only if a built-in file is invalid (a build
  /// error caught by the tests).
  static llvm::Expected<Catalogue> builtin();

  /// Parses one rule file's text. \p Origin names it in messages
  /// ("rules/S/S001-sync-long-host-wait.toml"); errors give line and column.
  static llvm::Expected<RuleSpec> parseRule(llvm::StringRef Text,
                                            llvm::StringRef Origin);

  /// Adds or replaces (same code) a rule. Rejects a rule whose name belongs
  /// to another code, and an invalid code or name.
  llvm::Error add(RuleSpec Spec);
  /// Loads every *.toml below \p Dir.
  llvm::Error addDirectory(llvm::StringRef Dir);

  const std::vector<RuleSpec> &rules() const { return Rules; }
  /// By code ("S001") or name ("sync-long-host-wait"), exactly as the
  /// catalogue spells them (configuration and selectors).
  const RuleSpec *find(llvm::StringRef CodeOrName) const;
  /// As a person types it: a code or a name in any case ("s001",
  /// "Sync-Long-Host-Wait"), for `tracelint explain`.
  const RuleSpec *lookup(llvm::StringRef CodeOrName) const;

private:
  void inheritFromBuiltinDetector(RuleSpec &Spec) const;
  std::vector<RuleSpec> Rules; ///< sorted by code
};

} // namespace tracelint::rules

#endif
