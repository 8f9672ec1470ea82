//===- rules/Engine.cpp - Running the catalogue on a trace ----------------===//
#include "rules/Engine.h"
#include "rules/PlatformWords.h"

#include "analysis/JobAnalysis.h"
#include "analysis/PathAnalysis.h"
#include "rules/Evaluator.h"

#include "support/Count.h"
#include "support/CpuTime.h"
#include "support/Format.h"
#include "support/Statistics.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/xxhash.h"

#include <array>
#include <atomic>
#include <cassert>
#include <cmath>
#include <mutex>
#include <set>

using namespace tracelint;
using namespace tracelint::rules;
using analysis::TraceIndex;

llvm::StringRef rules::needDescription(Need N) {
  switch (N) {
  case Need::DeviceActivity:
    return "device activity (kernels, copies, memsets): recorded with "
           "ProfilerActivity.CUDA (or the device's activity, e.g. "
           "ProfilerActivity.XPU/MTIA)";
  case Need::Launches:
    return "kernel launch calls (CUDA/HIP runtime or driver API): recorded "
           "with ProfilerActivity.CUDA";
  case Need::Correlation:
    return "correlation ids that link host launches to device work: "
           "recorded when ProfilerActivity.CPU and ProfilerActivity.CUDA are "
           "in the same session";
  case Need::Steps:
    return "step markers (ProfilerStep#N): call prof.step() once per "
           "iteration, or mark steps with record_function";
  case Need::Shapes:
    return "operator input shapes: profile with record_shapes=True";
  case Need::Stacks:
    return "Python stacks: profile with with_stack=True";
  case Need::Memory:
    return "memory events: profile with profile_memory=True";
  case Need::SteadyState:
    return "a steady-state window: step markers, or a window that is not "
           "mostly start-up (graph capture, context creation, compilation); "
           "profile past the warm-up iterations";
  }
  llvm_unreachable("covered switch");
}

static bool anyArgs(const model::Trace &T,
                    llvm::function_ref<bool(const model::EventArgs &)> Pred) {
  return llvm::any_of(T.Args, Pred);
}

std::string rules::missingNeed(const TraceIndex &Ctx, Need N) {
  const model::Trace &T = Ctx.trace();
  // How to record what is missing depends on the program: a PyTorch user
  // sets torch.profiler options, anyone else runs nsys (or rocprof).
  const bool Torch = analysis::speaksPyTorch(Ctx.producer().Kind);
  // A HIP program profiled with rocprofv3 records with rocprofv3's options.
  const bool Rocm = !Torch && Ctx.producer().isRocm();
  switch (N) {
  case Need::DeviceActivity:
    if (Ctx.hasDeviceActivity())
      return "";
    if (Ctx.hasLaunches())
      return Torch  ? "the trace has kernel launch calls but no device "
                      "activity (no kernels, copies or memsets were captured); "
                      "record it with ProfilerActivity.CUDA and check that the "
                      "device buffers were not lost"
             : Rocm ? "the trace has kernel launch calls but no device "
                      "activity (no kernels, copies or memsets were captured); "
                      "record it with rocprofv3 --kernel-trace "
                      "--memory-copy-trace and check that the device buffers "
                      "were not lost"
                    : "the trace has kernel launch calls but no device "
                      "activity (no kernels, copies or memsets were captured); "
                      "record it with nsys --trace=cuda and check that the "
                      "device buffers were not lost";
    return Torch ? "the trace has no device activity (no kernels, "
                   "copies or memsets); record it with ProfilerActivity.CUDA "
                   "(or the device's activity)"
                 : "the trace has no device activity (no kernels, copies or "
                   "memsets); record it with nsys --trace=cuda (rocprofv3 "
                   "--kernel-trace --memory-copy-trace on ROCm)";
  case Need::Launches:
    if (Ctx.hasLaunches())
      return "";
    return Torch ? "the trace has no kernel launch calls (CUDA/HIP "
                   "runtime or driver API); they are recorded with "
                   "ProfilerActivity.CUDA"
           : Rocm && !Ctx.quality().RuntimeCalls
               ? "the trace has no kernel launch calls: no host API calls "
                 "were recorded, only device work; rocprofv3 records the "
                 "HIP calls with --hip-trace (or --runtime-trace, "
                 "--sys-trace) beside --kernel-trace"
           : Rocm ? "the trace has no kernel launch calls (HIP runtime "
                    "API); rocprofv3 records them with --hip-trace (or "
                    "--runtime-trace, --sys-trace)"
                  : "the trace has no kernel launch calls (CUDA/HIP runtime "
                    "or driver API); they are recorded with nsys "
                    "--trace=cuda";
  case Need::Correlation:
    if (Ctx.hasCorrelation())
      return "";
    // Legacy rocprof records the calls and the device work in one session
    // but links them only by the flow arrows of its results.json.
    if (T.Source.Format == "rocprof")
      return "no device work is linked to a host launch: this rocprof "
             "results.json has no flow arrows from the API calls to the GPU "
             "and COPY rows (rocprof --hip-trace writes them; keep them when "
             "filtering the file)";
    return Torch  ? "no device work is linked to a host launch by "
                    "correlation id; record ProfilerActivity.CPU and "
                    "ProfilerActivity.CUDA in the same session"
           : Rocm ? "no device work is linked to a host launch by "
                    "correlation id; record the HIP calls and the device "
                    "activity in the same session (rocprofv3 --runtime-trace)"
                  : "no device work is linked to a host launch by "
                    "correlation id; record the API calls and the device "
                    "activity in the same session (nsys --trace=cuda)";
  case Need::Steps:
    if (Ctx.hasSteps())
      return "";
    return Torch  ? "the trace has no step markers; call prof.step() "
                    "once per iteration (ProfilerStep#N ranges)"
           : Rocm ? "the trace has no step markers; wrap each iteration in a "
                    "roctx range (roctxRangePush/roctxRangePop, recorded "
                    "with rocprofv3 --marker-trace) and name it with --step"
                  : "the trace has no step markers; wrap each iteration in "
                    "an NVTX range (nvtxRangePush/nvtxRangePop) and name it "
                    "with --step";
  case Need::Shapes:
    if (T.Source.RecordShapes == 1 || anyArgs(T, [](const model::EventArgs &A) {
          return A.InputDims != model::EmptyString;
        }))
      return "";
    return Torch ? "the trace has no operator input shapes; profile "
                   "with record_shapes=True"
                 : "the trace has no operator input shapes; a program "
                   "without framework operators records none";
  case Need::Stacks:
    if (T.Source.WithStack == 1 ||
        llvm::any_of(T.Events, [](const model::Event &E) {
          return E.Kind == model::EventKind::Python;
        }))
      return "";
    return Torch ? "the trace has no Python stacks; profile with "
                   "with_stack=True"
                 : "the trace has no Python stacks; the program has no "
                   "Python frames to record";
  case Need::Memory:
    if (T.Source.ProfileMemory == 1 ||
        anyArgs(T, [](const model::EventArgs &A) {
          return A.TotalAllocated >= 0 || A.TotalReserved >= 0;
        }))
      return "";
    return Torch ? "the trace has no memory events; profile with "
                   "profile_memory=True"
                 : "the trace has no allocator memory events; they come "
                   "from a framework's caching allocator";
  case Need::SteadyState:
    return Ctx.startupWindowReason();
  }
  llvm_unreachable("covered switch");
}

