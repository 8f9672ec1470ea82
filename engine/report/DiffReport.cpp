//===- report/DiffReport.cpp - Text, JSON and Markdown of `diff` ----------===//
//
// Every name from a trace is sanitized (text), made valid UTF-8 (JSON) or
// put in a code span (Markdown).
//
//===----------------------------------------------------------------------===//
#include "report/DiffReport.h"
#include "report/ShortNames.h"
#include "report/TextWrap.h"
#include "support/Escape.h"
#include "support/Format.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/WithColor.h"

#include <cmath>

using namespace tracelint;
using namespace tracelint::support;
using namespace tracelint::report;
using analysis::KernelChange;
using rules::PredictionCheck;
using rules::Verdict;

static constexpr int64_t DiffJsonVersion = 1;

llvm::StringRef report::overallName(Verdict V) {
  switch (V) {
  case Verdict::Confirmed:
    return "held";
  case Verdict::NotConfirmed:
    return "did not hold";
  case Verdict::Inconclusive:
    return "inconclusive";
  }
  return "inconclusive";
}

namespace {

llvm::StringRef kernelChangeName(KernelChange::Kind K) {
  switch (K) {
  case KernelChange::Kind::Added:
    return "added";
  case KernelChange::Kind::Removed:
    return "removed";
  case KernelChange::Kind::Changed:
    return "changed";
  }
  return "changed";
}

std::string featureValue(const PredictionCheck &C, std::optional<double> V) {
  if (!V)
    return "n/a";
  if (C.FeatureIsTime)
    return formatDuration(int64_t(std::llround(*V)));
  if (*V == std::floor(*V) && std::fabs(*V) < 1e15)
    return std::to_string(int64_t(*V));
  return llvm::formatv("{0:F2}", *V).str();
}

std::string metricLine(const analysis::MetricSummary &M) {
  if (!M.FromSteps)
    return "window " + formatDuration(M.MedianNs) + " (no steps)";
  return llvm::formatv("median step {0}, spread (IQR) {1}, range {2} .. {3} "
                       "over {4} steady step{5}",
                       formatDuration(M.MedianNs), formatDuration(M.SpreadNs),
                       formatDuration(M.MinNs), formatDuration(M.MaxNs),
                       M.Steps, M.Steps == 1 ? "" : "s")
      .str();
}

std::string ratioText(const analysis::TraceDiff &D) {
  if (!D.Ratio)
    return "cannot be compared: " +
           std::string(D.Before.FromSteps ? "the after" : "the before") +
           " trace has no steps";
  int64_t Delta = D.After.MedianNs - D.Before.MedianNs;
  if (!Delta)
    return llvm::formatv("x{0:F3} (no change)", *D.Ratio).str();
  return llvm::formatv("x{0:F3} ({1}{2})", *D.Ratio, Delta <= 0 ? "-" : "+",
                       formatDuration(std::llabs(Delta)))
      .str();
}

std::string countValue(const analysis::CountChange &C, int64_t V) {
  if (C.IsTime)
    return formatDuration(V);
  if (C.IsBytes)
    return formatBytes(V);
  return std::to_string(V);
}

/// "held", "did not hold", "inconclusive", or "not comparable: REASON".
std::string verdictText(const PredictionCheck &C) {
  if (!C.NotComparable.empty())
    return "not comparable: " + C.NotComparable;
  return overallName(C.Overall).str();
}

/// "S001 [sync-long-host-wait] warning, impact up to 1.2 ms: HYPOTHESIS".
std::string findingLine(const rules::Finding &F) {
  return llvm::formatv("{0} [{1}] {2}, impact up to {3} ({4}): {5}", F.Code,
                       F.Name, rules::severityName(F.Sev),
                       formatDuration(F.ImpactNs), formatShare(F.ImpactShare),
                       shortenNamesIn(F.Hypothesis))
      .str();
}

std::string afterText(const PredictionCheck &C) {
  if (!C.StillFound)
    return "the finding is gone from the after trace";
  return "still reported in the after trace, impact up to " +
         formatDuration(C.ImpactAfterNs);
}

} // namespace

