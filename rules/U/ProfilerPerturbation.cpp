//===- rules/detectors/ProfilerPerturbation.cpp - U004 profiler overhead --===//
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

#include "analysis/Startup.h"

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

} // namespace

Outcome rules::runProfilerPerturbation(const TraceIndex &Ctx,
                                       const RuleOptions &Opts,
                                       std::vector<Detection> &Out) {
  const model::Trace &T = Ctx.trace();
  const double MinShare = Opts.number("min-share");
  const int64_t Target = Ctx.targetNs();
  if (Target <= 0)
    return Outcome::ran();

  // 1. The profiler's own activity, anywhere in the trace.
  std::vector<uint32_t> Found;
  for (uint32_t I = 0; I < T.Events.size(); ++I) {
    const Event &E = T.Events[I];
    if (E.Duration <= 0)
      continue;
    if (E.Kind == EventKind::Overhead ||
        // The profiler's own frames (with_stack=True): its schedule
        // transitions, start and stop, export and the autograd profiler.
        (E.Kind == EventKind::Python &&
         Ctx.is(E, model::NameClass::ProfilerFrame)))
      Found.push_back(I);
  }
  if (Found.empty())
    return Outcome::ran();

  // 2. Where it lies. The work span runs from the first submission's start
  //    to the last one's end; outside it are the window's edges.
  int64_t WorkBegin = INT64_MAX;
  for (uint32_t LI = 0; LI < T.Lanes.size(); ++LI) {
    llvm::ArrayRef<uint32_t> Subs = Ctx.submissions(LI);
    if (!Subs.empty())
      WorkBegin = std::min(WorkBegin, T.Events[Subs.front()].Start);
  }
  int64_t WorkEnd = Ctx.lastSubmissionEnd();
  bool HasWork = WorkBegin != INT64_MAX && WorkEnd != INT64_MAX;
  Interval Work = HasWork ? Interval{WorkBegin, WorkEnd} : Ctx.window();

  std::vector<Interval> Parts;
  std::array<std::vector<Interval>, NumOverheadKinds> ByKind;
  std::map<std::string, int64_t> ByName;
  for (uint32_t I : Found) {
    const Event &E = T.Events[I];
    Interval R{E.Start, E.end()};
    Parts.push_back(R);
    ByKind[classify(E, T.name(E))].push_back(R);
  }
  model::IntervalSet Union = model::IntervalSet::unionOf(Parts);

  // 3. What it costs the target: the largest per-step union over the steady
  //    steps (the median step cannot shrink by more than one step holds), or
  //    the union inside the window.
  int64_t Impact = 0;
  int64_t InWork = 0;
  int64_t WorstStep = -1;
  const MeasureWindows &Win = Ctx.measureWindows();
  for (size_t W = 0; W < Win.Ranges.size(); ++W) {
    int64_t Ns = Union.lengthWithin(Win.Ranges[W]);
    if (Ns > Impact) {
      Impact = Ns;
      WorstStep = Win.StepNumbers[W];
    }
  }
  Impact = std::min(Impact, Target);
  if (Win.Steps) {
    InWork = Impact;
  } else {
    InWork = Union.lengthWithin(Work);
  }
  double Share = double(Impact) / double(Target);
  if (Impact <= 0 || Share < MinShare)
    return Outcome::ran();

  std::map<std::string, int64_t> NamesIn;
  const Event *Longest = nullptr;
  uint64_t Count = 0;
  for (uint32_t I : Found) {
    const Event &E = T.Events[I];
    Interval R{E.Start, E.end()};
    bool Inside = false;
    for (const Interval &W : Win.Ranges)
      if (R.Begin < W.End && R.End > W.Begin)
        Inside = true;
    if (!Inside)
      continue;
    ++Count;
    NamesIn[T.name(E).str()] += E.Duration;
    if (!Longest || E.Duration > Longest->Duration)
      Longest = &E;
  }

  Detection Det;
  auto &V = Det.Values;
  std::vector<std::string> Kinds;
  for (unsigned K = 0; K < NumOverheadKinds; ++K) {
    int64_t Ns = 0;
    model::IntervalSet KU = model::IntervalSet::unionOf(ByKind[K]);
    for (const Interval &W : Win.Ranges)
      Ns += KU.lengthWithin(W);
    if (Ns > 0)
      Kinds.push_back(
          llvm::formatv("{0} {1}", overheadKindName(K), dur(Ns)).str());
  }
  std::vector<std::pair<int64_t, std::string>> Names;
  for (auto &[N, Ns] : NamesIn)
    Names.push_back({Ns, N});
  llvm::sort(Names, [](const auto &A, const auto &B) {
    return A.first > B.first || (A.first == B.first && A.second < B.second);
  });
  std::vector<std::string> NameList;
  for (auto &P : Names)
    NameList.push_back(P.second);

  int64_t AtEdges = Win.Steps ? 0 : std::max<int64_t>(0, Impact - InWork);
  if (Win.Steps) {
    V["placement"] =
        llvm::formatv("inside the steady steps (up to {0} in step {1})",
                      dur(Impact), WorstStep)
            .str();
    V["metric_kind"] = "steps";
  } else if (InWork > 0) {
    V["placement"] =
        llvm::formatv("{0} among the work (between the first and the last "
                      "submission) and {1} at the window's edges",
                      dur(InWork), dur(AtEdges))
            .str();
    V["metric_kind"] = "among the work";
  } else {
    V["placement"] =
        llvm::formatv("all {0} at the window's edges, before the first or "
                      "after the last submission (profiler start-up and its "
                      "flush at exit)",
                      dur(AtEdges))
            .str();
    V["metric_kind"] = "window edges";
  }
  // Overhead among the work perturbs what every rule measures; at the edges
  // it only lengthens a window without steps.
  Det.SeverityOverride =
      Win.Steps || InWork >= int64_t(MinShare * double(Target))
          ? Severity::Warning
          : Severity::Info;
  V["value"] = dur(Impact);
  V["share"] = pct(Share);
  V["kinds"] = Kinds.empty() ? "none" : joinNames(Kinds, 5);
  V["top_names"] = NameList.empty() ? "none" : joinNames(NameList);
  V["count"] = std::to_string(Count);
  V["impact"] = dur(Impact);
  V["target"] = Ctx.describeTarget();
  describeWindows(Win, V);
  if (Longest) {
    V["example"] =
        llvm::formatv("{0} at {1:f3} us ({2})", T.name(*Longest),
                      Ctx.traceTimestampUs(*Longest), dur(Longest->Duration))
            .str();
    Det.Examples.push_back(example(Ctx, *Longest));
  } else {
    V["example"] = "none";
  }
  V["subject"] = V["metric_kind"];
  Det.Subject = V["metric_kind"].text();
  Det.ImpactNs = Impact;
  Det.Window = Win.describe();
  // Overhead records name themselves; whether the program would run faster
  // by that much without the profiler depends on the thread they block.
  Det.Confidence = 0.7;
  Out.push_back(std::move(Det));
  return Outcome::ran();
}
