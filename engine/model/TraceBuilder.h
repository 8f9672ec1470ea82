//===- model/TraceBuilder.h - How importers build a Trace -------*- C++ -*-===//
//
// Importers append events in file order with raw timestamps (ns on the
// producer's clock). finish() then owns the model's invariants, whatever the
// format: lanes get their ranges, events are sorted by start within a lane,
// nesting gives depth and parent, 'B'/'E' pairs are matched, durations are
// checked, correlation links and flow arrows are bound, steps are found, and
// times are rebased to the earliest event.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_MODEL_TRACEBUILDER_H
#define TRACELINT_MODEL_TRACEBUILDER_H

#include "model/Trace.h"

#include "llvm/ADT/DenseMap.h"

#include <optional>

namespace tracelint::model {

class TraceBuilder {
public:
  TraceBuilder();

  StringPool &strings() { return T.Strings; }
  ImportStats &stats() { return T.Stats; }
  Producer &producer() { return T.Source; }
  std::vector<DeviceInfo> &devices() { return T.Devices; }

  /// The lane of a numeric (pid, tid) pair, created on first use.
  uint32_t lane(int64_t Pid, int64_t Tid);
  /// The lane of a pid/tid written as non-numeric strings ("Spans", "").
  uint32_t namedLane(llvm::StringRef Pid, llvm::StringRef Tid);
  /// The host thread \p Tid of a process that the trace names by a string
  /// rather than an OS pid (the legacy PyTorch exporter's "CPU functions"):
  /// a host thread whose process is that name, kept apart from numeric pids.
  uint32_t namedProcessThread(llvm::StringRef Process, int64_t Tid);
  /// Declares a lane to be a device stream.
  void setDeviceLane(uint32_t LaneIdx, int32_t Device, int64_t Stream);
  void setLaneName(uint32_t LaneIdx, llvm::StringRef Name);
  void setProcessName(int64_t Pid, llvm::StringRef Name);
  void setCorrelationDomain(uint32_t LaneIdx, uint32_t Domain);
  const Lane &laneInfo(uint32_t LaneIdx) const { return T.Lanes[LaneIdx]; }

  /// Appends a complete event; E.Lane must be set, E.Start is raw time.
  void addEvent(const Event &E, const EventArgs *A = nullptr);
  /// Stores the arguments of an event and returns their index. Events with
  /// equal arguments share one entry: the arguments are read only.
  uint32_t addArgs(const EventArgs &A);

  /// 'B'/'E' pairs: a begin is kept open on its lane until the matching end.
  void beginEvent(const Event &E, const EventArgs *A = nullptr);
  void endEvent(uint32_t LaneIdx, int64_t Time);

  /// One end of a flow arrow. \p EnclosingSlice: bind to the slice that
  /// contains \p Time (Chrome's "bp": "e") rather than the next one.
  void addFlowPoint(FlowKind Kind, uint64_t Id, bool IsStart, uint32_t LaneIdx,
                    int64_t Time, bool EnclosingSlice);

  /// Raw-clock offset added to every timestamp to make it absolute
  /// (Kineto's baseTimeNanoseconds; it may be learnt after the events).
  void setBaseTimeNs(int64_t Base) { BaseNs = Base; }

  size_t numEvents() const { return T.Events.size(); }
  /// Bytes a command is expected to use at its peak for the trace built so
  /// far: the model, its indexes and the analysis over it (measured at
  /// about 256 bytes per event on real traces), plus the names (kept twice:
  /// pool and index), plus a fixed 16 MiB. Checked against a memory budget
  /// while importing, so that a trace too large is refused early.
  uint64_t estimatedPeakBytes() const {
    return (uint64_t(16) << 20) + uint64_t(T.Events.size()) * 256 +
           uint64_t(T.Strings.characterBytes()) * 2;
  }
  /// Reserves room for about \p Events events, so that a large import does
  /// not copy its event table each time it grows. Untouched reserved pages
  /// cost no memory.
  void reserve(size_t Events);

  /// Completes the model. The builder is empty afterwards.
  Trace finish();

private:
  struct FlowPoint {
    uint64_t Id;
    int64_t Time;
    uint32_t Lane;
    FlowKind Kind;
    bool IsStart;
    bool Enclosing;
  };
  struct LaneKey {
    int64_t Pid, Tid;
    bool operator==(const LaneKey &O) const {
      return Pid == O.Pid && Tid == O.Tid;
    }
  };
  struct LaneKeyInfo {
    static LaneKey getEmptyKey() { return {INT64_MIN, INT64_MIN}; }
    static LaneKey getTombstoneKey() { return {INT64_MIN, INT64_MIN + 1}; }
    static unsigned getHashValue(const LaneKey &K);
    static bool isEqual(const LaneKey &A, const LaneKey &B) { return A == B; }
  };

  void closeOpenBegins(int64_t MaxTime);
  void clampDurations(int64_t MinStart, int64_t MaxStart,
                      std::optional<int64_t> MaxEnd);
  int64_t sortByLane(std::vector<uint32_t> &Counts, int64_t MinStart);
  void buildNesting();
  /// Links host calls and device work by correlation (Trace::Correlations),
  /// reading events only ...
  void collectCorrelations();
  /// ... then flags work that starts before its launch and counts the
  /// unmatched ends.
  void checkCorrelations();
  /// Below this many events finish() does all its work on one thread.
  static constexpr size_t MinEventsForThreads = size_t(1) << 16;
  void bindFlows();
  void findSteps();
  uint32_t firstAfter(const Lane &L, int64_t Time, uint32_t &Hint) const;
  uint32_t enclosingEvent(const Lane &L, int64_t Time,
                          uint32_t FirstAfter) const;

  Trace T;
  int64_t BaseNs = 0;
  llvm::DenseMap<LaneKey, uint32_t, LaneKeyInfo> LaneIndex;
  llvm::DenseMap<int64_t, StringId> ProcessNames;
  std::vector<llvm::SmallVector<uint32_t, 8>> OpenBegins; ///< per lane
  std::vector<FlowPoint> FlowPoints;
  /// The stored arguments by a hash of their fields (addArgs), until
  /// finish().
  llvm::DenseMap<uint64_t, uint32_t> ArgsByHash;
};

} // namespace tracelint::model

#endif
