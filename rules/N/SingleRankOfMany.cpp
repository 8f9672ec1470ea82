//===- rules/detectors/Communication.cpp - N rules: collectives and ranks -===//
//
// Single-trace communication signals. A collective kernel (NCCL/RCCL, the
// importers' Collective kind) that runs while no compute kernel runs on the
// same device is exposed: the step waits for it. Exposure is measured as a
// union: the collectives' busy union on a device minus that device's compute
// union, then unioned over devices, never a sum of kernel durations.
//
// A rank's trace says nothing about the other ranks: a collective lasts until
// the slowest peer arrives, so part of what looks like communication can be
// waiting. The texts say so; multi-rank skew analysis is separate work.
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

Outcome rules::runSingleRankOfMany(const TraceIndex &Ctx, const RuleOptions &,
                                   std::vector<Detection> &Out) {
  const model::Trace &T = Ctx.trace();
  const model::Producer &Src = T.Source;
  size_t Collectives = T.countKind(EventKind::Collective);
  // A rank above 0 without a world size still says that the job has at
  // least that many ranks plus one.
  int64_t AtLeast = Src.WorldSize >= 0 ? Src.WorldSize
                    : Src.Rank >= 1    ? Src.Rank + 1
                                       : -1;
  if (AtLeast < 0) {
    if (Src.Rank == 0)
      return Outcome::cannotJudge(
          "distributedInfo names rank 0 but gives no "
          "world size, so the trace may or may not be one of several "
          "ranks");
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
  V["rank"] = Src.Rank >= 0 ? std::to_string(Src.Rank) : "unknown";
  V["world"] =
      Src.WorldSize >= 0
          ? std::to_string(Src.WorldSize)
          : llvm::formatv("at least {0} (no world size given)", AtLeast).str();
  V["others"] = std::to_string(AtLeast - 1);
  V["backend"] =
      Src.DistributedBackend.empty() ? "unknown" : Src.DistributedBackend;
  V["value"] = llvm::formatv("rank {0} of {1}", V["rank"], V["world"]).str();
  // What this rank spends in collectives is the part of its timeline that
  // the other ranks set: a union, over every device of the trace.
  std::vector<Interval> Comm;
  for (const Event &E : T.Events)
    if (E.Kind == EventKind::Collective)
      Comm.push_back({E.Start, E.end()});
  int64_t CommNs = IntervalSet::unionOf(std::move(Comm)).length();
  V["collectives"] =
      Collectives == 0
          ? std::string("no communication kernel was recorded on this rank")
          : llvm::formatv("{0} communication kernels on this rank occupy {1} "
                          "of the window ({2}); each lasts until the slowest "
                          "peer has joined it",
                          Collectives, dur(CommNs),
                          pct(double(CommNs) / double(std::max<int64_t>(
                                                   1, Ctx.window().length()))))
                .str();
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
