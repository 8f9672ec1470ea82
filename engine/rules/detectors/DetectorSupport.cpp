//===- rules/detectors/DetectorSupport.cpp --------------------------------===//
#include "rules/detectors/DetectorSupport.h"
#include "rules/PlatformWords.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <limits>
#include <map>

using namespace tracelint;
using namespace tracelint::rules;
using namespace tracelint::rules::detect;

void detect::describeWindows(const MeasureWindows &Win,
                             std::map<std::string, Value> &Values) {
  Values["window"] = Win.describe();
  Values["per"] = Win.Steps ? "per step" : "in the window";
  Values["unit"] = Win.Steps ? "step" : "window";
  Values["metric"] = Win.Steps ? "median step time" : "the window's length";
}

analysis::WhatIfQuery detect::namesQuery(const model::Trace &T,
                                         llvm::ArrayRef<uint32_t> Events) {
  analysis::WhatIfQuery Q;
  for (uint32_t I : Events)
    Q.Names.push_back(T.name(T.Events[I]).str());
  llvm::sort(Q.Names);
  Q.Names.erase(std::unique(Q.Names.begin(), Q.Names.end()), Q.Names.end());
  return Q;
}

std::vector<uint32_t> detect::workLaunchedWithin(const model::Trace &T,
                                                 uint32_t Op) {
  std::vector<uint32_t> Out;
  const model::Event &E = T.Events[Op];
  const model::Lane &L = T.Lanes[E.Lane];
  for (uint32_t J = Op + 1; J < L.End && T.Events[J].Start < E.end(); ++J) {
    const model::Event &C = T.Events[J];
    if (C.Kind == model::EventKind::Runtime ||
        C.Kind == model::EventKind::Driver)
      for (uint32_t D : T.deviceWorkOf(C))
        Out.push_back(D);
  }
  return Out;
}

std::vector<std::string> detect::namesByCount(const model::Trace &T,
                                              llvm::ArrayRef<uint32_t> Events) {
  std::map<llvm::StringRef, uint64_t> Count;
  for (uint32_t I : Events)
    ++Count[T.name(T.Events[I])];
  std::vector<std::pair<uint64_t, llvm::StringRef>> Sorted;
  for (auto &[N, C] : Count)
    Sorted.push_back({C, N});
  llvm::sort(Sorted, [](const auto &A, const auto &B) {
    return A.first > B.first || (A.first == B.first && A.second < B.second);
  });
  std::vector<std::string> Out;
  for (auto &[C, N] : Sorted)
    Out.push_back(N.str());
  return Out;
}

WorkMeasure detect::measureWork(const analysis::TraceIndex &Ctx,
                                const MeasureWindows &Win,
                                llvm::ArrayRef<uint32_t> Work) {
  const model::Trace &T = Ctx.trace();
  WorkMeasure M;
  std::vector<std::vector<model::Interval>> Parts(Win.Ranges.size());
  for (uint32_t I : Work) {
    const model::Event &E = T.Events[I];
    size_t W =
        &Win == &Ctx.measureWindows() ? Ctx.windowOf(I) : Win.indexOf(E.Start);
    if (W == Win.Ranges.size())
      continue;
    ++M.Count;
    Parts[W].push_back({E.Start, E.end()});
  }
  for (size_t W = 0; W < Win.Ranges.size(); ++W) {
    // The window's work whole, also where it runs on into the next window:
    // it is the time this step submitted.
    int64_t Len = model::IntervalSet::unionOf(std::move(Parts[W])).length();
    M.PerWindow.push_back(Len);
    M.UnionNs += Len;
    M.BusyNs += Ctx.deviceBusy().lengthWithin(Win.Ranges[W]);
  }
  return M;
}

ExampleEvent detect::example(const analysis::TraceIndex &Ctx,
                             const model::Event &E) {
  const model::Trace &T = Ctx.trace();
  ExampleEvent X;
  X.Name = T.name(E).str();
  X.Lane = Ctx.describeLane(T.laneOf(E));
  X.TraceTimestampUs = Ctx.traceTimestampUs(E);
  X.OffsetNs = Ctx.traceOffsetNs(E);
  X.DurationNs = E.Duration;
  return X;
}

const model::Event *detect::enclosingOp(const model::Trace &T,
                                        const model::Event &E) {
  const model::Event *Cur = &E;
  while (Cur) {
    if (Cur->Kind == model::EventKind::Op)
      return Cur;
    Cur = Cur->Parent == model::NoIndex ? nullptr : &T.Events[Cur->Parent];
  }
  return nullptr;
}

