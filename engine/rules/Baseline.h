//===- rules/Baseline.h - Accepted findings, for the CI ratchet -*- C++ -*-===//
//
// A baseline records the findings a team has accepted, by fingerprint (rule
// code + normalised subject, never a timestamp or an id), with how often each
// occurred and its largest impact. `lint --baseline F` then reports only what
// is new, or what grew beyond a tolerance, so that CI fails on new problems
// only.
//
// The file is JSON meant to be read by people and kept in version control:
// keys sorted, one finding per line (so that a diff shows one line per
// change), findings sorted by code then fingerprint, and a format version.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_RULES_BASELINE_H
#define TRACELINT_RULES_BASELINE_H

#include "rules/Finding.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace tracelint::rules {

struct BaselineEntry {
  std::string Code, Name, Subject, Fingerprint;
  Severity Sev = Severity::Warning;
  /// How many findings had this fingerprint (over every trace recorded).
  uint64_t Count = 0;
  /// The largest impact among them, in ns.
  int64_t ImpactNs = 0;
};

/// Where a finding stands against a baseline.
enum class BaselineState : uint8_t {
  New,       ///< its fingerprint is not in the baseline
  Grown,     ///< known, but its impact grew beyond the tolerance
  Unchanged, ///< known, within the tolerance
};
llvm::StringRef baselineStateName(BaselineState S);

class Baseline {
public:
  /// The version written; files of another version are rejected.
  static constexpr int64_t FormatVersion = 1;

  /// Records \p Findings: one entry per fingerprint.
  void add(llvm::ArrayRef<Finding> Findings);

  /// Parses a baseline file's text; errors name \p Path and the entry.
  static llvm::Expected<Baseline> parse(llvm::StringRef Text,
                                        llvm::StringRef Path);
  /// Reads and parses \p Path.
  static llvm::Expected<Baseline> load(llvm::StringRef Path);

  void write(llvm::raw_ostream &OS) const;

  /// New when the fingerprint is unknown; Grown when the impact exceeds the
  /// recorded one by more than \p Tolerance (0.25: 25 % more).
  BaselineState classify(const Finding &F, double Tolerance) const;

  const BaselineEntry *find(llvm::StringRef Fingerprint) const;
  size_t size() const { return Entries.size(); }
  /// Sorted by code, then fingerprint.
  std::vector<BaselineEntry> entries() const;

private:
  std::map<std::string, BaselineEntry> Entries; ///< by fingerprint
};

} // namespace tracelint::rules

#endif
