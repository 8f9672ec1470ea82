//===- rules/Finding.h - A ranked hypothesis --------------------*- C++ -*-===//
//
// A finding is a hypothesis, not a verdict: it carries the evidence, the
// alternatives the trace cannot rule out, the one experiment that would
// decide, the impact bounded by the target metric, and a fingerprint that is
// stable across runs of the same workload (code + normalised subject, never
// a timestamp or an id).
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_RULES_FINDING_H
#define TRACELINT_RULES_FINDING_H

#include "rules/RuleSpec.h"
#include "rules/Value.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tracelint::rules {

/// An event the user can find in Perfetto: its name, lane and start time in
/// the trace's own clock (microseconds, as the trace writes them) and from
/// the trace's first event (what the text reports print).
struct ExampleEvent {
  std::string Name;
  std::string Lane;
  double TraceTimestampUs = 0; ///< absolute, as in the file's "ts"
  /// From the trace's first event, as Perfetto's timeline shows it.
  int64_t OffsetNs = 0;
  int64_t DurationNs = 0;
};

/// What a detector (or the declarative evaluator) reports; the engine turns
/// it into a Finding by rendering the rule's texts.
struct Detection {
  /// Values for the {placeholders} of the rule's texts: typed numbers
  /// (Value::duration, share, bytes, count) or text. The reports write the
  /// numbers; the texts show them through support/Format.h.
  std::map<std::string, Value> Values;
  /// Extra evidence lines beyond the rule's templated ones.
  std::vector<std::string> ExtraEvidence;
  /// Upper bound of the gain on the target metric, in ns.
  int64_t ImpactNs = 0;
  /// 0..1: how strongly the trace supports the hypothesis.
  double Confidence = 0.5;
  /// Normalised subject for the fingerprint (op path, kernel family, copy
  /// kind...). Never a timestamp.
  std::string Subject;
  /// Which steps the evidence comes from, e.g. "steps 6-10".
  std::string Window;
  std::vector<ExampleEvent> Examples;
  /// A job finding's collective: its index in JobAnalysis::Collectives (the
  /// one the evidence names, whose late rank is the rank the finding is
  /// about; the HTML report draws its per-rank lanes), or -1.
  int64_t Collective = -1;
  /// Overrides the rule's default severity (e.g. a teardown flush is info).
  std::optional<Severity> SeverityOverride;
  /// Notes on why confidence was lowered.
  std::vector<std::string> ConfidenceNotes;
  /// The finding's own figure in each measured window (parallel to
  /// MeasureWindows::Ranges), when the detector has it: the spread the
  /// baseline's noise model reads. Empty: the figure alone.
  std::vector<int64_t> PerWindowNs;
  /// What the finding blames as a what-if query on the critical path (the
  /// ops, kernels or categories of time it would remove); empty: the rule's
  /// [signature] what-if, if any. The engine caps ImpactNs by the gain the
  /// path predicts without that time (docs/path.md).
  analysis::WhatIfQuery PathQuery;
};

/// Where a finding stands against a `lint --baseline` (rules/Baseline.h and
/// docs/ci.md, "The noise model").
enum class BaselineState : uint8_t {
  /// Its fingerprint is not in the baseline, and it clears its rule's gate
  /// by BaselineMargins::NewShare: it counts for --fail-on.
  New,
  /// Not in the baseline, but within NewShare of its rule's gate: a finding
  /// that flickers at its threshold between captures. Shown, marked, and
  /// never fails the run.
  NearFloor,
  /// In the baseline, and its impact grew beyond the baseline's spread: it
  /// counts for --fail-on.
  Grew,
  /// In the baseline, within its noise: counted, not shown.
  Known,
};
/// "new", "near-floor", "grew", "known": the JSON and SARIF name.
llvm::StringRef baselineStateName(BaselineState S);
/// "new", "new near its floor", "grew beyond noise", "known": the words the
/// text, Markdown and JUnit reports mark a finding with.
llvm::StringRef baselineStateWords(BaselineState S);

/// What a --baseline made of one result's findings: the summary line
/// "2 new, 1 grew beyond noise, 5 known" of every report.
struct BaselineTally {
  std::string File; ///< the baseline, as given
  size_t New = 0, NearFloor = 0, Grew = 0, Known = 0;
  void count(BaselineState S) {
    (S == BaselineState::New         ? New
     : S == BaselineState::NearFloor ? NearFloor
     : S == BaselineState::Grew      ? Grew
                                     : Known)++;
  }
  /// "2 new, 0 grew beyond noise, 1 new near its floor (not failing), 5
  /// known (not shown)": new and grew always, the others when they occur.
  std::string describe() const;
};

