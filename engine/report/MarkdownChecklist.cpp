//===- report/MarkdownChecklist.cpp - The next-experiment checklist -------===//
//
// `tracelint lint --format markdown`: for an investigation log or a pull
// request. One GitHub task-list item per hypothesis, in rank order, each
// with the change to make, the predicted trace feature and metric change,
// the command that checks them (`tracelint diff`), and a place for the
// observed result. Names from the trace are code spans and every other text
// is escaped, so that a hostile kernel name cannot inject a link, a table,
// HTML or a heading.
//
//===----------------------------------------------------------------------===//
#include "report/LintWriters.h"
#include "report/ShortNames.h"
#include "support/Escape.h"
#include "support/Format.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

using namespace tracelint;
using namespace tracelint::support;
using namespace tracelint::report;

std::string report::shellQuote(llvm::StringRef S) {
  if (!S.empty() && llvm::all_of(S, [](char C) {
        return llvm::isAlnum(C) || llvm::StringRef("-_./+=:,@%").contains(C);
      }))
    return S.str();
  std::string Out = "'";
  for (char C : S) {
    if (C == '\'')
      Out += "'\\''";
    else
      Out += C;
  }
  return Out + "'";
}

/// Where to record the trace after the change: "run/a.json" ->
/// "run/a.after.json" ("x.json.gz" -> "x.after.json.gz").
static std::string afterName(llvm::StringRef Input) {
  llvm::StringRef Dir = llvm::sys::path::parent_path(Input);
  llvm::StringRef File = llvm::sys::path::filename(Input);
  size_t Dot = File.find('.');
  std::string Name =
      Dot == llvm::StringRef::npos || Dot == 0
          ? File.str() + ".after"
          : (File.substr(0, Dot) + ".after" + File.substr(Dot)).str();
  if (Dir.empty())
    return Name;
  llvm::SmallString<128> P(Dir);
  llvm::sys::path::append(P, Name);
  return std::string(P);
}

/// Names in a checklist line: short, unless `--long-names`.
static std::string names(llvm::StringRef Text, const WriterOptions &Opts) {
  return namesAsShown(Text, Opts.LongNames);
}

static void item(llvm::raw_ostream &OS, llvm::StringRef Label,
                 llvm::StringRef Text, const WriterOptions &Opts) {
  if (Text.empty())
    return;
  OS << "  - **" << Label << ":** " << markdownText(names(Text, Opts)) << "\n";
}

void report::writeLintMarkdown(llvm::raw_ostream &OS,
                               llvm::ArrayRef<LintOutcome> Runs,
                               llvm::ArrayRef<InputError> Errors,
                               const WriterOptions &Opts) {
  OS << "# Next experiments\n\n";
  OS << "Each item is a hypothesis, not a verdict: change one thing, record "
        "the same workload again, and check whether both the predicted trace "
        "feature and the metric moved.\n";
  for (const LintOutcome &R : Runs) {
    OS << "\n## " << markdownCode(R.Input) << "\n\n";
    OS << "Measured against: " << markdownText(R.Target) << ".\n\n";
    if (R.Result.Baseline)
      OS << "Against the baseline: "
         << markdownText(R.Result.Baseline->describe()) << ".\n\n";
    for (const std::string &Note : R.Result.QualityNotes)
      OS << "> **Trace quality:** " << markdownText(Note) << "\n>\n";
    if (!R.Result.QualityNotes.empty())
      OS << "\n";
    if (R.Result.Findings.empty())
      OS << "No hypotheses: no rule found a pattern in this trace.\n";
    std::string After = afterName(R.Input);
    for (size_t I = 0; I < R.Result.Findings.size(); ++I) {
      const rules::Finding &F = R.Result.Findings[I];
      OS << llvm::formatv("- [ ] **{0}. {1}** {2}: {3}, confidence {4}, "
                          "impact up to {5} ({6})",
                          I + 1, F.Code, markdownCode(F.Name),
                          rules::severityName(F.Sev),
                          formatConfidence(F.Confidence),
                          markdownText(formatDuration(F.ImpactNs)),
                          markdownText(formatShare(F.ImpactShare)));
      if (F.BaselineMark)
        OS << " (" << rules::baselineStateWords(*F.BaselineMark)
           << (F.countsForFailure() ? "" : ": does not fail") << ")";
      OS << "\n";
      item(OS, "Hypothesis", F.Hypothesis, Opts);
      if (!F.RestNote.empty())
        item(OS, "Bound", F.RestNote, Opts);
      item(OS, "Change", F.Next.Change, Opts);
      item(OS, "Predicted trace", F.Next.PredictTrace, Opts);
      item(OS, "Predicted metric", F.Next.PredictMetric, Opts);
      if (Opts.JobFindings)
        OS << "  - **Verify:** record every rank again after the change, then "
              "run "
           << markdownCode("tracelint lint --job") << " on the new traces "
           << "(or their summaries) and compare the finding's impact\n";
      else
        OS << "  - **Verify:** record the same workload after the change as "
           << markdownCode(After) << ", then run "
           << markdownCode("tracelint diff " + shellQuote(R.Input) + " " +
                           shellQuote(After))
           << "\n";
      item(OS, "Also", F.Next.Verify, Opts);
      item(OS, "Refuted if", F.Next.RefutedIf, Opts);
      if (!F.Examples.empty())
        OS << "  - **Example:** "
           << markdownCode(Opts.LongNames ? F.Examples[0].Name
                                          : shortName(F.Examples[0].Name))
           << " on " << markdownText(F.Examples[0].Lane) << " at "
           << markdownText(formatOffset(F.Examples[0].OffsetNs))
           << " from the trace's first event\n";
      if (!F.Subject.empty())
        OS << "  - **Subject:** " << markdownCode(names(F.Subject, Opts))
           << ", fingerprint `" << F.Fingerprint << "`\n";
      OS << "  - **Observed:** _not yet run_\n";
    }
    // Rules that do not apply are not unjudged: they are left out.
    bool Unjudged = llvm::any_of(R.Result.Skipped, [](const rules::Skipped &S) {
      return S.Kind == rules::SkipKind::CannotJudge;
    });
    if (Unjudged) {
      OS << "\nCould not judge:\n\n";
      for (const rules::Skipped &S : R.Result.Skipped)
        if (S.Kind == rules::SkipKind::CannotJudge)
          OS << "- " << S.Code << " " << markdownCode(S.Name) << ": "
             << markdownText(S.Reason) << "\n";
    }
  }
  if (!Errors.empty()) {
    OS << "\n## Unreadable inputs\n\n";
    for (const InputError &E : Errors)
      OS << "- " << markdownCode(E.Input) << ": " << markdownText(E.Message)
         << "\n";
  }
}
