//===- import/rocpd/RocpdReader.h - The importer's state --------*- C++ -*-===//
//
// One reader per file. For each run (each table suffix) it first reads the
// small tables into memory: strings, processes, threads, agents, queues,
// streams and kernel symbols (RocpdInfo.cpp); then each event table once, in
// rowid order, with the rocpd_event row of each event joined in for its
// category and correlation id (RocpdEvents.cpp). The model's TraceBuilder
// then sorts, nests and links, as for every other format.
//
// Every table is optional: a missing table means nothing of that kind was
// recorded (rocprofv3 creates them all, empty or not; other writers may
// not). A column a table lacks reads as NULL, except the few without which
// no row can be used, which are an error naming the table and the column.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_IMPORT_ROCPD_ROCPDREADER_H
#define TRACELINT_IMPORT_ROCPD_ROCPDREADER_H

#include "import/Import.h"
#include "import/nsys/Sqlite.h"
#include "import/rocpd/RocpdQuery.h"
#include "import/rocpd/RocpdSchema.h"
#include "model/TraceBuilder.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/Compiler.h"

#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>

namespace tracelint::import::rocpd {

/// DenseMap<int64_t> keeps its two largest keys as markers; ids read from
/// the file must never be those.
inline bool usableKey(int64_t K) {
  return K < std::numeric_limits<int64_t>::max() - 1;
}

/// Names read once per run (rocpd_string, kernel symbols) and interned into
/// the trace's string pool when first used: a file lists every kernel symbol
/// of its code objects, and most are never dispatched.
class NameTable {
public:
  /// Keeps the first text given for \p Id.
  void add(int64_t Id, llvm::StringRef Text);
  /// The name with \p Id, interned; nullopt when the table lacks it.
  std::optional<model::StringId> get(int64_t Id, model::StringPool &Pool);
  void clear() {
    Text.clear();
    Interned.clear();
  }

private:
  llvm::DenseMap<int64_t, std::string> Text;
  llvm::DenseMap<int64_t, model::StringId> Interned;
};

class RocpdReader {
public:
  RocpdReader(nsys::Database &Db, const ImportOptions &Opts)
      : Db(Db), Opts(Opts) {}
  ~RocpdReader() { llvm::consumeError(std::move(Pending)); }

  llvm::Expected<model::Trace> read();

private:
  /// What an agent id of the current run stands for.
  struct Agent {
    bool Gpu = false, Cpu = false;
    int32_t Device = -1; ///< the model's device id (GPUs only)
  };
  /// Device lanes are per process and device: the kernels of each queue,
  /// and the copies of each HIP stream, get a lane.
  enum class DeviceLaneKind : uint8_t { Queue, CopyStream };

  // Per run, the small tables (RocpdInfo.cpp).
  llvm::Error readMetadata();
  llvm::Error readNode();
  llvm::Error readStrings();
  llvm::Error readProcesses();
  llvm::Error readThreads();
  llvm::Error readAgents();
  llvm::Error readQueuesAndStreams();
  llvm::Error readSymbols();

  // Per run, the events (RocpdEvents.cpp).
  llvm::Error readRegions();
  llvm::Error readSamples();
  llvm::Error readDispatches();
  llvm::Error readCopies();
  llvm::Error readAllocations();

  llvm::Error readRun(llvm::StringRef Suffix);
  void reserve(llvm::ArrayRef<std::string> Runs);
  void addDevices();
  void setProducer(size_t Runs);

  /// Table \p Base of the current run.
  std::string table(llvm::StringRef Base) const {
    return (Base + Suffix).str();
  }

  /// What a scan's rows are: events, each counted and bounded by
  /// --max-events, or side facts.
  enum class RowKind { Event, Side };
  /// Calls \p Body(Statement) for each row of table \p Base of the current
  /// run (read with select()); a missing table has no rows.
  template <typename RowFn>
  llvm::Error scan(llvm::StringRef Base, RowKind Kind,
                   llvm::ArrayRef<Column *> Columns, llvm::ArrayRef<Join> Joins,
                   RowFn Body) {
    std::string Table = table(Base);
    if (!Db.hasTable(Table))
      return llvm::Error::success();
    auto S = select(Db, Table, Columns, Joins);
    if (!S)
      return S.takeError();
    while (S->step()) {
      if (Kind == RowKind::Event)
        if (llvm::Error E = rowRead(Table))
          return E;
      Body(*S);
    }
    if (llvm::Error E = S->error())
      return E;
    if (Pending)
      return std::move(Pending);
    return llvm::Error::success();
  }
  /// Counts an event row and enforces --max-events and --memory-budget.
  llvm::Error rowRead(llvm::StringRef Table);