/// \p V followed by the noun of \p Forms ("copy|copies", or "kernel" for
/// "kernel|kernels") that agrees with it: "1 copy", "2 copies", "1.5
/// copies".
static std::string withNoun(const Value &V, llvm::StringRef Forms) {
  auto [Singular, Plural] = Forms.split('|');
  switch (V.type()) {
  case Value::Type::Count:
    return support::formatCount(V.integer(), Singular, Plural);
  case Value::Type::Number:
    return support::formatAverageCount(V.real(), Singular, Plural);
  case Value::Type::Text: {
    double N;
    if (!llvm::StringRef(V.str()).getAsDouble(N))
      return support::formatAverageCount(N, Singular, Plural);
    break;
  }
  case Value::Type::Duration:
  case Value::Type::Share:
  case Value::Type::Bytes:
    break;
  }
  return V.text() + " " + support::pluralNoun(2, Singular, Plural);
}

std::string rules::renderTemplate(llvm::StringRef Template,
                                  const std::map<std::string, Value> &Values) {
  std::string Out;
  Out.reserve(Template.size());
  for (size_t I = 0; I < Template.size();) {
    char C = Template[I];
    // "{{" and "}}" write a literal brace.
    if ((C == '{' || C == '}') && I + 1 < Template.size() &&
        Template[I + 1] == C) {
      Out += C;
      I += 2;
      continue;
    }
    if (C != '{') {
      Out += C;
      ++I;
      continue;
    }
    size_t Close = Template.find('}', I + 1);
    if (Close == llvm::StringRef::npos) {
      Out += Template.substr(I);
      break;
    }
    // {count:copy|copies}: the value and the noun that agrees with it.
    auto [Key, Noun] = Template.slice(I + 1, Close).split(':');
    auto It = Values.find(Key.str());
    if (It == Values.end()) {
      // Unknown: left as written, so that a rule author sees it.
      Out += Template.slice(I, Close + 1);
    } else if (!Noun.empty()) {
      Out += withNoun(It->second, Noun);
    } else {
      Out += It->second.text();
    }
    I = Close + 1;
  }
  return Out;
}

/// Subjects that differ only in run-specific numbers map to one fingerprint:
/// whitespace runs become one space, "#<digits>" becomes "#N" (step and
/// iteration numbers), and "0x<hex>" becomes "0x?" (addresses).
static std::string normalizeSubject(llvm::StringRef S) {
  std::string Out;
  S = S.trim();
  for (size_t I = 0; I < S.size();) {
    char C = S[I];
    if (llvm::isSpace(C)) {
      while (I < S.size() && llvm::isSpace(S[I]))
        ++I;
      Out += ' ';
      continue;
    }
    if (C == '#' && I + 1 < S.size() && llvm::isDigit(S[I + 1])) {
      Out += "#N";
      ++I;
      while (I < S.size() && llvm::isDigit(S[I]))
        ++I;
      continue;
    }
    if (C == '0' && I + 2 < S.size() && (S[I + 1] == 'x' || S[I + 1] == 'X') &&
        llvm::isHexDigit(S[I + 2]) && (I == 0 || !llvm::isAlnum(S[I - 1]))) {
      Out += "0x?";
      I += 2;
      while (I < S.size() && llvm::isHexDigit(S[I]))
        ++I;
      continue;
    }
    Out += C;
    ++I;
  }
  return Out;
}

std::string rules::fingerprint(llvm::StringRef Code, llvm::StringRef Subject) {
  std::string Key = Code.str() + ":" + normalizeSubject(Subject);
  uint64_t H = llvm::xxHash64(Key);
  return llvm::formatv("{0}", llvm::format_hex_no_prefix(H, 16)).str();
}

namespace {

/// A confidence factor that a trace-quality problem calls for.
struct Penalty {
  double Factor;
  std::string Note;
  /// Needs ("device", "correlation", ...) of the rules it applies to;
  /// empty: every rule.
  std::vector<std::string> Affects = {};

