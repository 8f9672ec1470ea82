//===- rules/detectors/SyncAfterLaunch.cpp - S002 launch, wait, launch ----===//
//
// The asynchronous model lets the host queue work while the device runs the
// work queued before it, so that a step costs about max(host submission,
// device work). A host thread that waits for the device after (nearly)
// every kernel launch throws that away: the device idles while the host
// prepares and submits the next launch, and the host idles while the device
// runs it, so the step costs about their sum.
//
// This detector walks each host thread's kernel launches in the steady
// steps and calls a launch serialised when the thread waits on the device
// (any host wait: explicit synchronization, blocking copy, value read)
// before its next launch. It fires on the pattern, the share of launches
// that are serialised and how many there are per step, not on the length
// of the waits (S001's subject).
//
// Removing the waits cannot make a step shorter than its device work nor
// shorter than the host's own time without the waits, so the gain per step
// is bounded by min(the waits' time, the step's device idle time); for
// several devices the idle time of the busiest one (a step is never shorter
// than any device's work in it).
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
using analysis::HostWait;
using analysis::TraceIndex;
using model::Event;
using model::EventKind;
using model::Interval;

namespace {

/// A host call that queues a kernel (or a collective kernel) and returns
/// without waiting: a launch, as opposed to a blocking copy.
bool isKernelLaunch(const TraceIndex &Ctx, const Event &E) {
  const model::Trace &T = Ctx.trace();
  if (Ctx.waitKind(E) != analysis::WaitKind::None)
    return false;
  llvm::ArrayRef<uint32_t> Work = T.deviceWorkOf(E);
  if (Work.empty())
    return model::isLaunchCallName(T.name(E));
  return llvm::any_of(Work, [&](uint32_t D) {
    EventKind K = T.Events[D].Kind;
    return K == EventKind::Kernel || K == EventKind::Collective;
  });
}

struct PerWindow {
  uint64_t Launches = 0, Serial = 0;
  int64_t WaitNs = 0; ///< the serialising waits' time, clipped to the window
};

struct WaitGroup {
  uint64_t Count = 0;
  int64_t Total = 0;
};

} // namespace

