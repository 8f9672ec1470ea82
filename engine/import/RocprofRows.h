//===- import/RocprofRows.h - Legacy rocprof results.json rows --*- C++ -*-===//
//
// Legacy rocprof (ROCm's rocprof v1/v2: --hip-trace, --hsa-trace,
// --sys-trace) writes results.json, a Chrome trace without categories. What
// a row is follows from the process it is on, which a process_name event
// names ("CPU HIP API", "COPY", "GPU0", "Markers and Ranges", ...); times
// are written as strings of truncated microseconds beside exact integer
// nanoseconds ("BeginNs", "EndNs" in the arguments); and an API call is tied
// to the device work it caused only by a flow arrow ("s" on the call, "t" on
// the GPU row), written after every row. The rows are therefore held here
// until the event array has been read, then linked and committed to the
// model (docs/import.md, "Legacy rocprof").
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_IMPORT_ROCPROFROWS_H
#define TRACELINT_IMPORT_ROCPROFROWS_H

#include "import/KinetoEvents.h"

#include "model/NameClasses.h"
#include "model/TraceBuilder.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace tracelint::import {

/// What the rows of a rocprof process are.
enum class RocprofRole : uint8_t {
  None,    ///< not a process rocprof names
  Api,     ///< "CPU HIP API", "CPU HSA API", ...: host API calls
  Markers, ///< "Markers and Ranges": roctx ranges and marks
  Copy,    ///< "COPY": copies and fills of every device
  Gpu,     ///< "GPU<n>": kernels of device n
  Barrier, ///< "GPU Barriers<n>": barrier packets of device n
};

/// The role of a process named \p Name, and the device a GPU process names.
/// rocprof writes the names bare ("GPU0") or, in one era, after a section
/// number ("3 GPU0").
struct RocprofProcess {
  RocprofRole Role = RocprofRole::None;
  int32_t Device = -1;
  bool Hip = false; ///< "CPU HIP API": the calls the program made itself
};
RocprofProcess rocprofProcess(llvm::StringRef Name);

/// An API call's size and direction, read from rocprof's text of its
/// arguments ("( dst(0x7f..) src(0x..) sizeBytes(4096) kind(1))", or with
/// '=' in older files). Bytes -1 and CopyKind::Unknown when not given.
struct RocprofCallArgs {
  int64_t Bytes = -1;
  model::CopyKind Copy = model::CopyKind::Unknown;
};
RocprofCallArgs parseRocprofCallArgs(llvm::StringRef Text);

/// The direction and memory kinds of a copy row, from its name
/// ("CopyHostToDevice", "CopyDeviceToHost", "CopyDeviceToDevice", ...).
/// ROCm does not tell pageable from pinned host memory: the host side is
/// MemoryKind::Host.
void parseRocprofCopyName(llvm::StringRef Name, model::EventArgs &A);

class RocprofRows {
public:
  explicit RocprofRows(model::TraceBuilder &B) : B(B) {}

  /// The name classes to tell communication kernels by.
  void setNames(const model::NameClassifier *N) { Names = N; }

  /// A process_name event: remembers the role of a process rocprof names.
  void label(int64_t Pid, llvm::StringRef Name);
  /// Whether the trace names any rocprof process (then it is rocprof's).
  bool active() const { return Active; }
  /// The role of the rows of process \p Pid.
  RocprofRole roleOf(int64_t Pid) const;

  /// Keeps a complete ('X') event of a rocprof process. \p Index and the
  /// event's offset locate it in messages.
  void addRow(const RawEvent &R, model::StringId Name, size_t Index);
  /// Keeps one end of a flow arrow ('s', 't' or 'f') between rocprof rows.
  void addFlow(const RawEvent &R, size_t Index);

  /// Rows held, for the import's event and memory limits.
  size_t pending() const { return Rows.size(); }

  /// Links the calls to their device work, merges rows that record one
  /// dispatch twice, and commits every row to the builder in file order.
  void finish();

private:
  struct Row {
    model::Event E;           ///< Start and Duration in raw ns; no lane yet
    int64_t TsNs = 0;         ///< the time as written ("ts"), for the flows
    int64_t DurNs = 0;        ///< the duration as written ("dur")
    int64_t Pid = 0, Tid = 0; ///< as written
    int64_t OsPid = -1, OsTid = -1; ///< from the arguments
    int64_t Queue = -1;
    int32_t Device = -1;
    RocprofRole Role = RocprofRole::None;
    bool Dropped = false;           ///< merged into another row
    uint32_t Args = model::NoIndex; ///< into ArgsHeld
    RocprofCallArgs Call;           ///< API rows
  };
  struct FlowEnd {
    uint64_t Id = 0;
    int64_t TsNs = 0;
    int64_t Pid = 0, Tid = 0;
    bool Start = false;
    size_t Index = 0;
    uint64_t Offset = 0;
  };

  std::string place(size_t Index, uint64_t Offset) const;
  uint32_t hostRowAt(const FlowEnd &F) const;
  uint32_t deviceRowAt(const FlowEnd &F,
                       llvm::DenseMap<uint32_t, bool> &Taken) const;
  void linkFlows();
  void fillCopiesFromCalls(const llvm::DenseMap<uint32_t, uint32_t> &CallOf);
  void
  mergeDuplicateDispatches(const llvm::DenseMap<uint32_t, uint32_t> &CallOf);
  int32_t copyDevice(const Row &R) const;
  uint32_t laneOf(const Row &R);

  model::TraceBuilder &B;
  const model::NameClassifier *Names = nullptr;
  bool Active = false;
  llvm::DenseMap<int64_t, RocprofProcess> Processes;
  /// The process named GPU<n>, by n: every row of device n is on a lane of
  /// it, copies and barrier packets included.
  llvm::DenseMap<int32_t, int64_t> GpuPids;
  std::vector<Row> Rows;
  std::vector<model::EventArgs> ArgsHeld;
  std::vector<FlowEnd> Flows;
  /// Rows of each written (pid, tid), and of each written pid, by index:
  /// built by finish() to find the row a flow end points at.
  llvm::DenseMap<std::pair<int64_t, int64_t>, std::vector<uint32_t>> ByThread;
  llvm::DenseMap<int64_t, std::vector<uint32_t>> ByProcess;
  /// The largest correlation id the rows carry themselves: flow links are
  /// numbered after it.
  uint32_t MaxCorrelation = 0;
};

} // namespace tracelint::import

#endif