  bool appliesTo(const RuleSpec &Spec) const {
    if (Affects.empty())
      return true;
    for (Need N : Spec.Needs)
      if (llvm::is_contained(Affects, needName(N)))
        return true;
    return false;
  }
};

std::vector<Penalty> qualityPenalties(const TraceIndex &Ctx,
                                      std::vector<std::string> &Notes) {
  std::vector<Penalty> Out;
  const model::Trace &T = Ctx.trace();
  if (Ctx.truncated()) {
    Out.push_back({0.7, llvm::formatv("the trace is truncated at byte {0}: "
                                      "events after it are missing",
                                      T.Stats.TruncatedAtByte)
                            .str()});
  }
  // Other data loss (the truncation itself is counted above).
  std::vector<std::string> Lost;
  uint64_t LostCount = 0;
  for (unsigned I = 0; I < model::NumImportStats; ++I) {
    auto S = model::ImportStat(I);
    if (S == model::ImportStat::Truncated ||
        model::importStatSeverity(S) != model::StatSeverity::DataLoss ||
        !T.Stats.get(S))
      continue;
    LostCount += T.Stats.get(S);
    std::string What = llvm::formatv("{0} {1}", T.Stats.get(S),
                                     model::importStatDescription(S))
                           .str();
    if (!T.Stats.firstPlace(S).empty())
      What += ", first at " + T.Stats.firstPlace(S).str();
    Lost.push_back(What);
  }
  if (LostCount)
    Out.push_back(
        {0.8, "events were lost in import: " + llvm::join(Lost, "; ")});
  if (T.StepsFrom == model::StepSource::Inferred && Ctx.hasSteps())
    Out.push_back({0.9, "steps were inferred from repetition, not marked"});
  // Penalties for the rules whose needs the damage touches: clock skew,
  // unlinked device work, too few steps, no step markers.
  bool StepsNoted = false;
  for (const analysis::ConfidencePenalty &P : Ctx.confidencePenalties()) {
    Out.push_back({P.Factor, P.Note, P.Affects});
    StepsNoted |= llvm::StringRef(P.Note).contains("step");
  }
  for (const Penalty &P : Out)
    Notes.push_back(P.Note);
  if (!Ctx.hasSteps() && !StepsNoted)
    Notes.push_back("no step markers: the whole window is the target");
  return Out;
}

std::string formatFactor(double F) {
  std::string S = llvm::formatv("{0:F2}", F).str();
  while (S.back() == '0')
    S.pop_back();
  if (S.back() == '.')
    S.pop_back();
  return S;
}

/// The largest categories of the steady steps' paths that \p Q does not
/// remove, in words ("463 ms unrecorded-dependency (see S004), 2 ms
/// compute"); empty when there are none.
std::string whereThePathShows(const analysis::PathModel &Path,
                              const analysis::WhatIfQuery &Q, bool Migrations) {
  const auto &Cats = Path.medianCategories();
  std::vector<std::pair<int64_t, unsigned>> Rest;
  for (unsigned K = 0; K < analysis::NumPathCategories; ++K)
    if (!Q.Categories.test(K) && Cats[K] > 0)
      Rest.push_back({Cats[K], K});
  llvm::sort(Rest, [](const auto &A, const auto &B) {
    return A.first != B.first ? A.first > B.first : A.second < B.second;
  });
  std::string Out;
  for (size_t I = 0; I < Rest.size() && I < 2; ++I) {
    auto Cat = analysis::PathCategory(Rest[I].second);
    Out += (I ? ", " : "") + support::formatDuration(Rest[I].first) + " " +
           analysis::pathCategoryName(Cat).str();
    if (Cat == analysis::PathCategory::UnrecordedDependency)
      // Pages that migrate are what such delays mostly are where the
      // trace has migrations (M009 claims them, S004 the rest).
      Out += Migrations ? " (see M009 and S004)" : " (see S004)";
    else if (Cat == analysis::PathCategory::Queued)
      Out += " (work waiting on a busy device)";
  }
  return Out;
}

/// Renders \p Spec's texts for \p F from \p D's values (the vocabulary of
/// the producer \p Kind), and fills F's values, window, examples, subject
/// and fingerprint. Shared by trace and job findings.
/// When the path capped the impact, the parenthesis after {impact} in
/// \p Template (what the detector's figure is: "the SIMT kernels' union
/// per step") no longer names the number it follows. It becomes "(the
/// critical path's bound; the SIMT kernels' union per step: 34.6 ms)",
/// with the detector's figure \p Figure.
std::string rebaseImpactBasis(llvm::StringRef Template,
                              llvm::StringRef Figure) {
  constexpr llvm::StringLiteral Head = "{impact} (";
  size_t At = Template.find(Head);
  if (At == llvm::StringRef::npos)
    return Template.str();
  size_t Open = At + Head.size() - 1, Close = llvm::StringRef::npos;
  int Depth = 0;
  for (size_t I = Open; I < Template.size(); ++I) {
    if (Template[I] == '(')
      ++Depth;
    else if (Template[I] == ')' && --Depth == 0) {
      Close = I;
      break;
    }
  }
  if (Close == llvm::StringRef::npos)
    return Template.str();
  return (Template.take_front(Open + 1) + "the critical path's bound; " +
          Template.slice(Open + 1, Close) + ": " + Figure +
          Template.drop_front(Close))
      .str();
}

void renderTexts(const RuleSpec &Spec, const std::string &Target,
                 const analysis::ProducerInfo &Program, Detection &D,
                 Finding &F, llvm::StringRef CappedFigure = "") {
  auto &V = D.Values;
  V.emplace("target", Target);
  V.emplace("code", Spec.Code);
  V.emplace("name", Spec.Name);
  V.emplace("subject", D.Subject.empty() ? "none" : D.Subject);

  // The texts in the vocabulary of the program that produced the trace,
  // and of the platform it ran on.
  const RuleTexts Texts =
      inPlatformWords(Spec.textsFor(Program.Kind), Program.Plat);
  F.Hypothesis = renderTemplate(
      Texts.Hypothesis.empty() ? Spec.Summary : Texts.Hypothesis, V);
  for (const std::string &E : Texts.Evidence)
    F.Evidence.push_back(renderTemplate(E, V));
  for (std::string &E : D.ExtraEvidence)
    F.Evidence.push_back(std::move(E));
  for (const std::string &A : Texts.Alternatives)
    F.Alternatives.push_back(renderTemplate(A, V));
  F.Next.Change = renderTemplate(Texts.Next.Change, V);
  F.Next.PredictTrace = renderTemplate(Texts.Next.PredictTrace, V);
  F.Next.PredictMetric = renderTemplate(
      CappedFigure.empty()
          ? Texts.Next.PredictMetric
          : rebaseImpactBasis(Texts.Next.PredictMetric, CappedFigure),
      V);
  F.Next.Verify = renderTemplate(Texts.Next.Verify, V);
  F.Next.RefutedIf = renderTemplate(Texts.Next.RefutedIf, V);
  // The values measured for this finding; the rule's identity, the target
  // and the subject have fields of their own in every report.
  for (llvm::StringRef Own : {"code", "name", "target", "subject"})
    V.erase(Own.str());
  F.Values = std::move(V);
  F.Window = std::move(D.Window);
  F.Examples = std::move(D.Examples);
  F.Collective = D.Collective;
  F.Subject = std::move(D.Subject);
  F.Fingerprint = fingerprint(F.Code, F.Subject);
  F.Claims = Spec.Sig.Claims;
}

/// Finding::GateMargin: the detector's measured share ({share}, else
/// {value}) over its {threshold}, when both are shares (the convention
/// docs/rule-format.md states for the placeholders); 0 otherwise.
double gateMargin(const std::map<std::string, Value> &V) {
  auto Share = [&](const char *Key) -> std::optional<double> {
    auto It = V.find(Key);
    if (It == V.end() || It->second.type() != Value::Type::Share)
      return std::nullopt;
    return It->second.real();
  };
  std::optional<double> Threshold = Share("threshold");
  std::optional<double> Measured = Share("share");
  if (!Measured)
    Measured = Share("value");
  if (!Threshold || !Measured || *Threshold <= 0)
    return 0;
  return *Measured / *Threshold;
}

Finding makeFinding(const TraceIndex &Ctx, const RuleSpec &Spec,
                    const Config &Cfg, const RuleOptions &Opts, Detection D,
                    llvm::ArrayRef<Penalty> Penalties,
                    const analysis::PathModel::GainSpread &Bound,
                    std::string PathQuery, const analysis::PathModel *Path,
                    const analysis::WhatIfQuery *Query) {
  const int64_t PathBound = Bound.Steps ? Bound.Median : -1;
  Finding F;
  F.Code = Spec.Code;
  F.Name = Spec.Name;
  auto Settings = Cfg.PerRule.find(Spec.Code);
  bool UserSeverity =
      Settings != Cfg.PerRule.end() && Settings->second.SeverityOverride;
  if (UserSeverity)
    F.Sev = *Settings->second.SeverityOverride;
  else if (D.SeverityOverride)
    F.Sev = *D.SeverityOverride;
  else
    F.Sev = Spec.DefaultSeverity;

  int64_t Target = Ctx.targetNs();
  F.ImpactNs = std::max<int64_t>(0, D.ImpactNs);
  if (Target > 0)
    F.ImpactNs = std::min(F.ImpactNs, Target);
  // The critical path bounds what removing the blamed time can gain.
  bool Capped = false;
  const int64_t DetectorImpact = F.ImpactNs;
  F.DetectorImpactNs = DetectorImpact;
  if (PathBound >= 0) {
    F.PathBoundNs = PathBound;
    F.PathQuery = std::move(PathQuery);
    if (PathBound < F.ImpactNs) {
      F.ImpactNs = PathBound;
      Capped = true;
    }
  }
  F.ImpactShare =
      Target > 0 ? std::min(1.0, double(F.ImpactNs) / double(Target)) : 0;
  // The impact's spread over the steady steps (Finding::ImpactQ1Ns).
  auto Clip = [&](int64_t Ns) {
    return std::clamp<int64_t>(Ns, 0, Target > 0 ? Target : Ns);
  };
  if (Capped) {
    F.ImpactQ1Ns = std::min(Bound.Q1, DetectorImpact);
    F.ImpactQ3Ns = std::min(Bound.Q3, DetectorImpact);
    F.ImpactSteps = Bound.Steps;
    F.ImpactSpreadFrom = "critical path";
  } else if (!D.PerWindowNs.empty()) {
    std::vector<int64_t> Sorted;
    for (int64_t Ns : D.PerWindowNs)
      Sorted.push_back(Clip(Ns));
    llvm::sort(Sorted);
    F.ImpactQ1Ns =
        int64_t(std::llround(support::quantileOfSorted(Sorted, 0.25)));
    F.ImpactQ3Ns =
        int64_t(std::llround(support::quantileOfSorted(Sorted, 0.75)));
    F.ImpactSteps = Sorted.size();
    F.ImpactSpreadFrom = "detector";
  } else {
    F.ImpactQ1Ns = F.ImpactQ3Ns = F.ImpactNs;
    F.ImpactSteps = Ctx.measureWindows().Ranges.size();
  }
  // A rule that keeps findings under its gain floor at info judged the
  // detector's own bound; the capped one can fall under the floor too. A
  // rule without a floor gets CappedGainFloor: a capped gain under 1 % of
  // the target cannot be measured, and a warning would fail CI for it.
  const bool RuleFloor = Opts.has("min-gain-share");
  const double Floor =
      RuleFloor ? Opts.number("min-gain-share") : CappedGainFloor;
  bool UnderFloor = Capped && !UserSeverity && F.Sev > Severity::Info &&
                    F.ImpactShare < Floor;
  if (UnderFloor)
    F.Sev = Severity::Info;

  F.Confidence = std::clamp(D.Confidence, 0.0, 1.0);
  F.ConfidenceNotes = std::move(D.ConfidenceNotes);
  // Trace-quality rules report the damage; it does not weaken them.
  if (Spec.family() != 'T')
    for (const Penalty &P : Penalties) {
      if (!P.appliesTo(Spec))
        continue;
      F.Confidence *= P.Factor;
      F.ConfidenceNotes.push_back("confidence x" + formatFactor(P.Factor) +
                                  ": " + P.Note);
    }
  // Severity follows impact: the rule's (or the detector's) severity is the
  // floor, raised by the bounded impact at the final confidence.
  // A gain floor above the severity levels does not hold a finding at info
  // when its impact earns more.
  if (!UserSeverity) {
    F.Sev = severityForImpact(F.Sev, F.ImpactShare, F.Confidence);
    UnderFloor = UnderFloor && F.Sev == Severity::Info;
  }

  auto &V = D.Values;
  F.GateMargin = gateMargin(V);
  // Every text quotes the final bound (the detector's figure clipped to the
  // target and capped by the path), whatever the detector wrote there.
  V["impact"] = Value::duration(F.ImpactNs);
  V["impact_share"] = Value::share(F.ImpactShare);
  std::string CappedFigure;
  if (Capped) {
    CappedFigure = support::formatDuration(DetectorImpact);
    D.ExtraEvidence.push_back(
        llvm::formatv("critical path: without {0} the steady steps would "
                      "complete at most {1} earlier (median), so the impact "
                      "is capped there{2}",
                      F.PathQuery, support::formatDuration(F.ImpactNs),
                      !UnderFloor ? std::string()
                      : RuleFloor
                          ? llvm::formatv(", under the rule's min-gain-share "
                                          "({0}), so the finding is info",
                                          support::formatShare(Floor))
                                .str()
                          : llvm::formatv(", under {0} of the target, too "
                                          "little to measure, so the finding "
                                          "is info",
                                          support::formatShare(Floor))
                                .str())
            .str());
    // A cap lowers the impact only by time that the path shows elsewhere:
    // when it takes more than half, the card says where in one sentence (in
    // the default text), so that the detector's larger figure in the same
    // finding does not read as a contradiction.
    if (DetectorImpact > 2 * F.ImpactNs) {
      std::string Where =
          Path && Query
              ? whereThePathShows(
                    *Path, *Query,
                    !Ctx.eventsOfKind(model::EventKind::Migration).empty())
              : "";
      F.RestNote =
          Where.empty()
              ? llvm::formatv("only {0} of the {1} would come back: without "
                              "{2} the steps' critical path is only that "
                              "much shorter",
                              support::formatDuration(F.ImpactNs), CappedFigure,
                              F.PathQuery)
                    .str()
              : llvm::formatv("only {0} of the {1} would come back: without "
                              "{2} the steps' critical path still runs "
                              "through {3}",
                              support::formatDuration(F.ImpactNs), CappedFigure,
                              F.PathQuery, Where)
                    .str();
    }
  }
  // A detector writes {impact} and {impact_share} into a composed text
  // value (a verdict) rather than its own figure, so that the sentence shows
  // the capped bound too. Only those two tokens are replaced: other values
  // hold event names, whose braces are not placeholders.
  for (llvm::StringRef Token : {"impact", "impact_share"}) {
    std::string Needle = (llvm::Twine("{") + Token + "}").str();
    const std::string By = V.at(Token.str()).text();
    for (auto &[Key, Val] : V) {
      if (Key == Token || !Val.isText() ||
          Val.str().find(Needle) == std::string::npos)
        continue;
      std::string Text = Val.str();
      for (size_t At = Text.find(Needle); At != std::string::npos;
           At = Text.find(Needle, At + By.size()))
        Text.replace(At, Needle.size(), By);
      Val = Value(std::move(Text));
    }
  }
  renderTexts(Spec, Ctx.describeTarget(), Ctx.producer(), D, F, CappedFigure);
  // A steady-state rule judges what start-up leaves of the target; where
  // start-up takes a noticeable part of it, the finding says what it was
  // judged beside.
  const analysis::StartupWork &Startup = Ctx.startup();
  if (llvm::is_contained(Spec.Needs, Need::SteadyState) && Target > 0 &&
      double(Startup.TargetStartupNs) >= StartupNoteShare * double(Target) &&
      !F.Window.empty())
    F.Window += llvm::formatv(", beside {0} of start-up (U001)",
                              support::formatDuration(Startup.TargetStartupNs))
                    .str();
  return F;
}

} // namespace

