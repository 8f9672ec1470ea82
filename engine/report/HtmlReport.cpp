//===- report/HtmlReport.cpp - `lint --format html` -----------------------===//
#include "report/HtmlReport.h"
#include "report/HtmlBuilder.h"
#include "report/HtmlCard.h"
#include "report/HtmlTimeline.h"
#include "report/IdleSplit.h"
#include "report/ShortNames.h"
#include "support/Format.h"

#include "llvm/Support/FormatVariadic.h"

using namespace tracelint;
using namespace tracelint::report;
using namespace tracelint::support;
using rules::Finding;

namespace {

// The page's only style: small, no web fonts, readable printed.
constexpr llvm::StringLiteral Style = R"css(
body{font:14px/1.45 system-ui,sans-serif;margin:24px;color:#1d2330;background:#f6f7f9}
h1{font-size:20px;margin:0 0 12px}h2{font-size:17px;margin:28px 0 8px}
.facts{background:#fff;border:1px solid #d8dce3;border-radius:6px;padding:10px 14px}
.facts dt{font-weight:600;float:left;width:90px}.facts dd{margin:0 0 4px 96px}
.card{background:#fff;border:1px solid #d8dce3;border-left:5px solid #8a94a6;border-radius:6px;padding:10px 14px;margin:14px 0}
.card.sev-warning{border-left-color:#d89a00}.card.sev-error{border-left-color:#c62828}
.card h3{font-size:15px;margin:0 0 6px}.card h3 .code{font-family:monospace}
.hyp{font-size:15px;margin:4px 0 8px}.label{font-weight:600}
.card ul{margin:2px 0 6px 0;padding-left:20px}.fp{color:#667;font:12px monospace}
.note{color:#556;font-size:12px}
svg.timeline{display:block;width:100%;height:auto;max-width:1000px;margin:8px 0;background:#fbfbfd;border:1px solid #e3e6eb}
svg text{font:11px system-ui,sans-serif;fill:#334}
.axis line{stroke:#e0e3e8}.axis text{fill:#667}
.events rect{stroke-width:0}.events text{fill:#fff;pointer-events:none}
.k-host rect{fill:#7e9cc7}.k-api rect{fill:#9b8fc9}.k-kernel rect{fill:#4f9a6e}
.k-copy rect{fill:#c98a3c}.k-sync rect{fill:#a0a0a0}.k-coll rect{fill:#3c8fb0}.k-other rect{fill:#9aa3ad}
.ctx{opacity:.45}.linked rect{stroke:#222;stroke-width:1}
.flag rect{stroke:#d0021b;stroke-width:2}
.links line{stroke:#d0021b;stroke-width:1.2}
.merged rect{stroke:#445;stroke-width:.6;stroke-dasharray:2 1}
.idle rect{fill:#f2c1ba}.idle.during rect{fill:#d0021b}
.steps line{stroke:#556;stroke-width:1;stroke-dasharray:3 3}
line.split{stroke:#c5cad3}
nav.index{background:#fff;border:1px solid #d8dce3;border-radius:6px;padding:6px 14px 10px}
nav.index h2{margin:4px 0 6px}nav.index h3{font-size:14px;margin:10px 0 4px}
table.findings{border-collapse:collapse;font-size:13px}
table.findings th,table.findings td{padding:2px 8px;border-bottom:1px solid #e3e6eb;text-align:left;vertical-align:top}
table.findings td.code{font-family:monospace}table.findings td.impact{white-space:nowrap}
table.findings tr.sev-warning td:first-child{border-left:4px solid #d89a00}
table.findings tr.sev-error td:first-child{border-left:4px solid #c62828}
table.findings tr.sev-info td:first-child{border-left:4px solid #8a94a6}
.sw-wait rect{fill:#e8a39c}.sw-coll rect{fill:#3c8fb0}.sw-late rect{stroke:#d0021b;stroke-width:2}
.sw-arrive line{stroke:#d0021b;stroke-width:1.5;stroke-dasharray:4 3}
table.ranks{border-collapse:collapse;background:#fff;font-size:13px}
table.ranks th,table.ranks td{padding:2px 10px;border-bottom:1px solid #e3e6eb;text-align:left}
table.ranks tr.pacing td{font-weight:600}
svg.bar{display:block;width:100%;max-width:700px;height:auto}
.b-busy{fill:#4f9a6e}.b-launch{fill:#9b8fc9}.b-host{fill:#7e9cc7}.b-wait{fill:#d0021b}
.b-data{fill:#c98a3c}.b-startup{fill:#5bb5b0}.b-profiler{fill:#8c6d62}
.b-unrecorded{fill:#e6b800}.b-unlinked{fill:#b0b6bf}.b-untraced{fill:#c3cfe0}
.legend span{display:inline-block;margin-right:12px}.legend i{display:inline-block;width:10px;height:10px;margin-right:4px}
)css";

/// Ties the legend's swatches to the bar's colours.
constexpr llvm::StringLiteral Swatches = R"css(
.legend .b-busy{background:#4f9a6e}.legend .b-launch{background:#9b8fc9}.legend .b-host{background:#7e9cc7}
.legend .b-wait{background:#d0021b}.legend .b-data{background:#c98a3c}.legend .b-startup{background:#5bb5b0}
.legend .b-profiler{background:#8c6d62}.legend .b-unrecorded{background:#e6b800}
.legend .b-unlinked{background:#b0b6bf}.legend .b-untraced{background:#c3cfe0}
)css";

class Section {
public:
  Section(HtmlBuilder &H, const LintedTrace &L, const analysis::TraceIndex &Ctx,
          const HtmlOptions &O, std::string Anchor)
      : H(H), L(L), Ctx(Ctx), O(O), Locate(Ctx), Anchor(std::move(Anchor)) {}

  /// The index entries of the cards written.
  std::vector<HtmlIndexEntry> Index;

  void write() {
    H.open("section", {{"class", "input"}, {"id", Anchor}});
    H.element("h2", "tracelint lint: " + L.Input);
    writeFacts();
    const auto &Fs = L.Result.Findings;
    if (Fs.empty())
      H.element("p", "No findings.", {{"class", "note"}});
    for (size_t I = 0; I < Fs.size(); ++I)
      writeCard(I, Fs[I]);
    writeCannotJudge(H, L.Result.Skipped);
    H.close();
  }

private:
  void shown(llvm::StringRef Text) { writeShown(H, Text, O.LongNames); }

  void fact(llvm::StringRef Term, llvm::function_ref<void()> Body) {
    H.element("dt", Term);
    H.open("dd");
    Body();
    H.close();
  }

  void writeFacts() {
    const rules::LintResult &R = L.Result;
    H.open("dl", {{"class", "facts"}});
    fact("target", [&] { shown(R.Target.Description); });
    if (R.Target.Idle.Device >= 0 && R.Target.Idle.SpanNs > 0)
      fact("idle", [&] { writeIdleBar(R.Target.Idle); });
    fact("devices", [&] { writeDevices(); });
    if (!R.QualityNotes.empty())
      fact("quality", [&] {
        H.open("ul");
        for (const std::string &N : R.QualityNotes) {
          H.open("li");
          shown(N);
          H.close();
        }
        H.close();
      });
    fact("times", [&] {
      H.text(llvm::formatv("+s from the first event (ts {0:F3} us), as in "
                           "Perfetto's timeline",
                           R.FirstEventUs)
                 .str());
    });
    H.close();
  }

  /// The target's span on its device: busy, then each idle cause.
  void writeIdleBar(const analysis::TargetIdle &I) {
    constexpr double W = 700, BarH = 18;
    std::vector<IdleCause> Causes = idleCauses(I);
    int64_t Busy = std::max<int64_t>(I.SpanNs - I.IdleNs, 0);
    H.text(llvm::formatv(
               "device {0}, {1} of {2}: busy {3}, idle {4} ({5})", I.Device,
               L.Result.Target.Kind == analysis::TargetKind::MedianStep
                   ? "the median step"
                   : "the window",
               formatDuration(I.SpanNs), formatDuration(Busy),
               formatDuration(I.IdleNs),
               formatShare(double(I.IdleNs) / double(I.SpanNs)))
               .str());
    H.open("svg", {{"class", "bar"},
                   {"viewBox", "0 0 700 18"},
                   {"width", "700"},
                   {"height", "18"},
                   {"role", "img"}});
    double X = 0;
    auto Segment = [&](int64_t Ns, llvm::StringRef Key, llvm::StringRef What) {
      double Wd = W * double(Ns) / double(I.SpanNs);
      H.open("rect", {{"class", ("b-" + Key).str()},
                      {"x", svgNumber(X)},
                      {"y", "0"},
                      {"width", svgNumber(Wd)},
                      {"height", svgNumber(BarH)}});
      H.element("title", (What + " " + formatDuration(Ns) + " (" +
                          formatShare(double(Ns) / double(I.SpanNs)) + ")")
                             .str());
      H.close();
      X += Wd;
    };
    Segment(Busy, "busy", "busy");
    for (const IdleCause &C : Causes)
      Segment(C.Ns, analysis::idleCauseInfo(C.Cause).Key,
              idleCauseLabel(C.Cause));
    H.close();
    H.open("div", {{"class", "legend"}});
    auto Legend = [&](llvm::StringRef Key, llvm::StringRef What, int64_t Ns) {
      H.open("span");
      H.open("i", {{"class", ("b-" + Key).str()}});
      H.close();
      H.text((What + " " + formatDuration(Ns)).str());
      H.close();
    };
    Legend("busy", "busy", Busy);
    for (const IdleCause &C : Causes)
      Legend(analysis::idleCauseInfo(C.Cause).Key, idleCauseLabel(C.Cause),
             C.Ns);
    H.close();
  }

  void writeDevices() {
    const analysis::TraceStats &S = L.Stats;
    if (!S.hasDeviceActivity()) {
      H.text("device activity was not recorded; device busy and idle time "
             "cannot be judged");
      return;
    }
    H.open("ul");
    for (const analysis::DeviceStats &D : S.Devices) {
      std::string Line = deviceSummary(D, L.Trace);
      H.element("li", Line);
    }
    H.close();
  }

  void writeCard(size_t Rank, const Finding &F) {
    llvm::StringRef Of =
        L.Result.Target.Kind == analysis::TargetKind::MedianStep ? "step"
                                                                 : "window";
    std::string Id = Anchor + "-finding-" + std::to_string(Rank + 1);
    writeFindingCard(H, Rank + 1, Id, F, Of, O.LongNames,
                     [&] { writeTimeline(F); });
    Index.push_back(htmlIndexEntry(F, Rank + 1, std::move(Id), Of));
  }

  void writeTimeline(const Finding &F) {
    std::vector<uint32_t> Flagged;
    size_t Missing = 0;
    for (const rules::ExampleEvent &E : F.Examples) {
      uint32_t I = Locate.find(E);
      if (I == model::NoIndex)
        ++Missing;
      else
        Flagged.push_back(I);
    }
    if (Flagged.empty()) {
      if (!F.Examples.empty())
        H.element("p",
                  "The example events could not be found in the trace "
                  "to draw them.",
                  {{"class", "note"}});
      return;
    }
    TimelineSelection S = selectTimeline(Ctx, Flagged, O.Timeline);
    writeTimelineSvg(H, Ctx, S);
    std::vector<std::string> Notes;
    Notes.push_back(llvm::formatv("{0} to {1}; flagged events outlined in red",
                                  formatOffset(S.Begin - L.Trace.WindowStart),
                                  formatOffset(S.End - L.Trace.WindowStart))
                        .str());
    if (!S.Devices.empty())
      Notes.push_back("device idle time in light red, red while the flagged "
                      "host events run, drawn within " +
                      describeIdleClip(S, L.Trace.WindowStart));
    if (S.Merged)
      Notes.push_back(llvm::formatv("{0} short events merged into {1} "
                                    "box{2} (dashed)",
                                    S.Merged, S.Clusters.size(),
                                    S.Clusters.size() == 1 ? "" : "es")
                          .str());
    if (S.StreamsLeftOut)
      Notes.push_back(llvm::formatv("{0} more stream{1} busy in this window "
                                    "not drawn",
                                    S.StreamsLeftOut,
                                    S.StreamsLeftOut == 1 ? "" : "s")
                          .str());
    if (S.LeftOut)
      Notes.push_back(llvm::formatv("{0} more event{1} in this window not "
                                    "drawn",
                                    S.LeftOut, S.LeftOut == 1 ? "" : "s")
                          .str());
    if (Missing)
      Notes.push_back(llvm::formatv("{0} example{1} not found in the trace",
                                    Missing, Missing == 1 ? "" : "s")
                          .str());
    H.element("p", llvm::join(Notes, "; "), {{"class", "note"}});
  }

  HtmlBuilder &H;
  const LintedTrace &L;
  const analysis::TraceIndex &Ctx;
  const HtmlOptions &O;
  ExampleLocator Locate;
  const std::string Anchor;
};

/// The findings index at the top of the page: per section, a row per
/// finding linking to its card.
void writeIndex(HtmlBuilder &H, llvm::ArrayRef<HtmlSection> Sections,
                llvm::ArrayRef<InputError> Errors, bool LongNames) {
  H.open("nav", {{"class", "index"}, {"aria-label", "findings"}});
  H.element("h2", "findings");
  const bool Headings = Sections.size() + Errors.size() > 1;
  for (const HtmlSection &S : Sections) {
    if (Headings) {
      H.open("h3");
      H.element("a", S.Heading, {{"href", "#" + S.Anchor}});
      H.close();
    }
    if (S.Index.empty()) {
      H.element("p", "No findings.", {{"class", "note"}});
      continue;
    }
    H.open("table", {{"class", "findings"}});
    H.open("tr");
    for (const char *Head : {"#", "code", "rule", "impact", "hypothesis"})
      H.element("th", Head);
    H.close();
    for (const HtmlIndexEntry &E : S.Index) {
      const std::string Link = "#" + E.Anchor;
      H.open("tr", {{"class", "sev-" + E.Severity}});
      H.open("td");
      H.element("a", std::to_string(E.Number), {{"href", Link}});
      H.close();
      H.open("td", {{"class", "code"}});
      H.element("a", E.Code, {{"href", Link}});
      H.close();
      H.element("td", E.Name);
      H.element("td",
                formatDuration(E.ImpactNs) + " (" + formatShare(E.ImpactShare) +
                    " of " + E.Of + ")",
                {{"class", "impact"}});
      std::string Shown =
          LongNames ? E.Hypothesis : shortenNamesIn(E.Hypothesis);
      H.open("td");
      H.element("span", sanitize(Shown, 140), {{"title", E.Hypothesis}});
      H.close();
      H.close();
    }
    H.close();
  }
  for (size_t I = 0; I < Errors.size(); ++I) {
    H.open("p");
    H.element("a", Errors[I].Input,
              {{"href", "#input-error-" + std::to_string(I + 1)}});
    H.text(": could not be read");
    H.close();
  }
  H.close();
}

} // namespace

HtmlIndexEntry report::htmlIndexEntry(const Finding &F, size_t Number,
                                      std::string Anchor, llvm::StringRef Of) {
  HtmlIndexEntry E;
  E.Anchor = std::move(Anchor);
  E.Number = Number;
  E.Code = F.Code;
  E.Name = F.Name;
  E.Severity = rules::severityName(F.Sev).str();
  E.ImpactNs = F.ImpactNs;
  E.ImpactShare = F.ImpactShare;
  E.Of = Of.str();
  E.Hypothesis = F.Hypothesis;
  return E;
}

HtmlSection report::lintHtmlSection(const LintedTrace &L,
                                    const analysis::TraceIndex &Ctx,
                                    const HtmlOptions &Opts,
                                    size_t SectionNumber) {
  HtmlSection Out;
  Out.Heading = L.Input;
  Out.Anchor = "input-" + std::to_string(SectionNumber);
  Out.Body = htmlSection([&](HtmlBuilder &H) {
    Section S(H, L, Ctx, Opts, Out.Anchor);
    S.write();
    Out.Index = std::move(S.Index);
  });
  return Out;
}

void report::writeLintHtmlDocument(llvm::raw_ostream &OS,
                                   llvm::ArrayRef<HtmlSection> Sections,
                                   llvm::ArrayRef<InputError> Errors,
                                   const HtmlOptions &Opts) {
  HtmlBuilder H(OS);
  H.literal("<!DOCTYPE html>\n");
  H.open("html", {{"lang", "en"}});
  H.open("head");
  H.empty("meta", {{"charset", "utf-8"}});
  // Nothing may be fetched: the page opens from a CI artifact offline.
  H.empty("meta",
          {{"http-equiv", "Content-Security-Policy"},
           {"content", "default-src 'none'; style-src 'unsafe-inline'"}});
  H.element("title", "tracelint lint report");
  H.open("style");
  H.literal(Style);
  H.literal(Swatches);
  H.close();
  H.close();
  H.open("body");
  H.element("h1", "tracelint " + Opts.ToolVersion + " lint report");
  // The arrow head of every timeline's launch links, defined once.
  H.literal("<svg width=\"0\" height=\"0\" style=\"position:absolute\">"
            "<defs><marker id=\"tl-arrow\" viewBox=\"0 0 6 6\" refX=\"5\" "
            "refY=\"3\" markerWidth=\"6\" markerHeight=\"6\" "
            "orient=\"auto\"><path d=\"M0,0L6,3L0,6z\" fill=\"#d0021b\"/>"
            "</marker></defs></svg>\n");
  writeIndex(H, Sections, Errors, Opts.LongNames);
  for (const HtmlSection &S : Sections)
    OS << S.Body;
  for (size_t I = 0; I < Errors.size(); ++I) {
    const InputError &E = Errors[I];
    H.open("section", {{"class", "input error"},
                       {"id", "input-error-" + std::to_string(I + 1)}});
    H.element("h2", "tracelint lint: " + E.Input);
    H.element("p", "could not be read: " + E.Message);
    H.close();
  }
  H.close();
  H.close();
  OS << "\n";
}
