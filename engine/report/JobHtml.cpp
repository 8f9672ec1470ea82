//===- report/JobHtml.cpp - The job section of `lint --job --format html` -===//
#include "report/JobHtml.h"
#include "report/HtmlBuilder.h"
#include "report/HtmlCard.h"
#include "report/HtmlSwimlane.h"
#include "report/JobReport.h"
#include "support/Format.h"

#include "llvm/Support/FormatVariadic.h"

using namespace tracelint;
using namespace tracelint::report;
using namespace tracelint::support;
using analysis::JobAnalysis;

namespace {

/// Rows of the ranks table and of the folded findings; lanes per picture.
constexpr size_t MaxRows = 64, MaxLanes = 16;

class JobSection {
public:
  JobSection(HtmlBuilder &H, const JobAnalysis &J,
             const rules::JobLintResult &R, const HtmlOptions &O)
      : H(H), J(J), R(R), O(O) {}

  /// The index entries of the job's cards.
  std::vector<HtmlIndexEntry> Index;

  void write() {
    H.open("section", {{"class", "input job"}, {"id", "job"}});
    H.element("h2", llvm::formatv("tracelint lint --job: {0} rank{1} of {2}",
                                  J.Ranks.size(),
                                  J.Ranks.size() == 1 ? "" : "s", J.WorldSize)
                        .str());
    writeFacts();
    H.element("h3", "job findings");
    if (R.Findings.empty())
      H.element("p", "No job findings.", {{"class", "note"}});
    for (size_t I = 0; I < R.Findings.size(); ++I)
      writeCard(I, R.Findings[I]);
    writeCannotJudge(H, R.Skipped);
    writeRanks();
    writeFolded();
    H.close();
  }

private:
  void fact(llvm::StringRef Term, const std::string &Text) {
    H.element("dt", Term);
    H.open("dd");
    writeShown(H, Text, O.LongNames);
    H.close();
  }

  void writeFacts() {
    H.open("dl", {{"class", "facts"}});
    fact("target", R.Target);
    if (J.PaceKnown)
      fact("pace", J.describePace());
    fact("clocks", jobClocksText(J));
    fact("matched", jobMatchedText(J));
    if (!J.Problems.empty()) {
      H.element("dt", "problems");
      H.open("dd");
      H.open("ul");
      for (const std::string &P : J.Problems)
        H.element("li", P);
      H.close();
      H.close();
    }
    H.close();
  }

  void writeCard(size_t I, const rules::Finding &F) {
    std::string Id = "job-finding-" + std::to_string(I + 1);
    writeFindingCard(H, I + 1, Id, F, "job step", O.LongNames, [&] {
      if (F.Collective >= 0 && size_t(F.Collective) < J.Collectives.size())
        writeCollectiveSwimlane(H, J, J.Collectives[F.Collective], MaxLanes);
    });
    Index.push_back(htmlIndexEntry(F, I + 1, std::move(Id), "job step"));
  }

  void writeRanks() {
    H.element("h3", "ranks");
    H.open("table", {{"class", "ranks"}});
    H.open("tr");
    for (const char *Head : {"rank", "median step", "work/step", "waited/step",
                             "clock offset", "spread", "last at", "input"})
      H.element("th", Head);
    H.close();
    for (size_t Slot = 0; Slot < J.Ranks.size() && Slot < MaxRows; ++Slot) {
      const analysis::JobRank &Rk = J.Ranks[Slot];
      if (Slot == J.Pacing)
        H.open("tr", {{"class", "pacing"}});
      else
        H.open("tr");
      H.element("td", std::to_string(Rk.S.Rank));
      H.element("td", formatDuration(Rk.S.medianStepNs()));
      H.element("td", formatDuration(Rk.workPerStepNs()));
      H.element("td", formatDuration(Rk.waitPerStepNs()));
      H.element("td", Rk.Aligned ? formatDuration(Rk.OffsetNs) : "trace");
      H.element("td", formatDuration(Rk.OffsetSpreadNs));
      H.element("td", std::to_string(Rk.TimesLast));
      H.element("td", Rk.S.Input);
      H.close();
    }
    H.close();
    if (J.Ranks.size() > MaxRows)
      H.element("p",
                llvm::formatv("{0} more ranks (--format json lists every rank)",
                              J.Ranks.size() - MaxRows)
                    .str(),
                {{"class", "note"}});
  }

  void writeFolded() {
    std::vector<FoldedFinding> Folded = foldRankFindings(J);
    H.element("h3", "rank findings (each rank's own, folded)");
    if (Folded.empty()) {
      H.element("p", "None.", {{"class", "note"}});
      return;
    }
    H.open("ul", {{"class", "folded"}});
    for (size_t I = 0; I < Folded.size() && I < MaxRows; ++I) {
      const FoldedFinding &F = Folded[I];
      H.open("li");
      writeShown(H,
                 F.Code + " [" + F.Name + "] " + F.Severity + " " +
                     foldedSpread(F, J) + ": " + F.Subject,
                 O.LongNames);
      H.close();
    }
    H.close();
    if (Folded.size() > MaxRows)
      H.element("p", llvm::formatv("{0} more", Folded.size() - MaxRows).str(),
                {{"class", "note"}});
  }

  HtmlBuilder &H;
  const JobAnalysis &J;
  const rules::JobLintResult &R;
  const HtmlOptions &O;
};

} // namespace

HtmlSection report::jobHtmlSection(const JobAnalysis &J,
                                   const rules::JobLintResult &R,
                                   const HtmlOptions &Opts) {
  HtmlSection Out;
  Out.Heading = llvm::formatv("the job ({0} rank{1})", J.Ranks.size(),
                              J.Ranks.size() == 1 ? "" : "s")
                    .str();
  Out.Anchor = "job";
  Out.Body = htmlSection([&](HtmlBuilder &H) {
    JobSection S(H, J, R, Opts);
    S.write();
    Out.Index = std::move(S.Index);
  });
  return Out;
}
