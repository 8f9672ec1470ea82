//===- report/Sarif.cpp - SARIF 2.1.0 form of `tracelint lint` ------------===//
//
// One run: the rule catalogue as tool.driver.rules, every input as an
// artifact, one result per finding. Op and kernel names become logical
// locations; the fingerprint (code + normalised subject) becomes a partial
// fingerprint so that dashboards follow a finding from run to run; impact,
// confidence and the experiment travel as properties. Inputs that could not
// be read, and rules that could not judge, are tool notifications.
//
//===----------------------------------------------------------------------===//
#include "report/JsonSupport.h"
#include "report/LintWriters.h"
#include "report/SameClaim.h"
#include "report/ShortNames.h"
#include "support/Escape.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

using namespace tracelint;
using namespace tracelint::support;
using namespace tracelint::report;

namespace {

llvm::StringRef sarifLevel(rules::Severity S) {
  switch (S) {
  case rules::Severity::Info:
    return "note";
  case rules::Severity::Warning:
    return "warning";
  case rules::Severity::Error:
    return "error";
  }
  return "warning";
}

void message(llvm::json::OStream &J, llvm::StringRef Key,
             llvm::StringRef Text) {
  J.attributeObject(Key, [&] { J.attribute("text", jsonText(Text)); });
}

void strings(llvm::json::OStream &J, llvm::StringRef Key,
             llvm::ArrayRef<std::string> List) {
  J.attributeArray(Key, [&] {
    for (const std::string &S : List)
      J.value(jsonText(S));
  });
}

void writeRule(llvm::json::OStream &J, const rules::RuleSpec &R,
               const WriterOptions &Opts) {
  J.object([&] {
    J.attribute("id", R.Code);
    J.attribute("name", R.Name);
    message(J, "shortDescription", R.Summary);
    message(J, "fullDescription",
            R.WhatItDetects.empty() ? R.Summary : R.WhatItDetects);
    std::string Page;
    llvm::raw_string_ostream PS(Page);
    writeRulePage(PS, R, PageFormat::Markdown, /*Color=*/false);
    PS.flush();
    J.attributeObject("help", [&] {
      J.attribute("text", jsonText("Next experiment: " + R.Next.Change));
      J.attribute("markdown", jsonText(Page));
    });
    if (!Opts.DocsUrl.empty())
      J.attribute("helpUri",
                  jsonText(Opts.DocsUrl + R.Code + "-" + R.Name + ".md"));
    J.attributeObject("defaultConfiguration", [&] {
      J.attribute("level", sarifLevel(R.DefaultSeverity));
    });
    J.attributeObject("properties", [&] {
      J.attributeArray("tags", [&] {
        J.value(rules::familyName(R.family()));
        J.value(R.Status == rules::RuleStatus::Stable ? "stable" : "preview");
      });
    });
  });
}

void writeResult(llvm::json::OStream &J, const rules::Finding &F,
                 unsigned RuleIndex, bool HasRule, llvm::StringRef Uri,
                 unsigned ArtifactIndex, llvm::ArrayRef<std::string> SeeAlso) {
  J.object([&] {
    J.attribute("ruleId", F.Code);
    if (HasRule)
      J.attribute("ruleIndex", int64_t(RuleIndex));
    // A new finding near its floor does not fail the ratchet, so it does not
    // fail a code-scanning check either.
    J.attribute("level", F.countsForFailure() ? sarifLevel(F.Sev) : "note");
    // Dashboards show the message: short names; the properties keep the
    // full ones.
    message(J, "message", shortenNamesIn(F.Hypothesis));
    J.attributeArray("locations", [&] {
      J.object([&] {
        J.attributeObject("physicalLocation", [&] {
          J.attributeObject("artifactLocation", [&] {
            J.attribute("uri", Uri);
            J.attribute("index", int64_t(ArtifactIndex));
          });
          // A trace has no line for a hypothesis; code-scanning services
          // want a region, so the finding points at the file's start.
          J.attributeObject("region", [&] { J.attribute("startLine", 1); });
        });
        // The op path of the subject, then the example events (ops and
        // kernels), each once.
        llvm::StringSet<> Seen;
        J.attributeArray("logicalLocations", [&] {
          if (!F.Subject.empty()) {
            llvm::StringRef Leaf =
                llvm::StringRef(F.Subject).rsplit(" > ").second;
            if (Leaf.empty())
              Leaf = F.Subject;
            Seen.insert(Leaf);
            J.object([&] {
              J.attribute("name", jsonText(shortName(Leaf)));
              J.attribute("fullyQualifiedName", jsonText(F.Subject));
            });
          }
          for (const rules::ExampleEvent &E : F.Examples)
            if (Seen.insert(E.Name).second)
              J.object([&] {
                J.attribute("name", jsonText(shortName(E.Name)));
                J.attribute("fullyQualifiedName", jsonText(E.Name));
                J.attribute("kind", "function");
              });
        });
      });
    });
    J.attributeObject("partialFingerprints", [&] {
      J.attribute("tracelintFingerprint/v1", F.Fingerprint);
    });
    // SARIF's words: a finding near its floor is still new to the
    // baseline (its tracelintBaselineState property says why it passes).
    if (F.BaselineMark)
      J.attribute("baselineState",
                  *F.BaselineMark == rules::BaselineState::Grew    ? "updated"
                  : *F.BaselineMark == rules::BaselineState::Known ? "unchanged"
                                                                   : "new");
    J.attributeObject("properties", [&] {
      J.attribute("name", F.Name);
      J.attribute("impactNs", F.ImpactNs);
      writeRounded(J, "impactShare", F.ImpactShare);
      J.attribute("impactQ1Ns", F.ImpactQ1Ns);
      J.attribute("impactQ3Ns", F.ImpactQ3Ns);
      J.attribute("impactSteps", int64_t(F.ImpactSteps));
      if (F.BaselineMark)
        J.attribute("tracelintBaselineState",
                    rules::baselineStateName(*F.BaselineMark));
      writeRounded(J, "confidence", F.Confidence);
      writeRounded(J, "score", F.score());
      J.attribute("window", jsonText(F.Window));
      J.attribute("subject", jsonText(F.Subject));
      J.attribute("hypothesis", jsonText(F.Hypothesis));
      if (!F.RestNote.empty())
        J.attribute("restNote", jsonText(F.RestNote));
      writeValues(J, "values", F.Values);
      strings(J, "evidence", F.Evidence);
      strings(J, "alternatives", F.Alternatives);
      J.attributeObject("experiment", [&] {
        J.attribute("change", jsonText(F.Next.Change));
        J.attribute("predictTrace", jsonText(F.Next.PredictTrace));
        J.attribute("predictMetric", jsonText(F.Next.PredictMetric));
        J.attribute("verify", jsonText(F.Next.Verify));
        J.attribute("refutedIf", jsonText(F.Next.RefutedIf));
      });
      strings(J, "confidenceNotes", F.ConfidenceNotes);
      // Full names and absolute times (the file's ts), with the offset
      // the text report prints.
      J.attributeArray("examples", [&] {
        for (const rules::ExampleEvent &E : F.Examples)
          J.object([&] {
            J.attribute("name", jsonText(E.Name));
            J.attribute("lane", jsonText(E.Lane));
            J.attribute("tsUs", E.TraceTimestampUs);
            J.attribute("offsetNs", E.OffsetNs);
            J.attribute("durationNs", E.DurationNs);
          });
      });
      strings(J, "seeAlso", SeeAlso);
    });
  });
}

} // namespace

