//===- analysis/Stats.cpp -------------------------------------------------===//
#include "analysis/Stats.h"
#include "model/Event.h"
#include "support/Statistics.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

using namespace tracelint;
using namespace tracelint::analysis;
using model::Event;
using model::EventKind;
using model::Interval;
using model::IntervalSet;
using model::Trace;

static StepStats computeSteps(const TraceIndex &Ctx) {
  const Trace &T = Ctx.trace();
  StepStats S;
  S.From = T.StepsFrom;
  if (T.Steps.empty())
    return S;
  std::vector<int64_t> Durations;
  Durations.reserve(T.Steps.size());
  S.Span = {T.Steps.front().Start, T.Steps.front().End};
  for (const model::Step &St : T.Steps) {
    Durations.push_back(St.duration());
    S.Span.Begin = std::min(S.Span.Begin, St.Start);
    S.Span.End = std::max(S.Span.End, St.End);
  }
  S.Count = Durations.size();
  S.FirstNumber = T.Steps.front().Number;
  S.LastNumber = T.Steps.back().Number;
  S.MinNs = *std::min_element(Durations.begin(), Durations.end());
  S.MaxNs = *std::max_element(Durations.begin(), Durations.end());
  // The one step time (TraceIndex::targetNs): the steady steps' median.
  S.MedianNs = Ctx.targetNs();
  S.Steady = Ctx.steadySteps().size();
  return S;
}

static std::optional<double> shareOf(int64_t Part, int64_t Whole) {
  if (Whole <= 0)
    return std::nullopt;
  return double(Part) / double(Whole);
}

/// Per device: the stream and event counts from the lanes, the busy unions
/// from the trace index (the same unions every rule and `path` read).
static void computeDevices(const TraceIndex &Ctx, TraceStats &S) {
  const Trace &T = Ctx.trace();
  std::map<int32_t, DeviceStats> ByDevice;
  for (const model::Lane &L : T.Lanes) {
    if (L.Kind != model::LaneKind::DeviceStream)
      continue;
    DeviceStats &D = ByDevice[L.Device];
    D.Device = L.Device;
    ++D.NumStreams;
    for (const Event &E : T.events(L)) {
      if (!model::isDeviceWork(E.Kind))
        continue;
      Interval I{E.Start, E.end()};
      if (!D.HasWork) {
        D.HasWork = true;
        D.Active = I;
      }
      ++D.NumWorkEvents;
      D.Active.Begin = std::min(D.Active.Begin, I.Begin);
      D.Active.End = std::max(D.Active.End, I.End);
    }
  }

  Interval Window = S.Window;
  bool HasSteps = S.Steps.Count != 0;
  for (auto &[Id, DS] : ByDevice) {
    const IntervalSet &Busy = Ctx.deviceBusy(Id);
    DS.BusyNs = Busy.length();
    DS.ComputeNs = Ctx.deviceBusy(Id, BusyKind::Compute).length();
    DS.CopyNs = Ctx.deviceBusy(Id, BusyKind::Copy).length();
    DS.MemsetNs = Ctx.deviceBusy(Id, BusyKind::Memset).length();
    DS.CommunicationNs = Ctx.deviceBusy(Id, BusyKind::Communication).length();
    if (DS.HasWork) {
      DS.IdleNs = Busy.idleWithin(Window);
      DS.BusyShare = shareOf(Busy.lengthWithin(Window), Window.length());
      DS.ActiveBusyShare =
          shareOf(Busy.lengthWithin(DS.Active), DS.Active.length());
      if (HasSteps) {
        DS.StepBusyNs = Busy.lengthWithin(S.Steps.Span);
        DS.StepBusyShare = shareOf(*DS.StepBusyNs, S.Steps.Span.length());
      }
    }
    S.TotalBusyNs += DS.BusyNs;
    S.Devices.push_back(DS);
  }
}

/// Sorts by total time descending, then name, then kind, and keeps TopN.
static void rankAndTrim(const Trace &T, std::vector<NameStats> &V,
                        unsigned TopN) {
  llvm::sort(V, [&](const NameStats &A, const NameStats &B) {
    if (A.TotalNs != B.TotalNs)
      return A.TotalNs > B.TotalNs;
    llvm::StringRef NA = T.Strings.get(A.Name), NB = T.Strings.get(B.Name);
    if (NA != NB)
      return NA < NB;
    return A.Kind < B.Kind;
  });
  if (TopN && V.size() > TopN)
    V.resize(TopN);
}

