//===- rules/M/ManagedMemoryMigrations.cpp - M009 managed-memory-migrations
//===//
//
// Managed (unified) memory moves pages between host and device on demand:
// a kernel that touches a page resident on the host faults and waits while
// the driver migrates it, and a host read of a result pulls the pages back.
// Profilers record the migrations as "Unified" copies with no API call
// behind them (EventKind::Migration); they are not device work (no stream
// ran them), so the idle split and the critical path show the device's
// wait for them as an unrecorded dependency, which this rule claims
// (S004 leaves migration-covered stalls to it, TraceIndex::unrecordedStalls).
//
// The cost per window is the union of the migrations' time on the device.
// The time with no device work beside it is the device waiting for pages;
// the time beside kernels is the kernels faulting on them. Prefetching the
// data (or keeping it on the device) moves the same bytes once, in bulk,
// so the migrations' time bounds the gain; the engine caps it by the path
// without the unrecorded delays and the faulting kernels.
//
//===----------------------------------------------------------------------===//
#include "rules/BuiltinDetectors.h"
#include "rules/detectors/DetectorSupport.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <map>

using namespace tracelint;
using namespace tracelint::rules;
using namespace tracelint::rules::detect;
using analysis::TraceIndex;
using model::Event;
using model::Interval;

namespace {

/// The migrations' figures over the measured windows.
struct Collected {
  std::vector<std::vector<Interval>> Time; ///< per window
  uint64_t Up = 0, Down = 0, Other = 0;
  int64_t UpBytes = 0, DownBytes = 0;
  std::map<int32_t, uint64_t> PerDevice;
  uint32_t Longest = model::NoIndex;
};

int32_t deviceOf(const model::Trace &T, const Event &E) {
  const model::Lane &L = T.laneOf(E);
  return L.Device;
}

Collected collect(const TraceIndex &Ctx) {
  const model::Trace &T = Ctx.trace();
  const MeasureWindows &Win = Ctx.measureWindows();
  Collected C;
  C.Time.resize(Win.Ranges.size());
  for (uint32_t I : Ctx.eventsOfKind(model::EventKind::Migration)) {
    const Event &E = T.Events[I];
    size_t R = Win.indexOf(E.Start);
    if (R == Win.Ranges.size())
      continue;
    C.Time[R].push_back({E.Start, std::min(E.end(), Win.Ranges[R].End)});
    const model::CopyKind K = E.Args != model::NoIndex
                                  ? T.Args[E.Args].Copy
                                  : model::CopyKind::Unknown;
    const int64_t B = std::max<int64_t>(0, copyBytes(T, E));
    if (K == model::CopyKind::HtoD) {
      ++C.Up;
      C.UpBytes += B;
    } else if (K == model::CopyKind::DtoH) {
      ++C.Down;
      C.DownBytes += B;
    } else {
      ++C.Other;
    }
    ++C.PerDevice[deviceOf(T, E)];
    keepLongest(T, C.Longest, I);
  }
  return C;
}

/// The kernels that wait for the pages, by time: those that run beside a
/// migration (they fault on its pages) and the first kernel after each
/// stretch of migrations on \p Device (it waited for them to finish).
/// \p Faulting gets those beside a migration only.
std::map<std::string, int64_t>
kernelsThatWait(const TraceIndex &Ctx, int32_t Device,
                const model::IntervalSet &Migr,
                std::vector<std::string> &Faulting) {
  const model::Trace &T = Ctx.trace();
  std::map<std::string, int64_t> Out;
  llvm::ArrayRef<uint32_t> Work = Ctx.deviceWork(Device);
  for (uint32_t I : Work) {
    const Event &K = T.Events[I];
    if (K.Kind != model::EventKind::Kernel)
      continue;
    if (int64_t Ns = Migr.lengthWithin({K.Start, K.end()}); Ns > 0)
      Out[T.name(K).str()] += Ns;
  }
  Faulting = namesByTime(Out);
  for (const Interval &P : Migr.parts()) {
    auto It = llvm::partition_point(
        Work, [&](uint32_t W) { return T.Events[W].Start < P.End; });
    for (; It != Work.end(); ++It)
      if (T.Events[*It].Kind == model::EventKind::Kernel) {
        Out[T.name(T.Events[*It]).str()] += P.length();
        break;
      }
  }
  return Out;
}

} // namespace

