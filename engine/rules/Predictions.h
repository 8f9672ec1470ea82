//===- rules/Predictions.h - Did a finding's prediction hold? ---*- C++ -*-===//
//
// A trace explanation is strongest when both the predicted trace feature and
// the completion metric move as expected. For each finding of the trace
// recorded before a change, this measures the feature its rule declares
// ([experiment] predict-feature / predict-change) on both traces and
// compares the target metric against the finding's impact bound.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_RULES_PREDICTIONS_H
#define TRACELINT_RULES_PREDICTIONS_H

#include "analysis/TraceDiff.h"
#include "analysis/TraceFeatures.h"
#include "rules/Catalogue.h"
#include "rules/Engine.h"

#include <optional>
#include <string>
#include <vector>

namespace tracelint::rules {

enum class Verdict : uint8_t { Confirmed, NotConfirmed, Inconclusive };
llvm::StringRef verdictName(Verdict V); ///< "confirmed", "not confirmed"...

struct PredictionCheck {
  Finding Before; ///< the finding in the trace before the change
  /// The declared feature and change; empty when the rule declares none.
  std::string Feature, Change;
  bool FeatureIsTime = false;
  std::optional<double> FeatureBefore, FeatureAfter;
  std::string FeatureBasis;
  Verdict FeatureVerdict = Verdict::Inconclusive;
  std::string FeatureReason;
  Verdict MetricVerdict = Verdict::Inconclusive;
  std::string MetricReason;
  /// The same fingerprint among the after trace's findings.
  bool StillFound = false;
  int64_t ImpactAfterNs = 0;
  /// Both moved as predicted: Confirmed; either contradicted: NotConfirmed.
  Verdict Overall = Verdict::Inconclusive;
  /// Set when the traces cannot be compared (TraceDiff::NotComparable):
  /// the reason, and Overall stays Inconclusive; nothing "did not hold".
  std::string NotComparable;
};

/// The metric noise floor: 2 % of the before median, or half the larger
/// interquartile range of the step times, whichever is larger.
/// The findings by fingerprint: new in the after trace, gone from the
/// before trace, each list in its own trace's rank order.
struct FindingChanges {
  std::vector<Finding> New, Gone;
};
FindingChanges compareFindings(const LintResult &Before,
                               const LintResult &After);

int64_t metricNoiseNs(const analysis::MetricSummary &Before,
                      const analysis::MetricSummary &After);

/// Judges one measured feature against the predicted change.
Verdict judgeFeature(analysis::FeatureChange Change, double Before,
                     double After, std::string &Reason);

/// Checks every finding of \p Before against the after trace.
std::vector<PredictionCheck>
checkPredictions(const Catalogue &Rules, const analysis::TraceIndex &Before,
                 const LintResult &FoundBefore,
                 const analysis::TraceIndex &After,
                 const LintResult &FoundAfter, const analysis::TraceDiff &Diff);

} // namespace tracelint::rules

#endif
