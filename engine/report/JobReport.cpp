//===- report/JobReport.cpp - The job section of `lint --job` -------------===//
#include "report/JobReport.h"

#include "report/JsonSupport.h"
#include "report/ShortNames.h"
#include "report/TextStyle.h"
#include "report/TextWrap.h"
#include "rules/RuleSpec.h"
#include "support/Format.h"
#include "support/Statistics.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <algorithm>
#include <map>
#include <optional>

using namespace tracelint;
using namespace tracelint::report;
using analysis::JobAnalysis;
using analysis::JobCollective;
using support::formatDuration;

namespace {

/// Tables longer than this show their first rows and a count, unless
/// verbose: a job of 10,000 ranks must not print 10,000 lines.
constexpr size_t MaxRows = 32;

std::string sanitized(llvm::StringRef S) { return support::sanitize(S); }

/// \p S as the report shows a trace-derived text: names shortened unless
/// --long-names, as in the trace report.
std::string shown(llvm::StringRef S, const TextOptions &O) {
  return sanitized(namesAsShown(S, O.LongNames));
}

} // namespace

std::string report::foldedOnRanks(const FoldedFinding &F,
                                  const JobAnalysis &J) {
  size_t N = J.Ranks.size();
  if (F.Ranks.size() == 1)
    return N == 1 ? "on the only rank"
                  : "on rank " + std::to_string(F.Ranks[0]) + " only";
  std::string Text = llvm::formatv("on {0} of {1} ranks", F.Ranks.size(), N);
  if (F.Ranks.size() == N)
    return Text;
  if (F.Ranks.size() * 2 >= N) {
    std::vector<int64_t> Without;
    for (const analysis::JobRank &R : J.Ranks)
      if (!std::binary_search(F.Ranks.begin(), F.Ranks.end(), R.S.Rank))
        Without.push_back(R.S.Rank);
    return Text + " (all but rank" + (Without.size() == 1 ? " " : "s ") +
           support::formatRanges(Without) + ")";
  }
  return Text + " (rank" + (F.Ranks.size() == 1 ? " " : "s ") +
         support::formatRanges(F.Ranks) + ")";
}

namespace {

void writeFindingText(llvm::raw_ostream &OS, const rules::Finding &F,
                      size_t Number, const TextOptions &O) {
  Painter P(OS, O.Color);
  OS << "\n" << Number << ". ";
  P.paint(F.Code, Bold);
  OS << " [" << F.Name << "] ";
  P.severity(F.Sev);
  if (F.BaselineMark)
    OS << ", " << rules::baselineStateWords(*F.BaselineMark);
  OS << ", confidence " << formatConfidence(F.Confidence) << ", impact up to "
     << formatDuration(F.ImpactNs) << " ("
     << support::formatShare(F.ImpactShare) << " of job step)\n";
  // Wrapped to --width like the per-trace report's findings.
  const size_t Width = std::min(O.Width, MaxLineWidth);
  const std::string Pad = "   ";
  auto Line = [&](llvm::StringRef Label, llvm::StringRef Text) {
    if (!Text.empty())
      writeWrapped(OS, Pad + Label.str(), shown(Text, O), Width);
  };
  Line("", F.Hypothesis);
  Line("where: ", F.Window);
  auto List = [&](llvm::StringRef Title, llvm::ArrayRef<std::string> Items) {
    if (Items.empty())
      return;
    OS << Pad << Title << ":\n";
    for (const std::string &I : Items)
      Line("  - ", I);
  };
  List("evidence", F.Evidence);
  if (O.Verbose)
    List("could also be", F.Alternatives);
  Line("experiment: ", F.Next.Change);
  Line("expect:     ", F.Next.PredictMetric);
  if (O.Verbose) {
    Line("in trace:   ", F.Next.PredictTrace);
    Line("verify:     ", F.Next.Verify);
    Line("refuted if: ", F.Next.RefutedIf);
    List("confidence", F.ConfidenceNotes);
  }
  OS << Pad << "fingerprint " << F.Fingerprint << "\n";
}

} // namespace