namespace {
/// The median, minimum and sample standard deviation of some durations.
struct Spread {
  int64_t Median = 0, Min = 0;
  double StdDev = 0;
};

/// Reorders \p D (nth_element: linear, no full sort).
Spread spreadOf(std::vector<int64_t> &D) {
  Spread S;
  size_t N = D.size();
  if (!N)
    return S;
  S.Min = *std::min_element(D.begin(), D.end());
  S.Median = support::medianInPlace(D);
  if (N > 1) {
    double Mean = 0;
    for (int64_t X : D)
      Mean += double(X);
    Mean /= double(N);
    double Sq = 0;
    for (int64_t X : D)
      Sq += (double(X) - Mean) * (double(X) - Mean);
    S.StdDev = std::sqrt(Sq / double(N - 1));
  }
  return S;
}

/// Events grouped by a key, with every duration kept for the spread.
struct Grouped {
  llvm::DenseMap<uint64_t, size_t> Index;
  std::vector<NameStats> Rows;
  std::vector<std::vector<int64_t>> Durations;

  void add(uint64_t Key, const Event &E) {
    auto [It, Inserted] = Index.try_emplace(Key, Rows.size());
    if (Inserted) {
      Rows.emplace_back();
      Rows.back().Name = E.Name;
      Rows.back().Kind = E.Kind;
      Durations.emplace_back();
    }
    NameStats &N = Rows[It->second];
    ++N.Count;
    N.TotalNs += E.Duration;
    N.MaxNs = std::max(N.MaxNs, E.Duration);
    Durations[It->second].push_back(E.Duration);
  }

  /// Fills the spread and time share of every row and returns the rows.
  std::vector<NameStats> finish() {
    int64_t Total = 0;
    for (const NameStats &N : Rows)
      Total += N.TotalNs;
    for (size_t I = 0; I < Rows.size(); ++I) {
      Spread Sp = spreadOf(Durations[I]);
      Rows[I].MedianNs = Sp.Median;
      Rows[I].MinNs = Sp.Min;
      Rows[I].StdDevNs = Sp.StdDev;
      Rows[I].TimeShare = shareOf(Rows[I].TotalNs, Total);
      std::vector<int64_t>().swap(Durations[I]);
    }
    return std::move(Rows);
  }
};
} // namespace

static void computeNamed(const TraceIndex &Ctx, const StatsOptions &Opts,
                         TraceStats &S) {
  const Trace &T = Ctx.trace();
  Grouped Kernels, Calls, OsCalls;
  for (const Event &E : T.Events) {
    switch (E.Kind) {
    case EventKind::Kernel:
    case EventKind::Collective:
      ++S.NumKernels;
      Kernels.add(E.Name, E);
      break;
    case EventKind::Runtime:
    case EventKind::Driver:
      ++S.NumRuntimeCalls;
      if (Ctx.is(E, model::NameClass::LaunchCall))
        ++S.NumLaunchCalls;
      Calls.add((uint64_t(E.Kind) << 32) | E.Name, E);
      break;
    case EventKind::OsRuntime:
      ++S.NumOsRuntimeCalls;
      OsCalls.add(E.Name, E);
      break;
    default:
      break;
    }
  }
  S.NumDistinctKernels = Kernels.Rows.size();
  S.NumDistinctRuntimeCalls = Calls.Rows.size();
  S.NumDistinctOsRuntimeCalls = OsCalls.Rows.size();
  S.TopKernels = Kernels.finish();
  S.TopRuntimeCalls = Calls.finish();
  S.TopOsRuntimeCalls = OsCalls.finish();
  for (NameStats &N : S.TopKernels)
    N.BusyShare = shareOf(N.TotalNs, S.TotalBusyNs);
  rankAndTrim(T, S.TopKernels, Opts.TopN);
  rankAndTrim(T, S.TopRuntimeCalls, Opts.TopN);
  rankAndTrim(T, S.TopOsRuntimeCalls, Opts.TopN);
}

