//===- rules/Config.h - tracelint.toml --------------------------*- C++ -*-===//
//
// Which rules run, with which options and severities. Selectors take a code
// ("S001"), a family letter ("S") or a rule name ("sync-long-host-wait").
// Precedence follows ruff: ignore wins over select, and a more specific
// selector (code or name over family, family over "ALL") wins over a less
// specific one.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_RULES_CONFIG_H
#define TRACELINT_RULES_CONFIG_H

#include "model/NameClasses.h"
#include "rules/Catalogue.h"
#include "rules/RuleSpec.h"
#include "rules/detectors/DevicePeaks.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tracelint::rules {

struct RuleSettings {
  std::optional<Severity> SeverityOverride;
  std::map<std::string, OptionValue> Options;
};

struct TraceIgnore {
  std::string Glob;                   ///< matched against the trace path
  std::vector<std::string> Selectors; ///< rules ignored for those traces
};

struct Config {
  std::string Path; ///< the file it came from, or "" for defaults
  std::vector<std::string> Select = {"ALL"};
  std::vector<std::string> Ignore;
  std::vector<std::string> ExtendSelect;
  std::map<std::string, RuleSettings> PerRule; ///< keyed by code
  std::vector<TraceIgnore> PerTraceIgnores;
  std::vector<std::string> RuleDirs; ///< extra rule directories
  std::vector<RuleSpec> InlineRules; ///< [[rule]] tables
  /// Cap each finding's impact by its critical-path what-if bound (lint
  /// --path-bounds; on by default).
  bool PathBounds = true;
  /// Threads the rules run on (lint -j, TRACELINT_JOBS); 0: every core.
  unsigned Jobs = 0;
  /// What each name is: the built-in name classes changed by the file's
  /// [names] table (docs/configuration.md), and the classifier made from
  /// them (the built-in one without a [names] table).
  model::NameClassChanges NameChanges;
  std::shared_ptr<const model::NameClassifier> Names =
      model::NameClassifier::builtin();
  /// The [devices."NAME"] tables: peaks of parts the built-in table does not
  /// know, or figures that replace its own (docs/device-peaks.md), by
  /// name.
  std::vector<detect::DevicePeaks> DevicePeaks;
  /// Command-line selectors, a second layer over the file's (ruff-like: a
  /// command-line --select starts a new selection; --ignore alone removes
  /// rules from the file's selection).
  std::optional<std::vector<std::string>> CommandLineSelect;
  std::vector<std::string> CommandLineIgnore;

  /// Parses tracelint.toml text. Unknown keys, unknown codes (checked
  /// against \p Known after inline rules are added) and bad values are errors
  /// naming the file, line and column.
  static llvm::Expected<Config>
  parse(llvm::StringRef Text, llvm::StringRef Path, const Catalogue &Known);
  /// The tracelint.toml found upward from \p StartDir, if any.
  static std::optional<std::string> findUpward(llvm::StringRef StartDir);

  /// Adds the rules this configuration brings (rule-dirs, then [[rule]]
  /// tables) to \p Cat.
  llvm::Error addRulesTo(Catalogue &Cat) const;

  /// Checks selectors given outside a file (--select, --ignore): each must
  /// be "ALL", a family letter, or the code or name of a rule in \p Known.
  static llvm::Error checkSelectors(llvm::ArrayRef<std::string> Selectors,
                                    const Catalogue &Known,
                                    llvm::StringRef Option);

  /// Applies command-line selectors on top (they take precedence).
  void applyCommandLine(llvm::ArrayRef<std::string> Select,
                        llvm::ArrayRef<std::string> Ignore);

  /// Whether \p Spec runs on the trace at \p TracePath.
  bool isEnabled(const RuleSpec &Spec, llvm::StringRef TracePath) const;
  /// Options of \p Spec after configuration.
  RuleOptions optionsFor(const RuleSpec &Spec) const;
  Severity severityFor(const RuleSpec &Spec) const;
};

} // namespace tracelint::rules

#endif