std::string report::foldedSpread(const FoldedFinding &F, const JobAnalysis &J) {
  std::string Text = foldedOnRanks(F, J) + ", impact median " +
                     formatDuration(F.MedianImpactNs);
  if (F.Ranks.size() > 1)
    Text += " (up to " + formatDuration(F.MaxImpactNs) + " on rank " +
            std::to_string(F.MaxRank) + ")";
  return Text;
}

std::string report::jobMatchedText(const JobAnalysis &J) {
  return llvm::formatv("{0} collective{1} by {2}; {3} not found on every rank",
                       J.Collectives.size(),
                       J.Collectives.size() == 1 ? "" : "s", J.MatchedBy,
                       J.Mismatched)
      .str();
}

std::string report::jobClocksText(const JobAnalysis &J) {
  if (J.Reference == SIZE_MAX)
    return "not aligned: no rank records a collective; the trace clocks are "
           "used";
  size_t Unaligned = llvm::count_if(
      J.Ranks, [](const analysis::JobRank &R) { return !R.Aligned; });
  std::string Text = llvm::formatv(
      "aligned to {0} from the collectives' end times (median offset per "
      "rank); spread up to {1}, {2} outlier{3}",
      J.rankName(J.Reference), formatDuration(J.OffsetSpreadNs),
      J.OffsetOutliers, J.OffsetOutliers == 1 ? "" : "s");
  if (Unaligned)
    Text += llvm::formatv("; {0} rank{1} with fewer than 2 matched "
                          "collectives keep{2} the trace clock",
                          Unaligned, Unaligned == 1 ? "" : "s",
                          Unaligned == 1 ? "s" : "");
  return Text;
}

namespace {

/// A subject that names the rank's own device ("device 5") is the same
/// subject on every rank.
std::string foldedSubject(llvm::StringRef Subject) {
  llvm::StringRef Rest = Subject;
  if (Rest.consume_front("device ") && !Rest.empty() &&
      llvm::all_of(Rest, llvm::isDigit))
    return "the rank's device";
  return Subject.str();
}

} // namespace

std::vector<FoldedFinding> report::foldRankFindings(const JobAnalysis &Job) {
  std::map<std::pair<std::string, std::string>, FoldedFinding> By;
  std::map<std::pair<std::string, std::string>, std::vector<int64_t>> Impacts;
  for (const analysis::JobRank &R : Job.Ranks)
    for (const analysis::RankFinding &F : R.S.Findings) {
      auto Key = std::make_pair(F.Code, foldedSubject(F.Subject));
      FoldedFinding &Fold = By[Key];
      if (Fold.Code.empty()) {
        Fold.Code = F.Code;
        Fold.Name = F.Name;
        Fold.Severity = F.Severity;
        Fold.Subject = Key.second;
      }
      if (!Fold.Ranks.empty() && Fold.Ranks.back() == R.S.Rank)
        continue; // the same subject twice on one rank
      Fold.Ranks.push_back(R.S.Rank);
      Impacts[Key].push_back(F.ImpactNs);
      if (F.ImpactNs > Fold.MaxImpactNs || Fold.MaxRank < 0) {
        Fold.MaxImpactNs = F.ImpactNs;
        Fold.MaxRank = R.S.Rank;
      }
    }
  std::vector<FoldedFinding> Out;
  for (auto &[Key, F] : By) {
    F.MedianImpactNs = support::median(Impacts[Key]);
    Out.push_back(std::move(F));
  }
  llvm::stable_sort(Out, [](const FoldedFinding &A, const FoldedFinding &B) {
    if (A.Ranks.size() != B.Ranks.size())
      return A.Ranks.size() > B.Ranks.size();
    if (A.MedianImpactNs != B.MedianImpactNs)
      return A.MedianImpactNs > B.MedianImpactNs;
    return A.Code < B.Code;
  });
  return Out;
}

