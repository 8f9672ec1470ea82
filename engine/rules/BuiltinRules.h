//===- rules/BuiltinRules.h - The rule files compiled in --------*- C++ -*-===//
//
// The build embeds every rules/<family>/*.toml file into the binary (see
// EmbedRules.cmake), so a fresh build needs no files at run time.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_RULES_BUILTINRULES_H
#define TRACELINT_RULES_BUILTINRULES_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

namespace tracelint::rules {

struct BuiltinRuleFile {
  llvm::StringRef Path; ///< relative to the source tree: "rules/S/S001-...toml"
  llvm::StringRef Text; ///< the file's bytes
};

/// Every embedded rule file, sorted by path.
llvm::ArrayRef<BuiltinRuleFile> builtinRuleFiles();

} // namespace tracelint::rules

#endif
