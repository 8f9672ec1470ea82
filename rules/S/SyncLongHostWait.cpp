//===- rules/detectors/SyncWait.cpp - S001 long host waits ----------------===//
//
// A host wait costs completion time only where it leaves the device without
// work. While the host waits, the device either runs the queued work (then
// the wait only reveals device-bound work) or sits idle (then the awaited
// work was elsewhere: another stream, a copy, a peer). After the wait
// returns, the queue is empty and the device idles until the host submits
// again. Removing the wait would let the host submit that work earlier by at
// most the wait's length, so the gain of one wait is bounded by
//   min(wait, device idle from the wait's start to the next device work).
// This detector sums that bound per step and takes the median; it fires on
// the host time blocked per step, so that a long wait that only reveals
// device-bound work is still shown, with a small impact and an info
// severity that say removing it is not predicted to help.
//
// The final synchronization of the window is excluded: U002 reports it.
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
using analysis::HostWait;
using analysis::TraceIndex;
using model::Event;
using model::Interval;

namespace {

/// The bound on the gain from removing one wait, on one device.
struct WaitCost {
  int64_t IdleDuring = 0; ///< device idle while the host waited
  int64_t Refill = 0;     ///< device idle after it, until new work started
  int64_t Impact = 0;     ///< min(wait, IdleDuring + Refill)
};

WaitCost costOn(const TraceIndex &Ctx, int32_t Device, const Interval &Wait,
                int64_t WindowEnd) {
  const model::IntervalSet &Busy = Ctx.deviceBusy(Device);
  WaitCost C;
  C.IdleDuring = Wait.length() - Busy.lengthWithin(Wait);
  int64_t RefillEnd = WindowEnd;
  uint32_t Next = Ctx.nextDeviceWork(Device, Wait.End);
  if (Next != model::NoIndex)
    RefillEnd = std::min(RefillEnd, Ctx.trace().Events[Next].Start);
  if (RefillEnd > Wait.End) {
    Interval R{Wait.End, RefillEnd};
    C.Refill = R.length() - Busy.lengthWithin(R);
  }
  C.Impact = std::min(Wait.length(), C.IdleDuring + C.Refill);
  return C;
}

struct Group {
  uint64_t Count = 0;
  int64_t Total = 0, Impact = 0, Max = 0;
  uint32_t Longest = model::NoIndex;
};

} // namespace

