//===- report/RulePage.cpp - `tracelint rules` and `tracelint explain` ----===//
//
// A rule's page is generated from its TOML, like `ruff rule`: the same text
// serves the terminal and, as Markdown, docs/rules/<CODE>.md.
//
//===----------------------------------------------------------------------===//
#include "report/JsonSupport.h"
#include "report/LintReport.h"
#include "support/Format.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

using namespace tracelint;
using namespace tracelint::support;
using namespace tracelint::report;
using rules::Aggregation;
using rules::RuleSpec;
using rules::Selector;

namespace {

constexpr const char *Bold = "\x1b[1m";
constexpr const char *Reset = "\x1b[0m";

llvm::StringRef statusName(rules::RuleStatus S) {
  return S == rules::RuleStatus::Stable ? "stable" : "preview";
}

std::string formatNumber(double V) {
  if (V == double(int64_t(V)))
    return std::to_string(int64_t(V));
  return roundedNumber(V);
}

std::string formatValue(const rules::OptionValue &V, rules::NumberUnit Unit) {
  if (const bool *B = std::get_if<bool>(&V))
    return *B ? "true" : "false";
  if (const std::string *S = std::get_if<std::string>(&V))
    return "\"" + *S + "\"";
  double D = std::get<double>(V);
  switch (Unit) {
  case rules::NumberUnit::Duration:
    return formatDuration(int64_t(D));
  case rules::NumberUnit::Share:
    return formatShare(D);
  case rules::NumberUnit::Bytes:
    return formatBytes(int64_t(D));
  case rules::NumberUnit::Plain:
    break;
  }
  return formatNumber(D);
}

llvm::StringRef measureName(Aggregation::Value V) {
  switch (V) {
  case Aggregation::Value::Count:
    return "count";
  case Aggregation::Value::SumDuration:
    return "sum(duration)";
  case Aggregation::Value::MaxDuration:
    return "max(duration)";
  case Aggregation::Value::UnionDuration:
    return "union(duration)";
  case Aggregation::Value::SumBytes:
    return "sum(bytes)";
  }
  return "";
}

/// The declarative signature in words, or the detector's name.
std::vector<std::string> describeSignature(const RuleSpec &Spec) {
  std::vector<std::string> Lines;
  std::string WhatIf;
  if (!Spec.Sig.WhatIf.empty())
    WhatIf = "impact capped by the critical path without " +
             Spec.Sig.WhatIf.describe() + " (docs/path.md)";
  if (!Spec.Sig.Detector.empty()) {
    Lines.push_back(
        (Spec.Sig.JobInput ? "C++ job detector '" : "C++ detector '") +
        Spec.Sig.Detector +
        (Spec.Sig.JobInput ? "' (reads the ranks of a job under `lint --job`, "
                             "docs/multi-rank.md, and the options below)"
                           : "' (reads the options below)"));
    if (!WhatIf.empty())
      Lines.push_back(WhatIf);
    return Lines;
  }
  const Selector &S = Spec.Sig.Select;
  std::vector<std::string> Sel;
  if (!S.Kinds.empty()) {
    std::vector<std::string> K;
    for (model::EventKind Kind : S.Kinds)
      K.push_back(model::eventKindName(Kind).str());
    Sel.push_back("kind " + llvm::join(K, " or "));
  }
  if (!S.Names.empty())
    Sel.push_back("name " + llvm::join(S.Names, " or "));
  if (!S.NameRegex.empty())
    Sel.push_back("name matching /" + S.NameRegex + "/");
  if (S.Lane)
    Sel.push_back(("on " + model::laneKindName(*S.Lane) + " lanes").str());
  auto Bound = [&](llvm::StringRef Key, const std::optional<int64_t> &V,
                   bool Duration, llvm::StringRef Words) {
    auto It = S.BoundOptions.find(Key.str());
    if (It != S.BoundOptions.end())
      Sel.push_back((Words + " option " + It->second).str());
    else if (V)
      Sel.push_back(
          (Words + " " + (Duration ? formatDuration(*V) : formatBytes(*V)))
              .str());
  };
  Bound("min-duration", S.MinDurationNs, true, "lasting at least");
  Bound("max-duration", S.MaxDurationNs, true, "lasting at most");
  if (S.Copy)
    Sel.push_back(("copy " + model::copyKindName(*S.Copy)).str());
  if (S.Src)
    Sel.push_back(("from " + model::memoryKindName(*S.Src) + " memory").str());
  if (S.Dst)
    Sel.push_back(("to " + model::memoryKindName(*S.Dst) + " memory").str());
  Bound("min-bytes", S.MinBytes, false, "of at least");
  Bound("max-bytes", S.MaxBytes, false, "of at most");
  if (S.Inside == Selector::Where::InsideSteps)
    Sel.push_back("inside steps");
  else if (S.Inside == Selector::Where::OutsideSteps)
    Sel.push_back("outside steps");
  if (S.StepsSelected == Selector::Which::FirstStep)
    Sel.push_back("in the first step");
  else if (S.StepsSelected == Selector::Which::AfterFirstStep)
    Sel.push_back("in the steps after the first");
  Lines.push_back("select events: " +
                  (Sel.empty() ? std::string("all") : llvm::join(Sel, ", ")));

  const Aggregation &A = Spec.Sig.Aggregate;
  llvm::StringRef Per = A.GroupBy == Aggregation::Per::Step ? "per step"
                        : A.GroupBy == Aggregation::Per::Name
                            ? "per name"
                            : "over the trace";
  Lines.push_back(("aggregate: " + measureName(A.Measure) + " " + Per).str());

  llvm::StringRef Stat;
  switch (A.Over) {
  case Aggregation::Statistic::Max:
    Stat = "the largest value";
    break;
  case Aggregation::Statistic::Median:
    Stat = "the median value";
    break;
  case Aggregation::Statistic::Min:
    Stat = "the smallest value";
    break;
  case Aggregation::Statistic::Total:
    Stat = "the total";
    break;
  case Aggregation::Statistic::Any:
    Stat = A.GroupBy == Aggregation::Per::Name ? "a name's value" : "any value";
    break;
  }
  if (A.GroupBy == Aggregation::Per::Trace)
    Stat = "the value";
  llvm::StringRef Op = A.Op == Aggregation::Compare::Greater        ? ">"
                       : A.Op == Aggregation::Compare::GreaterEqual ? ">="
                       : A.Op == Aggregation::Compare::Less         ? "<"
                                                                    : "<=";
  std::string Threshold;
  bool Relative = A.Relative != Aggregation::RelativeTo::None;
  if (const std::string *O = std::get_if<std::string>(&A.Threshold)) {
    Threshold = "option " + *O;
  } else {
    double V = std::get<double>(A.Threshold);
    if (Relative)
      Threshold = formatShare(V);
    else if (A.Measure == Aggregation::Value::Count)
      Threshold = formatNumber(V);
    else if (A.Measure == Aggregation::Value::SumBytes)
      Threshold = formatBytes(int64_t(V));
    else
      Threshold = formatDuration(int64_t(V));
  }
  llvm::StringRef Of;
  switch (A.Relative) {
  case Aggregation::RelativeTo::None:
    break;
  case Aggregation::RelativeTo::Step:
    Of = " of the median step (the window without steps)";
    break;
  case Aggregation::RelativeTo::DeviceBusy:
    Of = " of device busy time";
    break;
  case Aggregation::RelativeTo::Window:
    Of = " of the window";
    break;
  }
  Lines.push_back(
      llvm::formatv("fires when {0} {1} {2}{3}", Stat, Op, Threshold, Of)
          .str());
  if (!WhatIf.empty())
    Lines.push_back(WhatIf);
  return Lines;
}

class PageWriter {
public:
  PageWriter(llvm::raw_ostream &OS, PageFormat Format, bool Color)
      : OS(OS), Md(Format == PageFormat::Markdown), Color(Color && !Md) {}

