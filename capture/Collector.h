//===- capture/Collector.h - Trace events gathered in a window --*- C++ -*-===//
//
// What the translation layer produces and the JSON writer consumes: trace
// events in the Kineto vocabulary, the devices and contexts seen, and the
// counts of everything that was not kept. Thread-agnostic (the library
// serialises access). No CUPTI here, so it is testable anywhere.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_CAPTURE_COLLECTOR_H
#define TRACELINT_CAPTURE_COLLECTOR_H

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace tracelint::capture {

/// One argument: its key and its value already written as JSON.
using EventArg = std::pair<std::string, std::string>;

/// JSON text of a string value (quoted, escaped) and of numbers.
std::string jsonString(std::string_view S);
std::string jsonInt(int64_t V);
std::string jsonUInt(uint64_t V);
std::string jsonReal(double V);
std::string jsonInts(std::initializer_list<int64_t> Vs);

struct TraceEvent {
  std::string Name;
  const char *Cat = ""; ///< Kineto category ("kernel", "cuda_runtime", ...)
  char Ph = 'X';        ///< 'X' complete, 'i' instant
  uint64_t StartNs = 0, EndNs = 0;
  /// Host events: process and thread. Device events: device and stream.
  int64_t Pid = 0, Tid = 0;
  bool OnDevice = false;
  /// Device events whose device is known only through their context
  /// (synchronisation records): resolved when the trace is written.
  uint32_t ContextId = 0;
  bool DeviceFromContext = false;
  uint32_t Correlation = 0; ///< 0: none
  std::vector<EventArg> Args;
};

struct DeviceProps {
  uint32_t Id = 0;
  std::string Name;
  uint64_t TotalGlobalMem = 0;
  uint32_t ComputeMajor = 0, ComputeMinor = 0;
  uint32_t NumSms = 0, WarpSize = 0;
  uint32_t MaxThreadsPerBlock = 0, MaxThreadsPerMultiprocessor = 0;
  uint32_t MaxBlocksPerMultiprocessor = 0;
  uint32_t RegsPerBlock = 0, RegsPerMultiprocessor = 0;
  uint32_t SharedMemPerBlock = 0, SharedMemPerMultiprocessor = 0;
  uint32_t L2CacheSize = 0;
  uint64_t MemoryBandwidth = 0;
};

/// Counts of records that did not become events, and why.
struct CollectorCounts {
  uint64_t Received = 0;      ///< events offered to add()
  uint64_t Kept = 0;          ///< events in the trace
  uint64_t DroppedByCap = 0;  ///< over --max-events
  uint64_t OutsideWindow = 0; ///< ended before / began after the window
  uint64_t CuptiDropped = 0;  ///< reported lost by CUPTI (buffers full)
  uint64_t UnpairedMarkerEnds = 0;
  uint64_t OpenMarkersClosed = 0; ///< ranges still open at the window end
  uint64_t UnknownRecords = 0;    ///< record kinds not translated
};

class TraceCollector {
public:
  /// \p MaxEvents: 0 keeps everything.
  explicit TraceCollector(uint64_t MaxEvents = 0) : MaxEvents(MaxEvents) {}

  /// The window on the records' clock. Before windowStarted(), offered
  /// events are outside the window; after windowEnded(), only events that
  /// overlap [start, end] are kept.
  void windowStarted(uint64_t StartNs);
  void windowEnded(uint64_t EndNs);
  bool hasWindowStart() const { return Started; }
  bool hasWindowEnd() const { return EndedWin; }
  uint64_t windowStart() const { return WinStart; }
  uint64_t windowEnd() const { return WinEnd; }

  /// Keeps \p E if it overlaps the window and the cap allows; returns
  /// whether it was kept.
  bool add(TraceEvent E);

  /// NVTX ranges arrive as separate start and end records: a start is held
  /// until its end arrives, then the range is offered to add().
  void markerStart(uint32_t Id, std::string Name, std::string Domain,
                   uint64_t Ts, int64_t Pid, int64_t Tid);
  void markerEnd(uint32_t Id, uint64_t Ts);
  /// Closes ranges still open at the window end (at the window end); call
  /// once before writing.
  void closeOpenMarkers();

  void addExternalCorrelation(uint32_t Correlation, uint64_t ExternalId,
                              int Kind);
  void addDevice(DeviceProps D);
  void addContext(uint32_t ContextId, uint32_t DeviceId);
  void addCuptiDropped(uint64_t N) { Counts.CuptiDropped += N; }
  void countUnknownRecord() { ++Counts.UnknownRecords; }
  void setThreadName(int64_t Pid, int64_t Tid, std::string Name);

  const DeviceProps *device(uint32_t Id) const;
  /// The device of a context, or -1.
  int64_t deviceOfContext(uint32_t ContextId) const;
  /// The external id linked to a correlation (custom kind 0 preferred), or
  /// 0.
  uint64_t externalId(uint32_t Correlation) const;

  const std::vector<TraceEvent> &events() const { return Events; }
  const std::vector<DeviceProps> &devices() const { return Devices; }
  const std::map<std::pair<int64_t, int64_t>, std::string> &
  threadNames() const {
    return ThreadNames;
  }
  const CollectorCounts &counts() const { return Counts; }
  uint64_t maxEvents() const { return MaxEvents; }

private:
  struct PendingMarker {
    std::string Name, Domain;
    uint64_t Ts;
    int64_t Pid, Tid;
  };
  bool overlapsWindow(uint64_t Start, uint64_t End) const;

  uint64_t MaxEvents;
  bool Started = false, EndedWin = false;
  uint64_t WinStart = 0, WinEnd = 0;
  std::vector<TraceEvent> Events;
  std::vector<DeviceProps> Devices;
  std::unordered_map<uint32_t, uint32_t> ContextDevice;
  /// correlation -> (external id, kind)
  std::unordered_map<uint32_t, std::pair<uint64_t, int>> External;
  std::unordered_map<uint32_t, PendingMarker> Pending;
  std::map<std::pair<int64_t, int64_t>, std::string> ThreadNames;
  CollectorCounts Counts;
};

} // namespace tracelint::capture

#endif