Outcome rules::runSyncLongHostWait(const TraceIndex &Ctx,
                                   const RuleOptions &Opts,
                                   std::vector<Detection> &Out) {
  const model::Trace &T = Ctx.trace();
  const double MinShare = Opts.number("min-share-of-step");
  const double DeviceBound = Opts.number("device-bound-share");
  const int64_t Target = Ctx.targetNs();
  if (Target <= 0)
    return Outcome::ran();
  const MeasureWindows &Win = Ctx.measureWindows();

  std::vector<int64_t> WaitPer(Win.Ranges.size(), 0),
      ImpactPer(Win.Ranges.size(), 0), IdlePer(Win.Ranges.size(), 0),
      RefillPer(Win.Ranges.size(), 0);
  std::map<std::string, Group> ByPath;
  std::map<std::string, int64_t> ByName;
  std::map<analysis::WaitKind, uint64_t> ByKind;
  uint64_t Flushes = 0, Count = 0;
  int64_t Total = 0, BusyDuring = 0;
  for (const HostWait &W : Ctx.hostWaits()) {
    if (Ctx.isFlushWait(W)) {
      ++Flushes;
      continue;
    }
    auto It = llvm::find_if(Win.Ranges, [&](const Interval &R) {
      return W.Range.Begin >= R.Begin && W.Range.Begin < R.End;
    });
    if (It == Win.Ranges.end())
      continue;
    size_t Idx = It - Win.Ranges.begin();
    // The devices this thread feeds; all of them if it submits nothing.
    llvm::ArrayRef<int32_t> Devices = Ctx.devicesFedBy(W.Lane);
    if (Devices.empty())
      Devices = Ctx.devices();
    WaitCost Best;
    for (int32_t D : Devices) {
      if (D < 0)
        continue;
      WaitCost C = costOn(Ctx, D, W.Range, It->End);
      if (C.Impact > Best.Impact || Best.Impact == 0)
        Best = C;
    }
    const Event &E = T.Events[W.Event];
    int64_t Len = W.Range.length();
    WaitPer[Idx] += Len;
    ImpactPer[Idx] += Best.Impact;
    // The two parts of the bound: idle during the wait, and the refill gap
    // after it as far as the bound counts it.
    IdlePer[Idx] += std::min(Len, Best.IdleDuring);
    RefillPer[Idx] += Best.Impact - std::min(Len, Best.IdleDuring);
    ++Count;
    Total += Len;
    BusyDuring += Len - std::min(Len, Best.IdleDuring);
    ++ByKind[W.Kind];
    ByName[T.name(E).str()] += Len;
    Group &G = ByPath[Ctx.opPath(E)];
    ++G.Count;
    G.Total += Len;
    G.Impact += Best.Impact;
    if (Len > G.Max) {
      G.Max = Len;
      G.Longest = W.Event;
    }
  }
  int64_t WaitMedian = median(WaitPer);
  if (Count == 0 || double(WaitMedian) < MinShare * double(Target))
    return Outcome::ran();
  int64_t Impact = std::min(median(ImpactPer), Target);

  // The op path that costs the most is the subject; when the waits only
  // reveal device-bound work, the one that blocks the longest.
  double BusyShare = Total ? double(BusyDuring) / double(Total) : 0;
  bool RevealsDeviceWork =
      BusyShare >= DeviceBound && double(Impact) < MinShare * double(Target);
  std::vector<const std::pair<const std::string, Group> *> Ranked;
  for (const auto &Entry : ByPath)
    Ranked.push_back(&Entry);
  llvm::sort(Ranked, [&](const auto *A, const auto *B) {
    int64_t KA = RevealsDeviceWork ? A->second.Total : A->second.Impact;
    int64_t KB = RevealsDeviceWork ? B->second.Total : B->second.Impact;
    if (KA != KB)
      return KA > KB;
    if (A->second.Total != B->second.Total)
      return A->second.Total > B->second.Total;
    return A->first < B->first;
  });
  const std::pair<const std::string, Group> *Top = Ranked.front();
  std::vector<std::pair<int64_t, std::string>> Names;
  for (auto &[N, Ns] : ByName)
    Names.push_back({Ns, N});
  llvm::sort(Names, [](const auto &A, const auto &B) {
    return A.first > B.first || (A.first == B.first && A.second < B.second);
  });
  std::vector<std::string> NameList;
  for (auto &P : Names)
    NameList.push_back(P.second);
  std::vector<std::string> Kinds;
  for (auto &[K, N] : ByKind)
    Kinds.push_back(llvm::formatv("{0} {1}", N, analysis::waitKindName(K)));

  Detection Det;
  auto &V = Det.Values;
  // Per op path: the measured steps' totals, and the bound per step.
  int64_t NumWindows = int64_t(Win.Ranges.size());
  for (size_t I = 0; I < Ranked.size() && I < 3; ++I) {
    const Group &G = Ranked[I]->second;
    const Event &L = T.Events[G.Longest];
    Det.ExtraEvidence.push_back(
        llvm::formatv("{0}: {1} wait{2}, {3} in total, the longest {4} at "
                      "{5:f3} us; bound on the gain {6} per step",
                      Ranked[I]->first, G.Count, G.Count == 1 ? "" : "s",
                      dur(G.Total), dur(G.Max), Ctx.traceTimestampUs(L),
                      dur(G.Impact / NumWindows))
            .str());
  }
  V["value"] = dur(WaitMedian);
  V["share"] = pct(double(WaitMedian) / double(Target));
  V["threshold"] = pct(MinShare);
  V["impact"] = dur(Impact);
  V["impact_share"] = pct(double(Impact) / double(Target));
  V["count"] = std::to_string(Count);
  V["total"] = dur(Total);
  V["top_names"] = joinNames(NameList);
  V["kinds"] = joinNames(Kinds, 3);
  V["top_op_path"] = Top->first;
  V["subject"] = Top->first;
  V["device_busy"] = pct(BusyShare);
  V["idle_during"] = dur(median(IdlePer));
  V["refill"] = dur(median(RefillPer));
  V["target"] = Ctx.describeTarget();
  describeWindows(Win, V);
  V["flushes"] = std::to_string(Flushes);
  const Event &Longest = T.Events[Top->second.Longest];
  V["max"] = dur(Top->second.Max);
  V["example"] = llvm::formatv("{0} at {1:f3} us", T.name(Longest),
                               Ctx.traceTimestampUs(Longest))
                     .str();
  Det.Examples.push_back(example(Ctx, Longest));

  if (RevealsDeviceWork) {
    V["verdict"] =
        llvm::formatv("the device was busy for {0} of the wait, so the wait "
                      "mostly reveals device-bound work: removing it is not "
                      "predicted to help by more than {{impact}",
                      pct(BusyShare))
            .str();
    Det.SeverityOverride = Severity::Info;
  } else {
    V["verdict"] =
        llvm::formatv("{0} the device sat idle for {1} during the waits "
                      "and for {2} after them (counted up to each wait's "
                      "length) before new work arrived",
                      Win.Steps ? "per step" : "in the window",
                      dur(median(IdlePer)), dur(median(RefillPer)))
            .str();
  }
  if (Flushes)
    Det.ExtraEvidence.push_back(
        llvm::formatv("{0} final synchronization{1} {2} excluded as a "
                      "teardown flush (see U002)",
                      Flushes, Flushes == 1 ? "" : "s",
                      Ctx.hasSteps() ? "after the last step"
                                     : "after the last submission")
            .str());
  Det.ImpactNs = Impact;
  Det.Window = Win.describe();
  Det.Subject = Top->first;
  // Explicit and blocking-copy waits are certain host waits; an op-level
  // implicit wait without its runtime calls is inferred from the op name.
  Det.Confidence =
      ByKind.count(analysis::WaitKind::ImplicitOp) && ByKind.size() == 1 ? 0.6
                                                                         : 0.75;
  Out.push_back(std::move(Det));
  return Outcome::ran();
}