LintResult rules::runRules(const TraceIndex &Ctx, const Catalogue &Rules,
                           const Config &Cfg, llvm::StringRef TracePath) {
  return runRules(Ctx, Rules, Cfg, TracePath, findDetector);
}

namespace {

/// What one rule came to on the trace, before its findings are made.
struct RuleRun {
  const RuleSpec *Spec = nullptr;
  RuleOptions Opts;
  std::optional<Skipped> Skip;
  std::vector<Detection> Detections;
  std::string QuietWhy; ///< Outcome::quiet's note
  int64_t CpuNs = 0;    ///< the run's thread CPU time (LintTimes)
};

/// Checks \p Run's needs and runs its detector or declarative signature.
/// Reads only the index, which is safe from several threads.
void runChecked(const TraceIndex &Ctx, DetectorLookup Lookup,
                llvm::function_ref<const std::string &(Need)> Missing,
                RuleRun &Run) {
  const RuleSpec &Spec = *Run.Spec;
  // A rule about one kind of program (torch.compile, the DataLoader) says
  // that it does not apply to another; an unknown producer is not excluded.
  const analysis::ProducerInfo &P = Ctx.producer();
  if (!Spec.Producers.empty() && P.Kind != analysis::ProducerKind::Unknown &&
      !llvm::is_contained(Spec.Producers, P.Kind)) {
    std::vector<std::string> Names;
    for (analysis::ProducerKind K : Spec.Producers)
      Names.push_back(analysis::producerTitle(K).str());
    Run.Skip = Skipped{
        Spec.Code, Spec.Name, SkipKind::NotApplicable,
        inPlatformWords(
            llvm::formatv("the rule looks for patterns of {0} programs, and "
                          "the trace is from a {1} program ({2})",
                          llvm::join(Names, " and "),
                          analysis::producerTitle(P.Kind), P.Signals)
                .str(),
            P.Plat)};
    return;
  }
  std::vector<std::string> Reasons;
  for (Need N : Spec.Needs)
    if (const std::string &Why = Missing(N); !Why.empty())
      Reasons.push_back(Why);
  if (!Reasons.empty()) {
    Run.Skip = Skipped{Spec.Code, Spec.Name, SkipKind::CannotJudge,
                       llvm::join(Reasons, "; ")};
    return;
  }
  Outcome O = Outcome::ran();
  if (!Spec.Sig.Detector.empty()) {
    DetectorFn Fn = Lookup(Spec.Sig.Detector);
    O = Fn ? Fn(Ctx, Run.Opts, Run.Detections)
           : Outcome::cannotJudge(
                 llvm::formatv("detector '{0}' is not built into this binary",
                               Spec.Sig.Detector)
                     .str());
  } else {
    O = evaluateSignature(Ctx, Spec, Run.Opts, Run.Detections);
  }
  if (!O.judged()) {
    Run.Skip = Skipped{Spec.Code, Spec.Name, O.kind(),
                       inPlatformWords(O.reason(), P.Plat)};
    Run.Detections.clear();
  } else if (Run.Detections.empty()) {
    Run.QuietWhy = inPlatformWords(O.reason(), P.Plat);
  }
}

/// runChecked(), timed on its thread's CPU clock.
void runOne(const TraceIndex &Ctx, DetectorLookup Lookup,
            llvm::function_ref<const std::string &(Need)> Missing,
            RuleRun &Run) {
  const int64_t Cpu = support::threadCpuNs();
  runChecked(Ctx, Lookup, Missing, Run);
  Run.CpuNs = support::threadCpuNs() - Cpu;
}

} // namespace

