//===- rules/Baseline.h - Accepted findings, for the CI ratchet -*- C++ -*-===//
//
// A baseline records the findings a team has accepted, by fingerprint (rule
// code + normalised subject, never a timestamp or an id), with how often each
// occurred, its largest impact and the spread of its per-step impacts.
// `lint --baseline F` then reports only what is new, or what grew beyond the
// baseline's noise, so that CI fails on new problems and not on the jitter
// between two captures of one workload (docs/ci.md, "The noise model").
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
  /// The largest impact among them, in ns (each the finding's median over
  /// its steady steps).
  int64_t ImpactNs = 0;
  /// The spread: the lowest lower quartile and the highest upper quartile
  /// of the per-step impacts among them (Finding::ImpactQ1Ns), and how many
  /// steps they were measured over. A version 1 file has no spread: both
  /// quartiles are ImpactNs and Steps is 0.
  int64_t ImpactQ1Ns = 0, ImpactQ3Ns = 0;
  uint64_t Steps = 0;

  /// Where growth starts: the upper Tukey fence of the recorded spread
  /// (Q3 + 1.5 x IQR), or the impact raised by \p Tolerance, whichever is
  /// higher (docs/ci.md, "The noise model").
  int64_t growthFloorNs(double Tolerance) const;
};

/// The margins of the noise model (docs/ci.md, "The noise model").
struct BaselineMargins {
  /// A finding not in the baseline is New only when its measured share is
  /// at least this much above its rule's threshold (Finding::GateMargin);
  /// nearer, it is NearFloor and does not fail.
  static constexpr double NewShare = 0.25;
  /// Tukey's fence: a new capture's lower quartile beyond Q3 + 1.5 x IQR of
  /// the baseline's steps is outside its noise.
  static constexpr double FenceIqrs = 1.5;
  /// Growth under this share of the step cannot be measured (the engine's
  /// floor for capped gains, CappedGainFloor): it is never Grew.
  static constexpr double MeasurableShare = 0.01;
};

class Baseline {
public:
  /// The version written. Version 1 files (no spread) are still read.
  static constexpr int64_t FormatVersion = 2;

  /// Records \p Findings: one entry per fingerprint.
  void add(llvm::ArrayRef<Finding> Findings);

  /// Parses a baseline file's text; errors name \p Path and the entry.
  static llvm::Expected<Baseline> parse(llvm::StringRef Text,
                                        llvm::StringRef Path);
  /// Reads and parses \p Path.
  static llvm::Expected<Baseline> load(llvm::StringRef Path);

  void write(llvm::raw_ostream &OS) const;

  /// Where \p F stands against the baseline: New or NearFloor when its
  /// fingerprint is unknown (by its gate margin); Grew when the lower
  /// quartile of its per-step impacts exceeds the entry's growth floor
  /// (BaselineEntry::growthFloorNs with \p Tolerance) by a measurable amount
  /// (BaselineMargins::MeasurableShare of \p TargetNs); Known otherwise.
  BaselineState classify(const Finding &F, double Tolerance,
                         int64_t TargetNs) const;

  const BaselineEntry *find(llvm::StringRef Fingerprint) const;
  size_t size() const { return Entries.size(); }
  /// Sorted by code, then fingerprint.
  std::vector<BaselineEntry> entries() const;

private:
  std::map<std::string, BaselineEntry> Entries; ///< by fingerprint
};

/// Marks each of \p Findings with its state against \p Known
/// (Finding::BaselineMark), drops the Known ones and counts every state: the
/// one place the ratchet's verdict is made, read by every report.
BaselineTally applyBaseline(const Baseline &Known, llvm::StringRef Path,
                            double Tolerance, int64_t TargetNs,
                            std::vector<Finding> &Findings);

} // namespace tracelint::rules

#endif