std::string detect::joinNames(llvm::ArrayRef<std::string> Names, size_t Max) {
  size_t N = std::min(Names.size(), Max);
  std::string Out;
  for (size_t I = 0; I < N; ++I) {
    if (I)
      Out += I + 1 == N ? " and " : ", ";
    Out += Names[I];
  }
  if (Names.size() > N)
    Out += llvm::formatv(" (+{0} more)", Names.size() - N).str();
  return Out;
}

uint32_t detect::opContainer(const model::Trace &T, const model::Event &E) {
  for (uint32_t P = E.Parent; P != model::NoIndex; P = T.Events[P].Parent) {
    const model::Event &A = T.Events[P];
    if (A.Kind == model::EventKind::Op ||
        A.Kind == model::EventKind::Annotation ||
        (A.Kind == model::EventKind::Python &&
         T.name(A).startswith("nn.Module:")))
      return P;
  }
  return model::NoIndex;
}

Detection detect::qualityDetection(std::string Subject, double Confidence) {
  Detection D;
  D.ImpactNs = 0;
  D.Confidence = Confidence;
  D.Subject = Subject;
  D.Window = "whole trace";
  D.Values["subject"] = std::move(Subject);
  D.Values["impact"] = dur(0);
  return D;
}

//===----------------------------------------------------------------------===//
// M family (memory and transfers): helpers its detectors share.
//===----------------------------------------------------------------------===//

bool detect::isHtoDCopy(const model::Trace &T, const model::Event &E) {
  if (E.Kind != model::EventKind::Memcpy)
    return false;
  const model::EventArgs *A = T.args(E);
  return A && A->Copy == model::CopyKind::HtoD;
}

int64_t detect::copyBytes(const model::Trace &T, const model::Event &E) {
  const model::EventArgs *A = T.args(E);
  return A ? std::max<int64_t>(A->Bytes, 0) : 0;
}

bool detect::anyEnclosing(const model::Trace &T, const model::Event &E,
                          llvm::function_ref<bool(const model::Event &)> Pred) {
  for (uint32_t P = E.Parent; P != model::NoIndex; P = T.Events[P].Parent)
    if (Pred(T.Events[P]))
      return true;
  return false;
}

bool detect::submitsWithin(const analysis::TraceIndex &Ctx, uint32_t Lane,
                           model::Interval Range) {
  const model::Trace &T = Ctx.trace();
  llvm::ArrayRef<uint32_t> Subs = Ctx.submissions(Lane);
  // Submissions are sorted by start: the first at or after the range's
  // start decides.
  auto It = llvm::partition_point(
      Subs, [&](uint32_t S) { return T.Events[S].Start < Range.Begin; });
  return It != Subs.end() && T.Events[*It].Start < Range.End;
}

analysis::HostWait detect::asHostWait(uint32_t Event, uint32_t Lane,
                                      model::Interval Range,
                                      analysis::WaitKind Kind) {
  analysis::HostWait W;
  W.Event = Event;
  W.Lane = Lane;
  W.Kind = Kind;
  W.Range = Range;
  return W;
}

void detect::keepLongest(const model::Trace &T, uint32_t &Longest,
                         uint32_t Candidate) {
  if (Longest == model::NoIndex ||
      T.Events[Candidate].Duration > T.Events[Longest].Duration)
    Longest = Candidate;
}

void detect::describeCostPerWindow(const analysis::TraceIndex &Ctx,
                                   int64_t CostNs, double MinShare,
                                   int64_t ImpactNs,
                                   std::map<std::string, Value> &Values) {
  const double Target = double(Ctx.targetNs());
  Values["value"] = dur(CostNs);
  Values["share"] = pct(double(CostNs) / Target);
  Values["threshold"] = pct(MinShare);
  Values["impact"] = dur(ImpactNs);
  Values["impact_share"] = pct(double(ImpactNs) / Target);
  Values["target"] = Ctx.describeTarget();
  describeWindows(Ctx.measureWindows(), Values);
}

void detect::setGainVerdict(Detection &Det, int64_t ImpactNs, int64_t CostNs,
                            double MinGain, int64_t TargetNs, std::string Busy,
                            std::string Idle) {
  // The sentence says what the device did while the host was held, which
  // the bound measures against the host time; the severity says whether
  // the gain is worth a warning, which is measured against the target.
  Det.Values["verdict"] =
      2 * ImpactNs < CostNs ? std::move(Busy) : std::move(Idle);
  if (double(ImpactNs) < MinGain * double(TargetNs))
    Det.SeverityOverride = Severity::Info;
}