namespace {

/// What the rule that claims each cause of the target line's idle split
/// made of it: the finding that claims it, or why there is none.
std::vector<CauseClaim> claimCauses(const LintResult &R,
                                    llvm::ArrayRef<RuleRun> Runs) {
  std::vector<CauseClaim> Out;
  for (const analysis::IdleCauseInfo &Info : analysis::idleCauses()) {
    CauseClaim C;
    C.Cause = Info.Cause;
    C.Ns = analysis::idleCauseNs(R.Target.Idle, Info.Cause);
    if (C.Ns <= 0 || Info.Rule.empty())
      continue;
    C.Rule = Info.Rule.str();
    auto Claims = [&](const Finding &F) {
      return F.Code == Info.Rule ||
             (!Info.AlsoBy.empty() && F.Code == Info.AlsoBy);
    };
    // The claiming finding with the largest figure (L001 and L004 share
    // the launch path: their figures add up).
    int64_t Claimed = 0;
    for (const Finding &F : R.Findings)
      if (Claims(F)) {
        if (C.Fingerprint.empty() || F.Code == Info.Rule) {
          C.Fingerprint = F.Fingerprint;
          // The rule whose finding claims it names the cause (M009 for the
          // unrecorded delays that are page migrations).
          C.Rule = F.Code;
        }
        Claimed += F.DetectorImpactNs;
        C.ImpactNs += F.ImpactNs;
      }
    if (!C.Fingerprint.empty()) {
      C.ClaimedNs = Claimed;
      C.Status =
          2 * Claimed >= C.Ns ? ClaimStatus::Claimed : ClaimStatus::ClaimedLess;
      Out.push_back(std::move(C));
      continue;
    }
    C.Status = ClaimStatus::NotRun;
    for (const RuleRun &Run : Runs) {
      if (Run.Spec->Code != Info.Rule)
        continue;
      if (Run.Skip) {
        C.Status = Run.Skip->Kind == SkipKind::CannotJudge
                       ? ClaimStatus::CannotJudge
                       : ClaimStatus::NotApplicable;
        C.Why = Run.Skip->Reason;
      } else {
        C.Status = ClaimStatus::Quiet;
        C.Why = Run.QuietWhy;
      }
    }
    Out.push_back(std::move(C));
  }
  return Out;
}

} // namespace

