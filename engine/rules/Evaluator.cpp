//===- rules/Evaluator.cpp - Declarative signatures -----------------------===//
//
// select: one pass over every event; name predicates are decided once per
// distinct name (so a regular expression costs one match per distinct name,
// not per event). aggregate: values per trace, per step or per name.
// fires-when: a statistic over the groups compared with a threshold.
//
//===----------------------------------------------------------------------===//
#include "rules/Evaluator.h"
#include "support/Statistics.h"

#include "support/Format.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/GlobPattern.h"
#include "llvm/Support/Regex.h"

#include <cmath>
#include <map>

using namespace tracelint;
using namespace tracelint::rules;
using analysis::TraceIndex;
using model::Event;
using model::EventKind;

namespace {

using Agg = Aggregation;

struct Picked {
  uint32_t Index; ///< into Trace::Events
  int Step;       ///< index into TraceIndex::steps(), or -1
};

/// Decides the name predicates of a selector once per distinct name.
class NameFilter {
public:
  NameFilter(const Selector &S, const model::StringPool &Pool)
      : S(S), Pool(Pool), Cache(Pool.size(), -1) {
    for (const std::string &N : S.Names) {
      if (llvm::StringRef(N).find_first_of("*?[\\") == llvm::StringRef::npos) {
        Exact.push_back(N);
        continue;
      }
      auto G = llvm::GlobPattern::create(N);
      if (G)
        Globs.push_back(std::move(*G));
      else
        llvm::consumeError(G.takeError()); // validated at load
    }
    if (!S.NameRegex.empty())
      Re.emplace(S.NameRegex);
  }

  bool matches(model::StringId Id) {
    if (S.Names.empty() && S.NameRegex.empty())
      return true;
    if (Id >= Cache.size())
      Cache.resize(Id + 1, -1);
    if (Cache[Id] < 0)
      Cache[Id] = decide(Pool.get(Id));
    return Cache[Id];
  }

private:
  bool decide(llvm::StringRef Name) {
    if (!S.Names.empty()) {
      bool Any = llvm::is_contained(Exact, Name) ||
                 llvm::any_of(Globs, [&](const llvm::GlobPattern &G) {
                   return G.match(Name);
                 });
      if (!Any)
        return false;
    }
    return !Re || Re->match(Name);
  }

  const Selector &S;
  const model::StringPool &Pool;
  std::vector<int8_t> Cache;
  std::vector<llvm::StringRef> Exact;
  std::vector<llvm::GlobPattern> Globs;
  std::optional<llvm::Regex> Re;
};

std::string formatCount(double V) {
  if (V == std::floor(V) && std::fabs(V) < 1e15)
    return llvm::formatv("{0}", int64_t(V)).str();
  return llvm::formatv("{0:F1}", V).str();
}

bool isDurationMeasure(Agg::Value V) {
  return V == Agg::Value::SumDuration || V == Agg::Value::MaxDuration ||
         V == Agg::Value::UnionDuration;
}

Value measureValue(Agg::Value V, double X) {
  if (isDurationMeasure(V))
    return Value::duration(int64_t(std::llround(X)));
  if (V == Agg::Value::SumBytes)
    return Value::bytes(int64_t(std::llround(X)));
  if (X == std::floor(X))
    return Value::count(int64_t(X));
  return Value(formatCount(X));
}

bool passes(Agg::Compare Op, double Value, double Threshold) {
  switch (Op) {
  case Agg::Compare::Greater:
    return Value > Threshold;
  case Agg::Compare::GreaterEqual:
    return Value >= Threshold;
  case Agg::Compare::Less:
    return Value < Threshold;
  case Agg::Compare::LessEqual:
    return Value <= Threshold;
  }
  return false;
}

/// True when larger values are worse (the comparison is > or >=).
bool largerIsWorse(Agg::Compare Op) {
  return Op == Agg::Compare::Greater || Op == Agg::Compare::GreaterEqual;
}

/// "#3, #5-#7, #9": step numbers as ranges of consecutive numbers.
std::string stepList(const TraceIndex &Ctx, llvm::ArrayRef<int> StepIdx) {
  std::vector<int64_t> Nums;
  for (int I : StepIdx)
    Nums.push_back(Ctx.steps()[I].Number);
  llvm::sort(Nums);
  Nums.erase(std::unique(Nums.begin(), Nums.end()), Nums.end());
  std::string Out;
  for (size_t I = 0; I < Nums.size();) {
    size_t J = I;
    while (J + 1 < Nums.size() && Nums[J + 1] == Nums[J] + 1)
      ++J;
    if (!Out.empty())
      Out += ", ";
    (Out += '#') += std::to_string(Nums[I]);
    if (J > I)
      (Out += "-#") += std::to_string(Nums[J]);
    I = J + 1;
  }
  return Out;
}

class Evaluation {
public:
  Evaluation(const TraceIndex &Ctx, const RuleSpec &Spec,
             const RuleOptions &Opts)
      : Ctx(Ctx), T(Ctx.trace()), Spec(Spec), Opts(Opts), S(Spec.Sig.Select),
        A(Spec.Sig.Aggregate) {}

