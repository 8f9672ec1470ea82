//===- report/NameClassesReport.h - `tracelint names` -----------*- C++ -*-===//
//
// The name classes (model/NameClasses.h) as a page: each class's key, what
// it means, and the patterns that put a name in it or keep it out, the
// built-in ones and those a tracelint.toml [names] table adds. The same text
// is docs/name-classes.md (scripts/gen-rule-docs.py keeps it current).
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_REPORT_NAMECLASSESREPORT_H
#define TRACELINT_REPORT_NAMECLASSESREPORT_H

#include "model/NameClasses.h"

#include "llvm/Support/raw_ostream.h"

namespace tracelint::report {

enum class NamesFormat { Text, Markdown, Json };

/// Writes every class with its built-in patterns and, marked as such, the
/// patterns of \p Changes.
void writeNameClasses(llvm::raw_ostream &OS,
                      const model::NameClassChanges &Changes,
                      NamesFormat Format);

} // namespace tracelint::report

#endif