void report::writeDiffText(llvm::raw_ostream &OS, const DiffResult &R,
                           bool Color) {
  const analysis::TraceDiff &D = R.Diff;
  auto Label = [&](llvm::StringRef L) { OS << llvm::formatv("{0,-12}", L); };
  auto Verd = [&](Verdict V, llvm::StringRef Text) {
    llvm::raw_ostream::Colors C =
        V == Verdict::Confirmed      ? llvm::raw_ostream::GREEN
        : V == Verdict::NotConfirmed ? llvm::raw_ostream::RED
                                     : llvm::raw_ostream::YELLOW;
    llvm::WithColor(OS, C, /*Bold=*/true, /*BG=*/false,
                    Color ? llvm::ColorMode::Enable : llvm::ColorMode::Disable)
        << Text;
  };
  Label("before");
  OS << sanitize(R.BeforeInput) << ": " << metricLine(D.Before) << "\n";
  Label("after");
  OS << sanitize(R.AfterInput) << ": " << metricLine(D.After) << "\n";
  Label("ratio");
  OS << ratioText(D) << "\n";
  for (const std::string &W : D.Warnings) {
    Label("warning");
    OS << sanitize(W) << "\n";
  }
  // What the change added or removed, by name, before the verdicts.
  auto Listed = [&](llvm::StringRef Title,
                    const std::vector<rules::Finding> &List) {
    OS << "\n" << Title << " (" << List.size() << ")\n";
    if (List.empty())
      OS << "  none\n";
    for (const rules::Finding &F : List) {
      std::vector<std::string> Lines = wrapText(
          sanitize(findingLine(F)), 96, std::string::npos, MaxLineWidth - 4);
      for (size_t I = 0; I < Lines.size(); ++I)
        OS << (I ? "    " : "  - ") << Lines[I] << "\n";
    }
  };
  Listed("findings new in AFTER", R.Findings.New);
  Listed("findings gone from BEFORE", R.Findings.Gone);
  OS << "\npredictions of the before trace's findings\n";
  if (R.Checks.empty())
    OS << "  none: the before trace has no findings\n";
  for (size_t I = 0; I < R.Checks.size(); ++I) {
    const PredictionCheck &C = R.Checks[I];
    OS << llvm::formatv("  {0}. {1} [{2}] ", I + 1, C.Before.Code,
                        C.Before.Name);
    Verd(C.Overall, verdictText(C));
    if (!C.Before.Subject.empty())
      OS << " (" << sanitize(shortenNamesIn(C.Before.Subject), 100) << ")";
    if (!D.Warnings.empty() && C.NotComparable.empty())
      OS << "; see the warnings above";
    OS << "\n";
    OS << "     feature  ";
    if (!C.Feature.empty())
      OS << C.Feature << " should " << C.Change << ": "
         << featureValue(C, C.FeatureBefore) << " -> "
         << featureValue(C, C.FeatureAfter)
         << (C.FeatureBasis.empty() ? "" : " (" + C.FeatureBasis + ")") << ": ";
    OS << sanitize(C.FeatureReason) << ": ";
    Verd(C.FeatureVerdict, rules::verdictName(C.FeatureVerdict));
    OS << "\n     metric   " << C.MetricReason << ": ";
    Verd(C.MetricVerdict, rules::verdictName(C.MetricVerdict));
    OS << "\n     after    " << afterText(C) << "\n";
  }
  size_t Added = 0, Removed = 0, Changed = 0;
  for (const KernelChange &K : D.Kernels)
    (K.Change == KernelChange::Kind::Added     ? Added
     : K.Change == KernelChange::Kind::Removed ? Removed
                                               : Changed)++;
  OS << llvm::formatv("\nkernels     {0} added, {1} removed, {2} changed, "
                      "{3} unchanged\n",
                      Added, Removed, Changed, D.KernelsUnchanged);
  for (size_t I = 0; I < D.Kernels.size() && I < 20; ++I) {
    const KernelChange &K = D.Kernels[I];
    OS << llvm::formatv("  {0,-8} count {1} -> {2}, time {3} -> {4}  ",
                        kernelChangeName(K.Change), K.CountBefore, K.CountAfter,
                        formatDuration(K.TimeBefore),
                        formatDuration(K.TimeAfter))
       << sanitize(shortName(K.Name), 100) << "\n";
  }
  if (D.Kernels.size() > 20)
    OS << "  ... " << D.Kernels.size() - 20 << " more\n";
  OS << "\ncounts (whole trace)\n";
  for (const analysis::CountChange &C : D.Counts)
    OS << llvm::formatv("  {0,-42} {1} -> {2}\n", C.What,
                        countValue(C, C.Before), countValue(C, C.After));
}