  Outcome run(std::vector<Detection> &Out);

private:
  void select();
  double valueOf(llvm::ArrayRef<Picked> Events) const;
  /// Makes the detection for \p Events (the events behind the finding).
  Detection detect(llvm::ArrayRef<Picked> Events, double Value,
                   llvm::ArrayRef<int> Steps) const;
  int64_t impactOf(llvm::ArrayRef<Picked> Events) const;
  std::optional<int64_t> bound(llvm::StringRef Key,
                               const std::optional<int64_t> &Literal) const {
    auto It = S.BoundOptions.find(Key.str());
    if (It != S.BoundOptions.end())
      return int64_t(std::llround(Opts.number(It->second)));
    return Literal;
  }

  const TraceIndex &Ctx;
  const model::Trace &T;
  const RuleSpec &Spec;
  const RuleOptions &Opts;
  const Selector &S;
  const Aggregation &A;
  std::vector<Picked> Selected;
  double Threshold = 0;
  double Base = 0; ///< what a share is a share of; 0 without relative-to
  llvm::StringRef BaseWords;
};

} // namespace

void Evaluation::select() {
  uint32_t KindMask = 0;
  for (EventKind K : S.Kinds)
    KindMask |= 1u << unsigned(K);
  std::optional<int64_t> MinDur = bound("min-duration", S.MinDurationNs);
  std::optional<int64_t> MaxDur = bound("max-duration", S.MaxDurationNs);
  std::optional<int64_t> MinBytes = bound("min-bytes", S.MinBytes);
  std::optional<int64_t> MaxBytes = bound("max-bytes", S.MaxBytes);
  bool NeedArgs = S.Copy || S.Src || S.Dst || MinBytes || MaxBytes ||
                  A.Measure == Agg::Value::SumBytes;
  NameFilter Names(S, T.Strings);

  for (const model::Lane &L : T.Lanes) {
    if (S.Lane && L.Kind != *S.Lane)
      continue;
    for (const Event &E : T.events(L)) {
      if (KindMask && !(KindMask & (1u << unsigned(E.Kind))))
        continue;
      if ((MinDur && E.Duration < *MinDur) || (MaxDur && E.Duration > *MaxDur))
        continue;
      if (NeedArgs && (S.Copy || S.Src || S.Dst || MinBytes || MaxBytes)) {
        const model::EventArgs *Args = T.args(E);
        if (!Args)
          continue;
        if ((S.Copy && Args->Copy != *S.Copy) ||
            (S.Src && Args->Src != *S.Src) || (S.Dst && Args->Dst != *S.Dst))
          continue;
        if ((MinBytes || MaxBytes) && Args->Bytes < 0)
          continue;
        if ((MinBytes && Args->Bytes < *MinBytes) ||
            (MaxBytes && Args->Bytes > *MaxBytes))
          continue;
      }
      if (!Names.matches(E.Name))
        continue;
      // Device work belongs to the step whose host code launched it.
      int64_t When = E.Start;
      if (model::isDeviceWork(E.Kind)) {
        uint32_t Launch = T.launchOf(E);
        if (Launch != model::NoIndex)
          When = T.Events[Launch].Start;
      }
      int Step = Ctx.stepAt(When);
      if (S.Inside == Selector::Where::InsideSteps && Step < 0)
        continue;
      if (S.Inside == Selector::Where::OutsideSteps && Step >= 0)
        continue;
      if (S.StepsSelected == Selector::Which::FirstStep && Step != 0)
        continue;
      if (S.StepsSelected == Selector::Which::AfterFirstStep && Step < 1)
        continue;
      Selected.push_back({T.indexOf(E), Step});
    }
  }
}

