//===- rules/N/SingleRankOfMany.cpp - N003 one rank of many -------------===//
//
// A rank's trace says nothing about the other ranks: a collective lasts
// until the slowest peer arrives, so part of what looks like communication
// can be waiting, and every figure of the report is this rank's alone. When
// the trace's distributedInfo (or a rank above 0) says the job has several
// ranks, this detector says so as an info finding with no impact, with the
// time this rank's collectives occupy: the part of its timeline that the
// other ranks set.
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
using model::EventKind;
using model::Interval;
using model::IntervalSet;

namespace {

/// How many ranks the job has at least: the world size, or, for a rank
/// above 0 without one, that rank plus one; -1 when the trace cannot say.
int64_t ranksAtLeast(const model::Producer &Src) {
  return Src.WorldSize >= 0 ? Src.WorldSize : Src.Rank >= 1 ? Src.Rank + 1 : -1;
}

/// {collectives}: the collectives' time on this rank, a union over every
/// device of the trace.
std::string collectivesText(const TraceIndex &Ctx) {
  const model::Trace &T = Ctx.trace();
  llvm::ArrayRef<uint32_t> Collectives =
      Ctx.eventsOfKind(EventKind::Collective);
  if (Collectives.empty())
    return "no communication kernel was recorded on this rank";
  std::vector<Interval> Comm;
  for (uint32_t I : Collectives)
    Comm.push_back({T.Events[I].Start, T.Events[I].end()});
  int64_t CommNs = IntervalSet::unionOf(std::move(Comm)).length();
  return llvm::formatv(
             "{0} communication kernels on this rank occupy {1} of the "
             "window ({2}); each lasts until the slowest peer has joined it",
             Collectives.size(), dur(CommNs),
             pct(double(CommNs) /
                 double(std::max<int64_t>(1, Ctx.window().length()))))
      .str();
}

} // namespace

Outcome rules::runSingleRankOfMany(const TraceIndex &Ctx, const RuleOptions &,
                                   std::vector<Detection> &Out) {
  const model::Producer &Src = Ctx.trace().Source;
  const int64_t AtLeast = ranksAtLeast(Src);
  if (AtLeast < 0) {
    if (Src.Rank == 0)
      return Outcome::cannotJudge(
          "distributedInfo names rank 0 but gives no "
          "world size, so the trace may or may not be one of several "
          "ranks");
    size_t Collectives = Ctx.eventsOfKind(EventKind::Collective).size();
    if (Collectives > 0)
      return Outcome::cannotJudge(
          llvm::formatv("the trace records {0} communication "
                        "kernels but no distributedInfo, so its rank and the "
                        "job's world size are unknown; PyTorch writes "
                        "distributedInfo when torch.distributed is initialised "
                        "before the profiler starts",
                        Collectives)
              .str());
    return Outcome::ran(); // a single-process trace
  }
  if (AtLeast <= 1)
    return Outcome::ran();

  Detection Det;
  auto &V = Det.Values;
  V["rank"] = Src.Rank >= 0 ? count(Src.Rank) : Value("unknown");
  V["world"] =
      Src.WorldSize >= 0
          ? count(Src.WorldSize)
          : Value(llvm::formatv("at least {0} (no world size given)", AtLeast)
                      .str());
  V["others"] = count(AtLeast - 1);
  V["backend"] =
      Src.DistributedBackend.empty() ? "unknown" : Src.DistributedBackend;
  V["value"] = llvm::formatv("rank {0} of {1}", V["rank"], V["world"]).str();
  V["collectives"] = collectivesText(Ctx);
  V["subject"] = llvm::formatv("one rank of {0}", V["world"]).str();
  Det.Subject = V["subject"].text();
  Det.Window = "whole window";
  Det.ImpactNs = 0; // a statement about the evidence, not a cost
  Det.SeverityOverride = Severity::Info;
  // The metadata states the world size; nothing is inferred.
  Det.Confidence = 0.9;
  Out.push_back(std::move(Det));
  return Outcome::ran();
}