llvm::StringRef rules::claimStatusName(ClaimStatus S) {
  switch (S) {
  case ClaimStatus::Claimed:
    return "claimed";
  case ClaimStatus::ClaimedLess:
    return "claimed-less";
  case ClaimStatus::Quiet:
    return "quiet";
  case ClaimStatus::CannotJudge:
    return "cannot-judge";
  case ClaimStatus::NotApplicable:
    return "not-applicable";
  case ClaimStatus::NotRun:
    return "not-run";
  }
  return "";
}

unsigned rules::ruleJobs(unsigned Requested) {
  if (Requested)
    return Requested;
  return std::max(
      1u, llvm::heavyweight_hardware_concurrency().compute_thread_count());
}

LintResult rules::runRules(const TraceIndex &Ctx, const Catalogue &Rules,
                           const Config &Cfg, llvm::StringRef TracePath,
                           DetectorLookup Lookup) {
  return runRules(Ctx, Rules, Cfg, TracePath, Lookup, {});
}

LintResult rules::runRules(const TraceIndex &Ctx, const Catalogue &Rules,
                           const Config &Cfg, llvm::StringRef TracePath,
                           DetectorLookup Lookup,
                           llvm::function_ref<void()> Beside) {
  LintResult R;
  R.Target.Kind = Ctx.targetKind();
  R.Target.Ns = Ctx.targetNs();
  R.Target.Steps = Ctx.steps().size();
  R.Target.Description = Ctx.describeTarget();
  // The target's idle split (R.Target.Idle) is taken after the rules ran:
  // the first of them (or Beside) to need it computes it on its thread.
  R.FirstEventUs = Ctx.firstEventTimestampUs();
  std::vector<Penalty> Penalties = qualityPenalties(Ctx, R.QualityNotes);

  std::vector<RuleRun> Runs;
  for (const RuleSpec &Spec : Rules.rules()) {
    // A job rule reads the ranks of a job; lint --job runs it.
    if (Spec.Sig.JobInput || !Cfg.isEnabled(Spec, TracePath))
      continue;
    RuleRun Run;
    Run.Spec = &Spec;
    Run.Opts = Cfg.optionsFor(Spec);
    Runs.push_back(std::move(Run));
  }
  // Each need is checked once per trace (some scan every event, some build
  // index facts), by the first rule that has it, on that rule's thread:
  // checked up front, they kept the other core idle while the path's graph
  // and the statistics could have started.
  std::array<std::string, NumNeeds> NeedReasons;
  std::array<std::once_flag, NumNeeds> NeedChecked;
  auto Missing = [&](Need N) -> const std::string & {
    std::call_once(NeedChecked[unsigned(N)],
                   [&] { NeedReasons[unsigned(N)] = missingNeed(Ctx, N); });
    return NeedReasons[unsigned(N)];
  };

  // The critical path is built once per trace, once a finding names what
  // it blames.
  bool MayBound =
      Cfg.PathBounds && Ctx.hasDeviceActivity() &&
      llvm::any_of(Runs, [](const RuleRun &Run) {
        return !Run.Spec->Sig.Detector.empty() || !Run.Spec->Sig.WhatIf.empty();
      });
  std::optional<analysis::PathModel> Path;
  std::once_flag PathBuilt;
  // The path's per-step runs (the bounds) share the rules' threads.
  // Set when the rules are done and none asked for a bound: the graph
  // being built beside them is stopped and thrown away.
  std::atomic<bool> StopGraph{false};
  auto BuildPath = [&] {
    std::call_once(PathBuilt, [&] {
      const int64_t Cpu = support::threadCpuNs();
      Path.emplace(Ctx, ruleJobs(Cfg.Jobs), &StopGraph);
      R.Times.GraphCpuNs = support::threadCpuNs() - Cpu;
      R.Times.GraphBuilt = !Path->stopped();
    });
  };
  auto RunBeside = [&] {
    const int64_t Cpu = support::threadCpuNs();
    Beside();
    R.Times.BesideCpuNs = support::threadCpuNs() - Cpu;
  };

  // The query a detection asks the path, and whether it asks for a bound:
  // one answer for the rule threads (which keep or stop the graph), for the
  // queries prepared together and for the bounds read below, so that the
  // graph is kept exactly when a bound is read.
  auto QueryOf = [](const RuleRun &Run,
                    const Detection &D) -> const analysis::WhatIfQuery & {
    return D.PathQuery.empty() ? Run.Spec->Sig.WhatIf : D.PathQuery;
  };
  auto AsksBound = [&](const RuleRun &Run, const Detection &D) {
    return MayBound && D.ImpactNs > 0 && !QueryOf(Run, D).empty();
  };
  auto WantsBound = [&](const RuleRun &Run) {
    return llvm::any_of(Run.Detections,
                        [&](const Detection &D) { return AsksBound(Run, D); });
  };

  // The rules read the index only, so they run side by side; their results
  // are kept in catalogue order, so the output does not depend on which
  // finishes first. Each thread takes the next task: the path's graph (the
  // longest single task: nearly every trace with device work has a
  // finding to bound), the caller's work (Beside), then rule after rule.
  // When the last rule is done and no finding asked for a bound, the graph
  // is stopped where it got to and thrown away: a clean trace (or `--select`
  // of a rule that stays quiet) used to wait for all of it.
  unsigned Jobs = std::min<unsigned>(ruleJobs(Cfg.Jobs),
                                     unsigned(Runs.size()) + (Beside ? 1 : 0));
  const support::PhaseClock PoolClock;
  if (Jobs <= 1) {
    if (Beside)
      RunBeside();
    for (RuleRun &Run : Runs)
      runOne(Ctx, Lookup, Missing, Run);
  } else {
    std::atomic<bool> BesideTaken{!Beside}, PathTaken{!MayBound},
        PathWanted{false};
    std::atomic<size_t> NextRule{0}, RulesDone{0};
    auto Worker = [&] {
      for (;;) {
        if (!PathTaken.exchange(true)) {
          BuildPath();
          continue;
        }
        if (!BesideTaken.exchange(true)) {
          RunBeside();
          continue;
        }
        const size_t I = NextRule++;
        if (I >= Runs.size())
          break;
        runOne(Ctx, Lookup, Missing, Runs[I]);
        if (WantsBound(Runs[I]))
          PathWanted = true;
        // The last rule: without a finding to bound, the graph is not needed.
        if (++RulesDone == Runs.size() && !PathWanted)
          StopGraph = true;
      }
    };
    llvm::ThreadPool Pool(llvm::hardware_concurrency(Jobs));
    for (unsigned J = 0; J < Jobs; ++J)
      Pool.async(Worker);
    Pool.wait();
  }
  if (Path && Path->stopped())
    Path.reset(); // incomplete, and no finding asks for it
  R.Times.PoolWallNs = PoolClock.wallSinceNs();
  R.Times.PoolCpuNs = PoolClock.cpuSinceNs();
  for (const RuleRun &Run : Runs)
    R.Times.RuleCpuNs.emplace_back(Run.Spec->Code, Run.CpuNs);
  const support::PhaseClock FindingsClock;
  R.Target.Idle = Ctx.targetIdle();

  // Every query the findings ask, each once (S001 and S003 both ask
  // "wait"): the path answers them together, one walk of each steady step
  // for all of them, and gainSpread() reads the answers.
  std::vector<analysis::WhatIfQuery> Asked;
  std::set<std::pair<unsigned long long, std::vector<std::string>>> Seen;
  for (const RuleRun &Run : Runs)
    for (const Detection &D : Run.Detections)
      if (const analysis::WhatIfQuery &Q = QueryOf(Run, D);
          AsksBound(Run, D) &&
          Seen.insert({Q.Categories.to_ullong(), Q.Names}).second)
        Asked.push_back(Q);
  if (!Asked.empty()) {
    BuildPath();
    assert(Path && "the graph is stopped only when no finding asks a bound");
    Path->prepareGains(Asked);
  }
  for (RuleRun &Run : Runs) {
    if (Run.Skip) {
      R.Skipped.push_back(std::move(*Run.Skip));
      continue;
    }
    const RuleSpec &Spec = *Run.Spec;
    for (Detection &D : Run.Detections) {
      const analysis::WhatIfQuery &Q = QueryOf(Run, D);
      const analysis::PathModel::GainSpread B =
          AsksBound(Run, D) ? Path->gainSpread(Q)
                            : analysis::PathModel::GainSpread{};
      std::string Described = B.Steps ? Q.describe() : std::string();
      R.Findings.push_back(makeFinding(Ctx, Spec, Cfg, Run.Opts, std::move(D),
                                       Penalties, B, std::move(Described),
                                       B.Steps && Path ? &*Path : nullptr, &Q));
    }
  }

  llvm::stable_sort(R.Findings, [](const Finding &A, const Finding &B) {
    if (A.score() != B.score())
      return A.score() > B.score();
    if (A.Code != B.Code)
      return A.Code < B.Code;
    return A.Subject < B.Subject;
  });
  R.Target.Claims = claimCauses(R, Runs);
  R.Times.FindingsWallNs = FindingsClock.wallSinceNs();
  R.Times.FindingsCpuNs = FindingsClock.cpuSinceNs();
  return R;
}