double Evaluation::valueOf(llvm::ArrayRef<Picked> Events) const {
  switch (A.Measure) {
  case Agg::Value::Count:
    return double(Events.size());
  case Agg::Value::SumDuration: {
    double Sum = 0;
    for (const Picked &P : Events)
      Sum += double(T.Events[P.Index].Duration);
    return Sum;
  }
  case Agg::Value::MaxDuration: {
    int64_t Max = 0;
    for (const Picked &P : Events)
      Max = std::max(Max, T.Events[P.Index].Duration);
    return double(Max);
  }
  case Agg::Value::UnionDuration: {
    std::vector<model::Interval> Parts;
    for (const Picked &P : Events)
      Parts.push_back({T.Events[P.Index].Start, T.Events[P.Index].end()});
    return double(model::IntervalSet::unionOf(std::move(Parts)).length());
  }
  case Agg::Value::SumBytes: {
    double Sum = 0;
    for (const Picked &P : Events)
      if (const model::EventArgs *Args = T.args(T.Events[P.Index]))
        if (Args->Bytes > 0)
          Sum += double(Args->Bytes);
    return Sum;
  }
  }
  return 0;
}

int64_t Evaluation::impactOf(llvm::ArrayRef<Picked> Events) const {
  std::vector<model::Interval> Parts;
  for (const Picked &P : Events)
    Parts.push_back({T.Events[P.Index].Start, T.Events[P.Index].end()});
  model::IntervalSet Busy = model::IntervalSet::unionOf(std::move(Parts));
  int64_t Impact = 0;
  if (Ctx.hasSteps()) {
    // The median step can shrink by at most what one step spends in the
    // selected events: the largest per-step union, each clipped to its step.
    for (const analysis::StepWindow &St : Ctx.steps())
      Impact = std::max(Impact, Busy.lengthWithin(St.Range));
  } else {
    Impact = Busy.lengthWithin(Ctx.window());
  }
  return std::min(Impact, Ctx.targetNs());
}

