//===- report/JUnit.cpp - JUnit XML form of `tracelint lint` --------------===//
//
// For CI systems that display test reports: each input is a test suite and
// each rule that ran on it a test case. A rule's findings at or above the
// fail level make its case fail (one <failure> listing them); findings below
// it are shown as the case's output; a rule that could not judge is skipped
// with the reason; an unreadable input is a suite with one <error>. Every
// string from a trace is escaped for XML 1.0, and characters XML 1.0 forbids
// become visible escapes.
//
//===----------------------------------------------------------------------===//
#include "report/LintWriters.h"
#include "support/Escape.h"
#include "support/Format.h"

#include "llvm/Support/FormatVariadic.h"

using namespace tracelint;
using namespace tracelint::support;
using namespace tracelint::report;

namespace {

/// Whether \p F fails its test case: at or above the fail level, and, with
/// a baseline, new or grown (Finding::countsForFailure).
bool fails(const WriterOptions &Opts, const rules::Finding &F) {
  return Opts.FailAt && F.Sev >= *Opts.FailAt && F.countsForFailure();
}

/// The readable description of one finding, one fact per line.
std::string describe(const rules::Finding &F) {
  std::string Mark =
      F.BaselineMark ? (", " + rules::baselineStateWords(*F.BaselineMark)).str()
                     : std::string();
  std::string Out =
      llvm::formatv("{0} [{1}] {2}{3}, confidence {4}, impact up "
                    "to {5} ({6})\n",
                    F.Code, F.Name, rules::severityName(F.Sev), Mark,
                    formatConfidence(F.Confidence), formatDuration(F.ImpactNs),
                    formatShare(F.ImpactShare))
          .str();
  Out += "hypothesis: " + sanitize(F.Hypothesis) + "\n";
  if (!F.RestNote.empty())
    Out += "bound: " + sanitize(F.RestNote) + "\n";
  for (const std::string &E : F.Evidence)
    Out += "evidence: " + sanitize(E) + "\n";
  Out += "next experiment: " + sanitize(F.Next.Change) + "\n";
  if (!F.Next.PredictTrace.empty())
    Out += "predicted trace: " + sanitize(F.Next.PredictTrace) + "\n";
  if (!F.Next.PredictMetric.empty())
    Out += "predicted metric: " + sanitize(F.Next.PredictMetric) + "\n";
  Out += "fingerprint: " + F.Fingerprint + "\n";
  return Out;
}

} // namespace

