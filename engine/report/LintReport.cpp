//===- report/LintReport.cpp - Text form of `tracelint lint` --------------===//
#include "report/LintReport.h"
#include "support/Format.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace tracelint;
using namespace tracelint::support;
using namespace tracelint::report;
using rules::Finding;
using rules::Severity;

namespace {

constexpr const char *Bold = "\x1b[1m";
constexpr const char *Yellow = "\x1b[33m";
constexpr const char *Red = "\x1b[31m";
constexpr const char *Reset = "\x1b[0m";

/// Longest trace-derived name in a line of the report.
constexpr size_t MaxName = 120;

class Painter {
public:
  Painter(llvm::raw_ostream &OS, bool Color) : OS(OS), Color(Color) {}
  void paint(llvm::StringRef Text, const char *Code) {
    if (Color)
      OS << Code << Text << Reset;
    else
      OS << Text;
  }
  void label(llvm::StringRef Label) {
    paint(llvm::formatv("{0,-12}", Label).str(), Bold);
  }
  void severity(Severity S) {
    llvm::StringRef Name = rules::severityName(S);
    switch (S) {
    case Severity::Info:
      OS << Name;
      return;
    case Severity::Warning:
      paint(Name, Yellow);
      return;
    case Severity::Error:
      paint(Name, Red);
      return;
    }
  }

private:
  llvm::raw_ostream &OS;
  bool Color;
};

constexpr llvm::StringLiteral Indent = "            ";

std::string plural(uint64_t N, llvm::StringRef Noun) {
  return llvm::formatv("{0} {1}{2}", N, Noun, N == 1 ? "" : "s").str();
}

/// One line: the producer and its versions, as far as the trace says.
std::string producerLine(const model::Trace &T) {
  const model::Producer &Src = T.Source;
  std::vector<std::string> Parts;
  std::string Head = Src.Format.empty() ? "unknown format" : Src.Format;
  if (!Src.Era.empty())
    Head += " (" + Src.Era + ")";
  if (Src.SchemaVersion >= 0)
    Head += llvm::formatv(", schema {0}", Src.SchemaVersion).str();
  Parts.push_back(Head);
  auto Add = [&](llvm::StringRef What, const std::string &V) {
    if (!V.empty())
      Parts.push_back((What + " " + V).str());
  };
  Add("CUPTI", Src.CuptiVersion);
  Add("CUDA runtime", Src.CudaRuntimeVersion);
  Add("CUDA driver", Src.CudaDriverVersion);
  Add("roctracer", Src.RoctracerVersion);
  Add("HIP runtime", Src.HipRuntimeVersion);
  if (Src.Rank >= 0)
    Parts.push_back(
        Src.WorldSize >= 0
            ? llvm::formatv("rank {0} of {1}", Src.Rank, Src.WorldSize).str()
            : llvm::formatv("rank {0}", Src.Rank).str());
  return sanitize(llvm::join(Parts, ", "), 200);
}

/// When copies are most of a device's busy time, one line that says so
/// before any finding ("copies 85.4 %, compute 12.0 % of device 0's busy
/// time"); empty otherwise. The device with the largest copy share speaks.
std::string copyDominanceLine(const analysis::TraceStats &S) {
  const analysis::DeviceStats *Top = nullptr;
  auto Share = [](const analysis::DeviceStats &D, int64_t Ns) {
    return D.BusyNs > 0 ? double(Ns) / double(D.BusyNs) : 0.0;
  };
  for (const analysis::DeviceStats &D : S.Devices)
    if (D.HasWork && Share(D, D.CopyNs) > 0.5 &&
        (!Top || Share(D, D.CopyNs) > Share(*Top, Top->CopyNs)))
      Top = &D;
  if (!Top)
    return "";
  return llvm::formatv("copies {0}, compute {1} of device {2}'s busy time: "
                       "the transfers, not the kernels, fill the device",
                       formatShare(Share(*Top, Top->CopyNs)),
                       formatShare(Share(*Top, Top->ComputeNs)), Top->Device)
      .str();
}

void writeHeader(llvm::raw_ostream &OS, Painter &P, const LintedTrace &L) {
  const model::Trace &T = L.Trace;
  P.paint("tracelint lint", Bold);
  OS << ": " << sanitize(L.Input) << "\n";
  P.label("producer");
  OS << producerLine(T) << "\n";
  P.label("target");
  OS << L.Result.Target.Description << "\n";

  P.label("devices");
  const analysis::TraceStats &S = L.Stats;
  if (!S.hasDeviceActivity()) {
    P.paint("device activity was not recorded; device busy and idle time "
            "cannot be judged",
            Yellow);
    if (S.NumLaunchCalls)
      OS << " (" << plural(S.NumLaunchCalls, "launch call")
         << " without device events)";
    OS << "\n";
  } else {
    bool First = true;
    for (const analysis::DeviceStats &D : S.Devices) {
      if (!First)
        OS << Indent;
      First = false;
      OS << "device " << D.Device;
      for (const model::DeviceInfo &Info : T.Devices)
        if (Info.Id == D.Device && !Info.Name.empty())
          OS << " (" << sanitize(Info.Name, MaxName) << ")";
      if (!D.HasWork) {
        OS << ": no device work recorded; cannot judge\n";
        continue;
      }
      OS << ": busy " << formatDuration(D.BusyNs);
      if (D.BusyShare)
        OS << " (" << formatShare(*D.BusyShare) << " of window)";
      OS << ", idle " << formatDuration(D.IdleNs);
      if (D.StepBusyShare)
        OS << "; in steps " << formatShare(*D.StepBusyShare) << " busy";
      OS << "\n";
    }
  }
  if (std::string Copies = copyDominanceLine(S); !Copies.empty()) {
    P.label("copies");
    OS << Copies << "\n";
  }
  if (!L.Result.QualityNotes.empty()) {
    P.label("quality");
    for (size_t I = 0; I < L.Result.QualityNotes.size(); ++I)
      OS << (I ? Indent : "") << sanitize(L.Result.QualityNotes[I]) << "\n";
  }
}

void writeFinding(llvm::raw_ostream &OS, Painter &P, const LintedTrace &L,
                  const Finding &F, size_t Rank) {
  OS << "\n" << Rank << ". ";
  P.paint(F.Code, Bold);
  OS << " [" << F.Name << "] ";
  P.severity(F.Sev);
  OS << ", confidence " << formatConfidence(F.Confidence) << ", impact up to "
     << formatDuration(F.ImpactNs) << " (" << formatShare(F.ImpactShare)
     << " of "
     << (L.Result.Target.Kind == analysis::TargetKind::MedianStep ? "step"
                                                                  : "window")
     << ")\n";
  const std::string Pad = "   ";
  OS << Pad << sanitize(F.Hypothesis) << "\n";
  if (!F.Window.empty())
    OS << Pad << "where: " << sanitize(F.Window) << "\n";
  if (!F.Evidence.empty()) {
    OS << Pad << "evidence:\n";
    for (const std::string &E : F.Evidence)
      OS << Pad << "  - " << sanitize(E) << "\n";
  }
  if (!F.Alternatives.empty()) {
    OS << Pad << "could also be:\n";
    for (const std::string &A : F.Alternatives)
      OS << Pad << "  - " << sanitize(A) << "\n";
  }
  OS << Pad << "next experiment:\n";
  auto Step = [&](llvm::StringRef Label, const std::string &Text) {
    if (!Text.empty())
      OS << Pad << "  " << llvm::formatv("{0,-18}", Label) << sanitize(Text)
         << "\n";
  };
  Step("change:", F.Next.Change);
  Step("expect in trace:", F.Next.PredictTrace);
  Step("expect in metric:", F.Next.PredictMetric);
  Step("verify:", F.Next.Verify);
  Step("refuted if:", F.Next.RefutedIf);
  if (!F.Examples.empty()) {
    OS << Pad << "examples (Perfetto timestamps):\n";
    for (const rules::ExampleEvent &E : F.Examples)
      OS << Pad << "  - " << sanitize(E.Name, MaxName) << " on "
         << sanitize(E.Lane, MaxName)
         << llvm::formatv(" at {0:F3} us, ", E.TraceTimestampUs)
         << formatDuration(E.DurationNs) << "\n";
  }
  if (!F.ConfidenceNotes.empty()) {
    OS << Pad << "confidence:\n";
    for (const std::string &N : F.ConfidenceNotes)
      OS << Pad << "  - " << sanitize(N) << "\n";
  }
  OS << Pad << "fingerprint " << F.Fingerprint << "\n";
}

} // namespace