Detection Evaluation::detect(llvm::ArrayRef<Picked> Events, double Value,
                             llvm::ArrayRef<int> Steps) const {
  Detection D;
  // Names by frequency, then by name, for top_names and the subject.
  llvm::DenseMap<model::StringId, unsigned> Freq;
  int64_t Total = 0, Longest = 0;
  for (const Picked &P : Events) {
    const Event &E = T.Events[P.Index];
    ++Freq[E.Name];
    Total += E.Duration;
    Longest = std::max(Longest, E.Duration);
  }
  std::vector<std::pair<llvm::StringRef, unsigned>> ByFreq;
  for (const auto &[Id, N] : Freq)
    ByFreq.push_back({T.Strings.get(Id), N});
  llvm::sort(ByFreq, [](const auto &X, const auto &Y) {
    return X.second != Y.second ? X.second > Y.second : X.first < Y.first;
  });
  std::string Top;
  for (size_t I = 0; I < ByFreq.size() && I < 3; ++I)
    Top += llvm::formatv("{0}{1} ({2})", I ? ", " : "", ByFreq[I].first,
                         ByFreq[I].second)
               .str();
  D.Subject = ByFreq.empty() ? "" : ByFreq.front().first.str();

  // Examples: the three longest events, earliest first among equals.
  std::vector<uint32_t> Order;
  for (const Picked &P : Events)
    Order.push_back(P.Index);
  llvm::sort(Order, [&](uint32_t X, uint32_t Y) {
    const Event &EX = T.Events[X], &EY = T.Events[Y];
    if (EX.Duration != EY.Duration)
      return EX.Duration > EY.Duration;
    if (EX.Start != EY.Start)
      return EX.Start < EY.Start;
    return X < Y;
  });
  for (size_t I = 0; I < Order.size() && I < 3; ++I) {
    const Event &E = T.Events[Order[I]];
    D.Examples.push_back({T.name(E).str(), Ctx.describeLane(T.laneOf(E)),
                          Ctx.traceTimestampUs(E), Ctx.traceOffsetNs(E),
                          E.Duration});
  }

  D.ImpactNs = impactOf(Events);
  D.Confidence = Opts.has("confidence") ? Opts.number("confidence")
                                        : DeclarativeConfidence;

  std::vector<int> InSteps(Steps.begin(), Steps.end());
  if (InSteps.empty())
    for (const Picked &P : Events)
      if (P.Step >= 0)
        InSteps.push_back(P.Step);
  std::string StepText = InSteps.empty() ? "" : stepList(Ctx, InSteps);
  if (!Ctx.hasSteps())
    D.Window = "whole window (no steps)";
  else if (!StepText.empty())
    D.Window = (InSteps.size() == 1 ? "step " : "steps ") + StepText;
  else
    D.Window = "outside steps";

  auto &V = D.Values;
  V["value"] = measureValue(A.Measure, Value);
  bool Relative = A.Relative != Agg::RelativeTo::None;
  V["threshold"] = Relative ? rules::Value::share(Threshold)
                            : measureValue(A.Measure, Threshold);
  V["count"] = rules::Value::count(int64_t(Events.size()));
  V["total"] = rules::Value::duration(Total);
  V["max"] = rules::Value::duration(Longest);
  if (Relative && Base > 0)
    V["share"] = support::formatShare(Value / Base) + " of " + BaseWords.str();
  else if (isDurationMeasure(A.Measure) && Ctx.targetNs() > 0)
    V["share"] =
        support::formatShare(Value / double(Ctx.targetNs())) + " of the " +
        (Ctx.targetKind() == analysis::TargetKind::MedianStep ? "median step"
                                                              : "window");
  else
    V["share"] = "n/a";
  V["top_names"] = Top.empty() ? "none" : Top;
  V["subject"] = D.Subject.empty() ? "none" : D.Subject;
  if (!D.Examples.empty())
    V["example"] = llvm::formatv("{0} at {1}", D.Examples[0].Name,
                                 support::formatOffset(D.Examples[0].OffsetNs))
                       .str();
  else
    V["example"] = "none";
  V["steps"] = StepText.empty() ? "none" : StepText;
  V["impact"] = rules::Value::duration(D.ImpactNs);
  V["target"] = Ctx.describeTarget();
  V["statistic"] = A.GroupBy == Agg::Per::Name ? "per name" : "in the trace";
  return D;
}

