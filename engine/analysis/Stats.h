//===- analysis/Stats.h - Whole-trace statistics ----------------*- C++ -*-===//
//
// The figures behind `tracelint stats`: producer, steps, per-device busy and
// idle time, top kernels and runtime calls, copies, import damage. Busy time
// is always the length of a union of intervals (sums lie under overlap), and
// a device whose work was not recorded is reported as "cannot judge", never
// as idle.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_ANALYSIS_STATS_H
#define TRACELINT_ANALYSIS_STATS_H

#include "analysis/TraceIndex.h"
#include "model/Intervals.h"
#include "model/Trace.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace tracelint::analysis {

struct StatsOptions {
  /// How many kernels, runtime calls and OS runtime calls to keep, by total
  /// time; 0 keeps all.
  unsigned TopN = 10;
};

/// Step durations, from Trace::Steps.
struct StepStats {
  model::StepSource From = model::StepSource::None;
  uint64_t Count = 0;
  int64_t FirstNumber = -1, LastNumber = -1;
  /// MedianNs is the step time every command prints
  /// (TraceIndex::targetNs): the median over the steady steps. Min and max
  /// are over all steps.
  int64_t MedianNs = 0, MinNs = 0, MaxNs = 0;
  /// How many of the steps are steady (TraceIndex::steadySteps).
  uint64_t Steady = 0;
  /// First step start .. last step end; empty when there are no steps.
  model::Interval Span;
};

/// One device: all device streams whose Lane::Device is the same.
struct DeviceStats {
  int32_t Device = -1;
  unsigned NumStreams = 0;
  /// Device-work events (kernel, memcpy, memset, collective) on its streams.
  uint64_t NumWorkEvents = 0;
  /// False when the device has streams but no device work on them: its busy
  /// figures are then zero because nothing was recorded, and cannot be judged.
  bool HasWork = false;
  /// First device-work start .. last device-work end.
  model::Interval Active;
  /// Length of the union of device-work intervals over all its streams.
  int64_t BusyNs = 0;
  /// Trace window minus the busy union.
  int64_t IdleNs = 0;
  /// BusyNs / window length; unset when the window is empty.
  std::optional<double> BusyShare;
  /// Busy union per category; each is a union, so they may overlap and their
  /// sum may exceed BusyNs.
  int64_t ComputeNs = 0, CopyNs = 0, MemsetNs = 0, CommunicationNs = 0;
  /// Busy union clipped to the step span, and its share of that span; set
  /// only when the trace has steps.
  std::optional<int64_t> StepBusyNs;
  std::optional<double> StepBusyShare;
  /// BusyNs / Active.length(): the share of its own active span (first to
  /// last device work) that the device was busy, the figure HTA and
  /// TraceLens report as GPU utilization; unset when the span is empty.
  std::optional<double> ActiveBusyShare;
};

/// Events grouped by name (kernels, OS runtime calls) or by kind and name
/// (runtime calls), with the columns of nsys's summaries (cuda_gpu_kern_sum,
/// cuda_api_sum, osrt_sum).
struct NameStats {
  model::StringId Name = model::EmptyString;
  model::EventKind Kind = model::EventKind::Other;
  uint64_t Count = 0;
  int64_t TotalNs = 0, MaxNs = 0;
  /// The middle duration (the mean of the two middle ones, rounded down,
  /// for an even count) and the shortest.
  int64_t MedianNs = 0, MinNs = 0;
  /// Sample standard deviation of the durations (n - 1); 0 for one event.
  double StdDevNs = 0;
  /// TotalNs / the total of every row of the table (all kernels, all calls):
  /// nsys's "Time (%)". A share of summed time, not of elapsed time.
  std::optional<double> TimeShare;
  /// Kernels only: TotalNs / TraceStats::TotalBusyNs. Concurrent kernels
  /// overlap, so shares can add up past 100 %.
  std::optional<double> BusyShare;
  double meanNs() const { return Count ? double(TotalNs) / Count : 0; }
};

/// Device time of copies of one direction, or of memsets: nsys's
/// cuda_gpu_mem_time_sum. Durations are summed, not unioned.
struct MemoryOpStats {
  model::EventKind Kind = model::EventKind::Memcpy; ///< Memcpy or Memset
  model::CopyKind Copy = model::CopyKind::Unknown;  ///< copies only
  uint64_t Count = 0;
  int64_t TotalNs = 0, MedianNs = 0, MinNs = 0, MaxNs = 0;
  double StdDevNs = 0;
  /// TotalNs / the total of all copies and memsets.
  std::optional<double> TimeShare;
  double meanNs() const { return Count ? double(TotalNs) / Count : 0; }
};

