//===- rules/Detector.h - C++ detectors named from TOML ---------*- C++ -*-===//
//
// Where the declarative signature language cannot express a rule, its TOML
// names a detector (`[signature] detector = "launch-bound-short-kernels"`,
// the rule's own name). A detector reads the trace index and the rule's
// options and reports detections; the engine renders the rule's texts, ranks
// and fingerprints them. The detector of rule NAME in family F is the
// function runCamelName in rules/F/CamelName.cpp; the registry is generated
// from the rule files at build time (GenerateRegistry.cmake), so code, name,
// file and function cannot drift apart.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_RULES_DETECTOR_H
#define TRACELINT_RULES_DETECTOR_H

#include "analysis/TraceIndex.h"
#include "rules/Finding.h"
#include "rules/RuleSpec.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <vector>

namespace tracelint::analysis {
struct JobAnalysis; // analysis/JobAnalysis.h: only job detectors include it
} // namespace tracelint::analysis

namespace tracelint::rules {

/// What running a rule on a trace came to: it ran (and its detections, if
/// any, are the findings), or it could not judge the trace, or what it looks
/// at does not occur in the trace.
class Outcome {
public:
  static Outcome ran() { return {}; }
  /// The trace lacks data the rule needs beyond what RuleSpec::Needs checks;
  /// \p Why says what, and which profiler option records it.
  static Outcome cannotJudge(std::string Why) {
    return {SkipKind::CannotJudge, std::move(Why)};
  }
  /// The rule's subject does not occur (no optimizer, a single rank).
  static Outcome notApplicable(std::string Why) {
    return {SkipKind::NotApplicable, std::move(Why)};
  }
  /// The rule judged the trace and found nothing to report; \p Why says
  /// why in a few words ("under its 10 % floor: 7.2 %"), for the target
  /// line when the rule's idle cause stands there unclaimed.
  static Outcome quiet(std::string Why) {
    Outcome O;
    O.Why = std::move(Why);
    return O;
  }

  bool judged() const { return !Kind; }
  SkipKind kind() const { return *Kind; }
  /// The skip reason, or a quiet rule's note.
  const std::string &reason() const { return Why; }

private:
  Outcome() = default;
  Outcome(SkipKind K, std::string W) : Kind(K), Why(std::move(W)) {}
  std::optional<SkipKind> Kind;
  std::string Why;
};

/// Runs one detector over the trace index with the rule's options (every
/// option its TOML declares, defaults overridden by configuration) and
/// appends zero or more detections to \p Out.
using DetectorFn = Outcome (*)(const analysis::TraceIndex &Ctx,
                               const RuleOptions &Opts,
                               std::vector<Detection> &Out);

struct DetectorEntry {
  llvm::StringRef Name;
  DetectorFn Run;
};

/// Every registered detector, sorted by name.
llvm::ArrayRef<DetectorEntry> detectors();
/// The generated table behind detectors() (BuiltinDetectors.cpp).
llvm::ArrayRef<DetectorEntry> detectorTable();
/// The detector with this name, or nullptr.
DetectorFn findDetector(llvm::StringRef Name);

/// A job detector ([signature] input = "job", docs/writing-rules.md) reads
/// the joined ranks of a job instead of one trace: it runs once per
/// `lint --job`, never on a single trace.
using JobDetectorFn = Outcome (*)(const analysis::JobAnalysis &Job,
                                  const RuleOptions &Opts,
                                  std::vector<Detection> &Out);

struct JobDetectorEntry {
  llvm::StringRef Name;
  JobDetectorFn Run;
};

/// The generated table of job detectors (BuiltinDetectors.cpp), sorted by
/// name.
llvm::ArrayRef<JobDetectorEntry> jobDetectorTable();
/// The job detector with this name, or nullptr.
JobDetectorFn findJobDetector(llvm::StringRef Name);

} // namespace tracelint::rules

#endif