static void metricJson(llvm::json::OStream &J, const analysis::MetricSummary &M,
                       llvm::StringRef Input) {
  J.attribute("input", jsonText(Input));
  J.attribute("target", jsonText(M.Description));
  J.attribute("from_steps", M.FromSteps);
  J.attribute("steady_steps", int64_t(M.Steps));
  J.attribute("median_ns", M.MedianNs);
  J.attribute("spread_ns", M.SpreadNs);
  J.attribute("min_ns", M.MinNs);
  J.attribute("max_ns", M.MaxNs);
}

void report::writeDiffJson(llvm::raw_ostream &OS, const DiffResult &R) {
  const analysis::TraceDiff &D = R.Diff;
  llvm::json::OStream J(OS, 2);
  J.object([&] {
    J.attribute("version", DiffJsonVersion);
    J.attribute("tool", "tracelint");
    J.attributeObject("before",
                      [&] { metricJson(J, D.Before, R.BeforeInput); });
    J.attributeObject("after", [&] { metricJson(J, D.After, R.AfterInput); });
    J.attributeBegin("ratio");
    if (D.Ratio)
      J.rawValue(llvm::formatv("{0:F6}", *D.Ratio).str());
    else
      J.value(nullptr);
    J.attributeEnd();
    J.attributeArray("warnings", [&] {
      for (const std::string &W : D.Warnings)
        J.value(jsonText(W));
    });
    J.attributeArray("not_comparable", [&] {
      for (const std::string &W : D.NotComparable)
        J.value(jsonText(W));
    });
    auto Findings = [&](llvm::StringRef Key,
                        const std::vector<rules::Finding> &List) {
      J.attributeArray(Key, [&] {
        for (const rules::Finding &F : List)
          J.object([&] {
            J.attribute("code", F.Code);
            J.attribute("name", F.Name);
            J.attribute("severity", rules::severityName(F.Sev));
            J.attribute("impact_ns", F.ImpactNs);
            J.attribute("hypothesis", jsonText(F.Hypothesis));
            J.attribute("subject", jsonText(F.Subject));
            J.attribute("fingerprint", F.Fingerprint);
          });
      });
    };
    Findings("new_findings", R.Findings.New);
    Findings("gone_findings", R.Findings.Gone);
    J.attributeArray("predictions", [&] {
      for (const PredictionCheck &C : R.Checks)
        J.object([&] {
          J.attribute("code", C.Before.Code);
          J.attribute("name", C.Before.Name);
          J.attribute("subject", jsonText(C.Before.Subject));
          J.attribute("fingerprint", C.Before.Fingerprint);
          J.attribute("impact_ns", C.Before.ImpactNs);
          J.attribute("verdict", C.NotComparable.empty()
                                     ? overallName(C.Overall)
                                     : llvm::StringRef("not comparable"));
          J.attribute("not_comparable", jsonText(C.NotComparable));
          J.attributeObject("feature", [&] {
            J.attribute("name", C.Feature);
            J.attribute("change", C.Change);
            auto Num = [&](llvm::StringRef K, std::optional<double> V) {
              J.attributeBegin(K);
              if (V)
                J.value(*V);
              else
                J.value(nullptr);
              J.attributeEnd();
            };
            Num("before", C.FeatureBefore);
            Num("after", C.FeatureAfter);
            J.attribute("unit", C.FeatureIsTime ? "ns" : "count");
            J.attribute("basis", C.FeatureBasis);
            J.attribute("verdict", rules::verdictName(C.FeatureVerdict));
            J.attribute("reason", jsonText(C.FeatureReason));
          });
          J.attributeObject("metric", [&] {
            J.attribute("verdict", rules::verdictName(C.MetricVerdict));
            J.attribute("reason", C.MetricReason);
          });
          J.attribute("still_found", C.StillFound);
          J.attribute("impact_after_ns", C.ImpactAfterNs);
        });
    });
    J.attributeObject("kernels", [&] {
      J.attribute("unchanged", int64_t(D.KernelsUnchanged));
      J.attributeArray("changes", [&] {
        for (const KernelChange &K : D.Kernels)
          J.object([&] {
            J.attribute("change", kernelChangeName(K.Change));
            J.attribute("name", jsonText(K.Name));
            J.attribute("count_before", int64_t(K.CountBefore));
            J.attribute("count_after", int64_t(K.CountAfter));
            J.attribute("time_before_ns", K.TimeBefore);
            J.attribute("time_after_ns", K.TimeAfter);
          });
      });
    });
    J.attributeArray("counts", [&] {
      for (const analysis::CountChange &C : D.Counts)
        J.object([&] {
          J.attribute("what", C.What);
          J.attribute("unit", C.IsTime ? "ns" : C.IsBytes ? "bytes" : "count");
          J.attribute("before", C.Before);
          J.attribute("after", C.After);
        });
    });
  });
  OS << "\n";
}

