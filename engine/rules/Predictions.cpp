//===- rules/Predictions.cpp ----------------------------------------------===//
#include "rules/Predictions.h"
#include "support/Format.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace tracelint;
using namespace tracelint::rules;
using analysis::FeatureChange;

llvm::StringRef rules::verdictName(Verdict V) {
  switch (V) {
  case Verdict::Confirmed:
    return "confirmed";
  case Verdict::NotConfirmed:
    return "not confirmed";
  case Verdict::Inconclusive:
    return "inconclusive";
  }
  return "inconclusive";
}

int64_t rules::metricNoiseNs(const analysis::MetricSummary &Before,
                             const analysis::MetricSummary &After) {
  int64_t Floor = Before.MedianNs / 50;
  return std::max(Floor, std::max(Before.SpreadNs, After.SpreadNs) / 2);
}

static std::string pct(double Fraction) {
  return llvm::formatv("{0:F0} %", Fraction * 100).str();
}

Verdict rules::judgeFeature(FeatureChange Change, double B, double A,
                            std::string &Reason) {
  switch (Change) {
  case FeatureChange::Decrease:
  case FeatureChange::Vanish: {
    if (B <= 0) {
      Reason = "the feature is already absent before the change: nothing to "
               "fall";
      return Verdict::Inconclusive;
    }
    double Fall = (B - A) / B;
    if (Change == FeatureChange::Vanish) {
      if (A <= 0.05 * B) {
        Reason = "vanished as predicted";
        return Verdict::Confirmed;
      }
      Reason = Fall > 0 ? "fell " + pct(Fall) + " but did not vanish"
                        : "did not fall";
      return Verdict::NotConfirmed;
    }
    if (Fall >= 0.10) {
      Reason = "fell " + pct(Fall) + " as predicted";
      return Verdict::Confirmed;
    }
    Reason = Fall > 0    ? "fell only " + pct(Fall) + " (less than 10 %)"
             : Fall == 0 ? "did not change"
                         : "rose " + pct(-Fall) + " instead of falling";
    return Verdict::NotConfirmed;
  }
  case FeatureChange::Increase:
    if (B <= 0) {
      if (A > 0) {
        Reason = "appeared, as predicted";
        return Verdict::Confirmed;
      }
      Reason = "still absent";
      return Verdict::NotConfirmed;
    }
    if (A >= 1.10 * B) {
      Reason = "rose " + pct((A - B) / B) + " as predicted";
      return Verdict::Confirmed;
    }
    Reason = A > B ? "rose only " + pct((A - B) / B) + " (less than 10 %)"
                   : "did not rise";
    return Verdict::NotConfirmed;
  case FeatureChange::Appear:
    if (B > 0) {
      Reason = "already present before the change";
      return Verdict::Inconclusive;
    }
    if (A > 0) {
      Reason = "appeared, as predicted";
      return Verdict::Confirmed;
    }
    Reason = "still absent";
    return Verdict::NotConfirmed;
  }
  return Verdict::Inconclusive;
}

/// The metric against the finding's bound: it predicts a fall of at most
/// its impact (no change when the impact is zero).
static Verdict judgeMetric(const Finding &F, const analysis::TraceDiff &D,
                           std::string &Reason) {
  if (!D.Before.FromSteps || !D.After.FromSteps) {
    Reason = "no steps in one of the traces: the window length is not a step "
             "time";
    return Verdict::Inconclusive;
  }
  int64_t Delta = D.Before.MedianNs - D.After.MedianNs; // > 0: faster
  int64_t Noise = metricNoiseNs(D.Before, D.After);
  std::string Moved = Delta > 0 ? "fell " + support::formatDuration(Delta)
                                : "rose " + support::formatDuration(-Delta);
  std::string NoiseText = " (noise " + support::formatDuration(Noise) + ")";
  if (F.ImpactNs <= 0) {
    if (std::llabs(Delta) <= Noise) {
      Reason = "unchanged within noise" + NoiseText +
               ", as predicted (no gain expected)";
      return Verdict::Confirmed;
    }
    Reason = Moved + NoiseText +
             " although no change was predicted: something else changed";
    return Verdict::Inconclusive;
  }
  std::string Bound = "at most " + support::formatDuration(F.ImpactNs);
  if (Delta > Noise) {
    if (Delta <= F.ImpactNs + F.ImpactNs / 4 + Noise) {
      Reason = Moved + ", within the predicted " + Bound;
      return Verdict::Confirmed;
    }
    Reason = Moved + ", more than the predicted " + Bound +
             ": the change did more than this hypothesis explains";
    return Verdict::Inconclusive;
  }
  if (Delta < -Noise) {
    Reason = Moved + NoiseText + " instead of falling by " + Bound;
    return Verdict::NotConfirmed;
  }
  Reason =
      "unchanged within noise" + NoiseText + "; predicted a fall of " + Bound;
  return Verdict::NotConfirmed;
}

