//===- rules/M/RoundTripTransfers.cpp - M008 round-trip-transfers ---------===//
//
// Data copied to the device, used by a few kernels, copied back, and copied
// to the device again at the next step or kernel never stays on the device:
// the copies, not the kernels, take the time. The trace index finds the
// round trips once (analysis/RoundTrips.h: copies of one size both ways,
// repeated); this detector measures what they cost.
//
// The cost per window is the union of the copies' device time and the host
// time their calls block (a blocking or pageable copy holds the host until
// it is done, so the host cannot run ahead either): keeping the data on the
// device removes both. The engine caps it by the critical path without the
// copies and the calls and ops that issue them.
//
//===----------------------------------------------------------------------===//
#include "rules/BuiltinDetectors.h"
#include "rules/detectors/DetectorSupport.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <map>
#include <set>

using namespace tracelint;
using namespace tracelint::rules;
using namespace tracelint::rules::detect;
using analysis::RoundTripGroup;
using analysis::TraceIndex;
using model::Event;
using model::Interval;

namespace {

/// The round trips' figures over the measured windows.
struct Collected {
  std::vector<std::vector<Interval>> Device, Host; ///< per window
  int64_t UpBytes = 0, DownBytes = 0;
  uint64_t Up = 0, Down = 0;
  std::map<std::string, uint64_t> UpPaths, DownPaths, Between;
  std::set<std::string> Issuers; ///< calls and ops that issue the copies
  uint32_t Longest = model::NoIndex;
};

void addCopy(const TraceIndex &Ctx, uint32_t I, bool Up, Collected &C) {
  const model::Trace &T = Ctx.trace();
  const MeasureWindows &Win = Ctx.measureWindows();
  const Event &E = T.Events[I];
  size_t R = Ctx.windowOf(I);
  if (R == Win.Ranges.size())
    return;
  const Interval W = Win.Ranges[R];
  C.Device[R].push_back({E.Start, std::min(E.end(), W.End)});
  (Up ? C.UpBytes : C.DownBytes) += copyBytes(T, E);
  ++(Up ? C.Up : C.Down);
  keepLongest(T, C.Longest, I);
  uint32_t L = T.launchOf(E);
  if (L == model::NoIndex) {
    ++(Up ? C.UpPaths : C.DownPaths)["(no host call recorded)"];
    return;
  }
  const Event &Call = T.Events[L];
  ++(Up ? C.UpPaths : C.DownPaths)[Ctx.opPath(Call)];
  C.Issuers.insert(T.name(Call).str());
  if (const Event *Op = enclosingOp(T, Call))
    C.Issuers.insert(T.name(*Op).str());
  // A call that returns only when the copy is done blocks the host too.
  if (Ctx.waitKind(Call) == analysis::WaitKind::BlockingCopy) {
    Interval B{std::max(Call.Start, W.Begin), std::min(Call.end(), W.End)};
    if (B.length() > 0)
      C.Host[R].push_back(B);
  }
}

/// The kernels that run between an upload and the next download of the
/// same group: what the data went to the device for.
void addKernelsBetween(const TraceIndex &Ctx, const RoundTripGroup &G,
                       Collected &C) {
  const model::Trace &T = Ctx.trace();
  std::vector<std::pair<int64_t, bool>> Order; // start, is upload
  for (uint32_t I : G.HtoD)
    Order.push_back({T.Events[I].Start, true});
  for (uint32_t I : G.DtoH)
    Order.push_back({T.Events[I].Start, false});
  llvm::sort(Order);
  llvm::ArrayRef<uint32_t> Work = Ctx.deviceWork(G.Device);
  for (size_t K = 0; K + 1 < Order.size(); ++K) {
    if (!Order[K].second || Order[K + 1].second)
      continue;
    auto It = llvm::partition_point(
        Work, [&](uint32_t W) { return T.Events[W].Start < Order[K].first; });
    for (; It != Work.end() && T.Events[*It].Start < Order[K + 1].first; ++It)
      if (T.Events[*It].Kind == model::EventKind::Kernel)
        ++C.Between[T.name(T.Events[*It]).str()];
  }
}

std::string topOf(const std::map<std::string, uint64_t> &Counts) {
  if (Counts.empty())
    return "none";
  return std::max_element(
             Counts.begin(), Counts.end(),
             [](const auto &A, const auto &B) { return A.second < B.second; })
      ->first;
}

std::string topNames(const std::map<std::string, uint64_t> &Counts) {
  std::vector<std::pair<std::string, uint64_t>> V(Counts.begin(), Counts.end());
  llvm::stable_sort(
      V, [](const auto &A, const auto &B) { return A.second > B.second; });
  std::vector<std::string> Names;
  for (const auto &[Name, N] : V)
    Names.push_back(Name);
  return Names.empty() ? std::string("no kernel") : joinNames(Names, /*Max=*/3);
}

} // namespace