void detect::keepUnderFloor(Detection &Det, llvm::StringRef Option,
                            double Floor, int64_t CostNs, int64_t TargetNs) {
  Det.SeverityOverride = Severity::Info;
  Det.ExtraEvidence.push_back(
      llvm::formatv(
          "{0} is under the rule's {1} ({2} of the target), so the "
          "finding is info: small, but on record",
          pct(TargetNs > 0 ? double(CostNs) / double(TargetNs) : 0).text(),
          Option, pct(Floor).text())
          .str());
}

std::string detect::eventAt(const analysis::TraceIndex &Ctx,
                            const model::Event &E, llvm::StringRef Detail) {
  return nameAt(Ctx, (Ctx.trace().name(E) + Detail).str(), E);
}

// --- L and D families (launch and host overhead, input pipeline) ---------

std::vector<int32_t> detect::streamDevices(const analysis::TraceIndex &Ctx) {
  std::vector<int32_t> Out;
  for (int32_t D : Ctx.devices())
    if (D >= 0)
      Out.push_back(D);
  return Out;
}

std::string detect::deviceName(int32_t Device) {
  return llvm::formatv("device {0}", Device).str();
}

std::string detect::eventWithLengthAt(const analysis::TraceIndex &Ctx,
                                      const model::Event &E) {
  return eventAt(Ctx, E, llvm::formatv(" ({0})", dur(E.Duration)).str());
}

analysis::IdleOptions detect::launchPathIdleOptions(const RuleOptions &Opts) {
  analysis::IdleOptions IO;
  IO.MaxLaunchIntervalNs = int64_t(Opts.number("max-launch-interval"));
  IO.KeepGaps = true;
  return IO;
}

void detect::describeIdleSplit(const analysis::TargetIdle &B, int64_t Of,
                               std::map<std::string, Value> &Values) {
  Values["idle"] = dur(B.IdleNs);
  Values["idle_share"] = pct(double(B.IdleNs) / double(Of));
  Values["wait_idle"] = dur(B.HostWaitNs);
  Values["queued_idle"] = dur(B.UnrecordedNs);
  Values["unlinked_idle"] = dur(B.UnlinkedNs);
  std::string More;
  for (auto [Ns, What] :
       {std::pair{B.UntracedNs, "untraced host time {0} (T005)"},
        {B.DataLoadingNs, "data loading {0} (D001)"},
        {B.StartupNs, "start-up {0} (U001)"},
        {B.ProfilerNs, "profiler {0} (U004)"},
        {B.CutNs, "outside the host record {0} (T006)"}})
    if (Ns > 0)
      More += ", " + llvm::formatv(What, dur(Ns).text()).str();
  Values["more_causes"] = More;
}

void detect::noteUnlinkedIdle(Detection &Det, const analysis::IdleBreakdown &B,
                              llvm::StringRef Whose) {
  if (B.IdleNs <= 0 || double(B.UnlinkedNs) <= 0.3 * double(B.IdleNs))
    return;
  Det.Confidence *= 0.8;
  Det.ConfidenceNotes.push_back(
      llvm::formatv("{0} of {1} idle time ends with device work that has no "
                    "host call in the trace",
                    pct(double(B.UnlinkedNs) / double(B.IdleNs)), Whose)
          .str());
}

Detection detect::windowDetection(const analysis::TraceIndex &Ctx,
                                  int64_t ImpactNs, double Threshold) {
  Detection Det;
  Det.ImpactNs = ImpactNs;
  Det.Window = Ctx.measureWindows().describe();
  Det.Values["impact"] = dur(ImpactNs);
  Det.Values["threshold"] = pct(Threshold);
  Det.Values["target"] = Ctx.describeTarget();
  describeWindows(Ctx.measureWindows(), Det.Values);
  return Det;
}

Detection detect::impactDetection(const analysis::TraceIndex &Ctx,
                                  int64_t ImpactNs, double Threshold) {
  Detection Det = windowDetection(Ctx, ImpactNs, Threshold);
  Det.Values["value"] = dur(ImpactNs);
  Det.Values["share"] = pct(double(ImpactNs) / double(Ctx.targetNs()));
  return Det;
}

Outcome detect::quietUnderFloor(int64_t Ns, int64_t TargetNs, double MinShare) {
  return Outcome::quiet(
      llvm::formatv(
          "under its {0} floor ({1})", pct(MinShare).text(),
          pct(TargetNs > 0 ? double(Ns) / double(TargetNs) : 0).text())
          .str());
}

bool detect::reachesShareOfTarget(int64_t Ns, int64_t TargetNs,
                                  double MinShare) {
  return Ns > 0 && !(double(Ns) / double(TargetNs) < MinShare);
}