void report::writeLintSarif(llvm::raw_ostream &OS,
                            llvm::ArrayRef<LintOutcome> Runs,
                            llvm::ArrayRef<InputError> Errors,
                            const rules::Catalogue &Cat,
                            const WriterOptions &Opts) {
  llvm::StringMap<unsigned> RuleIndex;
  for (size_t I = 0; I < Cat.rules().size(); ++I)
    RuleIndex[Cat.rules()[I].Code] = unsigned(I);
  // Artifacts: the readable inputs, then the unreadable ones.
  std::vector<std::string> Uris;
  for (const LintOutcome &R : Runs)
    Uris.push_back(pathToUri(R.Input));
  for (const InputError &E : Errors)
    Uris.push_back(pathToUri(E.Input));

  llvm::json::OStream J(OS, 2);
  J.object([&] {
    J.attribute("$schema", "https://json.schemastore.org/sarif-2.1.0.json");
    J.attribute("version", "2.1.0");
    J.attributeArray("runs", [&] {
      J.object([&] {
        J.attributeObject("tool", [&] {
          J.attributeObject("driver", [&] {
            J.attribute("name", "tracelint");
            J.attribute("version", Opts.ToolVersion);
            J.attribute("semanticVersion", Opts.ToolVersion);
            message(J, "fullDescription",
                    "Lints GPU and ML profiler traces: ranked hypotheses "
                    "about what delays completion, with evidence and the "
                    "experiment that would decide.");
            J.attributeArray("rules", [&] {
              for (const rules::RuleSpec &R : Cat.rules())
                writeRule(J, R, Opts);
            });
          });
        });
        J.attributeArray("invocations", [&] {
          J.object([&] {
            J.attribute("executionSuccessful", Errors.empty());
            J.attributeArray("toolExecutionNotifications", [&] {
              for (size_t I = 0; I < Errors.size(); ++I)
                J.object([&] {
                  J.attribute("level", "error");
                  message(J, "message", Errors[I].Message);
                  J.attributeArray("locations", [&] {
                    J.object([&] {
                      J.attributeObject("physicalLocation", [&] {
                        J.attributeObject("artifactLocation", [&] {
                          J.attribute("uri", Uris[Runs.size() + I]);
                          J.attribute("index", int64_t(Runs.size() + I));
                        });
                      });
                    });
                  });
                });
              for (const LintOutcome &R : Runs)
                for (const rules::Skipped &S : R.Result.Skipped)
                  J.object([&] {
                    J.attribute("level", "note");
                    message(J, "message",
                            S.Code +
                                (S.Kind == rules::SkipKind::CannotJudge
                                     ? " could not judge "
                                     : " does not apply to ") +
                                R.Input + ": " + S.Reason);
                    J.attributeObject("associatedRule", [&] {
                      J.attribute("id", S.Code);
                      auto It = RuleIndex.find(S.Code);
                      if (It != RuleIndex.end())
                        J.attribute("index", int64_t(It->second));
                    });
                  });
            });
          });
        });
        J.attributeArray("artifacts", [&] {
          for (const std::string &U : Uris)
            J.object([&] {
              J.attributeObject("location", [&] { J.attribute("uri", U); });
              J.attributeArray("roles", [&] { J.value("analysisTarget"); });
            });
        });
        J.attributeArray("results", [&] {
          for (size_t A = 0; A < Runs.size(); ++A) {
            const LintOutcome &R = Runs[A];
            std::vector<size_t> Leads = claimLeads(R.Result.Findings);
            for (size_t I = 0; I < R.Result.Findings.size(); ++I) {
              const rules::Finding &F = R.Result.Findings[I];
              auto It = RuleIndex.find(F.Code);
              writeResult(J, F, It == RuleIndex.end() ? 0 : It->second,
                          It != RuleIndex.end(), Uris[A], unsigned(A),
                          seeAlso(R.Result.Findings, Leads, I));
            }
          }
        });
        J.attribute("columnKind", "unicodeCodePoints");
      });
    });
  });
  OS << "\n";
}