Outcome rules::runManagedMemoryMigrations(const TraceIndex &Ctx,
                                          const RuleOptions &Opts,
                                          std::vector<Detection> &Out) {
  const model::Trace &T = Ctx.trace();
  const int64_t Target = Ctx.targetNs();
  const double MinShare = Opts.number("min-share-of-step");
  if (Target <= 0 || Ctx.eventsOfKind(model::EventKind::Migration).empty())
    return Outcome::ran();
  Collected C = collect(Ctx);
  if (C.Longest == model::NoIndex)
    return Outcome::ran();

  // Which device's busy time the migrations are judged against: the one
  // with the most of them.
  int32_t Device = C.PerDevice.begin()->first;
  for (const auto &[D, N] : C.PerDevice)
    if (N > C.PerDevice[Device])
      Device = D;
  // Migrations filed on a lane of no device belong to the one device there
  // is (as TraceIndex::migrating files them).
  if (Device < 0 && Ctx.devices().size() == 1)
    Device = Ctx.devices().front();
  const model::IntervalSet &Busy = Ctx.deviceBusy(Device);

  const MeasureWindows &Win = Ctx.measureWindows();
  PerWindowMean Mean(Win);
  std::vector<int64_t> Cost, Exposed;
  std::vector<Interval> All;
  for (size_t R = 0; R < Win.Ranges.size(); ++R) {
    model::IntervalSet U = model::IntervalSet::unionOf(C.Time[R]);
    Cost.push_back(U.length());
    int64_t Idle = 0;
    for (const Interval &P : U.parts())
      Idle += Busy.idleWithin(P);
    Exposed.push_back(Idle);
    All.insert(All.end(), U.parts().begin(), U.parts().end());
  }
  const int64_t CostNs = median(Cost);
  if (double(CostNs) < MinShare * double(Target))
    return Outcome::quiet(
        llvm::formatv("the migrations take {0} {1}, under the rule's "
                      "min-share-of-step ({2})",
                      support::formatDuration(CostNs), Mean.per(),
                      support::formatShare(MinShare))
            .str());

  const model::IntervalSet Migrating =
      model::IntervalSet::unionOf(std::move(All));
  std::vector<std::string> Faulting;
  std::vector<std::string> Kernels =
      namesByTime(kernelsThatWait(Ctx, Device, Migrating, Faulting));

  Detection Det;
  auto &V = Det.Values;
  const int64_t ExposedNs = median(Exposed);
  const int64_t Impact = std::min(CostNs, Target);
  describeCostPerWindow(Ctx, CostNs, MinShare, Impact, V);
  V["count"] = count(int64_t(C.Up + C.Down + C.Other));
  V["up_count"] = Value::number(Mean.count(C.Up), 1);
  V["down_count"] = Value::number(Mean.count(C.Down), 1);
  V["up_bytes"] = Mean.size(C.UpBytes);
  V["down_bytes"] = Mean.size(C.DownBytes);
  V["exposed"] = dur(ExposedNs);
  V["beside_kernels"] = dur(std::max<int64_t>(0, CostNs - ExposedNs));
  V["kernels"] = Kernels.empty() ? std::string("no kernel")
                                 : joinNames(Kernels, /*Max=*/3);
  V["device"] = deviceName(Device);
  const Event &Longest = T.Events[C.Longest];
  V["example"] = eventAt(Ctx, Longest,
                         llvm::formatv(" ({0})", dur(Longest.Duration)).str());
  Det.Subject = Kernels.empty() ? std::string("managed memory")
                                : "managed memory around " + Kernels.front();
  Det.Examples.push_back(example(Ctx, Longest));
  Det.ImpactNs = Impact;
  // The path shows the device's wait for pages as unrecorded delays, and
  // the kernels that fault beside them as compute: without the migrations
  // neither. (A kernel that only waited before its start keeps its time.)
  Det.PathQuery.Categories.set(
      unsigned(analysis::PathCategory::UnrecordedDependency));
  for (size_t K = 0; K < Faulting.size() && K < 8; ++K)
    Det.PathQuery.Names.push_back(Faulting[K]);
  Det.Window = Win.describe();
  // Migrations are what the driver did, not why: a prefetch that the
  // profiler shows as a migration, or pages the program really shares
  // with the host every iteration, look the same.
  Det.Confidence = 0.7;
  Out.push_back(std::move(Det));
  return Outcome::ran();
}