//===----------------------------------------------------------------------===//
// K, C and N families: kernel choice, compilation, communication.
//===----------------------------------------------------------------------===//

std::string detect::nameAt(const analysis::TraceIndex &Ctx,
                           llvm::StringRef Name, const model::Event &E) {
  return llvm::formatv("{0} at {1}", Name,
                       support::formatOffset(Ctx.traceOffsetNs(E)))
      .str();
}

const model::DeviceInfo *detect::deviceInfo(const model::Trace &T, int32_t Id) {
  for (const model::DeviceInfo &D : T.Devices)
    if (D.Id == Id)
      return &D;
  return nullptr;
}

std::optional<WorkCost> detect::workCostAbove(const analysis::TraceIndex &Ctx,
                                              llvm::ArrayRef<uint32_t> Work,
                                              double MinShareOfBusy,
                                              double MinShareOfTarget) {
  WorkCost C;
  C.Measure = measureWork(Ctx, Ctx.measureWindows(), Work);
  if (C.Measure.Count == 0 || C.Measure.BusyNs <= 0)
    return std::nullopt;
  C.Share = C.Measure.shareOfBusy();
  if (C.Share < MinShareOfBusy)
    return std::nullopt;
  const int64_t Target = Ctx.targetNs();
  C.Impact = std::min(C.Measure.medianPerWindow(), Target);
  if (double(C.Impact) < MinShareOfTarget * double(Target))
    return std::nullopt;
  return C;
}

// --- S, U and T families: host waits, start-up and teardown ---------------

uint64_t detect::forEachSteadyWait(
    const analysis::TraceIndex &Ctx,
    llvm::function_ref<void(const analysis::HostWait &, size_t)> Visit) {
  const MeasureWindows &Win = Ctx.measureWindows();
  uint64_t Flushes = 0;
  for (const analysis::HostWait &W : Ctx.hostWaits()) {
    if (Ctx.isFlushWait(W)) {
      ++Flushes;
      continue;
    }
    size_t Idx = Win.indexOf(W.Range.Begin);
    if (Idx != Win.Ranges.size())
      Visit(W, Idx);
  }
  return Flushes;
}

void detect::describeSiteImpact(const analysis::TraceIndex &Ctx,
                                const std::string &Site, int64_t ImpactNs,
                                Detection &Det) {
  const MeasureWindows &Win = Ctx.measureWindows();
  auto &V = Det.Values;
  V["impact"] = dur(ImpactNs);
  V["impact_share"] = pct(double(ImpactNs) / double(Ctx.targetNs()));
  V["top_op_path"] = Site;
  V["subject"] = Site;
  V["target"] = Ctx.describeTarget();
  describeWindows(Win, V);
  Det.ImpactNs = ImpactNs;
  Det.Window = Win.describe();
  Det.Subject = Site;
}

WaitTally detect::flushWaits(const analysis::TraceIndex &Ctx, int64_t MinNs) {
  WaitTally Flushes;
  for (const analysis::HostWait &W : Ctx.hostWaits())
    if (Ctx.isFlushWait(W) && W.Range.length() >= MinNs)
      Flushes.add(W);
  return Flushes;
}

std::vector<std::string>
detect::namesByTime(const std::map<std::string, int64_t> &TimeByName) {
  std::vector<std::pair<int64_t, llvm::StringRef>> Sorted;
  for (auto &[Name, Ns] : TimeByName)
    Sorted.push_back({Ns, Name});
  llvm::sort(Sorted, [](const auto &A, const auto &B) {
    return A.first > B.first || (A.first == B.first && A.second < B.second);
  });
  std::vector<std::string> Out;
  for (auto &[Ns, Name] : Sorted)
    Out.push_back(Name.str());
  return Out;
}

std::vector<std::string>
detect::categoryTimes(llvm::ArrayRef<std::vector<model::Interval>> ByCategory,
                      const char *(*Name)(unsigned)) {
  std::vector<std::string> Out;
  for (unsigned C = 0; C < ByCategory.size(); ++C) {
    const std::vector<model::Interval> &Calls = ByCategory[C];
    if (Calls.empty())
      continue;
    int64_t Ns = model::IntervalSet::unionOf(Calls).length();
    Out.push_back(llvm::formatv("{0} {1} ({2} call{3})", Name(C), dur(Ns),
                                Calls.size(), Calls.size() == 1 ? "" : "s")
                      .str());
  }
  return Out;
}

std::string detect::inTraceWords(const analysis::TraceIndex &Ctx,
                                 llvm::StringRef Text) {
  return rules::inPlatformWords(Text, Ctx.producer().Plat);
}
