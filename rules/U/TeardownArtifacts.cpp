//===- rules/detectors/TeardownArtifacts.cpp - U003 teardown in the window ===//
//
// Teardown is not steady state either. After the last submission a program
// frees its device and pinned host memory (often one cudaFree per tensor,
// each of which synchronizes the device), unloads modules and destroys its
// streams, events, graphs and context. This detector lists those calls by
// category and says whether they distort the target: they stretch the
// window of a trace without steps, inflate the last step when its range
// holds them, or lie after the steps and leave step figures alone.
//
//===----------------------------------------------------------------------===//
#include "rules/BuiltinDetectors.h"
#include "rules/detectors/DetectorSupport.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <map>

using namespace tracelint;
using namespace tracelint::rules;
using namespace tracelint::rules::detect;
using analysis::TraceIndex;
using model::Event;
using model::Interval;

Outcome rules::runTeardownArtifacts(const TraceIndex &Ctx,
                                    const RuleOptions &Opts,
                                    std::vector<Detection> &Out) {
  const model::Trace &T = Ctx.trace();
  const int64_t MinDuration = int64_t(Opts.number("min-duration"));
  const double MinShare = Opts.number("min-target-share");
  const int64_t Target = Ctx.targetNs();
  if (Target <= 0)
    return Outcome::ran();
  const TeardownWork &Scan = Ctx.teardown();
  if (Scan.Found.empty() || Scan.TeardownNs < MinDuration)
    return Outcome::ran();

  std::vector<Interval> Parts;
  std::map<std::string, int64_t> ByName;
  for (const TeardownEvent &E : Scan.Found) {
    Parts.push_back(E.Range);
    ByName[T.name(T.Events[E.Index]).str()] += E.Range.length();
  }
  model::IntervalSet Union = model::IntervalSet::unionOf(Parts);

  // Where the teardown lies decides what it distorts.
  Detection Det;
  auto &V = Det.Values;
  int64_t Impact = 0;
  double Share = 0;
  if (!Ctx.hasSteps()) {
    // The window is the target and ends with the teardown.
    Impact = std::min(Scan.TeardownNs, Target);
    Share = double(Impact) / double(Target);
    V["classification"] =
        llvm::formatv("the target (the whole window, no steps) ends with "
                      "teardown that is not steady-state work: it takes {0} "
                      "of the window",
                      pct(Share))
            .str();
    V["metric_kind"] = "window";
    V["where"] = "after the last submission of the window";
    Det.Window = "end of window";
  } else {
    // Teardown inside a step inflates that step; the median moves by at
    // most what one step holds.
    int64_t InStep = 0;
    int64_t InStepNumber = -1;
    for (const analysis::StepWindow &S : Ctx.steps()) {
      int64_t Ns = Union.lengthWithin(S.Range);
      if (Ns > InStep) {
        InStep = Ns;
        InStepNumber = S.Number;
      }
    }
    if (InStep > 0) {
      Impact = std::min(InStep, Target);
      Share = double(Impact) / double(Target);
      V["classification"] =
          llvm::formatv("step {0} holds {1} of teardown after the last "
                        "submission ({2} of the target, {3}): that step is "
                        "longer for a reason that is not step work",
                        InStepNumber, dur(InStep), pct(Share),
                        Ctx.describeTarget())
              .str();
      V["metric_kind"] = "last step";
      V["where"] = llvm::formatv("inside step {0}", InStepNumber).str();
      Det.Window = llvm::formatv("step {0}", InStepNumber).str();
    } else {
      V["classification"] =
          llvm::formatv("the teardown lies after the last step, so the "
                        "target ({0}) leaves it out; it is not step work",
                        Ctx.describeTarget())
              .str();
      V["metric_kind"] = "after the steps";
      V["where"] = "after the last step";
      Det.Window = "after the last step";
    }
  }
  Det.SeverityOverride =
      Impact > 0 && Share >= MinShare ? Severity::Warning : Severity::Info;

  std::vector<std::string> Cats;
  for (unsigned C = 0; C < analysis::NumTeardownCategories; ++C) {
    const std::vector<Interval> &CatParts = Scan.ByCategory[C];
    if (CatParts.empty())
      continue;
    int64_t Ns = model::IntervalSet::unionOf(CatParts).length();
    Cats.push_back(llvm::formatv("{0} {1} ({2} call{3})",
                                 analysis::teardownCategoryName(C), dur(Ns),
                                 CatParts.size(),
                                 CatParts.size() == 1 ? "" : "s")
                       .str());
  }
  std::vector<std::pair<int64_t, std::string>> Names;
  for (auto &[N, Ns] : ByName)
    Names.push_back({Ns, N});
  llvm::sort(Names, [](const auto &A, const auto &B) {
    return A.first > B.first || (A.first == B.first && A.second < B.second);
  });
  std::vector<std::string> NameList;
  for (auto &P : Names)
    NameList.push_back(P.second);

  const TeardownEvent *Longest = &Scan.Found.front();
  for (const TeardownEvent &E : Scan.Found)
    if (E.Range.length() > Longest->Range.length())
      Longest = &E;
  const Event &LE = T.Events[Longest->Index];

  // The final synchronization is U002's; say how much of it there is so
  // that the two are read together.
  unsigned Flushes = 0;
  int64_t FlushNs = 0;
  for (const analysis::HostWait &W : Ctx.hostWaits())
    if (Ctx.isFlushWait(W)) {
      ++Flushes;
      FlushNs += W.Range.length();
    }

  V["value"] = dur(Scan.TeardownNs);
  V["teardown_time"] = dur(Scan.TeardownNs);
  V["teardown_share"] =
      pct(double(Scan.TeardownNs) / double(Ctx.window().length()));
  V["categories"] = joinNames(Cats, 4);
  V["top_names"] = joinNames(NameList);
  V["count"] = std::to_string(Scan.Found.size());
  V["example"] =
      llvm::formatv("{0} at {1:f3} us", T.name(LE), Ctx.traceTimestampUs(LE))
          .str();
  V["flushes"] =
      Flushes == 0
          ? std::string("no final synchronization follows the last "
                        "submission")
          : llvm::formatv("{0} final synchronization{1} ({2}) after the "
                          "last submission {3} U002's",
                          Flushes, Flushes == 1 ? "" : "s", dur(FlushNs),
                          Flushes == 1 ? "is" : "are")
                .str();
  V["impact"] = dur(Impact);
  V["target"] = Ctx.describeTarget();
  V["subject"] = V["metric_kind"];
  Det.Examples.push_back(example(Ctx, LE));
  Det.ImpactNs = Impact;
  Det.Subject = V["metric_kind"].text();
  // Named calls after the last submission are direct evidence; what they
  // cost is certain, whether a production run pays them is not.
  Det.Confidence = 0.8;
  Out.push_back(std::move(Det));
  return Outcome::ran();
}