std::string report::formatConfidence(double C) {
  std::string S = llvm::formatv("{0:F2}", C).str();
  while (S.size() > 1 && S.back() == '0')
    S.pop_back();
  if (S.back() == '.')
    S.pop_back();
  return S;
}

void report::writeLintText(llvm::raw_ostream &OS, const LintedTrace &L,
                           bool Color) {
  Painter P(OS, Color);
  writeHeader(OS, P, L);
  const rules::LintResult &R = L.Result;
  for (size_t I = 0; I < R.Findings.size(); ++I)
    writeFinding(OS, P, L, R.Findings[I], I + 1);
  // Rules that lack data the trace does not record, then rules whose
  // subject the trace does not have.
  size_t Unjudged = 0, Inapplicable = 0;
  for (rules::SkipKind K :
       {rules::SkipKind::CannotJudge, rules::SkipKind::NotApplicable}) {
    size_t N = llvm::count_if(
        R.Skipped, [&](const rules::Skipped &S) { return S.Kind == K; });
    (K == rules::SkipKind::CannotJudge ? Unjudged : Inapplicable) = N;
    if (!N)
      continue;
    OS << "\n";
    P.paint(K == rules::SkipKind::CannotJudge ? "could not judge"
                                              : "not applicable",
            Bold);
    OS << " (" << plural(N, "rule") << "):\n";
    for (const rules::Skipped &S : R.Skipped)
      if (S.Kind == K)
        OS << "  " << S.Code << " [" << S.Name << "]: "
           << sanitize((rules::skipKindName(S.Kind) + ": " + S.Reason).str())
           << "\n";
  }
  unsigned Count[3] = {0, 0, 0};
  for (const Finding &F : R.Findings)
    ++Count[unsigned(F.Sev)];
  OS << "\n";
  P.label("summary");
  if (R.Findings.empty()) {
    OS << "no findings";
  } else {
    std::vector<std::string> Parts;
    if (Count[2])
      Parts.push_back(plural(Count[2], "error"));
    if (Count[1])
      Parts.push_back(plural(Count[1], "warning"));
    if (Count[0])
      Parts.push_back(llvm::formatv("{0} info", Count[0]).str());
    OS << plural(R.Findings.size(), "finding") << " ("
       << llvm::join(Parts, ", ") << ")";
  }
  if (Unjudged)
    OS << "; " << plural(Unjudged, "rule") << " could not judge";
  if (Inapplicable)
    OS << "; " << plural(Inapplicable, "rule") << " not applicable";
  OS << "\n";
}