void report::writeJobText(llvm::raw_ostream &OS, const JobAnalysis &J,
                          const rules::JobLintResult &R,
                          llvm::ArrayRef<InputError> Errors,
                          const TextOptions &O) {
  Painter P(OS, O.Color);
  P.label("job");
  OS << J.Ranks.size() << " rank" << (J.Ranks.size() == 1 ? "" : "s") << " of "
     << J.WorldSize << "\n";
  P.label("target");
  OS << R.Target << "\n";
  if (J.PaceKnown) {
    P.label("pace");
    OS << J.describePace() << "\n";
  }
  P.label("clocks");
  OS << jobClocksText(J) << "\n";
  P.label("matched");
  OS << jobMatchedText(J) << "\n";
  for (const std::string &Problem : J.Problems) {
    P.label("problem");
    OS << sanitized(Problem) << "\n";
  }
  for (const InputError &E : Errors) {
    P.label("unreadable");
    OS << sanitized(E.Message) << "\n";
  }

  // Findings under --min-severity are counted in the summary, not shown:
  // the job's own and the ranks' folded ones alike.
  auto Hidden = [&](llvm::StringRef Severity) {
    std::optional<rules::Severity> S = rules::parseSeverity(Severity);
    return S && *S < O.MinSeverity;
  };
  size_t HiddenJob = 0, HiddenRank = 0;
  OS << "\n";
  P.paint("job findings", Bold);
  OS << "\n";
  size_t Number = 0;
  for (const rules::Finding &F : R.Findings) {
    if (F.Sev < O.MinSeverity) {
      ++HiddenJob;
      continue;
    }
    writeFindingText(OS, F, ++Number, O);
  }
  if (!Number)
    OS << "   none\n";
  for (const rules::Skipped &S : R.Skipped)
    if (S.Kind == rules::SkipKind::CannotJudge || O.Verbose)
      OS << "\n"
         << S.Code << " [" << S.Name << "]: " << rules::skipKindName(S.Kind)
         << ": " << sanitized(S.Reason) << "\n";

  const size_t Rows = O.Verbose ? SIZE_MAX : MaxRows;
  OS << "\nranks       rank  median step  work/step    waited/step  offset  "
        "     spread     last at  input\n";
  size_t Shown = 0;
  for (size_t Slot = 0; Slot < J.Ranks.size() && Shown < Rows;
       ++Slot, ++Shown) {
    const analysis::JobRank &Rk = J.Ranks[Slot];
    OS << llvm::formatv("            {0,4}  {1,-11}  {2,-11}  {3,-11}  "
                        "{4,-11}  {5,-9}  {6,7}  ",
                        Rk.S.Rank, formatDuration(Rk.S.medianStepNs()),
                        formatDuration(Rk.workPerStepNs()),
                        formatDuration(Rk.waitPerStepNs()),
                        Rk.Aligned ? formatDuration(Rk.OffsetNs)
                                   : std::string("trace"),
                        formatDuration(Rk.OffsetSpreadNs), Rk.TimesLast)
       << sanitized(Rk.S.Input) << "\n";
  }
  if (J.Ranks.size() > Shown)
    OS << "            ... " << J.Ranks.size() - Shown
       << " more ranks (--verbose or --format json shows every rank)\n";

  OS << "\ncollectives late rank per collective (clocks aligned)\n";
  Shown = 0;
  for (const JobCollective &M : J.Collectives) {
    if (Shown == Rows)
      break;
    if (M.Last == SIZE_MAX)
      continue;
    ++Shown;
    OS << "            " << sanitized(M.describe()) << ": "
       << J.rankName(M.Last) << " last by " << formatDuration(M.LateByNs)
       << ", the other " << (M.Present - 1) << " waited "
       << formatDuration(M.WaitNs) << " in all\n";
  }
  size_t Judged = llvm::count_if(
      J.Collectives, [](const JobCollective &M) { return M.Last != SIZE_MAX; });
  if (Judged > Shown)
    OS << "            ... " << Judged - Shown << " more collectives\n";

  OS << "\n";
  P.paint("rank findings", Bold);
  OS << " (each rank's own, folded)\n";
  std::vector<FoldedFinding> Folded = foldRankFindings(J);
  std::vector<const FoldedFinding *> Listed;
  for (const FoldedFinding &F : Folded) {
    if (Hidden(F.Severity))
      ++HiddenRank;
    else
      Listed.push_back(&F);
  }
  if (Listed.empty())
    OS << "   none\n";
  Shown = 0;
  for (const FoldedFinding *FP : Listed) {
    const FoldedFinding &F = *FP;
    if (Shown++ == Rows) {
      OS << "   ... " << Listed.size() - Rows << " more\n";
      break;
    }
    OS << "   ";
    P.paint(F.Code, Bold);
    OS << " [" << F.Name << "] ";
    if (std::optional<rules::Severity> S = rules::parseSeverity(F.Severity))
      P.severity(*S);
    else
      OS << sanitized(F.Severity);
    OS << " " << foldedSpread(F, J) << ": " << shown(F.Subject, O) << "\n";
  }
  size_t Warn = 0;
  for (const rules::Finding &F : R.Findings)
    Warn += F.Sev >= rules::Severity::Warning;
  OS << "\n";
  P.label("summary");
  OS << R.Findings.size() << " job finding"
     << (R.Findings.size() == 1 ? "" : "s") << " (" << Warn
     << " warning or worse); " << Folded.size() << " distinct rank finding"
     << (Folded.size() == 1 ? "" : "s");
  if (HiddenJob + HiddenRank) {
    std::vector<std::string> Parts;
    if (HiddenJob)
      Parts.push_back(llvm::formatv("{0} job", HiddenJob));
    if (HiddenRank)
      Parts.push_back(llvm::formatv("{0} rank", HiddenRank));
    OS << "; " << llvm::join(Parts, " and ") << " finding"
       << (HiddenJob + HiddenRank == 1 ? "" : "s") << " under --min-severity "
       << rules::severityName(O.MinSeverity) << " not shown";
  }
  OS << "\n";
  if (R.Baseline)
    writeBaselineLine(OS, *R.Baseline, O.Color);
}

