//===- model/Trace.h - The trace model --------------------------*- C++ -*-===//
//
// A trace is a set of lanes (host threads and device streams), each holding
// its events sorted by start time, plus the links between them: correlation
// ids join a host runtime call to the device work it launched, external ids
// join a framework op to its runtime calls, and nesting gives each host event
// its parent. Importers build a Trace through TraceBuilder; analyses only
// read it.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_MODEL_TRACE_H
#define TRACELINT_MODEL_TRACE_H

#include "model/Event.h"
#include "model/ImportStats.h"
#include "model/StringPool.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tracelint::model {

enum class LaneKind : uint8_t {
  HostThread,   ///< an OS thread of a host process
  DeviceStream, ///< a stream (queue) of a device
  Other,        ///< rows such as Kineto's "Spans" / "Traces" / ""
};
llvm::StringRef laneKindName(LaneKind K);

struct Lane {
  LaneKind Kind = LaneKind::Other;
  int64_t Pid = 0;             ///< host: OS pid; device (Kineto): device index
  int64_t Tid = 0;             ///< host: OS tid; device: stream id
  int32_t Device = -1;         ///< device lanes: device index
  int64_t Stream = -1;         ///< device lanes: stream id
  uint32_t Domain = 0;         ///< correlation ids are unique within a domain
  StringId Name = EmptyString; ///< thread/stream name, if recorded
  StringId Process = EmptyString; ///< process name, if recorded
  StringId RawPid = EmptyString;  ///< pid as written, when not numeric
  StringId RawTid = EmptyString;  ///< tid as written, when not numeric
  uint32_t Begin = 0, End = 0;    ///< this lane's range in Trace::Events
};

/// One iteration of the workload, from a ProfilerStep#N range (or a range
/// named by the user, or inferred).
struct Step {
  int64_t Number = -1;
  int64_t Start = 0;
  int64_t End = 0;
  uint32_t Event = NoIndex; ///< the annotation that defines it
  int64_t duration() const { return End - Start; }
};

enum class StepSource : uint8_t { None, ProfilerStep, Named, Inferred };
llvm::StringRef stepSourceName(StepSource S);

enum class FlowKind : uint8_t { Launch, ForwardBackward, Other };

/// A flow arrow between two events (launch flows, fwd->bwd flows).
struct Flow {
  FlowKind Kind = FlowKind::Other;
  uint64_t Id = 0;
  uint32_t From = NoIndex; ///< bound source event
  uint32_t To = NoIndex;   ///< bound destination event
};

struct DeviceInfo {
  int32_t Id = -1;
  std::string Name;
  int64_t TotalGlobalMemory = -1;
  int32_t ComputeMajor = -1, ComputeMinor = -1;
  /// The architecture's own name when the trace gives it ("gfx90a", from
  /// rocprof's agents); empty otherwise (model::archName derives one).
  std::string Arch;
  int32_t NumSMs = -1;
  int32_t WarpSize = -1;
  int32_t MaxThreadsPerMultiprocessor = -1;
};

/// Who produced the trace and how it was configured.
struct Producer {
  std::string Format; ///< "kineto", "chrome", "nsys", ...
  std::string Era;    ///< what the schema suggests ("2021 capitalised")
  int64_t SchemaVersion = -1;
  std::string CuptiVersion, CudaRuntimeVersion, CudaDriverVersion;
  std::string RoctracerVersion, HipRuntimeVersion, HipDriverVersion;
  std::string TraceName, DisplayTimeUnit;
  int64_t Rank = -1, WorldSize = -1;
  std::string DistributedBackend;
  /// Written by `tracelint capture` (its `tracelint_capture` object): the
  /// Kineto schema, but of any CUDA program, not the PyTorch profiler.
  bool TracelintCapture = false;
  /// Every kernel's EventArgs::Grid counts blocks (work-groups), whatever
  /// API launched it: the importer converted the dispatch's grid (rocprof
  /// and rocpd record work-items). Otherwise a HIP kernel's grid counts in
  /// the unit of its launch call (hipExtModuleLaunchKernel takes work-items).
  bool KernelGridInBlocks = false;
  /// Profiler options recorded as metadata (record_shapes, with_stack...):
  /// -1 unknown, 0 off, 1 on.
  int8_t RecordShapes = -1, ProfileMemory = -1, WithStack = -1, WithFlops = -1,
         WithModules = -1;
};