  void write(const RuleSpec &Spec);
  void writeProducerTexts(const RuleSpec &Spec);

private:
  void heading(llvm::StringRef Title) {
    OS << "\n";
    if (Md) {
      OS << "## " << Title << "\n\n";
      return;
    }
    if (Color)
      OS << Bold << Title << Reset << "\n";
    else
      OS << Title << "\n";
  }
  /// A paragraph of prose; in text form indented by two spaces.
  void para(llvm::StringRef Text) {
    if (Text.empty())
      Text = "Not documented yet.";
    if (Md) {
      OS << Text.trim() << "\n";
      return;
    }
    llvm::StringRef Rest = Text.trim();
    while (!Rest.empty()) {
      auto [Line, Tail] = Rest.split('\n');
      OS << "  " << Line << "\n";
      Rest = Tail;
    }
  }
  void item(llvm::StringRef Label, llvm::StringRef Text) {
    if (Md) {
      OS << "- ";
      if (!Label.empty())
        OS << "**" << Label << "** ";
      OS << (Text.empty() ? "not written" : Text) << "\n";
      return;
    }
    OS << "  - ";
    if (!Label.empty())
      OS << Label << " ";
    OS << (Text.empty() ? "not written" : Text) << "\n";
  }
  /// Template text shown as written; in Markdown, in code spans so that
  /// {placeholders} stay visible.
  std::string tmpl(llvm::StringRef T) {
    if (!Md)
      return T.str();
    // Built piecewise: GCC 12 warns falsely (-Wrestrict) on "`" + string.
    std::string Out(1, '`');
    Out.append(T.data(), T.size());
    Out.push_back('`');
    return Out;
  }