Outcome rules::runSyncAfterEveryLaunch(const TraceIndex &Ctx,
                                       const RuleOptions &Opts,
                                       std::vector<Detection> &Out) {
  const model::Trace &T = Ctx.trace();
  const double MinShare = Opts.number("min-serialised-share");
  const double MinPerStep = Opts.number("min-serialised-per-step");
  const double MinGain = Opts.number("min-gain-share");
  const int64_t Target = Ctx.targetNs();
  if (Target <= 0)
    return Outcome::ran();
  const MeasureWindows &Win = Ctx.measureWindows();
  auto WindowOf = [&](int64_t Time) -> int {
    for (size_t I = 0; I < Win.Ranges.size(); ++I)
      if (Time >= Win.Ranges[I].Begin && Time < Win.Ranges[I].End)
        return int(I);
    return -1;
  };

  std::vector<PerWindow> Per(Win.Ranges.size());
  std::map<std::string, WaitGroup> ByPath;
  std::map<std::string, uint64_t> WaitNames;
  std::set<int32_t> Fed; // devices fed by threads with serialised launches
  uint32_t ExampleLaunch = model::NoIndex, ExampleWait = model::NoIndex;
  for (uint32_t LI = 0; LI < T.Lanes.size(); ++LI) {
    if (T.Lanes[LI].Kind != model::LaneKind::HostThread)
      continue;
    std::vector<uint32_t> Launches;
    for (uint32_t I : Ctx.submissions(LI))
      if (isKernelLaunch(Ctx, T.Events[I]))
        Launches.push_back(I);
    if (Launches.empty())
      continue;
    llvm::ArrayRef<HostWait> Waits = Ctx.hostWaits(LI);
    size_t WI = 0;
    bool LaneSerial = false;
    for (size_t K = 0; K < Launches.size(); ++K) {
      const Event &L = T.Events[Launches[K]];
      int R = WindowOf(L.Start);
      if (R < 0)
        continue;
      ++Per[R].Launches;
      // The waits that start after this launch and before the next one
      // (or the end of its window).
      int64_t Until = Win.Ranges[R].End;
      if (K + 1 < Launches.size())
        Until = std::min(Until, T.Events[Launches[K + 1]].Start);
      while (WI < Waits.size() && Waits[WI].Range.Begin < L.Start)
        ++WI;
      bool Serial = false;
      for (size_t J = WI; J < Waits.size() && Waits[J].Range.Begin < Until;
           ++J) {
        const HostWait &W = Waits[J];
        Interval Clipped{W.Range.Begin,
                         std::min(W.Range.End, Win.Ranges[R].End)};
        Per[R].WaitNs += Clipped.length();
        const Event &WE = T.Events[W.Event];
        WaitGroup &G = ByPath[Ctx.opPath(WE)];
        ++G.Count;
        G.Total += W.Range.length();
        ++WaitNames[T.name(WE).str()];
        if (!Serial && ExampleLaunch == model::NoIndex) {
          ExampleLaunch = Launches[K];
          ExampleWait = W.Event;
        }
        Serial = true;
      }
      if (Serial) {
        ++Per[R].Serial;
        LaneSerial = true;
      }
    }
    if (LaneSerial)
      for (int32_t D : Ctx.devicesFedBy(LI))
        Fed.insert(D);
  }

  uint64_t Launches = 0, Serial = 0;
  std::vector<int64_t> SerialPer, LaunchPer, WaitPer, IdlePer, ImpactPer;
  for (size_t R = 0; R < Per.size(); ++R) {
    Launches += Per[R].Launches;
    Serial += Per[R].Serial;
    SerialPer.push_back(int64_t(Per[R].Serial));
    LaunchPer.push_back(int64_t(Per[R].Launches));
    WaitPer.push_back(Per[R].WaitNs);
    // The busiest fed device bounds how short the window can get.
    int64_t Busiest = 0;
    for (int32_t D : Fed)
      if (D >= 0)
        Busiest =
            std::max(Busiest, Ctx.deviceBusy(D).lengthWithin(Win.Ranges[R]));
    int64_t Idle = Win.Ranges[R].length() - Busiest;
    IdlePer.push_back(Idle);
    ImpactPer.push_back(std::min(Per[R].WaitNs, Idle));
  }
  if (Launches == 0 || Serial == 0)
    return Outcome::ran();
  double Share = double(Serial) / double(Launches);
  int64_t SerialMedian = median(SerialPer);
  int64_t Impact = std::min(median(ImpactPer), Target);
  if (Share < MinShare || double(SerialMedian) < MinPerStep ||
      double(Impact) < MinGain * double(Target))
    return Outcome::ran();

  std::vector<std::pair<std::string, WaitGroup>> Ranked(ByPath.begin(),
                                                        ByPath.end());
  llvm::sort(Ranked, [](const auto &A, const auto &B) {
    if (A.second.Count != B.second.Count)
      return A.second.Count > B.second.Count;
    return A.first < B.first;
  });
  std::vector<std::pair<uint64_t, std::string>> Names;
  for (auto &[N, C] : WaitNames)
    Names.push_back({C, N});
  llvm::sort(Names, [](const auto &A, const auto &B) {
    return A.first > B.first || (A.first == B.first && A.second < B.second);
  });
  std::vector<std::string> NameList;
  for (auto &P : Names)
    NameList.push_back(P.second);

  Detection Det;
  auto &V = Det.Values;
  V["value"] = pct(Share);
  V["threshold"] = pct(MinShare);
  V["count"] = std::to_string(SerialMedian);
  V["launches"] = std::to_string(median(LaunchPer));
  V["serial_total"] = std::to_string(Serial);
  V["launch_total"] = std::to_string(Launches);
  V["wait"] = dur(median(WaitPer));
  V["idle"] = dur(median(IdlePer));
  V["impact"] = dur(Impact);
  V["impact_share"] = pct(double(Impact) / double(Target));
  V["top_names"] = joinNames(NameList);
  V["top_op_path"] = Ranked.front().first;
  V["subject"] = Ranked.front().first;
  V["target"] = Ctx.describeTarget();
  describeWindows(Win, V);
  const Event &EL = T.Events[ExampleLaunch];
  const Event &EW = T.Events[ExampleWait];
  V["example"] = llvm::formatv("{0} at {1:f3} us, then {2} at {3:f3} us",
                               T.name(EL), Ctx.traceTimestampUs(EL), T.name(EW),
                               Ctx.traceTimestampUs(EW))
                     .str();
  for (size_t I = 0; I < Ranked.size() && I < 3; ++I)
    Det.ExtraEvidence.push_back(
        llvm::formatv("{0}: {1} wait{2} after a launch, {3} in total",
                      Ranked[I].first, Ranked[I].second.Count,
                      Ranked[I].second.Count == 1 ? "" : "s",
                      dur(Ranked[I].second.Total))
            .str());
  Det.Examples.push_back(example(Ctx, EL));
  Det.Examples.push_back(example(Ctx, EW));
  Det.ImpactNs = Impact;
  Det.Window = Win.describe();
  Det.Subject = Ranked.front().first;
  // The pattern is read directly from the host's own calls; what the
  // trace cannot say is whether each wait is needed.
  Det.Confidence = 0.7;
  Out.push_back(std::move(Det));
  return Outcome::ran();
}
