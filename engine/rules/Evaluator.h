//===- rules/Evaluator.h - Declarative signatures ---------------*- C++ -*-===//
//
// Runs a rule whose signature is declarative (select -> aggregate ->
// fires-when, docs/rule-format.md). Same contract as a C++ detector: it
// appends detections, or says why it could not judge the trace.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_RULES_EVALUATOR_H
#define TRACELINT_RULES_EVALUATOR_H

#include "analysis/TraceIndex.h"
#include "rules/Detector.h"
#include "rules/Finding.h"
#include "rules/RuleSpec.h"

#include <string>
#include <vector>

namespace tracelint::rules {

/// Confidence of a declarative rule's findings unless the rule has an option
/// named "confidence".
constexpr double DeclarativeConfidence = 0.6;
/// At most this many detections per rule with per = "name" (the largest
/// values first, for `>`/`>=` comparisons).
constexpr size_t MaxDetectionsPerRule = 20;

Outcome evaluateSignature(const analysis::TraceIndex &Ctx, const RuleSpec &Spec,
                          const RuleOptions &Opts, std::vector<Detection> &Out);

} // namespace tracelint::rules

#endif