  llvm::raw_ostream &OS;
  bool Md;
  bool Color;
};

void PageWriter::writeProducerTexts(const RuleSpec &Spec) {
  if (Spec.ByProducer.empty())
    return;
  heading("Texts per producer");
  para("The texts above are shown for PyTorch traces and traces whose "
       "producer is unknown. For a trace of another producer (docs/import.md) "
       "these replace them; an OpenMP or OpenACC offload program without "
       "texts of its own gets the CUDA ones.");
  if (Md)
    OS << "\n";
  for (const rules::ProducerTexts &O : Spec.ByProducer) {
    std::string Name = analysis::producerName(O.Producer).str();
    std::string Tag = Md ? tmpl(Name) : Name;
    auto One = [&](llvm::StringRef What, const std::optional<std::string> &T) {
      if (T)
        item(Tag + " " + What.str(), tmpl(*T));
    };
    auto Many = [&](llvm::StringRef What,
                    const std::optional<std::vector<std::string>> &T) {
      if (T)
        for (const std::string &X : *T)
          item(Tag + " " + What.str(), tmpl(X));
    };
    One("hypothesis:", O.Hypothesis);
    Many("evidence:", O.Evidence);
    Many("could also be:", O.Alternatives);
    One("change:", O.Change);
    One("prediction in the trace:", O.PredictTrace);
    One("prediction in the metric:", O.PredictMetric);
    One("verify:", O.Verify);
    One("refuted if:", O.RefutedIf);
  }
}

void PageWriter::write(const RuleSpec &Spec) {
  if (Md) {
    OS << "# " << Spec.Code << " " << Spec.Name << "\n\n";
    OS << "*" << Spec.Summary << "*\n\n";
  } else {
    if (Color)
      OS << Bold << Spec.Code << Reset;
    else
      OS << Spec.Code;
    OS << " [" << Spec.Name << "]\n" << Spec.Summary << "\n\n";
  }
  OS << llvm::formatv("Family {0} ({1}), status {2}, default severity {3}.",
                      Spec.family(), rules::familyName(Spec.family()),
                      statusName(Spec.Status),
                      rules::severityName(Spec.DefaultSeverity));
  if (llvm::StringRef(Spec.Origin).startswith("builtin:"))
    OS << " Built in (" << llvm::StringRef(Spec.Origin).drop_front(8) << ").";
  else if (!Spec.Origin.empty())
    OS << " From " << Spec.Origin << ".";
  if (!Spec.Producers.empty()) {
    std::vector<std::string> Names;
    for (analysis::ProducerKind K : Spec.Producers)
      Names.push_back(analysis::producerTitle(K).str());
    OS << " Applies to " << llvm::join(Names, " and ")
       << " programs only (`producers`).";
  }
  OS << "\n";

  heading("What it detects");
  para(Spec.WhatItDetects);
  heading("Why it matters");
  para(Spec.WhyItMatters);

  heading("Evidence shown");
  item("Hypothesis:", tmpl(Spec.Hypothesis));
  for (const std::string &E : Spec.Evidence)
    item("Evidence:", tmpl(E));
  for (const std::string &A : Spec.Alternatives)
    item("Could also be:", tmpl(A));
  item("Examples:", "up to three events with their Perfetto timestamps");

  heading("Next experiment");
  item("Change:", tmpl(Spec.Next.Change));
  item("Prediction in the trace:", tmpl(Spec.Next.PredictTrace));
  item("Prediction in the metric:", tmpl(Spec.Next.PredictMetric));
  item("Verify:", tmpl(Spec.Next.Verify));
  item("Refuted if:", tmpl(Spec.Next.RefutedIf));
  if (!Spec.Next.PredictFeature.empty())
    item(
        "Checked by tracelint diff:",
        (Md ? "`" + Spec.Next.PredictFeature + "`" : Spec.Next.PredictFeature) +
            " should " + Spec.Next.PredictChange);

  writeProducerTexts(Spec);

  heading("Signature");
  for (const std::string &L : describeSignature(Spec))
    item("", L);

  heading("Options");
  if (Spec.Options.empty()) {
    para("None.");
  } else if (Md) {
    OS << "| Option | Default | Description | Why this default |\n";
    OS << "| --- | --- | --- | --- |\n";
    for (const rules::OptionSpec &O : Spec.Options)
      OS << "| `" << O.Name << "` | " << formatValue(O.Default, O.Unit) << " | "
         << O.Description << " | " << O.Why << " |\n";
  } else {
    for (const rules::OptionSpec &O : Spec.Options) {
      OS << "  " << O.Name << " = " << formatValue(O.Default, O.Unit) << "\n";
      if (!O.Description.empty())
        OS << "      " << O.Description << "\n";
      if (!O.Why.empty())
        OS << "      why this default: " << O.Why << "\n";
    }
  }
  if (!Spec.Options.empty() && !Md)
    OS << "  set in tracelint.toml: [rules." << Spec.Code << "] "
       << Spec.Options.front().Name << " = ...\n";
  if (!Spec.Options.empty() && Md)
    OS << "\nSet them in `tracelint.toml` under `[rules." << Spec.Code
       << "]`.\n";

  heading("Needs");
  if (Spec.Needs.empty())
    para("Nothing beyond the events themselves.");
  for (rules::Need N : Spec.Needs)
    item((rules::needName(N) + ":").str(), rules::needDescription(N));
  if (!Spec.Needs.empty())
    para("Without them the rule reports that it cannot judge the trace, and "
         "why.");

  heading("Known false positives");
  para(Spec.KnownFalsePositives);
  heading("Real traces");
  para(Spec.RealTraces);
}

} // namespace

