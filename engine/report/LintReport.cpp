//===- report/LintReport.cpp - Text form of `tracelint lint` --------------===//
#include "report/LintReport.h"
#include "report/IdleSplit.h"
#include "report/SameClaim.h"
#include "report/ShortNames.h"
#include "report/TextStyle.h"
#include "report/TextWrap.h"
#include "support/Count.h"
#include "support/Format.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <numeric>

using namespace tracelint;
using namespace tracelint::support;
using namespace tracelint::report;
using rules::Finding;
using rules::Severity;

namespace {

/// Longest trace-derived name in a line of the report.
constexpr size_t MaxName = 120;

constexpr llvm::StringLiteral Indent = "            ";

std::string plural(uint64_t N, llvm::StringRef Noun) {
  return support::formatCount(int64_t(N), Noun);
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

/// One report line at a time: names shortened (unless --long-names),
/// sanitized, and wrapped under a hanging indent so that no line is wider
/// than Opts.Width.
class Lines {
public:
  Lines(llvm::raw_ostream &OS, const TextOptions &O) : OS(OS), O(O) {}

  /// \p S as the report shows a trace-derived text.
  std::string show(llvm::StringRef S) const {
    return sanitize(namesAsShown(S, O.LongNames));
  }
  /// One kernel or op name.
  std::string name(llvm::StringRef S) const {
    return sanitize(O.LongNames ? S.str() : shortName(S));
  }
  /// \p Lead, then \p Text wrapped; continuation lines indented to the
  /// text's column (or \p Hang columns when given).
  /// \p Used: columns already written on the line (a label).
  void wrapped(llvm::StringRef Lead, llvm::StringRef Text,
               size_t Hang = std::string::npos, size_t Used = 0) {
    writeWrapped(OS, Lead, Text, std::min(O.Width, MaxLineWidth), Hang, Used);
  }
  /// \p Lead and \p Text on one line, \p Text cut after a word to fit.
  /// \p Used: columns already written on the line.
  void cut(llvm::StringRef Lead, llvm::StringRef Text, size_t Used = 0) {
    if (!O.Width) {
      OS << Lead << Text << "\n";
      return;
    }
    size_t Width = std::min(O.Width, MaxLineWidth);
    size_t LeadW = Used + displayWidth(Lead);
    OS << Lead << cutToWidth(Text, LeadW + 20 > Width ? 20 : Width - LeadW)
       << "\n";
  }
  /// \p Text wrapped at the label column, each line painted \p Style.
  void painted(Painter &P, llvm::StringRef Text, const char *Style) {
    if (!O.Width) {
      P.paint(Text, Style);
      OS << "\n";
      return;
    }
    size_t Width = std::min(O.Width, MaxLineWidth);
    std::vector<std::string> Parts =
        wrapText(Text, Width - Indent.size(), std::string::npos,
                 MaxLineWidth - Indent.size());
    for (size_t I = 0; I < Parts.size(); ++I) {
      if (I)
        OS << Indent;
      P.paint(Parts[I], Style);
      OS << "\n";
    }
  }

private:
  llvm::raw_ostream &OS;
  const TextOptions &O;
};

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

/// The input's path, whole so that it can be copied: cut at 200 columns,
/// the line stays under MaxLineWidth.
void writeInputLine(llvm::raw_ostream &OS, Painter &P, const LintedTrace &L) {
  P.paint("tracelint lint", Bold);
  OS << ": " << sanitize(L.Input, 200) << "\n";
}

void writeProducerLine(Painter &P, Lines &Out, const LintedTrace &L) {
  P.label("producer");
  Out.wrapped("", producerLine(L.Trace), Indent.size(), Indent.size());
}

void writeTargetLine(Painter &P, Lines &Out, const LintedTrace &L) {
  P.label("target");
  std::string Text = L.Result.Target.Description;
  const analysis::TargetIdle &Idle = L.Result.Target.Idle;
  if (std::string Split =
          idleSplitText(Idle, L.Result.Target.Claims, L.Result.Target.Ns);
      !Split.empty())
    Text += "; device " + std::to_string(Idle.Device) + " " + Split;
  Out.wrapped("", Out.show(Text), Indent.size(), Indent.size());
}

void writeDeviceLines(Painter &P, Lines &Out, const LintedTrace &L) {
  const model::Trace &T = L.Trace;
  P.label("devices");
  const analysis::TraceStats &S = L.Stats;
  if (!S.hasDeviceActivity()) {
    std::string Text = "device activity was not recorded; device busy and "
                       "idle time cannot be judged";
    if (S.NumLaunchCalls)
      Text += " (" + plural(S.NumLaunchCalls, "launch call") +
              " without device events)";
    Out.painted(P, Text, Yellow);
    return;
  }
  bool First = true;
  for (const analysis::DeviceStats &D : S.Devices) {
    std::string Line = deviceSummary(D, T);
    Out.wrapped(First ? "" : Indent, Line, Indent.size(),
                First ? Indent.size() : 0);
    First = false;
  }
}

void writeCopiesLine(Painter &P, Lines &Out, const LintedTrace &L) {
  std::string Copies = copyDominanceLine(L.Stats);
  if (Copies.empty())
    return;
  P.label("copies");
  Out.wrapped("", Copies, Indent.size(), Indent.size());
}

void writeQualityLines(Painter &P, Lines &Out, const LintedTrace &L) {
  if (L.Result.QualityNotes.empty())
    return;
  P.label("quality");
  for (size_t I = 0; I < L.Result.QualityNotes.size(); ++I)
    Out.wrapped(I ? Indent : "", Out.show(L.Result.QualityNotes[I]),
                Indent.size(), I ? 0 : Indent.size());
}

/// Where the report's times count from, said once.
void writeTimesLine(Painter &P, Lines &Out, const LintedTrace &L) {
  P.label("times");
  Out.wrapped("",
              llvm::formatv("+s from the first event (ts {0:F3} us), as in "
                            "Perfetto's timeline",
                            L.Result.FirstEventUs)
                  .str(),
              Indent.size(), Indent.size());
}

/// What the findings are measured against, one small function per line so
/// that a new line is one more call.
void writeHeader(llvm::raw_ostream &OS, Painter &P, Lines &Out,
                 const LintedTrace &L) {
  writeInputLine(OS, P, L);
  writeProducerLine(P, Out, L);
  writeTargetLine(P, Out, L);
  writeDeviceLines(P, Out, L);
  writeCopiesLine(P, Out, L);
  writeQualityLines(P, Out, L);
  writeTimesLine(P, Out, L);
}

llvm::StringRef targetWord(const LintedTrace &L) {
  return L.Result.Target.Kind == analysis::TargetKind::MedianStep ? "step"
                                                                  : "window";
}

/// "S001 [sync-long-host-wait] warning, confidence 0.8, impact up to 1 ms
/// (10.0 % of step)", the severity coloured; the impact goes on a line of
/// its own when the whole would be wider than \p Width.
void writeHeadline(llvm::raw_ostream &OS, Painter &P, const LintedTrace &L,
                   const Finding &F, size_t Used, size_t Width) {
  // Against a baseline, the state follows the severity: "warning, new".
  std::string Mark =
      F.BaselineMark ? (", " + rules::baselineStateWords(*F.BaselineMark)).str()
                     : std::string();
  std::string Head = F.Code + " [" + F.Name + "] " +
                     rules::severityName(F.Sev).str() + Mark + ", confidence " +
                     formatConfidence(F.Confidence);
  std::string Impact = "impact up to " + formatDuration(F.ImpactNs) + " (" +
                       formatShare(F.ImpactShare) + " of " +
                       targetWord(L).str() + ")";
  P.paint(F.Code, Bold);
  OS << " [" << F.Name << "] ";
  P.severity(F.Sev);
  if (F.countsForFailure())
    P.paint(Mark, Bold);
  else
    OS << Mark;
  OS << ", confidence " << formatConfidence(F.Confidence);
  if (!Width || Used + Head.size() + 2 + Impact.size() <= Width)
    OS << ", " << Impact;
  else
    OS << ",\n   " << Impact;
}

std::string exampleText(const Lines &Out, const rules::ExampleEvent &E) {
  return Out.name(E.Name) + " on " + sanitize(E.Lane, MaxName) + " at " +
         formatOffset(E.OffsetNs) + ", " + formatDuration(E.DurationNs);
}

/// \p Title and every one of \p Items, one per line (--verbose).
void writeList(Lines &Out, llvm::StringRef Pad, llvm::StringRef Title,
               llvm::ArrayRef<std::string> Items, bool Names) {
  if (Items.empty())
    return;
  Out.wrapped((Pad + Title + ":").str(), "");
  std::string Lead = (Pad + "  - ").str();
  for (const std::string &Item : Items)
    Out.wrapped(Lead, Names ? Out.show(Item) : sanitize(Item));
}

/// The first of \p Items on its title's line: "evidence (step 3; 2 more
/// with --verbose): ...". A default card shows one line of each list: the
/// rules put the measurement that carries the finding first, and the lines
/// after it mostly restate the bound that `expect:` gives.
void writeFirst(Lines &Out, llvm::StringRef Pad, llvm::StringRef Title,
                llvm::StringRef Where, llvm::ArrayRef<std::string> Items,
                bool Names) {
  if (Items.empty())
    return;
  std::vector<std::string> Notes;
  if (!Where.empty())
    Notes.push_back(Out.show(Where));
  if (Items.size() > 1)
    Notes.push_back(
        llvm::formatv("{0} more with --verbose", Items.size() - 1).str());
  std::string Lead = (Pad + Title).str();
  if (!Notes.empty())
    Lead += " (" + llvm::join(Notes, "; ") + ")";
  Out.wrapped(Lead + ": ",
              Names ? Out.show(Items.front()) : sanitize(Items.front()),
              Pad.size() + 2);
}

/// The findings the card of \p Lead folds in: one line each.
void writeFolded(Lines &Out, const LintedTrace &L, llvm::ArrayRef<size_t> Leads,
                 size_t Lead, llvm::ArrayRef<size_t> Shown) {
  const auto &Fs = L.Result.Findings;
  for (size_t J : Shown) {
    if (J == Lead || Leads[J] != Lead)
      continue;
    const Finding &G = Fs[J];
    Out.cut(llvm::formatv(
                "   same {0}: {1}. {2} [{3}] {4}, impact up to {5}: ", G.Claims,
                J + 1, G.Code, G.Name, rules::severityName(G.Sev),
                formatDuration(G.ImpactNs))
                .str(),
            Out.show(G.Hypothesis));
  }
}

/// A finding's card. By default: the hypothesis, the first line of the
/// evidence (headed by where it comes from), the change and its predicted
/// gain, the first example, the findings folded in. --verbose: every
/// section, as the rule wrote it, and the fingerprint.
void writeCard(llvm::raw_ostream &OS, Painter &P, Lines &Out,
               const LintedTrace &L, const TextOptions &O, size_t Rank,
               llvm::ArrayRef<size_t> Leads, llvm::ArrayRef<size_t> Shown) {
  const Finding &F = L.Result.Findings[Rank];
  std::string Number = std::to_string(Rank + 1) + ". ";
  OS << "\n" << Number;
  writeHeadline(OS, P, L, F, Number.size(), std::min(O.Width, MaxLineWidth));
  OS << "\n";
  const std::string Pad = "   ";
  Out.wrapped(Pad, Out.show(F.Hypothesis));
  // Where the rest of the detector's figure goes when the path bounds the
  // gain lower: in every card, so that its figure and its impact never
  // read as a contradiction.
  if (!F.RestNote.empty())
    Out.wrapped(Pad + "bound: ", Out.show(F.RestNote));
  std::vector<std::string> Examples;
  for (const rules::ExampleEvent &E : F.Examples)
    Examples.push_back(exampleText(Out, E));
  if (!O.Verbose) {
    writeFirst(Out, Pad, "evidence", F.Window, F.Evidence, true);
    if (!F.Next.Change.empty())
      Out.wrapped(Pad + "experiment: ", Out.show(F.Next.Change));
    if (!F.Next.PredictMetric.empty())
      Out.wrapped(Pad + "expect:     ", Out.show(F.Next.PredictMetric));
    writeFirst(Out, Pad, "example", "", Examples, false);
    writeFolded(Out, L, Leads, Rank, Shown);
    return;
  }
  if (!F.Window.empty())
    Out.wrapped(Pad + "where: ", Out.show(F.Window));
  writeList(Out, Pad, "evidence", F.Evidence, true);
  writeList(Out, Pad, "could also be", F.Alternatives, true);
  Out.wrapped(Pad + "next experiment:", "");
  auto Step = [&](llvm::StringRef Label, const std::string &Text) {
    if (!Text.empty())
      Out.wrapped(Pad + "  " + llvm::formatv("{0,-18}", Label).str(),
                  Out.show(Text));
  };
  Step("change:", F.Next.Change);
  Step("expect in trace:", F.Next.PredictTrace);
  Step("expect in metric:", F.Next.PredictMetric);
  Step("verify:", F.Next.Verify);
  Step("refuted if:", F.Next.RefutedIf);
  writeList(Out, Pad, "examples", Examples, false);
  writeList(Out, Pad, "confidence", F.ConfidenceNotes, true);
  OS << Pad << "fingerprint " << F.Fingerprint << "\n";
}

/// The ranked list that leads the findings: one line per finding shown, in
/// rank order, with its impact and the change to try (a folded finding
/// names its card, a note says it is one), so that the first screen
/// answers what to try first. Only for two findings or more: one finding
/// is its card.
void writeRanked(llvm::raw_ostream &OS, Painter &P, Lines &Out,
                 const LintedTrace &L, llvm::ArrayRef<size_t> Leads,
                 llvm::ArrayRef<size_t> Shown, size_t NumCards,
                 llvm::ArrayRef<size_t> Rest) {
  if (Shown.size() < 2)
    return;
  const auto &Fs = L.Result.Findings;
  OS << "\n";
  P.paint("ranked", Bold);
  OS << " (the most each could shorten the " << targetWord(L)
     << ", then the change to try):\n";
  for (size_t I : Shown) {
    const Finding &F = Fs[I];
    std::string Number = "  " + std::to_string(I + 1) + ". ";
    OS << Number;
    P.paint(F.Code, Bold);
    std::string Lead = " [" + F.Name + "] ";
    if (F.BaselineMark)
      Lead += "(" + rules::baselineStateWords(*F.BaselineMark).str() + ") ";
    Lead += F.ImpactNs ? formatDuration(F.ImpactNs) + " (" +
                             formatShare(F.ImpactShare) + "): "
                       : std::string("0: ");
    std::string What;
    if (Leads[I] != I && llvm::is_contained(Shown, Leads[I]))
      What = llvm::formatv("the same {0} as {1}", F.Claims, Leads[I] + 1);
    else if (F.ImpactNs == 0)
      What = "a note, seen with no impact (below)";
    else
      What = Out.show(F.Next.Change.empty() ? F.Hypothesis : F.Next.Change);
    Out.cut(Lead, What, Number.size() + F.Code.size());
  }
  if (Rest.empty())
    return;
  std::vector<int64_t> Ranks;
  for (size_t I : Rest)
    Ranks.push_back(int64_t(I + 1));
  Out.wrapped("  ",
              llvm::formatv("--top {0} adds the cards of {1}",
                            NumCards + Rest.size(), formatRanges(Ranks))
                  .str(),
              4);
}

/// Why a finding with no impact does not delay completion.
std::string zeroImpactReason(const Finding &F) {
  if (F.PathBoundNs == 0 && !F.PathQuery.empty())
    return "the critical path says the steps would not complete earlier "
           "without " +
           F.PathQuery;
  if (!F.Code.empty() && F.Code[0] == 'T')
    return "it describes the trace's quality, not a delay";
  return "the rule bounds what removing it would gain at 0";
}

} // namespace

std::string report::deviceSummary(const analysis::DeviceStats &D,
                                  const model::Trace &T) {
  std::string Line = "device " + std::to_string(D.Device);
  for (const model::DeviceInfo &Info : T.Devices)
    if (Info.Id == D.Device && !Info.Name.empty())
      Line += " (" + sanitize(Info.Name, MaxName) + ")";
  if (!D.HasWork)
    return Line + ": no device work recorded; cannot judge";
  Line += ": busy " + formatDuration(D.BusyNs);
  if (D.BusyShare)
    Line += " (" + formatShare(*D.BusyShare) + " of window)";
  Line += ", idle " + formatDuration(D.IdleNs);
  if (D.StepBusyShare)
    Line += "; in steps " + formatShare(*D.StepBusyShare) + " busy";
  return Line;
}

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
  TextOptions O;
  O.Color = Color;
  writeLintText(OS, L, O);
}

