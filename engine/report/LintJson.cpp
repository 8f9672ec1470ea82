//===- report/LintJson.cpp - JSON form of `tracelint lint` ----------------===//
//
// Keys come in a fixed order so that two runs over the same trace give
// byte-identical output. Times are integer ns in fields ending in `_ns`,
// shares are fractions in [0, 1], example timestamps are the trace's own
// microseconds (`ts_us`, absolute) and their offset from the trace's first
// event (`offset_ns`, what the text report prints).
//
//===----------------------------------------------------------------------===//
#include "report/IdleSplit.h"
#include "report/JsonSupport.h"
#include "report/LintReport.h"
#include "report/SameClaim.h"
#include "report/StatsReport.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

using namespace tracelint;
using namespace tracelint::report;

/// Bumped when a field changes meaning or is removed.
static constexpr int64_t LintJsonVersion = 2;

/// Trace strings are untrusted: json::Value asserts on invalid UTF-8.
static std::string text(llvm::StringRef S) {
  return llvm::json::isUTF8(S) ? S.str() : llvm::json::fixUTF8(S);
}

static void writeStrings(llvm::json::OStream &J, llvm::StringRef Key,
                         llvm::ArrayRef<std::string> List) {
  J.attributeArray(Key, [&] {
    for (const std::string &S : List)
      J.value(text(S));
  });
}

void report::writeBaselineJson(llvm::json::OStream &J,
                               const rules::BaselineTally &B) {
  J.attributeObject("baseline", [&] {
    J.attribute("file", text(B.File));
    J.attribute("new", int64_t(B.New));
    J.attribute("near_floor", int64_t(B.NearFloor));
    J.attribute("grew", int64_t(B.Grew));
    J.attribute("known", int64_t(B.Known));
    J.attribute("summary", B.describe());
  });
}

void report::writeFindingJson(llvm::json::OStream &J, const rules::Finding &F,
                              llvm::ArrayRef<std::string> SeeAlso) {
  J.object([&] {
    J.attribute("code", F.Code);
    J.attribute("name", F.Name);
    J.attribute("severity", rules::severityName(F.Sev));
    writeRounded(J, "confidence", F.Confidence);
    J.attribute("impact_ns", F.ImpactNs);
    writeRounded(J, "impact_share", F.ImpactShare);
    // The impact is a median over the steady steps: its spread there (the
    // baseline's noise model reads it) and what it is measured from.
    J.attributeObject("impact_spread", [&] {
      J.attribute("median_ns", F.ImpactNs);
      J.attribute("q1_ns", F.impactQ1());
      J.attribute("q3_ns", F.impactQ3());
      J.attribute("steps", int64_t(F.ImpactSteps));
      J.attribute("from", F.ImpactSpreadFrom);
    });
    if (F.GateMargin > 0)
      writeRounded(J, "gate_margin", F.GateMargin);
    if (F.BaselineMark)
      J.attribute("baseline_state", rules::baselineStateName(*F.BaselineMark));
    // The detector's own figure, before the critical path's cap, and the
    // cap: what removing the finding's query gains on the path.
    J.attribute("detector_impact_ns", F.DetectorImpactNs);
    if (F.PathBoundNs >= 0) {
      J.attribute("path_bound_ns", F.PathBoundNs);
      J.attribute("path_query", text(F.PathQuery));
    }
    writeRounded(J, "score", F.score());
    J.attribute("window", text(F.Window));
    J.attribute("hypothesis", text(F.Hypothesis));
    if (!F.RestNote.empty())
      J.attribute("rest_note", text(F.RestNote));
    writeValues(J, "values", F.Values);
    writeStrings(J, "evidence", F.Evidence);
    writeStrings(J, "alternatives", F.Alternatives);
    J.attributeObject("experiment", [&] {
      J.attribute("change", text(F.Next.Change));
      J.attribute("predict_trace", text(F.Next.PredictTrace));
      J.attribute("predict_metric", text(F.Next.PredictMetric));
      J.attribute("verify", text(F.Next.Verify));
      J.attribute("refuted_if", text(F.Next.RefutedIf));
    });
    J.attributeArray("examples", [&] {
      for (const rules::ExampleEvent &E : F.Examples)
        J.object([&] {
          J.attribute("name", text(E.Name));
          J.attribute("lane", text(E.Lane));
          J.attribute("ts_us", E.TraceTimestampUs);
          J.attribute("offset_ns", E.OffsetNs);
          J.attribute("duration_ns", E.DurationNs);
        });
    });
    writeStrings(J, "confidence_notes", F.ConfidenceNotes);
    J.attribute("subject", text(F.Subject));
    J.attribute("fingerprint", F.Fingerprint);
    // The other findings about the same host wait or copy (SameClaim.h).
    writeStrings(J, "see_also", SeeAlso);
  });
}

