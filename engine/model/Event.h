//===- model/Event.h - Compact trace events ---------------------*- C++ -*-===//
//
// One event of one lane. Events are the bulk of a trace's memory, so the
// struct is kept at 48 bytes; the few arguments that rules read (copy kind and
// bytes, launch geometry, shapes, sync targets) live in a side table indexed
// by Event::Args.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_MODEL_EVENT_H
#define TRACELINT_MODEL_EVENT_H

#include "model/StringPool.h"

#include "llvm/ADT/StringRef.h"

#include <cstdint>

namespace tracelint::model {

/// What an event is. The three boundaries of the trace stay distinct: what
/// the framework requested (Op, Python, Annotation), what the host submitted
/// (Runtime, Driver), and what the device executed (Kernel, Memcpy, Memset,
/// Sync, Collective).
enum class EventKind : uint8_t {
  Op,         ///< framework operator (cpu_op, Operator)
  Python,     ///< python_function frame
  Annotation, ///< record_function / user annotation / NVTX range / step
  Runtime,    ///< CUDA/HIP runtime API call on the host
  Driver,     ///< CUDA driver API call on the host
  Kernel,     ///< device kernel (not communication)
  Memcpy,     ///< device copy
  Memset,     ///< device memset
  Sync,       ///< device-side synchronization record (cuda_sync)
  Collective, ///< communication kernel: the name class CommunicationKernel
              ///< (NCCL, RCCL, NVSHMEM, DeepEP, custom all-reduce;
              ///< docs/name-classes.md)
  Marker,     ///< instant event (memory events, markers)
  Counter,    ///< counter sample ('C' phase)
  Overhead,   ///< profiler overhead
  OsRuntime,  ///< OS runtime call on the host (nsys OSRT: waits, I/O, ...)
  /// A managed (unified) memory migration: the driver moving pages between
  /// host and device on demand, after a fault or a prefetch. It runs on the
  /// device's copy engines but no host call launched it, so it is not
  /// device work (isDeviceWork): never "unlinked" or an unrecorded
  /// dependency, and not busy time. Direction and bytes are in EventArgs.
  Migration,
  Other, ///< anything else with a duration
};
constexpr unsigned NumEventKinds = static_cast<unsigned>(EventKind::Other) + 1;

llvm::StringRef eventKindName(EventKind K);

/// True for the kinds that the device executes (they occupy a device) and a
/// host call launched. Migrations (EventKind::Migration) are device activity
/// but not device work.
inline bool isDeviceWork(EventKind K) {
  return K == EventKind::Kernel || K == EventKind::Memcpy ||
         K == EventKind::Memset || K == EventKind::Collective;
}

/// True for host API calls that launch device work (kernel and graph
/// launches of CUDA, HIP and the driver API).
inline bool isLaunchCallName(llvm::StringRef Name) {
  return Name.contains("Launch") || Name.contains("launch");
}

enum EventFlags : uint8_t {
  FlagNone = 0,
  FlagInstant = 1 << 0,       ///< an instant ('i'/'I'/'R'), duration 0
  FlagFromBeginEnd = 1 << 1,  ///< built from a 'B'/'E' pair
  FlagDurationFixed = 1 << 2, ///< a negative or absurd duration was clamped
  FlagUnclosed = 1 << 3,      ///< 'B' without 'E': ends at the window end
  FlagBeforeLaunch = 1 << 4,  ///< device work that starts before its launch
};

constexpr uint32_t NoIndex = ~0u;

struct Event {
  int64_t Start = 0;      ///< ns from the trace origin
  int64_t Duration = 0;   ///< ns, never negative
  int64_t ExternalId = 0; ///< framework op id ("External id"); 0 = none
  StringId Name = EmptyString;
  uint32_t Lane = NoIndex;
  uint32_t Correlation = 0;  ///< host call <-> device work; 0 = none
  uint32_t Args = NoIndex;   ///< index into Trace::Args, or NoIndex
  uint32_t Parent = NoIndex; ///< enclosing event on the same lane
  uint16_t Depth = 0;        ///< nesting depth on its lane (0 = top level)
  EventKind Kind = EventKind::Other;
  uint8_t Flags = FlagNone;

  int64_t end() const { return Start + Duration; }
  bool hasFlag(EventFlags F) const { return Flags & F; }
};
static_assert(sizeof(Event) == 48, "Event must stay compact: peak memory");

/// Bytes per element of a tensor element type, as traces write it: the
/// ScalarType names of collective kernels' "dtype" ("Float", "BFloat16",
/// "Long") and the C++ names of "Input type" ("float", "c10::Half",
/// "long int", "signed char"). -1 when unknown.
int64_t scalarTypeSize(llvm::StringRef Type);

enum class CopyKind : uint8_t { Unknown, HtoD, DtoH, DtoD, HtoH, PtoP };
llvm::StringRef copyKindName(CopyKind K);

/// Host or device memory on either side of a copy. ROCm traces only say
/// "Host": pageable and pinned cannot be told apart, so Host is kept apart
/// from both.
enum class MemoryKind : uint8_t {
  Unknown,
  Pageable,
  Pinned,
  Device,
  Managed,
  Array,
  Host
};
llvm::StringRef memoryKindName(MemoryKind K);

/// The arguments of an event that analyses read. Fields that the trace did
/// not carry keep their "unknown" value.
struct EventArgs {
  int64_t Bytes = -1;            ///< copy/memset size, or allocation delta
  int64_t Stream = -1;           ///< device stream
  int64_t WaitOnCorrelation = 0; ///< cuda_sync: the awaited event record
  int64_t TotalAllocated = -1;   ///< memory events
  int64_t TotalReserved = -1;    ///< memory events
  int32_t Device = -1;
  int32_t WaitOnStream = -1;
  int32_t Grid[3] = {0, 0, 0};
  int32_t Block[3] = {0, 0, 0};
  int32_t RegistersPerThread = -1;
  int32_t SharedMemory = -1;
  float BlocksPerSM = -1;
  float WarpsPerSM = -1;
  float Occupancy = -1;             ///< est. achieved occupancy %, -1 = unknown
  StringId InputDims = EmptyString; ///< raw "Input Dims" text
  StringId InputTypes = EmptyString; ///< raw "Input type" text
  /// Text whose meaning depends on the event's kind: a sync's kind, a
  /// collective's name, or for a Kineto op that names no collective its
  /// raw "Concrete Inputs" (the values of its scalar arguments; kept only
  /// when one is recorded). Sharing the field keeps EventArgs compact.
  StringId Detail = EmptyString;
  /// A collective's process group ("Process Group Name"): ranks match
  /// their collectives within one group.
  StringId Group = EmptyString;
  CopyKind Copy = CopyKind::Unknown;
  MemoryKind Src = MemoryKind::Unknown;
  MemoryKind Dst = MemoryKind::Unknown;
  /// Every field equal (TraceBuilder::addArgs shares equal arguments).
  bool operator==(const EventArgs &) const = default;
};
// Every event with arguments holds one: the group fills padding.
static_assert(sizeof(EventArgs) <= 112, "keep event arguments compact");

} // namespace tracelint::model

#endif
