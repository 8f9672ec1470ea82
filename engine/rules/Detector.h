//===- rules/Detector.h - C++ detectors named from TOML ---------*- C++ -*-===//
//
// Where the declarative signature language cannot express a rule, its TOML
// names a detector (`[signature] detector = "launch-bound"`). A detector reads
// the analysis context and the rule's options and reports detections; the
// engine renders the rule's texts, ranks and fingerprints them. Detectors are
// registered explicitly in one sorted table (Detectors.cpp), with no static
// constructors.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_RULES_DETECTOR_H
#define TRACELINT_RULES_DETECTOR_H

#include "analysis/TraceIndex.h"
#include "rules/Finding.h"
#include "rules/RuleSpec.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <vector>

namespace tracelint::rules {

/// Runs one detector. Appends zero or more detections to \p Out. Returns a
/// "cannot judge" reason instead when the trace cannot support the rule
/// beyond what RuleSpec::Needs already checks (empty string: it ran).
using DetectorFn = std::string (*)(const analysis::TraceIndex &Ctx,
                                   const RuleSpec &Spec,
                                   const RuleOptions &Opts,
                                   std::vector<Detection> &Out);

struct DetectorEntry {
  llvm::StringRef Name;
  DetectorFn Run;
};

/// Every registered detector, sorted by name.
llvm::ArrayRef<DetectorEntry> detectors();
/// The detector with this name, or nullptr.
DetectorFn findDetector(llvm::StringRef Name);

} // namespace tracelint::rules

#endif
