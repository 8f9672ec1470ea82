//===- rules/RuleSpec.h - A rule as data ------------------------*- C++ -*-===//
//
// A rule is data: one TOML file per rule (rules/<family>/<CODE>-<name>.toml,
// schema in docs/rule-format.md) holding its identity, options, signature and
// texts. The catalogue is compiled into the binary and can be extended or
// overridden by user files; nothing here knows trace file formats.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_RULES_RULESPEC_H
#define TRACELINT_RULES_RULESPEC_H

#include "analysis/Producer.h"
#include "analysis/WhatIf.h"
#include "model/Event.h"
#include "model/Trace.h"
#include "rules/detectors/DevicePeaks.h"

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace tracelint::rules {

enum class Severity : uint8_t { Info, Warning, Error };
llvm::StringRef severityName(Severity S);
std::optional<Severity> parseSeverity(llvm::StringRef S);

/// Where severity follows impact (docs/rule-format.md, "Severity"): a
/// rule's TOML severity is a floor, and a finding rises to warning when it
/// claims at least WarningShare of the target at confidence
/// WarningConfidence or more, and to error at ErrorShare and
/// ErrorConfidence. A user's severity for the rule (tracelint.toml) is kept
/// as it is.
struct SeverityLevels {
  static constexpr double WarningShare = 0.20, WarningConfidence = 0.4;
  static constexpr double ErrorShare = 0.50, ErrorConfidence = 0.6;
};
/// \p Floor raised by \p ImpactShare (of the target) and \p Confidence
/// as SeverityLevels says; never lowered.
Severity severityForImpact(Severity Floor, double ImpactShare,
                           double Confidence);

enum class RuleStatus : uint8_t { Preview, Stable };

/// What a rule needs from a trace. When the trace lacks it the rule does not
/// run and the report says that it could not judge, and why.
enum class Need : uint8_t {
  DeviceActivity, ///< kernels/copies were recorded
  Launches,       ///< host runtime calls were recorded
  Correlation,    ///< host calls link to device work
  Steps,          ///< ProfilerStep markers (or --step ranges)
  Shapes,         ///< record_shapes
  Stacks,         ///< with_stack
  Memory,         ///< profile_memory
  /// A steady-state window: steps, or a window that is not mostly start-up
  /// (graph capture, context creation, compilation; see U001).
  SteadyState,
};
constexpr unsigned NumNeeds = unsigned(Need::SteadyState) + 1;
llvm::StringRef needName(Need N);
std::optional<Need> parseNeed(llvm::StringRef S);

/// An option value: a number (durations are ns, shares are fractions), a
/// string, or a boolean.
using OptionValue = std::variant<double, std::string, bool>;

/// How a number was written, so that it is shown the same way: a duration
/// ("2ms", stored in ns), a share ("5%", stored as 0.05), a size ("1MB",
/// stored in bytes) or a plain number.
enum class NumberUnit : uint8_t { Plain, Duration, Share, Bytes };

struct OptionSpec {
  std::string Name;
  OptionValue Default;
  std::string Description;             ///< what it controls
  std::string Why;                     ///< why the default is what it is
  NumberUnit Unit = NumberUnit::Plain; ///< for numbers: how to show them
};

/// The declarative part of a signature: which events to select.
struct Selector {
  std::vector<model::EventKind> Kinds; ///< empty: any kind
  std::vector<std::string> Names;      ///< exact names or globs (*, ?)
  std::string NameRegex;               ///< empty: none (checked linearly)
  std::optional<model::LaneKind> Lane;
  std::optional<int64_t> MinDurationNs, MaxDurationNs;
  std::optional<model::CopyKind> Copy;
  std::optional<model::MemoryKind> Src, Dst;
  std::optional<int64_t> MinBytes, MaxBytes;
  enum class Where : uint8_t { Anywhere, InsideSteps, OutsideSteps };
  Where Inside = Where::Anywhere;
  enum class Which : uint8_t { AllSteps, FirstStep, AfterFirstStep };
  Which StepsSelected = Which::AllSteps;
  /// Bounds given as the name of an option instead of a literal, resolved
  /// from the run's options: key "min-duration", "max-duration", "min-bytes"
  /// or "max-bytes"; value the option's name.
  std::map<std::string, std::string> BoundOptions;
};

/// How selected events are reduced to values, and when the rule fires.
struct Aggregation {
  enum class Per : uint8_t { Trace, Step, Name };
  enum class Value : uint8_t {
    Count,
    SumDuration,
    MaxDuration,
    UnionDuration,
    SumBytes
  };
  /// Statistic over the per-group values that is compared.
  enum class Statistic : uint8_t { Max, Median, Min, Total, Any };
  enum class Compare : uint8_t { Greater, GreaterEqual, Less, LessEqual };
  /// What a threshold given as a share is a share of.
  enum class RelativeTo : uint8_t { None, Step, DeviceBusy, Window };

  Per GroupBy = Per::Trace;
  Value Measure = Value::Count;
  Statistic Over = Statistic::Max;
  Compare Op = Compare::GreaterEqual;
  /// Threshold: a literal number, or the name of an option holding it.
  std::variant<double, std::string> Threshold = 1.0;
  RelativeTo Relative = RelativeTo::None;
};

struct Signature {
  /// A C++ detector for rules the declarative language cannot express;
  /// empty when the signature is declarative.
  std::string Detector;
  /// The detector reads a job (`input = "job"`: analysis/JobAnalysis.h)
  /// rather than one trace; such a rule runs only under `lint --job`.
  bool JobInput = false;
  /// What the rule's findings blame, as a what-if query on the critical
  /// path ("category:wait"); empty: the detector's own bound stands.
  analysis::WhatIfQuery WhatIf;
  /// What the rule's findings claim, as a noun the reports fold by ("wait",
  /// "collective"; `[signature] claims`): findings of rules that claim the
  /// same kind, whose example events overlap in time, describe one thing,
  /// and the one with the largest impact carries the card (report/
  /// SameClaim.h). Empty: the rule's findings stand alone.
  std::string Claims;
  Selector Select;
  Aggregation Aggregate;
};

struct Experiment {
  std::string Change;        ///< the one variable to change
  std::string PredictTrace;  ///< the trace feature that should appear/vanish
  std::string PredictMetric; ///< the metric change, with its bound
  std::string Verify;        ///< how to verify outside the profiler
  std::string RefutedIf;     ///< what result refutes the hypothesis
  /// The machine-checkable form of PredictTrace, for `tracelint diff`: a
  /// feature name (analysis/TraceFeatures.h) and how it moves ("decrease",
  /// "vanish", "increase", "appear"); both empty when the rule declares none.
  std::string PredictFeature;
  std::string PredictChange;
};

/// The texts a rule shows for one producer (analysis/Producer.h), each
/// replacing the rule's default when set: `[producer.NAME.text]` and
/// `[producer.NAME.experiment]`. The checkable prediction (predict-feature,
/// predict-change) is the rule's own and has no override: the experiment
/// changes the same thing whatever the program's language.
struct ProducerTexts {
  analysis::ProducerKind Producer = analysis::ProducerKind::Unknown;
  std::optional<std::string> Hypothesis;
  std::optional<std::vector<std::string>> Evidence, Alternatives;
  std::optional<std::string> Change, PredictTrace, PredictMetric, Verify,
      RefutedIf;
};

/// A rule's texts as shown for one producer.
struct RuleTexts {
  std::string Hypothesis;
  std::vector<std::string> Evidence;
  std::vector<std::string> Alternatives;
  Experiment Next;
};

struct RuleSpec {
  std::string Code; ///< family letter + three digits, e.g. "S001"
  std::string Name; ///< kebab-case, names the pattern
  std::string Summary;
  RuleStatus Status = RuleStatus::Preview;
  Severity DefaultSeverity = Severity::Warning;
  std::vector<Need> Needs;
  std::vector<OptionSpec> Options;
  Signature Sig;
  // Texts; {placeholders} are filled from the finding's values.
  std::string Hypothesis;
  std::vector<std::string> Evidence;
  std::vector<std::string> Alternatives;
  Experiment Next;
  // Documentation sections (docs/rules/<CODE>.md and `tracelint explain`).
  std::string WhatItDetects, WhyItMatters, KnownFalsePositives, RealTraces;
  /// Where the spec came from: "builtin:rules/S/S001-...toml" or a path.
  std::string Origin;
  /// The producers whose programs the rule looks at (`producers`); empty:
  /// all. A rule about torch.compile or the DataLoader does not apply to a
  /// CUDA C++ program, and says so instead of running.
  std::vector<analysis::ProducerKind> Producers;
  /// Per-producer overrides of the texts above, in textProducers() order.
  std::vector<ProducerTexts> ByProducer;

  char family() const { return Code.empty() ? '?' : Code[0]; }
  const OptionSpec *option(llvm::StringRef Name) const;
  /// The overrides for \p P, or null.
  const ProducerTexts *overridesFor(analysis::ProducerKind P) const;
  /// The texts for a trace of producer \p P: each text from P's overrides,
  /// else from its fallback's (producerFallback), else the default.
  RuleTexts textsFor(analysis::ProducerKind P) const;
};

/// Option values for one run of a rule: defaults overridden by configuration.
class RuleOptions {
public:
  RuleOptions() = default;
  explicit RuleOptions(const RuleSpec &Spec);
  void set(llvm::StringRef Name, OptionValue V) { Values[Name.str()] = V; }
  double number(llvm::StringRef Name) const;
  std::string string(llvm::StringRef Name) const;
  bool flag(llvm::StringRef Name) const;
  bool has(llvm::StringRef Name) const { return Values.count(Name.str()); }
  const std::map<std::string, OptionValue> &all() const { return Values; }
  /// The device peaks tracelint.toml gives ([devices."NAME"]), for the
  /// rules that set kernels against a device's roofs.
  llvm::ArrayRef<detect::DevicePeaks> devicePeaks() const { return Peaks; }
  void setDevicePeaks(std::vector<detect::DevicePeaks> P) {
    Peaks = std::move(P);
  }

private:
  std::map<std::string, OptionValue> Values;
  std::vector<detect::DevicePeaks> Peaks;
};

/// One-letter families (DESIGN.md section 5).
llvm::StringRef familyName(char Family);
bool isValidCode(llvm::StringRef Code);
bool isValidRuleName(llvm::StringRef Name);

} // namespace tracelint::rules

#endif