Outcome Evaluation::run(std::vector<Detection> &Out) {
  if (const std::string *Name = std::get_if<std::string>(&A.Threshold))
    Threshold = Opts.number(*Name);
  else
    Threshold = std::get<double>(A.Threshold);

  switch (A.Relative) {
  case Agg::RelativeTo::None:
    break;
  case Agg::RelativeTo::Step:
    Base = double(Ctx.targetNs());
    BaseWords = Ctx.targetKind() == analysis::TargetKind::MedianStep
                    ? "the median step"
                    : "the window (no steps)";
    if (Base <= 0)
      return Outcome::cannotJudge(
          "the target interval is empty (zero-length steps "
          "or window)");
    break;
  case Agg::RelativeTo::DeviceBusy:
    Base = double(Ctx.deviceBusyNs());
    BaseWords = "device busy time";
    if (Base <= 0)
      return Outcome::cannotJudge(
          "the trace has no device busy time to compare "
          "with (no device activity was recorded)");
    break;
  case Agg::RelativeTo::Window:
    Base = double(Ctx.window().length());
    BaseWords = "the window";
    if (Base <= 0)
      return Outcome::cannotJudge("the trace window is empty");
    break;
  }
  auto Compared = [&](double Value) { return Base > 0 ? Value / Base : Value; };

  select();

  if (A.GroupBy == Agg::Per::Name) {
    std::map<llvm::StringRef, std::vector<Picked>> ByName; // sorted by name
    for (const Picked &P : Selected)
      ByName[T.name(T.Events[P.Index])].push_back(P);
    struct Hit {
      llvm::StringRef Name;
      double Value;
    };
    std::vector<Hit> Hits;
    for (const auto &[Name, Events] : ByName) {
      double V = valueOf(Events);
      if (passes(A.Op, Compared(V), Threshold))
        Hits.push_back({Name, V});
    }
    bool Larger = largerIsWorse(A.Op);
    llvm::stable_sort(Hits, [&](const Hit &X, const Hit &Y) {
      return Larger ? X.Value > Y.Value : X.Value < Y.Value;
    });
    if (Hits.size() > MaxDetectionsPerRule)
      Hits.resize(MaxDetectionsPerRule);
    for (const Hit &H : Hits) {
      Detection D = detect(ByName[H.Name], H.Value, {});
      D.Subject = H.Name.str();
      D.Values["subject"] = D.Subject;
      Out.push_back(std::move(D));
    }
    return Outcome::ran();
  }

  if (A.GroupBy == Agg::Per::Trace) {
    double V = valueOf(Selected);
    if (passes(A.Op, Compared(V), Threshold))
      Out.push_back(detect(Selected, V, {}));
    return Outcome::ran();
  }

  // Per step: every step in scope is a group, also those with no event.
  std::vector<int> Scope;
  for (int I = 0, N = int(Ctx.steps().size()); I < N; ++I) {
    if (S.StepsSelected == Selector::Which::FirstStep && I != 0)
      continue;
    if (S.StepsSelected == Selector::Which::AfterFirstStep && I == 0)
      continue;
    Scope.push_back(I);
  }
  if (Scope.empty())
    return Ctx.hasSteps()
               ? Outcome::cannotJudge(
                     "the rule looks at the steps after "
                     "the first, and the trace has only one step")
               : Outcome::cannotJudge("the trace has no step markers");
  std::vector<std::vector<Picked>> PerStep(Ctx.steps().size());
  for (const Picked &P : Selected)
    if (P.Step >= 0)
      PerStep[P.Step].push_back(P);
  std::vector<double> Values;
  for (int I : Scope)
    Values.push_back(valueOf(PerStep[I]));

  double Stat = 0;
  bool Fires = false;
  std::vector<double> Sorted = Values;
  llvm::sort(Sorted);
  switch (A.Over) {
  case Agg::Statistic::Max:
    Stat = Sorted.back();
    break;
  case Agg::Statistic::Min:
    Stat = Sorted.front();
    break;
  case Agg::Statistic::Median: {
    Stat = support::median(Sorted);
    break;
  }
  case Agg::Statistic::Total:
    for (double V : Values)
      Stat += V;
    break;
  case Agg::Statistic::Any: {
    bool Larger = largerIsWorse(A.Op);
    for (double V : Values)
      if (passes(A.Op, Compared(V), Threshold)) {
        Stat = Fires ? (Larger ? std::max(Stat, V) : std::min(Stat, V)) : V;
        Fires = true;
      }
    break;
  }
  }
  if (A.Over != Agg::Statistic::Any)
    Fires = passes(A.Op, Compared(Stat), Threshold);
  if (!Fires)
    return Outcome::ran();
  // The steps behind the finding: those whose own value passes.
  std::vector<int> Offending;
  std::vector<Picked> Events;
  for (size_t I = 0; I < Scope.size(); ++I)
    if (passes(A.Op, Compared(Values[I]), Threshold)) {
      Offending.push_back(Scope[I]);
      Events.insert(Events.end(), PerStep[Scope[I]].begin(),
                    PerStep[Scope[I]].end());
    }
  if (Events.empty()) // e.g. a median over steps that each pass only barely
    for (int I : Scope)
      Events.insert(Events.end(), PerStep[I].begin(), PerStep[I].end());
  Detection D = detect(Events, Stat, Offending);
  D.Values["statistic"] = A.Over == Agg::Statistic::Any   ? "worst step"
                          : A.Over == Agg::Statistic::Max ? "max per step"
                          : A.Over == Agg::Statistic::Min ? "min per step"
                          : A.Over == Agg::Statistic::Median
                              ? "median per step"
                              : "total over steps";
  Out.push_back(std::move(D));
  return Outcome::ran();
}

Outcome rules::evaluateSignature(const TraceIndex &Ctx, const RuleSpec &Spec,
                                 const RuleOptions &Opts,
                                 std::vector<Detection> &Out) {
  return Evaluation(Ctx, Spec, Opts).run(Out);
}