class Trace {
public:
  StringPool Strings;
  std::vector<Lane> Lanes;
  std::vector<Event> Events; ///< grouped by lane, sorted by start in a lane
  std::vector<EventArgs> Args;
  std::vector<Flow> Flows;
  std::vector<Step> Steps;
  StepSource StepsFrom = StepSource::None;
  /// With StepsFrom == Named: the range name the steps come from, and
  /// whether tracelint chose it (the repeated ranges of a trace without
  /// step markers, model::iterationRanges, cli::applyStepOption) rather than
  /// --step.
  std::string StepRangeName;
  bool StepRangesChosen = false;
  std::vector<DeviceInfo> Devices;
  Producer Source;
  ImportStats Stats;

  /// Absolute time of the model's time 0, in ns since the Unix epoch when the
  /// trace's clock is epoch-based (or relative to the producer's base).
  int64_t OriginNs = 0;
  /// What the file's own timestamps count from (Kineto's
  /// baseTimeNanoseconds; 0 when they are absolute): a writer that adds
  /// events to the file converts model times back with it.
  int64_t FileBaseNs = 0;
  /// [first event start, last event end] over all lanes, in model time.
  int64_t WindowStart = 0, WindowEnd = 0;

  llvm::StringRef name(const Event &E) const { return Strings.get(E.Name); }
  const Lane &laneOf(const Event &E) const { return Lanes[E.Lane]; }
  llvm::ArrayRef<Event> events(const Lane &L) const {
    return llvm::ArrayRef<Event>(Events).slice(L.Begin, L.End - L.Begin);
  }
  const EventArgs *args(const Event &E) const {
    return E.Args == NoIndex ? nullptr : &Args[E.Args];
  }
  uint32_t indexOf(const Event &E) const {
    return static_cast<uint32_t>(&E - Events.data());
  }

  /// The host runtime/driver call with this correlation id, or NoIndex.
  uint32_t launchOf(const Event &DeviceEvent) const;
  /// The device events launched by the host call \p HostEvent.
  llvm::ArrayRef<uint32_t> deviceWorkOf(const Event &HostEvent) const;

  bool hasDeviceLanes() const;
  size_t countKind(EventKind K) const;

  /// The host call and the device work of each correlation (a domain and a
  /// correlation id), built by TraceBuilder::finish(). Every lint asks
  /// which call launched a kernel millions of times: a link is found
  /// through the event's index, not by hashing its key.
  struct CorrelationIndex {
    /// Per link: the first runtime/driver call with the key, or NoIndex.
    std::vector<uint32_t> Launch;
    /// Per link, into Device: [DeviceBegin[K], DeviceBegin[K + 1]).
    std::vector<uint32_t> DeviceBegin;
    /// The device work and sync events of each link, ascending.
    std::vector<uint32_t> Device;
    /// Per event of Events: its link, or NoIndex (no correlation, or no
    /// call and no device work with its key).
    std::vector<uint32_t> LinkOfEvent;
    /// By key, for a key that is not an event's own (a sync's awaited
    /// record) and for an Event that is not an element of Events.
    llvm::DenseMap<uint64_t, uint32_t> LinkOfKey;

    size_t size() const { return Launch.size(); }
    llvm::ArrayRef<uint32_t> deviceOf(uint32_t Link) const {
      return llvm::ArrayRef<uint32_t>(Device).slice(
          DeviceBegin[Link], DeviceBegin[Link + 1] - DeviceBegin[Link]);
    }
    /// The link with \p Key, or NoIndex.
    uint32_t find(uint64_t Key) const {
      auto It = LinkOfKey.find(Key);
      return It == LinkOfKey.end() ? NoIndex : It->second;
    }
  };
  CorrelationIndex Correlations;
  static uint64_t correlationKey(uint32_t Domain, uint32_t Correlation) {
    return (uint64_t(Domain) << 32) | Correlation;
  }
  /// The link of \p E (an element of Events or a copy of one), or NoIndex.
  uint32_t linkOf(const Event &E) const;
};

} // namespace tracelint::model

#endif
