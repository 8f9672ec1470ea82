//===- fuzz/FuzzLint.h - Run the analyses on an imported trace --*- C++ -*-===//
//
// What `lint` and `stats` compute for a trace, for the importer fuzzers:
// statistics, the analysis context, every built-in rule, and the escaping
// every trace string goes through on its way into a text, JSON, XML or
// Markdown report, so that a fuzzed trace exercises the code after the
// import too. The report writers themselves are not linked (see
// fuzz/CMakeLists.txt for why).
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_FUZZ_FUZZLINT_H
#define TRACELINT_FUZZ_FUZZLINT_H

#include "analysis/TraceIndex.h"
#include "analysis/Stats.h"
#include "model/Trace.h"
#include "support/Escape.h"
#include "support/Format.h"
#include "rules/Catalogue.h"
#include "rules/Config.h"
#include "rules/Engine.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

namespace tracelint::fuzz {

/// The built-in catalogue, loaded once; a failure is a bug in the build.
inline const rules::Catalogue &builtinRules() {
  static rules::Catalogue *Rules = [] {
    auto C = rules::Catalogue::builtin();
    if (!C) {
      llvm::errs() << llvm::toString(C.takeError()) << "\n";
      std::abort();
    }
    return new rules::Catalogue(std::move(*C));
  }();
  return *Rules;
}

/// Escapes \p S for every output format.
inline size_t escapeAll(llvm::StringRef S) {
  return support::sanitize(S).size() + support::jsonText(S).size() +
         support::xmlText(S).size() + support::markdownText(S).size() +
         support::markdownCode(S, /*InTable=*/true).size();
}

inline void lintTrace(const model::Trace &T, llvm::StringRef Name) {
  analysis::TraceStats Stats = analysis::computeStats(T);
  (void)Stats;
  analysis::TraceIndex Ctx(T);
  rules::Config Cfg;
  rules::LintResult Result = rules::runRules(Ctx, builtinRules(), Cfg, Name);
  size_t Bytes = 0;
  for (const rules::Finding &F : Result.Findings) {
    Bytes += escapeAll(F.Hypothesis) + escapeAll(F.Subject);
    for (const std::string &E : F.Evidence)
      Bytes += escapeAll(E);
  }
  for (const std::string &N : Result.QualityNotes)
    Bytes += escapeAll(N);
  (void)Bytes;
}

} // namespace tracelint::fuzz

#endif