static void writeDevices(llvm::json::OStream &J, const LintedTrace &L) {
  const analysis::TraceStats &S = L.Stats;
  J.attribute("device_activity", S.hasDeviceActivity() ? "present" : "absent");
  if (!S.hasDeviceActivity()) {
    J.attribute("device_note",
                S.NumLaunchCalls
                    ? "kernel launch calls exist but no device events were "
                      "captured; device figures cannot be judged"
                    : "device activity was not recorded; device figures "
                      "cannot be judged");
    J.attributeArray("devices", [] {});
    return;
  }
  J.attributeArray("devices", [&] {
    for (const analysis::DeviceStats &D : S.Devices)
      J.object([&] {
        J.attribute("device", D.Device);
        if (!D.HasWork) {
          J.attribute("device_activity", "absent");
          return;
        }
        J.attribute("device_activity", "present");
        J.attribute("busy_ns", D.BusyNs);
        J.attribute("idle_ns", D.IdleNs);
        if (D.BusyShare)
          writeRounded(J, "busy_share", *D.BusyShare);
        if (D.StepBusyNs)
          J.attribute("step_busy_ns", *D.StepBusyNs);
        if (D.StepBusyShare)
          writeRounded(J, "step_busy_share", *D.StepBusyShare);
      });
  });
}

std::string report::lintJsonObject(const LintedTrace &L, unsigned Indent) {
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  llvm::json::OStream J(OS, 2);
  const rules::LintTarget &Target = L.Result.Target;
  J.object([&] {
    J.attribute("input", text(L.Input));
    writeProducerJson(J, L.Trace, L.Stats);
    J.attributeObject("target", [&] {
      J.attribute("kind", Target.Kind == analysis::TargetKind::MedianStep
                              ? "median_step"
                              : "window");
      J.attribute("ns", Target.Ns);
      J.attribute("steps", int64_t(Target.Steps));
      J.attribute("description", Target.Description);
      writeIdleSplitJson(J, Target.Idle);
      if (Target.Idle.Device >= 0)
        writeClaimsJson(J, Target.Claims);
    });
    writeDevices(J, L);
    writeStrings(J, "quality", L.Result.QualityNotes);
    J.attribute("first_event_ts_us", L.Result.FirstEventUs);
    if (L.Result.Baseline)
      writeBaselineJson(J, *L.Result.Baseline);
    const auto &Fs = L.Result.Findings;
    std::vector<size_t> Leads = claimLeads(Fs);
    J.attributeArray("findings", [&] {
      for (size_t I = 0; I < Fs.size(); ++I)
        writeFindingJson(J, Fs[I], seeAlso(Fs, Leads, I));
    });
    J.attributeArray("skipped", [&] {
      for (const rules::Skipped &S : L.Result.Skipped)
        J.object([&] {
          J.attribute("code", S.Code);
          J.attribute("name", S.Name);
          J.attribute("kind", S.Kind == rules::SkipKind::CannotJudge
                                  ? "cannot_judge"
                                  : "not_applicable");
          J.attribute("reason", text(S.Reason));
        });
    });
  });
  OS.flush();
  // Re-indent every line after the first for embedding.
  std::string Pad(Indent, ' ');
  std::string Indented;
  llvm::StringRef Rest = Out;
  bool First = true;
  while (!Rest.empty()) {
    auto [Line, Tail] = Rest.split('\n');
    if (!First)
      Indented += "\n" + Pad;
    Indented += Line.str();
    First = false;
    Rest = Tail;
  }
  return Indented;
}

void report::writeLintJsonDocument(llvm::raw_ostream &OS,
                                   llvm::ArrayRef<std::string> Objects,
                                   llvm::ArrayRef<InputError> Errors,
                                   llvm::StringRef JobObject) {
  llvm::json::OStream J(OS, 2);
  J.object([&] {
    J.attribute("version", LintJsonVersion);
    J.attribute("tool", "tracelint");
    // lint --job: the job's findings and ranks first, as in the text.
    if (!JobObject.empty()) {
      J.attributeBegin("job");
      J.rawValue(JobObject);
      J.attributeEnd();
    }
    J.attributeArray("results", [&] {
      for (const std::string &O : Objects)
        J.rawValue(O);
    });
    J.attributeArray("errors", [&] {
      for (const InputError &E : Errors)
        J.object([&] {
          J.attribute("input", text(E.Input));
          J.attribute("message", text(E.Message));
        });
    });
  });
  OS << "\n";
}
