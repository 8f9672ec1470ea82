//===- report/ShortNames.h - Kernel and op names a reader can scan -*- C++
//-*-===//
//
// Demangled kernel names run to thousands of characters (template arguments,
// parameter lists, lambdas); the text report shows a short, stable form and
// keeps the full name for JSON, SARIF properties and `--long-names`. This is
// the one place that decides what a short name is: every writer that shows a
// name to a reader calls it.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_REPORT_SHORTNAMES_H
#define TRACELINT_REPORT_SHORTNAMES_H

#include "llvm/ADT/StringRef.h"

#include <string>

namespace tracelint::report {

/// Longest short name, in columns; a longer one is cut in the middle.
constexpr size_t MaxShortName = 120;

/// The short form of one kernel or op name: the leading return type and the
/// parameter list dropped, template arguments elided as "<…>" (a wrapper
/// such as `cutlass::Kernel<X>` keeps its one argument, shortened), anonymous
/// namespaces and lambdas dropped, a HIP/Tensile `Cijk_…` name cut after its
/// tile fields, and anything still longer than MaxShortName cut in the
/// middle. Deterministic and idempotent: shortName(shortName(N)) ==
/// shortName(N), so two runs name a kernel the same way.
std::string shortName(llvm::StringRef Name);

/// \p Text (a sentence of a finding) with every C++-like name in it
/// shortened by shortName(); prose, numbers and short identifiers are kept
/// as they are.
std::string shortenNamesIn(llvm::StringRef Text);
/// \p Text as the reports show it: shortenNamesIn(), unless the user asked
/// for names as the trace writes them (`--long-names`).
std::string namesAsShown(llvm::StringRef Text, bool LongNames);

} // namespace tracelint::report

#endif