Outcome rules::runRoundTripTransfers(const TraceIndex &Ctx,
                                     const RuleOptions &Opts,
                                     std::vector<Detection> &Out) {
  const model::Trace &T = Ctx.trace();
  const int64_t Target = Ctx.targetNs();
  const double MinShare = Opts.number("min-share-of-step");
  const analysis::RoundTrips &Trips = Ctx.roundTrips();
  if (Target <= 0 || Trips.Groups.empty())
    return Outcome::ran();

  const MeasureWindows &Win = Ctx.measureWindows();
  Collected C;
  C.Device.resize(Win.Ranges.size());
  C.Host.resize(Win.Ranges.size());
  for (const RoundTripGroup &G : Trips.Groups) {
    for (uint32_t I : G.HtoD)
      addCopy(Ctx, I, /*Up=*/true, C);
    for (uint32_t I : G.DtoH)
      addCopy(Ctx, I, /*Up=*/false, C);
    addKernelsBetween(Ctx, G, C);
  }
  std::vector<int64_t> Cost, CopyNs, BlockedNs;
  int64_t CopyTotal = 0;
  for (size_t R = 0; R < Win.Ranges.size(); ++R) {
    std::vector<Interval> Both = C.Device[R];
    Both.insert(Both.end(), C.Host[R].begin(), C.Host[R].end());
    Cost.push_back(model::IntervalSet::unionOf(std::move(Both)).length());
    int64_t Copies = model::IntervalSet::unionOf(C.Device[R]).length();
    CopyNs.push_back(Copies);
    CopyTotal += Copies;
    BlockedNs.push_back(model::IntervalSet::unionOf(C.Host[R]).length());
  }
  const int64_t CostNs = median(Cost);
  if (double(CostNs) < MinShare * double(Target))
    return Outcome::ran();

  int64_t BusyInWindows = 0;
  for (const Interval &W : Win.Ranges)
    BusyInWindows += Ctx.deviceBusy().lengthWithin(W);
  const RoundTripGroup &Top = Trips.Groups.front();
  PerWindowMean Mean(Win);
  Detection Det;
  auto &V = Det.Values;
  const int64_t Impact = std::min(CostNs, Target);
  describeCostPerWindow(Ctx, CostNs, MinShare, Impact, V);
  V["size"] = bytes(Top.Bytes);
  V["sizes"] = count(int64_t(Trips.Groups.size()));
  V["up_count"] = rules::Value::number(Mean.count(C.Up), 1);
  V["down_count"] = rules::Value::number(Mean.count(C.Down), 1);
  V["up_bytes"] = Mean.size(C.UpBytes);
  V["down_bytes"] = Mean.size(C.DownBytes);
  V["copy_time"] = dur(median(CopyNs));
  V["blocked"] = dur(median(BlockedNs));
  V["copy_share"] =
      pct(BusyInWindows > 0 ? double(CopyTotal) / double(BusyInWindows) : 0.0);
  V["kernels_between"] = topNames(C.Between);
  V["up_path"] = topOf(C.UpPaths);
  V["down_path"] = topOf(C.DownPaths);
  V["device"] = deviceName(Top.Device);
  const Event &Longest = T.Events[C.Longest];
  V["example"] = eventAt(Ctx, Longest,
                         llvm::formatv(" ({0})", dur(Longest.Duration)).str());
  Det.Subject = topOf(C.UpPaths) + " <-> " + topOf(C.DownPaths);
  V["subject"] = Det.Subject;
  Det.Examples.push_back(example(Ctx, Longest));
  Det.ImpactNs = Impact;
  // Without the round trips neither the copies nor the host calls and ops
  // that issue them are on the path.
  Det.PathQuery.Categories.set(unsigned(analysis::PathCategory::Copy));
  Det.PathQuery.Names.assign(C.Issuers.begin(), C.Issuers.end());
  Det.Window = Win.describe();
  // Equal sizes both ways are likely, not certain, to be the same data:
  // the trace records no addresses.
  Det.Confidence = 0.6;
  Out.push_back(std::move(Det));
  return Outcome::ran();
}
