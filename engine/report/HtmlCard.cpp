//===- report/HtmlCard.cpp - One finding as an HTML card ------------------===//
#include "report/HtmlCard.h"
#include "report/LintReport.h"
#include "report/ShortNames.h"
#include "support/Format.h"

#include "llvm/Support/FormatVariadic.h"

#include <string>
#include <vector>

using namespace tracelint;
using namespace tracelint::report;
using namespace tracelint::support;

void report::writeShown(HtmlBuilder &H, llvm::StringRef Text, bool LongNames) {
  if (LongNames) {
    H.text(Text);
    return;
  }
  std::string Short = shortenNamesIn(Text);
  if (Short == Text) {
    H.text(Text);
    return;
  }
  H.open("span", {{"title", Text.str()}});
  H.text(Short);
  H.close();
}

namespace {

void list(HtmlBuilder &H, llvm::StringRef Title,
          llvm::ArrayRef<std::string> Items, bool LongNames) {
  if (Items.empty())
    return;
  H.element("div", Title, {{"class", "label"}});
  H.open("ul");
  for (const std::string &I : Items) {
    H.open("li");
    writeShown(H, I, LongNames);
    H.close();
  }
  H.close();
}

} // namespace

void report::writeFindingCard(HtmlBuilder &H, size_t Number,
                              llvm::StringRef Anchor, const rules::Finding &F,
                              llvm::StringRef Of, bool LongNames,
                              llvm::function_ref<void()> Picture) {
  llvm::StringRef Sev = rules::severityName(F.Sev);
  H.open("div", {{"class", ("card sev-" + Sev).str()}, {"id", Anchor.str()}});
  H.open("h3");
  H.text(std::to_string(Number) + ". ");
  H.element("span", F.Code, {{"class", "code"}});
  H.text(" [" + F.Name + "] " + Sev.str() + ", confidence " +
         formatConfidence(F.Confidence) + ", impact up to " +
         formatDuration(F.ImpactNs) + " (" + formatShare(F.ImpactShare) +
         " of " + Of.str() + ")");
  H.close();
  H.open("p", {{"class", "hyp"}});
  writeShown(H, F.Hypothesis, LongNames);
  H.close();
  if (!F.RestNote.empty()) {
    H.open("p", {{"class", "bound"}});
    H.element("span", "bound: ", {{"class", "label"}});
    writeShown(H, F.RestNote, LongNames);
    H.close();
  }
  Picture();
  if (!F.Window.empty()) {
    H.open("div");
    H.element("span", "where: ", {{"class", "label"}});
    writeShown(H, F.Window, LongNames);
    H.close();
  }
  list(H, "evidence", F.Evidence, LongNames);
  list(H, "could also be", F.Alternatives, LongNames);
  std::vector<std::string> Steps;
  auto Step = [&](llvm::StringRef Label, const std::string &Text) {
    if (!Text.empty())
      Steps.push_back((Label + " " + Text).str());
  };
  Step("change:", F.Next.Change);
  Step("expect in trace:", F.Next.PredictTrace);
  Step("expect in metric:", F.Next.PredictMetric);
  Step("verify:", F.Next.Verify);
  Step("refuted if:", F.Next.RefutedIf);
  list(H, "next experiment", Steps, LongNames);
  std::vector<std::string> Examples;
  for (const rules::ExampleEvent &E : F.Examples)
    Examples.push_back(E.Name + " on " + E.Lane + " at " +
                       formatOffset(E.OffsetNs) + ", " +
                       formatDuration(E.DurationNs));
  list(H, "examples", Examples, LongNames);
  list(H, "confidence", F.ConfidenceNotes, LongNames);
  H.element("div", "fingerprint " + F.Fingerprint, {{"class", "fp"}});
  H.close();
}

void report::writeCannotJudge(HtmlBuilder &H,
                              llvm::ArrayRef<rules::Skipped> Skipped) {
  size_t N = 0;
  for (const rules::Skipped &S : Skipped)
    N += S.Kind == rules::SkipKind::CannotJudge;
  if (!N)
    return;
  H.element("h3",
            llvm::formatv("could not judge ({0} rule{1})", N, N == 1 ? "" : "s")
                .str());
  H.open("ul", {{"class", "skipped"}});
  for (const rules::Skipped &S : Skipped)
    if (S.Kind == rules::SkipKind::CannotJudge)
      H.element("li", S.Code + " [" + S.Name + "]: " + S.Reason);
  H.close();
}

std::string report::htmlSection(llvm::function_ref<void(HtmlBuilder &)> Write) {
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  {
    HtmlBuilder H(OS);
    Write(H);
  }
  OS.flush();
  return Out;
}