void report::writeLintText(llvm::raw_ostream &OS, const LintedTrace &L,
                           const TextOptions &O) {
  Painter P(OS, O.Color);
  Lines Out(OS, O);
  writeHeader(OS, P, Out, L);
  const rules::LintResult &R = L.Result;
  const auto &Fs = R.Findings;
  // One card per host wait or copy; --verbose shows every card.
  std::vector<size_t> Leads = claimLeads(Fs);
  if (O.Verbose)
    std::iota(Leads.begin(), Leads.end(), 0);
  std::vector<size_t> Shown, Cards, Rest, Notes;
  size_t Hidden = 0;
  for (size_t I = 0; I < Fs.size(); ++I) {
    if (Fs[I].Sev < O.MinSeverity) {
      ++Hidden;
      continue;
    }
    Shown.push_back(I);
  }
  for (size_t I : Shown) {
    if (Leads[I] != I && llvm::is_contained(Shown, Leads[I]))
      continue; // folded into its lead's card
    if (Fs[I].ImpactNs == 0 && !O.Verbose)
      Notes.push_back(I);
    else if (O.Verbose || !O.Top || Cards.size() < O.Top)
      Cards.push_back(I);
    else
      Rest.push_back(I);
  }
  writeRanked(OS, P, Out, L, Leads, Shown, Cards.size(), Rest);
  for (size_t I : Cards)
    writeCard(OS, P, Out, L, O, I, Leads, Shown);
  if (!Notes.empty()) {
    OS << "\n";
    P.paint("notes", Bold);
    OS << " (seen, but with no impact on the target):\n";
    for (size_t I : Notes) {
      std::string Folded;
      for (size_t J : Shown)
        if (J != I && Leads[J] == I)
          Folded +=
              llvm::formatv("{0}{1}. {2} [{3}]",
                            Folded.empty() ? "; same " + Fs[J].Claims + ": "
                                           : std::string(", "),
                            J + 1, Fs[J].Code, Fs[J].Name)
                  .str();
      Out.wrapped(
          llvm::formatv(
              "  {0}. {1} [{2}]{3}: ", I + 1, Fs[I].Code, Fs[I].Name,
              Fs[I].BaselineMark
                  ? " (" + rules::baselineStateWords(*Fs[I].BaselineMark) + ")"
                  : std::string())
              .str(),
          Out.show(Fs[I].Hypothesis) +
              "; impact 0: " + zeroImpactReason(Fs[I]) + Folded,
          6);
    }
  }
  // Rules that lack data the trace does not record; the rules whose
  // subject the trace does not have are counted (listed with --verbose).
  size_t Unjudged = 0, Inapplicable = 0;
  for (rules::SkipKind K :
       {rules::SkipKind::CannotJudge, rules::SkipKind::NotApplicable}) {
    size_t N = llvm::count_if(
        R.Skipped, [&](const rules::Skipped &S) { return S.Kind == K; });
    (K == rules::SkipKind::CannotJudge ? Unjudged : Inapplicable) = N;
    if (!N || (K == rules::SkipKind::NotApplicable && !O.Verbose))
      continue;
    OS << "\n";
    P.paint(K == rules::SkipKind::CannotJudge ? "could not judge"
                                              : "not applicable",
            Bold);
    OS << " (" << plural(N, "rule") << "):\n";
    // Rules that lack the same data share a line.
    std::vector<bool> Done(R.Skipped.size());
    for (size_t I = 0; I < R.Skipped.size(); ++I) {
      if (R.Skipped[I].Kind != K || Done[I])
        continue;
      std::vector<std::string> Codes;
      for (size_t J = I; J < R.Skipped.size(); ++J)
        if (!Done[J] && R.Skipped[J].Kind == K &&
            R.Skipped[J].Reason == R.Skipped[I].Reason &&
            (J == I || !O.Verbose)) {
          Done[J] = true;
          Codes.push_back(R.Skipped[J].Code + NoBreakSpace.str() + "[" +
                          R.Skipped[J].Name + "]");
        }
      // By default one line per reason (the heading says what kind);
      // --verbose gives each rule its whole reason. The codes wrap with the
      // reason: a reason shared by many rules has a long list of them.
      std::string Reason = sanitize(R.Skipped[I].Reason);
      if (O.Verbose)
        Reason = (rules::skipKindName(K) + ": " + Reason).str();
      Out.wrapped("  ", llvm::join(Codes, ", ") + ": " + Reason, 4);
    }
  }
  unsigned Count[3] = {0, 0, 0};
  for (const Finding &F : Fs)
    ++Count[unsigned(F.Sev)];
  OS << "\n";
  P.label("summary");
  std::string Summary;
  if (Fs.empty()) {
    Summary = "no findings";
  } else {
    std::vector<std::string> Parts;
    if (Count[2])
      Parts.push_back(plural(Count[2], "error"));
    if (Count[1])
      Parts.push_back(plural(Count[1], "warning"));
    if (Count[0])
      Parts.push_back(llvm::formatv("{0} info", Count[0]).str());
    Summary =
        plural(Fs.size(), "finding") + " (" + llvm::join(Parts, ", ") + ")";
  }
  if (Hidden)
    Summary += llvm::formatv("; {0} under --min-severity {1} not shown", Hidden,
                             rules::severityName(O.MinSeverity))
                   .str();
  if (Unjudged)
    Summary += "; " + plural(Unjudged, "rule") + " could not judge";
  if (Inapplicable)
    Summary += llvm::formatv("; {0} not applicable{1}", Inapplicable,
                             O.Verbose ? "" : " (--verbose)")
                   .str();
  Out.wrapped("", Summary, Indent.size(), Indent.size());
  if (R.Baseline)
    writeBaselineLine(OS, *R.Baseline, O.Color);
}

void report::writeBaselineLine(llvm::raw_ostream &OS,
                               const rules::BaselineTally &B, bool Color) {
  Painter(OS, Color).label("baseline");
  OS << B.describe() << " against " << sanitize(B.File, MaxName) << "\n";
}