std::vector<LintOutcome>
report::jobOutcomes(const JobAnalysis &J, const rules::JobLintResult &R,
                    const std::vector<std::string> &RulesRun) {
  std::vector<LintOutcome> Out;
  std::map<size_t, size_t> OutcomeOf; // slot -> index in Out
  auto Outcome = [&](size_t Slot) -> LintOutcome & {
    auto [It, New] = OutcomeOf.try_emplace(Slot, Out.size());
    if (New) {
      LintOutcome O;
      O.Input = J.Ranks[Slot].S.Input;
      O.Target = R.Target;
      O.RulesRun = RulesRun;
      O.Result.Skipped = R.Skipped;
      Out.push_back(std::move(O));
    }
    return Out[It->second];
  };
  if (J.Ranks.empty())
    return Out;
  const size_t Fallback = J.Reference == SIZE_MAX ? 0 : J.Reference;
  for (size_t I = 0; I < R.Findings.size(); ++I) {
    const rules::Finding &F = R.Findings[I];
    // The rank a job finding names is the late rank of its collective.
    size_t Slot =
        F.Collective >= 0 && size_t(F.Collective) < J.Collectives.size()
            ? J.Collectives[F.Collective].Last
            : SIZE_MAX;
    LintOutcome &O = Outcome(Slot == SIZE_MAX ? Fallback : Slot);
    O.Result.Findings.push_back(F);
  }
  if (Out.empty())
    Outcome(Fallback);
  Out.front().Result.Baseline = R.Baseline; // counted once
  return Out;
}