JobLintResult rules::runJobRules(const analysis::JobAnalysis &Job,
                                 const Catalogue &Rules, const Config &Cfg) {
  JobLintResult R;
  R.TargetNs = Job.StepNs;
  R.Target = Job.describeTarget();
  // Without aligned clocks the arrival order is the trace clocks' order,
  // which may be the clocks' offset rather than the ranks' skew.
  std::string ClockNote;
  if (!Job.ClocksAligned)
    ClockNote = "confidence x0.5: some ranks' clock offsets could not be "
                "estimated (fewer than 2 collectives matched with the "
                "reference rank), so their trace clocks are used as they are";
  for (const RuleSpec &Spec : Rules.rules()) {
    if (!Spec.Sig.JobInput || !Cfg.isEnabled(Spec, "job"))
      continue;
    RuleOptions Opts = Cfg.optionsFor(Spec);
    std::vector<Detection> Found;
    JobDetectorFn Fn = findJobDetector(Spec.Sig.Detector);
    Outcome O = Fn ? Fn(Job, Opts, Found)
                   : Outcome::cannotJudge(
                         llvm::formatv("job detector '{0}' is not built into "
                                       "this binary",
                                       Spec.Sig.Detector)
                             .str());
    if (!O.judged()) {
      R.Skipped.push_back({Spec.Code, Spec.Name, O.kind(), O.reason()});
      continue;
    }
    for (Detection &D : Found) {
      Finding F;
      F.Code = Spec.Code;
      F.Name = Spec.Name;
      auto Settings = Cfg.PerRule.find(Spec.Code);
      if (Settings != Cfg.PerRule.end() && Settings->second.SeverityOverride)
        F.Sev = *Settings->second.SeverityOverride;
      else
        F.Sev = D.SeverityOverride ? *D.SeverityOverride : Spec.DefaultSeverity;
      F.ImpactNs = std::max<int64_t>(0, D.ImpactNs);
      if (R.TargetNs > 0)
        F.ImpactNs = std::min(F.ImpactNs, R.TargetNs);
      F.ImpactShare =
          R.TargetNs > 0 ? double(F.ImpactNs) / double(R.TargetNs) : 0;
      F.Confidence = std::clamp(D.Confidence, 0.0, 1.0);
      F.ConfidenceNotes = std::move(D.ConfidenceNotes);
      if (!ClockNote.empty()) {
        F.Confidence *= 0.5;
        F.ConfidenceNotes.push_back(ClockNote);
      }
      if (!(Settings != Cfg.PerRule.end() && Settings->second.SeverityOverride))
        F.Sev = severityForImpact(F.Sev, F.ImpactShare, F.Confidence);
      F.GateMargin = gateMargin(D.Values);
      D.Values.emplace("impact", Value::duration(F.ImpactNs));
      D.Values.emplace("impact_share", Value::share(F.ImpactShare));
      renderTexts(Spec, R.Target, analysis::ProducerInfo(), D, F);
      R.Findings.push_back(std::move(F));
    }
  }
  llvm::stable_sort(R.Findings, [](const Finding &A, const Finding &B) {
    if (A.score() != B.score())
      return A.score() > B.score();
    if (A.Code != B.Code)
      return A.Code < B.Code;
    return A.Subject < B.Subject;
  });
  return R;
}