/// Copies of one (direction, source memory, destination memory).
struct CopyStats {
  model::CopyKind Kind = model::CopyKind::Unknown;
  model::MemoryKind Src = model::MemoryKind::Unknown;
  model::MemoryKind Dst = model::MemoryKind::Unknown;
  uint64_t Count = 0;
  /// Copies whose size the trace did not record (not in Bytes).
  uint64_t UnknownBytesCount = 0;
  int64_t Bytes = 0;
  /// Sum of all copy durations (a sum: concurrent copies overlap).
  int64_t DurationNs = 0;
  /// Sum of the durations of the copies whose size is known.
  int64_t KnownBytesDurationNs = 0;
  /// Bytes / KnownBytesDurationNs in GB/s (1 GB = 1e9 bytes, so this is
  /// bytes per ns): the mean rate of one copy weighted by its time. Unset
  /// when no copy had both a size and a duration.
  std::optional<double> BandwidthGBps;
};

/// Managed-memory page migrations (EventKind::Migration) of one direction.
/// They are not device work: no device's busy time includes them, and they
/// are in neither Copies nor MemoryOps. Durations are summed.
struct MigrationStats {
  model::CopyKind Kind = model::CopyKind::Unknown;
  uint64_t Count = 0;
  /// Migrations whose size the trace did not record (not in Bytes).
  uint64_t UnknownBytesCount = 0;
  int64_t Bytes = 0;
  int64_t DurationNs = 0;
};

struct MemsetStats {
  uint64_t Count = 0;
  uint64_t UnknownBytesCount = 0;
  int64_t Bytes = 0;
  int64_t DurationNs = 0;
};

struct ImportCount {
  model::ImportStat Stat = model::ImportStat::EventsRead;
  uint64_t Count = 0;
};

struct TraceStats {
  /// The program that produced the trace, from the trace index.
  ProducerInfo Program;
  // Lanes and window.
  unsigned NumHostThreads = 0, NumDeviceStreams = 0, NumOtherLanes = 0;
  uint64_t NumEvents = 0;
  model::Interval Window;

  StepStats Steps;

  /// Device-work events anywhere in the trace. When zero, device activity
  /// was not recorded and no device figure can be judged.
  uint64_t NumDeviceWorkEvents = 0;
  /// Device-work events on lanes that are not device streams (not counted in
  /// any device's busy time).
  uint64_t NumDeviceWorkOffStreams = 0;
  /// Runtime/driver calls whose name says they launch a kernel.
  uint64_t NumLaunchCalls = 0;
  bool hasDeviceActivity() const { return NumDeviceWorkEvents != 0; }

  /// By device index, ascending.
  std::vector<DeviceStats> Devices;
  /// Where the idle time of the busiest device went in lint's target (the
  /// median step, or the window): TraceIndex::targetIdle, the split that
  /// lint and `path` show.
  TargetIdle Idle;
  /// Sum over devices of BusyNs (the denominator of kernel shares).
  int64_t TotalBusyNs = 0;

  /// Kernel and Collective events by name, by total time desc then name.
  std::vector<NameStats> TopKernels;
  uint64_t NumKernels = 0;         ///< all kernel/collective events
  uint64_t NumDistinctKernels = 0; ///< distinct names among them
  /// Runtime and Driver calls by (kind, name), same order.
  std::vector<NameStats> TopRuntimeCalls;
  uint64_t NumRuntimeCalls = 0;
  uint64_t NumDistinctRuntimeCalls = 0;

  /// OS runtime calls (EventKind::OsRuntime, from nsys's OSRT_API) by name,
  /// same order; empty when the trace has none.
  std::vector<NameStats> TopOsRuntimeCalls;
  uint64_t NumOsRuntimeCalls = 0;
  uint64_t NumDistinctOsRuntimeCalls = 0;

  /// By (kind, src, dst) in enum order.
  std::vector<CopyStats> Copies;
  MemsetStats Memsets;
  /// Copies by direction (in enum order), then memsets.
  std::vector<MemoryOpStats> MemoryOps;
  /// Page migrations by direction (in enum order); empty when the trace
  /// has none.
  std::vector<MigrationStats> Migrations;

  /// Every non-zero import counter, in ImportStat order.
  std::vector<ImportCount> Import;
};

/// The statistics of the trace behind \p Ctx; device busy time is read from
/// the index, so that `stats`, `path` and the rules print the same unions.
TraceStats computeStats(const TraceIndex &Ctx, const StatsOptions &Opts = {});
/// The same through an index built for the call (the built-in name classes).
TraceStats computeStats(const model::Trace &T, const StatsOptions &Opts = {});

} // namespace tracelint::analysis

#endif