static void computeCopies(const Trace &T, TraceStats &S) {
  std::map<std::tuple<uint8_t, uint8_t, uint8_t>, CopyStats> ByKey;
  // Memory operations: copies by direction (keys 0..), memsets last.
  constexpr unsigned MemsetKey = 255;
  std::map<unsigned, std::vector<int64_t>> OpDurations;
  std::map<uint8_t, MigrationStats> Migrations;
  for (const Event &E : T.Events) {
    const model::EventArgs *A = T.args(E);
    int64_t Bytes = A ? A->Bytes : -1;
    if (E.Kind == EventKind::Migration) {
      model::CopyKind Kind = A ? A->Copy : model::CopyKind::Unknown;
      MigrationStats &M = Migrations[uint8_t(Kind)];
      M.Kind = Kind;
      ++M.Count;
      M.DurationNs += E.Duration;
      if (Bytes >= 0)
        M.Bytes += Bytes;
      else
        ++M.UnknownBytesCount;
      continue;
    }
    if (E.Kind == EventKind::Memcpy)
      OpDurations[A ? unsigned(A->Copy) : 0].push_back(E.Duration);
    else if (E.Kind == EventKind::Memset)
      OpDurations[MemsetKey].push_back(E.Duration);
    if (E.Kind == EventKind::Memset) {
      ++S.Memsets.Count;
      S.Memsets.DurationNs += E.Duration;
      if (Bytes >= 0)
        S.Memsets.Bytes += Bytes;
      else
        ++S.Memsets.UnknownBytesCount;
      continue;
    }
    if (E.Kind != EventKind::Memcpy)
      continue;
    model::EventArgs None;
    if (!A)
      A = &None;
    auto Key =
        std::make_tuple(uint8_t(A->Copy), uint8_t(A->Src), uint8_t(A->Dst));
    CopyStats &C = ByKey[Key];
    C.Kind = A->Copy;
    C.Src = A->Src;
    C.Dst = A->Dst;
    ++C.Count;
    C.DurationNs += E.Duration;
    if (Bytes < 0) {
      ++C.UnknownBytesCount;
      continue;
    }
    C.Bytes += Bytes;
    C.KnownBytesDurationNs += E.Duration;
  }
  for (auto &Entry : ByKey) {
    CopyStats &C = Entry.second;
    if (C.KnownBytesDurationNs > 0 && C.Count > C.UnknownBytesCount)
      C.BandwidthGBps = double(C.Bytes) / double(C.KnownBytesDurationNs);
    S.Copies.push_back(C);
  }
  int64_t Total = 0;
  for (auto &[Key, Durations] : OpDurations) {
    MemoryOpStats Op;
    Op.Kind = Key == MemsetKey ? EventKind::Memset : EventKind::Memcpy;
    if (Key != MemsetKey)
      Op.Copy = model::CopyKind(Key);
    Op.Count = Durations.size();
    for (int64_t D : Durations) {
      Op.TotalNs += D;
      Op.MaxNs = std::max(Op.MaxNs, D);
    }
    Spread Sp = spreadOf(Durations);
    Op.MedianNs = Sp.Median;
    Op.MinNs = Sp.Min;
    Op.StdDevNs = Sp.StdDev;
    Total += Op.TotalNs;
    S.MemoryOps.push_back(Op);
  }
  for (MemoryOpStats &Op : S.MemoryOps)
    Op.TimeShare = shareOf(Op.TotalNs, Total);
  for (auto &Entry : Migrations)
    S.Migrations.push_back(Entry.second);
}

TraceStats tracelint::analysis::computeStats(const TraceIndex &Ctx,
                                             const StatsOptions &Opts) {
  const Trace &T = Ctx.trace();
  TraceStats S;
  S.Program = Ctx.producer();
  S.Idle = Ctx.targetIdle();
  S.NumEvents = T.Events.size();
  S.Window = {T.WindowStart, T.WindowEnd};
  for (const model::Lane &L : T.Lanes) {
    switch (L.Kind) {
    case model::LaneKind::HostThread:
      ++S.NumHostThreads;
      break;
    case model::LaneKind::DeviceStream:
      ++S.NumDeviceStreams;
      break;
    case model::LaneKind::Other:
      ++S.NumOtherLanes;
      break;
    }
    for (const Event &E : T.events(L)) {
      if (!model::isDeviceWork(E.Kind))
        continue;
      ++S.NumDeviceWorkEvents;
      if (L.Kind != model::LaneKind::DeviceStream)
        ++S.NumDeviceWorkOffStreams;
    }
  }

  S.Steps = computeSteps(Ctx);
  computeDevices(Ctx, S);
  computeNamed(Ctx, Opts, S);
  computeCopies(T, S);

  for (unsigned I = 0; I < model::NumImportStats; ++I) {
    auto Stat = model::ImportStat(I);
    if (uint64_t N = T.Stats.get(Stat))
      S.Import.push_back({Stat, N});
  }
  return S;
}

TraceStats tracelint::analysis::computeStats(const Trace &T,
                                             const StatsOptions &Opts) {
  return computeStats(TraceIndex(T), Opts);
}