void report::writeDiffMarkdown(llvm::raw_ostream &OS, const DiffResult &R) {
  const analysis::TraceDiff &D = R.Diff;
  OS << "# Before and after\n\n";
  OS << "| | trace | target metric |\n| --- | --- | --- |\n";
  OS << "| before | " << markdownCode(R.BeforeInput, true) << " | "
     << markdownText(metricLine(D.Before)) << " |\n";
  OS << "| after | " << markdownCode(R.AfterInput, true) << " | "
     << markdownText(metricLine(D.After)) << " |\n\n";
  OS << "Ratio after / before: " << markdownText(ratioText(D)) << "\n";
  if (!D.Warnings.empty()) {
    OS << "\n**The comparison may be unfair:**\n\n";
    for (const std::string &W : D.Warnings)
      OS << "- " << markdownText(W) << "\n";
  }
  auto Listed = [&](llvm::StringRef Title,
                    const std::vector<rules::Finding> &List) {
    OS << "\n## " << Title << "\n\n";
    if (List.empty())
      OS << "None.\n";
    for (const rules::Finding &F : List)
      OS << "- **" << F.Code << "** " << markdownCode(F.Name) << " "
         << rules::severityName(F.Sev) << ", impact up to "
         << markdownText(formatDuration(F.ImpactNs)) << ": "
         << markdownText(shortenNamesIn(F.Hypothesis)) << "\n";
  };
  Listed("Findings new in AFTER", R.Findings.New);
  Listed("Findings gone from BEFORE", R.Findings.Gone);
  OS << "\n## Predictions\n\n";
  if (R.Checks.empty())
    OS << "The before trace has no findings.\n";
  for (size_t I = 0; I < R.Checks.size(); ++I) {
    const PredictionCheck &C = R.Checks[I];
    OS << "- [" << (C.Overall == Verdict::Inconclusive ? " " : "x") << "] **"
       << I + 1 << ". " << C.Before.Code << "** " << markdownCode(C.Before.Name)
       << ": **" << markdownText(verdictText(C)) << "**";
    if (!C.Before.Subject.empty())
      OS << " (" << markdownCode(shortenNamesIn(C.Before.Subject)) << ")";
    OS << "\n  - Feature: ";
    if (!C.Feature.empty())
      OS << "`" << C.Feature << "` should " << C.Change << ", "
         << markdownText(featureValue(C, C.FeatureBefore)) << " → "
         << markdownText(featureValue(C, C.FeatureAfter)) << " ("
         << markdownText(C.FeatureBasis) << "): ";
    OS << markdownText(C.FeatureReason) << ", **"
       << rules::verdictName(C.FeatureVerdict) << "**\n";
    OS << "  - Metric: " << markdownText(C.MetricReason) << ", **"
       << rules::verdictName(C.MetricVerdict) << "**\n";
    OS << "  - After: " << markdownText(afterText(C)) << "\n";
  }
  OS << "\n## Kernels\n\n";
  OS << D.KernelsUnchanged << " unchanged.\n";
  if (!D.Kernels.empty()) {
    OS << "\n| change | kernel | count before | count after | time before | "
          "time after |\n| --- | --- | ---: | ---: | ---: | ---: |\n";
    for (size_t I = 0; I < D.Kernels.size() && I < 30; ++I) {
      const KernelChange &K = D.Kernels[I];
      OS << "| " << kernelChangeName(K.Change) << " | "
         << markdownCode(shortName(K.Name), true) << " | " << K.CountBefore
         << " | " << K.CountAfter << " | "
         << markdownText(formatDuration(K.TimeBefore)) << " | "
         << markdownText(formatDuration(K.TimeAfter)) << " |\n";
    }
    if (D.Kernels.size() > 30)
      OS << "\n" << D.Kernels.size() - 30 << " more changes are not listed.\n";
  }
  OS << "\n## Counts (whole trace)\n\n| what | before | after |\n| --- | "
        "---: | ---: |\n";
  for (const analysis::CountChange &C : D.Counts)
    OS << "| " << markdownText(C.What) << " | "
       << markdownText(countValue(C, C.Before)) << " | "
       << markdownText(countValue(C, C.After)) << " |\n";
}