  /// Integer column \p C, or nullopt for NULL; a non-integer is counted.
  std::optional<int64_t> integer(const nsys::Statement &S, const Column &C) {
    int64_t V;
    nsys::Statement::Kind K = S.integer(C.Index, V);
    if (LLVM_LIKELY(K == nsys::Statement::Kind::Integer))
      return V;
    if (K == nsys::Statement::Kind::Other)
      B.stats().add(model::ImportStat::BadValue);
    return std::nullopt;
  }
  /// A non-negative integer that fits in int32_t, or -1 (counted when the
  /// column holds something else).
  int32_t small(const nsys::Statement &S, const Column &C);
  /// A size in bytes, or -1 when absent or negative.
  int64_t byteCount(const nsys::Statement &S, const Column &C);
  /// Start and end of a row; false (counted) when either is missing.
  bool times(const nsys::Statement &S, const Column &StartCol,
             const Column &EndCol, llvm::StringRef Table, int64_t &Start,
             int64_t &End);
  /// The process and thread of a row, through rocpd_info_process and
  /// rocpd_info_thread; false (counted) when unusable.
  bool hostIds(const nsys::Statement &S, const Column &PidCol,
               const Column &TidCol, llvm::StringRef Table, int64_t &Pid,
               int64_t &Tid);
  /// The process of a device row (0 when not recorded).
  int64_t processOf(const nsys::Statement &S, const Column &PidCol);
  /// The name with id \p Id in rocpd_string (counted when missing).
  model::StringId stringById(int64_t Id, llvm::StringRef Table);
  /// A name column: an id into rocpd_string; EmptyString for NULL.
  model::StringId name(const nsys::Statement &S, const Column &C,
                       llvm::StringRef Table);
  /// What the category id in column \p C says.
  Category category(const nsys::Statement &S, const Column &C);
  /// The text of category id \p Id ("" when unknown).
  llvm::StringRef categoryText(int64_t Id);
  /// The correlation id (rocpd_event.stack_id: rocprofiler-sdk's internal
  /// correlation id) in column \p C, or 0.
  uint32_t correlation(const nsys::Statement &S, const Column &C);
  /// The "message" of an event's extdata JSON (a roctx text), or "".
  std::string message(const nsys::Statement &S, const Column &C);
  /// The agent with id \p Id of the current run, or nullptr.
  const Agent *agent(std::optional<int64_t> Id) const;
  /// The model's device for GPU agent \p Id, or -1 (counted) when the row
  /// cannot be placed on a GPU.
  int32_t deviceOf(std::optional<int64_t> Id, llvm::StringRef Table);

  uint32_t hostLane(int64_t Pid, int64_t Tid);
  uint32_t deviceLane(int64_t Pid, int32_t Device, DeviceLaneKind Kind,
                      int64_t Id);
  /// Notes that process \p Pid appears in the current run; a process id
  /// that two runs record is an error (their lanes and correlation ids
  /// would mix).
  void notePid(int64_t Pid);
  void place(model::ImportStat Stat, llvm::StringRef Table,
             const llvm::Twine &What);
  void addEvent(model::Event &E, const model::EventArgs *A = nullptr);
  /// Keeps the first error found inside a row callback.
  void defer(llvm::Error E);

  nsys::Database &Db;
  const ImportOptions &Opts;
  model::TraceBuilder B;
  llvm::Error Pending = llvm::Error::success();
  uint64_t RowsSinceCheck = 0;

  // The current run.
  std::string Suffix;
  NameTable Strings, Symbols;
  llvm::DenseMap<int64_t, std::string> CategoryTexts;
  llvm::DenseMap<int64_t, Category> Categories;
  llvm::DenseMap<int64_t, int64_t> Pids, Tids; ///< by info table id
  llvm::DenseMap<int64_t, std::string> ThreadNames, QueueNames, StreamNames;
  llvm::DenseMap<int64_t, Agent> Agents;

  // The whole file.
  std::map<std::string, std::string> Machines; ///< run suffix -> machine id
  std::string SchemaVersion;
  llvm::DenseMap<int64_t, std::string> PidRuns; ///< pid -> suffix
  int64_t LastPid = -1; ///< the last pid notePid() looked up
  llvm::DenseMap<int64_t, std::string> ProcessNames;
  std::map<std::tuple<int64_t, int32_t, DeviceLaneKind, int64_t>, uint32_t>
      DeviceLanes;
  std::map<std::pair<int64_t, int32_t>, int64_t> StreamsPerDevice;
  int64_t NextDeviceLaneKey = std::numeric_limits<int64_t>::min() / 4;
  std::map<int32_t, model::DeviceInfo> Gpus;
  std::set<int32_t> UsedDevices;
  /// Allocations by (pid, address) -> (bytes, device), to size each free.
  std::map<std::pair<int64_t, int64_t>, std::pair<int64_t, int32_t>> Live;
};

} // namespace tracelint::import::rocpd

#endif