std::string report::jobJsonObject(const JobAnalysis &J,
                                  const rules::JobLintResult &R) {
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  llvm::json::OStream W(OS, 2);
  W.object([&] {
    W.attribute("world_size", J.WorldSize);
    W.attribute("target", R.Target);
    W.attribute("target_ns", R.TargetNs);
    W.attribute("pacing_rank",
                J.Pacing == SIZE_MAX ? int64_t(-1) : J.Ranks[J.Pacing].S.Rank);
    // The rank the job's critical path runs through most (-1: none), and
    // the path's parts (docs/multi-rank.md).
    W.attribute("critical_rank", J.Path.Critical == SIZE_MAX
                                     ? int64_t(-1)
                                     : J.Ranks[J.Path.Critical].S.Rank);
    W.attributeObject("path", [&] {
      W.attribute("total_ns", J.Path.TotalNs);
      W.attribute("communication_ns", J.Path.CommunicationNs);
      W.attribute("undecided_ns", J.Path.UndecidedNs);
      W.attribute("collectives", int64_t(J.Path.Collectives));
      W.attribute("undecided_collectives", int64_t(J.Path.Undecided));
    });
    W.attribute("matched_by", J.MatchedBy);
    W.attribute("collectives_matched", int64_t(J.Collectives.size()));
    W.attribute("collectives_mismatched", int64_t(J.Mismatched));
    W.attributeObject("clocks", [&] {
      W.attribute("aligned", J.ClocksAligned);
      W.attribute("reference_rank", J.Reference == SIZE_MAX
                                        ? int64_t(-1)
                                        : J.Ranks[J.Reference].S.Rank);
      W.attribute("spread_ns", J.OffsetSpreadNs);
      W.attribute("outliers", int64_t(J.OffsetOutliers));
    });
    W.attributeArray("missing_ranks", [&] {
      for (int64_t M : J.MissingRanks)
        W.value(M);
    });
    W.attributeArray("problems", [&] {
      for (const std::string &P : J.Problems)
        W.value(P);
    });
    if (R.Baseline)
      writeBaselineJson(W, *R.Baseline);
    W.attributeArray("findings", [&] {
      for (const rules::Finding &F : R.Findings)
        writeFindingJson(W, F);
    });
    W.attributeArray("skipped", [&] {
      for (const rules::Skipped &S : R.Skipped)
        W.object([&] {
          W.attribute("code", S.Code);
          W.attribute("name", S.Name);
          W.attribute("kind", rules::skipKindName(S.Kind));
          W.attribute("reason", S.Reason);
        });
    });
    W.attributeArray("ranks", [&] {
      for (const analysis::JobRank &Rk : J.Ranks)
        W.object([&] {
          W.attribute("rank", Rk.S.Rank);
          W.attribute("input", Rk.S.Input);
          W.attribute("rank_from", analysis::rankSourceName(Rk.S.RankFrom));
          W.attribute("producer", Rk.S.Producer);
          W.attribute("median_step_ns", Rk.S.medianStepNs());
          W.attribute("work_per_step_ns", Rk.workPerStepNs());
          W.attribute("waited_per_step_ns", Rk.waitPerStepNs());
          W.attribute("clock_aligned", Rk.Aligned);
          W.attribute("clock_offset_ns", Rk.OffsetNs);
          W.attribute("clock_spread_ns", Rk.OffsetSpreadNs);
          W.attribute("clock_outliers", int64_t(Rk.OffsetOutliers));
          W.attribute("times_last", int64_t(Rk.TimesLast));
          const size_t Slot = size_t(&Rk - J.Ranks.data());
          W.attribute("path_ns", Slot < J.Path.OwnedNs.size()
                                     ? J.Path.OwnedNs[Slot]
                                     : int64_t(0));
          writeRounded(W, "path_share", J.Path.shareOf(Slot));
          W.attribute("top_idle_cause", Rk.S.topIdleCause());
          W.attributeArray("findings", [&] {
            for (const analysis::RankFinding &F : Rk.S.Findings)
              W.object([&] {
                W.attribute("code", F.Code);
                W.attribute("name", F.Name);
                W.attribute("severity", F.Severity);
                W.attribute("impact_ns", F.ImpactNs);
                W.attribute("subject", F.Subject);
              });
          });
        });
    });
    W.attributeArray("collectives", [&] {
      for (const JobCollective &M : J.Collectives)
        W.object([&] {
          W.attribute("kind", M.Kind);
          W.attribute("group", M.Group);
          W.attribute("seq", M.Seq);
          W.attribute("ordinal", int64_t(M.Ordinal));
          W.attribute("ranks", int64_t(M.Present));
          W.attribute("late_rank", M.Last == SIZE_MAX ? int64_t(-1)
                                                      : J.Ranks[M.Last].S.Rank);
          W.attribute("late_by_ns", M.LateByNs);
          W.attribute("undecided", M.Undecided);
          W.attribute("wait_ns", M.WaitNs);
        });
    });
    W.attributeArray("folded_rank_findings", [&] {
      for (const FoldedFinding &F : foldRankFindings(J))
        W.object([&] {
          W.attribute("code", F.Code);
          W.attribute("name", F.Name);
          W.attribute("subject", F.Subject);
          W.attributeArray("ranks", [&] {
            for (int64_t Rk : F.Ranks)
              W.value(Rk);
          });
          W.attribute("median_impact_ns", F.MedianImpactNs);
          W.attribute("max_impact_ns", F.MaxImpactNs);
        });
    });
  });
  OS.flush();
  return Out;
}