void report::writeRulePage(llvm::raw_ostream &OS, const RuleSpec &Spec,
                           PageFormat Format, bool Color) {
  PageWriter(OS, Format, Color).write(Spec);
}

void report::writeRuleList(llvm::raw_ostream &OS, const rules::Catalogue &Cat,
                           bool Json, bool Color) {
  if (Json) {
    llvm::json::OStream J(OS, 2);
    J.array([&] {
      for (const RuleSpec &R : Cat.rules())
        J.object([&] {
          J.attribute("code", R.Code);
          J.attribute("name", R.Name);
          J.attribute("family", std::string(1, R.family()));
          J.attribute("family_name", rules::familyName(R.family()));
          J.attribute("status", statusName(R.Status));
          J.attribute("severity", rules::severityName(R.DefaultSeverity));
          J.attribute("summary", R.Summary);
          J.attribute("signature",
                      R.Sig.Detector.empty() ? "declarative" : "detector");
          if (!R.Sig.Detector.empty())
            J.attribute("detector", R.Sig.Detector);
          if (R.Sig.JobInput)
            J.attribute("input", "job");
          J.attributeArray("needs", [&] {
            for (rules::Need N : R.Needs)
              J.value(rules::needName(N));
          });
          J.attribute("origin", R.Origin);
        });
    });
    OS << "\n";
    return;
  }
  size_t NameWidth = 4;
  for (const RuleSpec &R : Cat.rules())
    NameWidth = std::max(NameWidth, R.Name.size());
  std::string Head =
      llvm::formatv("{0,-5} {1} {2,-6} {3,-7}  {4,-8} {5}", "code",
                    llvm::left_justify("name", NameWidth), "family", "status",
                    "severity", "summary")
          .str();
  if (Color)
    OS << Bold << Head << Reset << "\n";
  else
    OS << Head << "\n";
  for (const RuleSpec &R : Cat.rules())
    OS << llvm::formatv("{0,-5} {1} {2,-6} {3,-7}  {4,-8} {5}\n", R.Code,
                        llvm::left_justify(R.Name, NameWidth),
                        std::string(1, R.family()), statusName(R.Status),
                        rules::severityName(R.DefaultSeverity), R.Summary);
  if (Cat.rules().empty())
    OS << "(no rules)\n";
}
