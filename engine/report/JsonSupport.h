//===- report/JsonSupport.h - Numbers and values in JSON reports -*- C++
//-*-===//
//
// What the JSON writers (lint, SARIF, path, diff, rule pages) share: one way
// to write a fraction without binary noise, and one way to write a
// finding's typed values, so that `lint --format json` and SARIF carry the
// same numbers under the same names.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_REPORT_JSONSUPPORT_H
#define TRACELINT_REPORT_JSONSUPPORT_H

#include "rules/Finding.h"
#include "rules/Value.h"

#include "llvm/ADT/ArrayRef.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"

#include <map>
#include <string>

namespace tracelint::report {

/// \p V with at most six decimals and no trailing zeros: 0.42, not
/// 0.41999999999999998; a whole number without a decimal point.
std::string roundedNumber(double V);

/// Writes "Key": roundedNumber(V).
void writeRounded(llvm::json::OStream &J, llvm::StringRef Key, double V);

/// Writes "Key": {"NAME": VALUE, ...}: each value as an object with its
/// number under its unit ("ns", "share", "bytes", "count", "number") or its
/// "text", and, for numbers, "text" as the report shows it:
///   "impact": {"ns": 1750000, "text": "1.75 ms"}
void writeValues(llvm::json::OStream &J, llvm::StringRef Key,
                 const std::map<std::string, rules::Value> &Values);

/// One finding as `lint --format json` writes it (the same schema for a
/// trace's findings and a job's); \p SeeAlso: fingerprints of the findings
/// about the same claim.
/// The "baseline" object of a result: the file and how many findings were
/// new, near their floor, grew and known (rules::BaselineTally).
void writeBaselineJson(llvm::json::OStream &J, const rules::BaselineTally &B);

void writeFindingJson(llvm::json::OStream &J, const rules::Finding &F,
                      llvm::ArrayRef<std::string> SeeAlso = {});

} // namespace tracelint::report

#endif
