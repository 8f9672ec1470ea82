//===- rules/U/ProfilerPerturbation.cpp - U004 profiler overhead ----------===//
//
// The profiler costs time too. CUPTI and Nsight record their own overhead
// (buffer requests and flushes, instrumentation, resource management,
// initialization) as overhead activity, and the PyTorch profiler's own
// Python calls (schedule transitions in prof.step(), start_trace,
// stop_trace) appear as frames when stacks are recorded. This detector
// measures that time inside the target (each steady step, or the window
// without steps), says where it lies (among the work, or at the window's
// edges before the first and after the last submission) and what kind it
// is, so that a perturbed measurement is not read as the program's cost.
//
//===----------------------------------------------------------------------===//
#include "rules/BuiltinDetectors.h"
#include "rules/detectors/DetectorSupport.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <array>
#include <climits>
#include <map>

using namespace tracelint;
using namespace tracelint::rules;
using namespace tracelint::rules::detect;
using analysis::TraceIndex;
using model::Event;
using model::EventKind;
using model::Interval;

namespace {

enum OverheadKind : unsigned {
  Flushes,
  Instrumentation,
  Initialization,
  HostCalls,
  OtherOverhead,
  NumOverheadKinds
};

const char *overheadKindName(unsigned K) {
  static const char *const Names[] = {
      "buffer requests and flushes", "instrumentation and resource management",
      "profiler initialization", "the profiler's own Python calls",
      "other profiler overhead"};
  return K < NumOverheadKinds ? Names[K] : "";
}

OverheadKind classify(const Event &E, llvm::StringRef Name) {
  if (E.Kind == EventKind::Python)
    return HostCalls;
  if (Name.contains_insensitive("flush") || Name.contains_insensitive("buffer"))
    return Flushes;
  if (Name.contains_insensitive("instrumentation") ||
      Name.contains_insensitive("resource"))
    return Instrumentation;
  if (Name.contains_insensitive("initiali") ||
      Name.contains_insensitive("allocation"))
    return Initialization;
  return OtherOverhead;
}

/// The work span: from the first submission's start to the last one's end,
/// or the whole window when no thread submits. Outside it are the window's
/// edges.
Interval workSpan(const TraceIndex &Ctx) {
  const model::Trace &T = Ctx.trace();
  int64_t Begin = INT64_MAX;
  for (uint32_t LI = 0; LI < T.Lanes.size(); ++LI) {
    llvm::ArrayRef<uint32_t> Subs = Ctx.submissions(LI);
    if (!Subs.empty())
      Begin = std::min(Begin, T.Events[Subs.front()].Start);
  }
  int64_t End = Ctx.lastSubmissionEnd();
  if (Begin == INT64_MAX || End == INT64_MAX)
    return Ctx.window();
  return {Begin, End};
}

/// True when \p R overlaps one of the windows (sorted and disjoint): the
/// first window that ends after R begins is the only candidate.
bool overlapsAWindow(const MeasureWindows &Win, Interval R) {
  auto It = llvm::partition_point(
      Win.Ranges, [&](const Interval &W) { return W.End <= R.Begin; });
  return It != Win.Ranges.end() && It->Begin < R.End;
}

/// What the overhead costs the target, and where it lies.
struct OverheadFigures {
  /// The largest union over the windows (the median step cannot shrink by
  /// more than one step holds), capped by the target.
  int64_t Impact = 0;
  int64_t WorstStep = -1;                         ///< the window that holds it
  int64_t InWork = 0;                             ///< of it, among the work
  std::array<int64_t, NumOverheadKinds> ByKind{}; ///< inside the windows
};

OverheadFigures measureOverhead(const TraceIndex &Ctx,
                                llvm::ArrayRef<uint32_t> Found) {
  const model::Trace &T = Ctx.trace();
  const MeasureWindows &Win = Ctx.measureWindows();
  std::vector<Interval> Parts;
  std::array<std::vector<Interval>, NumOverheadKinds> KindParts;
  for (uint32_t I : Found) {
    const Event &E = T.Events[I];
    Parts.push_back({E.Start, E.end()});
    KindParts[classify(E, T.name(E))].push_back({E.Start, E.end()});
  }
  model::IntervalSet Union = model::IntervalSet::unionOf(std::move(Parts));
  OverheadFigures F;
  for (size_t W = 0; W < Win.Ranges.size(); ++W) {
    int64_t Ns = Union.lengthWithin(Win.Ranges[W]);
    if (Ns > F.Impact) {
      F.Impact = Ns;
      F.WorstStep = Win.StepNumbers[W];
    }
  }
  F.Impact = std::min(F.Impact, Ctx.targetNs());
  F.InWork = Win.Steps ? F.Impact : Union.lengthWithin(workSpan(Ctx));
  for (unsigned K = 0; K < NumOverheadKinds; ++K) {
    model::IntervalSet KU = model::IntervalSet::unionOf(KindParts[K]);
    for (const Interval &W : Win.Ranges)
      F.ByKind[K] += KU.lengthWithin(W);
  }
  return F;
}

/// The records inside the windows: how many, their names by time, the
/// longest.
struct OverheadRecords {
  uint64_t Count = 0;
  std::map<std::string, int64_t> TimeByName;
  const Event *Longest = nullptr;
};

OverheadRecords recordsInWindows(const TraceIndex &Ctx,
                                 llvm::ArrayRef<uint32_t> Found) {
  const model::Trace &T = Ctx.trace();
  OverheadRecords R;
  for (uint32_t I : Found) {
    const Event &E = T.Events[I];
    if (!overlapsAWindow(Ctx.measureWindows(), {E.Start, E.end()}))
      continue;
    ++R.Count;
    R.TimeByName[T.name(E).str()] += E.Duration;
    if (!R.Longest || E.Duration > R.Longest->Duration)
      R.Longest = &E;
  }
  return R;
}

/// Where the overhead lies: {placement} and {metric_kind}.
void describePlacement(const OverheadFigures &F, bool Steps,
                       std::map<std::string, Value> &V) {
  if (Steps) {
    V["placement"] =
        llvm::formatv("inside the steady steps (up to {0} in step {1})",
                      dur(F.Impact), F.WorstStep)
            .str();
    V["metric_kind"] = "steps";
    return;
  }
  int64_t AtEdges = std::max<int64_t>(0, F.Impact - F.InWork);
  if (F.InWork > 0) {
    V["placement"] =
        llvm::formatv("{0} among the work (between the first and the last "
                      "submission) and {1} at the window's edges",
                      dur(F.InWork), dur(AtEdges))
            .str();
    V["metric_kind"] = "among the work";
    return;
  }
  V["placement"] =
      llvm::formatv("all {0} at the window's edges, before the first or "
                    "after the last submission (profiler start-up and its "
                    "flush at exit)",
                    dur(AtEdges))
          .str();
  V["metric_kind"] = "window edges";
}

/// The finding: where the overhead lies, its kinds, the records inside the
/// windows and the longest of them.
Detection describeOverhead(const TraceIndex &Ctx, const OverheadFigures &F,
                           const OverheadRecords &R) {
  const MeasureWindows &Win = Ctx.measureWindows();
  std::vector<std::string> Kinds;
  for (unsigned K = 0; K < NumOverheadKinds; ++K)
    if (F.ByKind[K] > 0)
      Kinds.push_back(
          llvm::formatv("{0} {1}", overheadKindName(K), dur(F.ByKind[K]))
              .str());
  std::vector<std::string> Names = namesByTime(R.TimeByName);

  Detection Det;
  auto &V = Det.Values;
  describePlacement(F, Win.Steps, V);
  V["value"] = dur(F.Impact);
  V["share"] = pct(double(F.Impact) / double(Ctx.targetNs()));
  V["kinds"] = Kinds.empty() ? "none" : joinNames(Kinds, 5);
  V["top_names"] = Names.empty() ? "none" : joinNames(Names);
  V["count"] = count(int64_t(R.Count));
  V["impact"] = dur(F.Impact);
  V["target"] = Ctx.describeTarget();
  describeWindows(Win, V);
  if (R.Longest) {
    V["example"] =
        eventAt(Ctx, *R.Longest) + " (" + dur(R.Longest->Duration).text() + ")";
    Det.Examples.push_back(example(Ctx, *R.Longest));
  } else {
    V["example"] = "none";
  }
  V["subject"] = V["metric_kind"];
  Det.Subject = V["metric_kind"].text();
  Det.ImpactNs = F.Impact;
  Det.Window = Win.describe();
  // Overhead records name themselves; whether the program would run faster
  // by that much without the profiler depends on the thread they block.
  Det.Confidence = 0.7;
  return Det;
}

} // namespace

Outcome rules::runProfilerPerturbation(const TraceIndex &Ctx,
                                       const RuleOptions &Opts,
                                       std::vector<Detection> &Out) {
  const double MinShare = Opts.number("min-share");
  const int64_t Target = Ctx.targetNs();
  if (Target <= 0)
    return Outcome::ran();

  llvm::ArrayRef<uint32_t> Found = Ctx.profilerActivity();
  if (Found.empty())
    return Outcome::ran();
  OverheadFigures F = measureOverhead(Ctx, Found);
  if (F.Impact <= 0 || double(F.Impact) / double(Target) < MinShare)
    return quietUnderFloor(F.Impact, Target, MinShare);

  Detection Det = describeOverhead(Ctx, F, recordsInWindows(Ctx, Found));
  // Overhead among the work perturbs what every rule measures; at the edges
  // it only lengthens a window without steps.
  const bool AmongWork = Ctx.measureWindows().Steps ||
                         F.InWork >= int64_t(MinShare * double(Target));
  Det.SeverityOverride = AmongWork ? Severity::Warning : Severity::Info;
  Out.push_back(std::move(Det));
  return Outcome::ran();
}