FindingChanges rules::compareFindings(const LintResult &Before,
                                      const LintResult &After) {
  auto Has = [](const LintResult &R, const Finding &F) {
    return llvm::any_of(R.Findings, [&](const Finding &G) {
      return G.Fingerprint == F.Fingerprint;
    });
  };
  FindingChanges C;
  for (const Finding &F : After.Findings)
    if (!Has(Before, F))
      C.New.push_back(F);
  for (const Finding &F : Before.Findings)
    if (!Has(After, F))
      C.Gone.push_back(F);
  return C;
}

std::vector<PredictionCheck> rules::checkPredictions(
    const Catalogue &Rules, const analysis::TraceIndex &Before,
    const LintResult &FoundBefore, const analysis::TraceIndex &After,
    const LintResult &FoundAfter, const analysis::TraceDiff &Diff) {
  std::vector<PredictionCheck> Out;
  for (const Finding &F : FoundBefore.Findings) {
    PredictionCheck C;
    C.Before = F;
    for (const Finding &G : FoundAfter.Findings)
      if (G.Fingerprint == F.Fingerprint) {
        C.StillFound = true;
        C.ImpactAfterNs = std::max(C.ImpactAfterNs, G.ImpactNs);
      }
    const RuleSpec *Spec = Rules.find(F.Code);
    std::optional<analysis::Feature> Feat;
    std::optional<FeatureChange> Change;
    if (Spec) {
      Feat = analysis::parseFeature(Spec->Next.PredictFeature);
      Change = analysis::parseFeatureChange(Spec->Next.PredictChange);
    }
    if (!Feat || !Change) {
      C.FeatureReason = "rule " + F.Code +
                        " declares no measurable feature (predict-feature)";
    } else {
      const analysis::FeatureInfo &Info = analysis::featureInfo(*Feat);
      C.Feature = Info.Name.str();
      C.Change = analysis::featureChangeName(*Change).str();
      C.FeatureIsTime = Info.IsTime;
      analysis::FeatureValue VB =
          analysis::measureFeature(Before, *Feat, F.Subject);
      analysis::FeatureValue VA =
          analysis::measureFeature(After, *Feat, F.Subject);
      C.FeatureBefore = VB.Value;
      C.FeatureAfter = VA.Value;
      C.FeatureBasis = VB.Basis == VA.Basis
                           ? VB.Basis
                           : VB.Basis + " before, " + VA.Basis + " after";
      if (!VB.Value)
        C.FeatureReason = "cannot measure it before: " + VB.WhyNot;
      else if (!VA.Value)
        C.FeatureReason = "cannot measure it after: " + VA.WhyNot;
      else if (Info.PerStep && Before.hasSteps() != After.hasSteps())
        C.FeatureReason = "one trace has steps and the other not: per-step "
                          "values are not comparable";
      else
        C.FeatureVerdict =
            judgeFeature(*Change, *VB.Value, *VA.Value, C.FeatureReason);
    }
    C.MetricVerdict = judgeMetric(F, Diff, C.MetricReason);
    if (!Diff.NotComparable.empty()) {
      // Other devices or another step definition: a change in the feature
      // or the metric says nothing about this hypothesis.
      C.NotComparable = Diff.NotComparable.front();
      Out.push_back(std::move(C));
      continue;
    }
    if (C.FeatureVerdict == Verdict::NotConfirmed ||
        C.MetricVerdict == Verdict::NotConfirmed)
      C.Overall = Verdict::NotConfirmed;
    else if (C.FeatureVerdict == Verdict::Confirmed &&
             C.MetricVerdict == Verdict::Confirmed)
      C.Overall = Verdict::Confirmed;
    Out.push_back(std::move(C));
  }
  return Out;
}