void report::writeLintJUnit(llvm::raw_ostream &OS,
                            llvm::ArrayRef<LintOutcome> Runs,
                            llvm::ArrayRef<InputError> Errors,
                            const rules::Catalogue &Cat,
                            const WriterOptions &Opts) {
  size_t Tests = 0, Failures = 0, Skipped = 0;
  for (const LintOutcome &R : Runs) {
    Tests += R.RulesRun.size();
    Skipped += R.Result.Skipped.size();
    for (const std::string &Code : R.RulesRun)
      if (llvm::any_of(R.Result.Findings, [&](const rules::Finding &F) {
            return F.Code == Code && fails(Opts, F);
          }))
        ++Failures;
  }
  Tests += Errors.size();
  OS << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  OS << llvm::formatv("<testsuites name=\"tracelint\" tests=\"{0}\" "
                      "failures=\"{1}\" errors=\"{2}\" skipped=\"{3}\">\n",
                      Tests, Failures, Errors.size(), Skipped);
  for (const LintOutcome &R : Runs) {
    size_t SuiteFailures = 0;
    for (const std::string &Code : R.RulesRun)
      if (llvm::any_of(R.Result.Findings, [&](const rules::Finding &F) {
            return F.Code == Code && fails(Opts, F);
          }))
        ++SuiteFailures;
    std::string Input = xmlText(R.Input);
    OS << llvm::formatv("  <testsuite name=\"{0}\" tests=\"{1}\" "
                        "failures=\"{2}\" errors=\"0\" skipped=\"{3}\">\n",
                        Input, R.RulesRun.size(), SuiteFailures,
                        R.Result.Skipped.size());
    OS << "    <properties>\n";
    OS << "      <property name=\"target\" value=\"" << xmlText(R.Target)
       << "\"/>\n";
    if (const auto &B = R.Result.Baseline) {
      OS << "      <property name=\"baseline\" value=\"" << xmlText(B->File)
         << "\"/>\n";
      for (auto [Name, N] : {std::pair{"new", B->New},
                             {"near-floor", B->NearFloor},
                             {"grew", B->Grew},
                             {"known-in-baseline", B->Known}})
        OS << "      <property name=\"" << Name << "\" value=\"" << N
           << "\"/>\n";
    }
    OS << "    </properties>\n";
    for (const std::string &Code : R.RulesRun) {
      const rules::RuleSpec *Spec = Cat.find(Code);
      std::string Name = Spec ? Code + " " + Spec->Name : Code;
      OS << "    <testcase classname=\"tracelint." << xmlText(Code)
         << "\" name=\"" << xmlText(Name) << "\" file=\"" << Input << "\"";
      std::string Failing, Passing;
      size_t NumFailing = 0;
      rules::Severity Worst = rules::Severity::Info;
      for (const rules::Finding &F : R.Result.Findings) {
        if (F.Code != Code)
          continue;
        if (fails(Opts, F)) {
          Failing += describe(F) + "\n";
          ++NumFailing;
          Worst = std::max(Worst, F.Sev);
        } else {
          Passing += describe(F) + "\n";
        }
      }
      const rules::Skipped *Skip = nullptr;
      for (const rules::Skipped &S : R.Result.Skipped)
        if (S.Code == Code)
          Skip = &S;
      if (!NumFailing && !Skip && Passing.empty()) {
        OS << "/>\n";
        continue;
      }
      OS << ">\n";
      if (Skip)
        OS << "      <skipped message=\""
           << xmlText(
                  (rules::skipKindName(Skip->Kind) + ": " + Skip->Reason).str())
           << "\"/>\n";
      if (NumFailing) {
        const rules::Finding *First = nullptr;
        for (const rules::Finding &F : R.Result.Findings)
          if (F.Code == Code && fails(Opts, F)) {
            First = &F;
            break;
          }
        OS << "      <failure type=\"" << rules::severityName(Worst)
           << "\" message=\""
           << xmlText(NumFailing == 1
                          ? First->Hypothesis
                          : llvm::formatv("{0} findings; first: {1}",
                                          NumFailing, First->Hypothesis)
                                .str())
           << "\">";
        // Each line was sanitized; the line breaks are ours.
        llvm::StringRef Rest = Failing;
        while (!Rest.empty()) {
          auto [Line, Tail] = Rest.split('\n');
          OS << xmlText(Line) << "\n";
          Rest = Tail;
        }
        OS << "</failure>\n";
      }
      if (!Passing.empty()) {
        OS << "      <system-out>";
        llvm::StringRef Rest = Passing;
        while (!Rest.empty()) {
          auto [Line, Tail] = Rest.split('\n');
          OS << xmlText(Line) << "\n";
          Rest = Tail;
        }
        OS << "</system-out>\n";
      }
      OS << "    </testcase>\n";
    }
    OS << "  </testsuite>\n";
  }
  for (const InputError &E : Errors) {
    std::string Input = xmlText(E.Input);
    OS << "  <testsuite name=\"" << Input
       << "\" tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\">\n";
    OS << "    <testcase classname=\"tracelint.input\" name=\"read " << Input
       << "\" file=\"" << Input << "\">\n";
    OS << "      <error type=\"unreadable-input\" message=\""
       << xmlText(E.Message) << "\"/>\n";
    OS << "    </testcase>\n  </testsuite>\n";
  }
  OS << "</testsuites>\n";
}