struct Finding {
  std::string Code, Name;
  Severity Sev = Severity::Warning;
  double Confidence = 0.5;
  int64_t ImpactNs = 0;
  double ImpactShare = 0; ///< of the target metric
  /// The detector's figure, clipped to the target, before the critical
  /// path's cap: what the finding claims of the time it describes.
  int64_t DetectorImpactNs = 0;
  /// The impact's spread over the steady steps: its lower and upper
  /// quartiles and how many steps it was measured over. Where the path caps
  /// the impact, the quartiles of the per-step gains; where the detector
  /// gives per-window figures (Detection::PerWindowNs), theirs; otherwise
  /// the impact itself (no spread known). The baseline's noise model reads
  /// them (rules/Baseline.h).
  int64_t ImpactQ1Ns = 0, ImpactQ3Ns = 0;
  uint64_t ImpactSteps = 0;
  /// Where the quartiles come from: "critical path" (per-step gains),
  /// "detector" (its per-window figures) or "none" (the impact alone).
  llvm::StringRef ImpactSpreadFrom = "none";
  /// The quartiles, or the impact itself when no spread was measured.
  int64_t impactQ1() const { return ImpactSteps ? ImpactQ1Ns : ImpactNs; }
  int64_t impactQ3() const { return ImpactSteps ? ImpactQ3Ns : ImpactNs; }
  /// How far the finding clears the gate its rule fired at: the measured
  /// share over the rule's threshold (the detector's {share} or {value}
  /// over its {threshold}, both shares); 0 when the rule names no gate. A
  /// new finding under 1 + BaselineMargins::NewShare is NearFloor.
  double GateMargin = 0;
  /// Set by a --baseline (rules::applyBaseline); none without one.
  std::optional<BaselineState> BaselineMark;
  std::string Window;
  std::string Hypothesis;
  /// Every value the texts were rendered from, typed (impact included):
  /// the JSON and SARIF reports carry them as numbers.
  std::map<std::string, Value> Values;
  std::vector<std::string> Evidence;
  std::vector<std::string> Alternatives;
  Experiment Next;
  std::vector<ExampleEvent> Examples;
  int64_t Collective = -1; ///< as Detection::Collective
  std::vector<std::string> ConfidenceNotes;
  std::string Subject;
  std::string Fingerprint;
  /// The rule's `[signature] claims` (RuleSpec.h): what it describes, for
  /// folding findings about one thing.
  std::string Claims;
  /// The critical-path bound of the impact (median over the steady steps of
  /// the gain without PathQuery), or -1 when none was computed.
  int64_t PathBoundNs = -1;
  std::string PathQuery; ///< the query, described; empty without a bound
  /// When the path's bound is under half of the detector's figure: one
  /// sentence on where the rest goes ("only 12.8 ms of the 34.6 ms would
  /// come back: without ... the critical path still runs through ..."),
  /// shown in every card, not only with --verbose.
  std::string RestNote;

  /// Ranking key: impact x confidence, ties by code then subject.
  double score() const { return double(ImpactNs) * Confidence; }
  /// Whether --fail-on judges it: always without a baseline; against one,
  /// only when it is new or grew (not when it is near its floor or known).
  bool countsForFailure() const {
    return !BaselineMark || *BaselineMark == BaselineState::New ||
           *BaselineMark == BaselineState::Grew;
  }
};

/// Why a rule produced no finding without judging the trace.
enum class SkipKind : uint8_t {
  /// The trace lacks data the rule needs (device activity, correlation,
  /// shapes...): the reason names the profiler option that records it.
  CannotJudge,
  /// What the rule looks at does not occur in this trace (no optimizer in
  /// an inference step, one rank): there is nothing to judge.
  NotApplicable,
};
llvm::StringRef skipKindName(SkipKind K);

/// A rule that could not run on this trace, and why.
struct Skipped {
  std::string Code, Name;
  SkipKind Kind = SkipKind::CannotJudge;
  std::string Reason; ///< "the trace has no device activity; record ..."
};

} // namespace tracelint::rules

#endif
