//===- cli/RuleSetup.h - Catalogue and configuration for a run --*- C++ -*-===//
#ifndef TRACELINT_CLI_RULESETUP_H
#define TRACELINT_CLI_RULESETUP_H

#include "rules/Catalogue.h"
#include "rules/Config.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace tracelint::cli {

struct RuleSetup {
  rules::Catalogue Rules;
  rules::Config Cfg;
};

/// The built-in rules, the configuration (\p ConfigPath, or tracelint.toml
/// found upward from the working directory unless \p Isolated) with its
/// rule-dirs and [[rule]] tables, and the --rules directories, which are
/// added last and so replace rules of the same code. Every error here is a
/// usage or configuration error (exit code 2).
llvm::Expected<RuleSetup> loadRuleSetup(llvm::StringRef ConfigPath,
                                        bool Isolated,
                                        llvm::ArrayRef<std::string> RuleDirs);

/// The name classes of the configuration found as loadRuleSetup finds it
/// (the built-in ones without a [names] table), for the commands that read
/// no rules (`stats`, `path`): they classify names as `lint` does.
llvm::Expected<std::shared_ptr<const model::NameClassifier>>
loadNameClasses(llvm::StringRef ConfigPath, bool Isolated);

} // namespace tracelint::cli

#endif
