//===- import/nsys/NsysImporter.cpp ---------------------------------------===//
//
// One pass per table, in an order that lets each table find what it needs:
// metadata, ENUM tables, the session start and the GPUs first; then the
// synchronisation records (kept in memory: they are few), so that the API
// calls can be read next and each sync call emitted with its record; then
// the device activity (managed-memory page migrations and page faults
// among it), NVTX, OS runtime calls and profiler overhead; last the names
// of the threads and processes that were seen.
//
// Every table is optional: nsys creates tables lazily, so a missing table
// means that nothing of that kind was recorded. Each reader names the
// columns it uses; those the table has (PRAGMA table_info) are selected, and
// each one's index is then found by name among the statement's columns, so
// no reader depends on the order of a list and one reader serves every
// schema from 2020 to 2025.x. A column a version lacks reads as NULL,
// except the few without which no row of the table can be used (its times,
// its device or thread): a table without one of those is an error that
// names the column, not a table of rows dropped one by one.
//
//===----------------------------------------------------------------------===//
#include "import/nsys/NsysImporter.h"
#include "import/nsys/NsysEnums.h"
#include "import/nsys/Sqlite.h"
#include "model/TraceBuilder.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Compiler.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cassert>
#include <limits>
#include <map>
#include <optional>
#include <set>

using namespace tracelint;
using namespace tracelint::import;
using namespace tracelint::import::nsys;
using llvm::Expected;
using llvm::StringRef;
using model::EventKind;
using model::ImportStat;
using model::StringId;

namespace {

constexpr StringRef KernelTable = "CUPTI_ACTIVITY_KIND_KERNEL";
constexpr StringRef MemcpyTable = "CUPTI_ACTIVITY_KIND_MEMCPY";
constexpr StringRef MemsetTable = "CUPTI_ACTIVITY_KIND_MEMSET";
constexpr StringRef ApiTable = "CUPTI_ACTIVITY_KIND_RUNTIME";
constexpr StringRef SyncTable = "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION";
constexpr StringRef NvtxTable = "NVTX_EVENTS";
constexpr StringRef OsrtTable = "OSRT_API";
constexpr StringRef OverheadTable = "PROFILER_OVERHEAD";
constexpr StringRef GpuFaultTable = "CUDA_UM_GPU_PAGE_FAULT_EVENTS";
constexpr StringRef CpuFaultTable = "CUDA_UM_CPU_PAGE_FAULT_EVENTS";

/// Device ids and stream ids beyond these are not real ones.
constexpr int64_t MaxDevice = 1 << 20;
constexpr int64_t MaxStream = std::numeric_limits<uint32_t>::max();

/// DenseMap<int64_t> reserves the two largest values as markers; codes and
/// ids read from the file must never be those.
bool usableKey(int64_t K) {
  return K < std::numeric_limits<int64_t>::max() - 1;
}

/// A table or column name from the file, safe to print in a message.
std::string printable(StringRef S, size_t Max = 64) {
  std::string Out;
  for (char C : S.take_front(Max))
    Out += llvm::isPrint(C) ? C : '?';
  if (S.size() > Max)
    Out += "...";
  return Out;
}

/// A column that a table reader uses. NsysReader::select() finds it by name
/// in the reader's statement and sets Index.
struct Column {
  enum Presence {
    /// Absent in some version, or a row can do without it: reads as NULL.
    Optional,
    /// Every export from 2020 to 2025.x has it, and no row of the table
    /// can be used without it: a table that lacks it is an error.
    Required
  };
  Column(StringRef Name, Presence P = Optional) : Name(Name), P(P) {}

  StringRef Name;
  Presence P;
  /// The column's index in the statement, or -1 where the table lacks it
  /// (Statement reads a negative index as NULL).
  int Index = -1;
};

/// The columns every device-work table (kernels, copies, memsets,
/// synchronisation) has.
struct DeviceColumns {
  Column Start{"start", Column::Required}, End{"end", Column::Required},
      Device{"deviceId", Column::Required}, Stream{"streamId"},
      Correlation{"correlationId"}, Pid{"globalPid"};
};

/// The columns every host-call table (runtime API, OS runtime, profiler
/// overhead) has.
struct HostColumns {
  Column Start{"start", Column::Required}, End{"end", Column::Required},
      Gtid{"globalTid", Column::Required};
};

/// Why a file is not an nsys export, from its table names.
std::string describeOtherDatabase(const llvm::StringSet<> &Tables) {
  std::vector<std::string> Names;
  for (const auto &T : Tables)
    Names.push_back(printable(T.getKey(), 48));
  llvm::sort(Names);
  if (Names.empty())
    return "an SQLite database with no tables, not an Nsight Systems export; "
           "expected the output of `nsys export --type sqlite`";
  bool Cupti = llvm::any_of(Names, [](const std::string &N) {
    return StringRef(N).startswith("CUPTI_ACTIVITY_KIND_");
  });
  std::string Shown;
  for (size_t I = 0; I < Names.size() && I < 8; ++I)
    Shown += (I ? ", " : "") + Names[I];
  if (Names.size() > 8)
    Shown += llvm::formatv(", ... ({0} in all)", Names.size()).str();
  if (Cupti && Tables.count("StringTable"))
    return "an nvprof database (tables " + Shown +
           "), not an Nsight Systems export: tracelint reads the output of "
           "`nsys export --type sqlite`; profile with Nsight Systems or the "
           "PyTorch profiler";
  return "an SQLite database that is not an Nsight Systems export: expected "
         "the tables StringIds and EXPORT_META_DATA (nsys 2022-2023) or "
         "META_DATA_EXPORT (later), or StringIds and CUPTI_ACTIVITY_KIND_* "
         "tables (nsys 2020-2021); found " +
         Shown;
}

/// A memory kind as Kineto writes it in copy names ("Pageable").
StringRef memoryLabel(model::MemoryKind K) {
  switch (K) {
  case model::MemoryKind::Pageable:
    return "Pageable";
  case model::MemoryKind::Pinned:
    return "Pinned";
  case model::MemoryKind::Device:
    return "Device";
  case model::MemoryKind::Managed:
    return "Managed";
  case model::MemoryKind::Array:
    return "Array";
  case model::MemoryKind::Host:
    return "Host";
  case model::MemoryKind::Unknown:
    break;
  }
  return "Unknown";
}

StringRef copyLabel(model::CopyKind K) {
  return K == model::CopyKind::Unknown ? StringRef("Unknown")
                                       : model::copyKindName(K);
}

class NsysReader {
public:
  NsysReader(Database &Db, const ImportOptions &Opts, ExportEra Era)
      : Db(Db), Opts(Opts), Era(Era), Codes(Enums::builtin(Era)) {}
  ~NsysReader() { llvm::consumeError(std::move(Pending)); }

  Expected<model::Trace> read();

private:
  /// The leading columns of a device-work row, read.
  struct DeviceRow {
    int64_t Start = 0, End = 0, Pid = 0, Stream = -1;
    int32_t Device = 0;
    uint32_t Correlation = 0;
  };
  /// The leading columns of a host-call row, read.
  struct HostRow {
    int64_t Start = 0, End = 0, Gtid = 0;
  };
  struct SyncRow {
    DeviceRow Row;
    int64_t Code = -1;
    bool Used = false;
  };
  struct ApiName {
    StringId Name = model::EmptyString;
    SyncType Sync = SyncType::Unknown;
  };

  llvm::Error readMetadata();
  llvm::Error readEnums();
  llvm::Error readSessionStart();
  llvm::Error readSystemEnv();
  llvm::Error readGpus();
  llvm::Error readSyncRows();
  llvm::Error readApiCalls();
  llvm::Error readKernels();
  llvm::Error readMemcpys();
  llvm::Error readMemsets();
  llvm::Error readPageFaults();
  void addUnmatchedSyncs();
  llvm::Error readNvtx();
  llvm::Error readOsRuntime();
  llvm::Error readOverhead();
  llvm::Error readThreadAndProcessNames();
  void addDevices();

  /// Prepares "SELECT <the columns Table has> FROM Table [Tail]" and sets
  /// each column's Index from the statement's column names.
  Expected<Statement> select(StringRef Table, llvm::ArrayRef<Column *> Columns,
                             StringRef Tail = "");
  /// What a scan's rows are: events, each counted and bounded by
  /// --max-events, or side facts (metadata, codes, names).
  enum class RowKind { Event, Side };
  /// Calls \p Body(Statement) for each row of select(Table, Columns, Tail);
  /// a missing table has no rows. The one loop every table is read with.
  template <typename RowFn>
  llvm::Error scan(StringRef Table, RowKind Kind,
                   llvm::ArrayRef<Column *> Columns, RowFn Body,
                   StringRef Tail = "") {
    if (!Db.hasTable(Table))
      return llvm::Error::success();
    auto S = select(Table, Columns, Tail);
    if (!S)
      return S.takeError();
    while (S->step()) {
      if (Kind == RowKind::Event)
        if (llvm::Error E = rowRead(Table))
          return E;
      Body(*S);
    }
    return finishScan(*S);
  }
  /// Called for every event row: counts it and enforces --max-events.
  llvm::Error rowRead(StringRef Table);
  /// The error that ended a scan, or one deferred from a name lookup.
  llvm::Error finishScan(Statement &S);

  /// Integer column \p C, or nullopt for NULL; a non-integer is counted.
  std::optional<int64_t> integer(const Statement &S, const Column &C) {
    int64_t V;
    Statement::Kind K = S.integer(C.Index, V);
    if (LLVM_LIKELY(K == Statement::Kind::Integer))
      return V;
    if (K == Statement::Kind::Other)
      B.stats().add(ImportStat::BadValue);
    return std::nullopt;
  }
  /// A name column: an id into StringIds or, in some versions, inline text.
  StringId name(const Statement &S, const Column &C, StringRef Table);
  /// The first of \p Cols that names something (EmptyString if none does).
  StringId firstName(const Statement &S,
                     std::initializer_list<const Column *> Cols,
                     StringRef Table);
  StringId stringById(int64_t Id, StringRef Table);
  /// A correlation id the model can hold (0 = none).
  uint32_t correlation(const Statement &S, const Column &C);
  /// Start and end of a row; false (counted) when unusable.
  bool times(const Statement &S, const Column &StartCol, const Column &EndCol,
             StringRef Table, int64_t &Start, int64_t &End);

  uint32_t hostLane(int64_t GlobalTid);
  uint32_t deviceLane(int64_t Pid, int32_t Device, int64_t Stream);
  /// The lane of a process's managed-memory activity on \p Device (-1: on
  /// the host), apart from its streams.
  uint32_t unifiedMemoryLane(int64_t Pid, int32_t Device);
  /// Device and stream of a row; false (counted) when the device is unusable.
  bool deviceAndStream(const Statement &S, const DeviceColumns &C,
                       StringRef Table, int32_t &Device, int64_t &Stream);

  /// Calls \p Body(Statement, DeviceRow) for each usable row of a
  /// device-work table, which is read with DeviceColumns and \p Own.
  template <typename RowFn>
  llvm::Error scanDeviceRows(StringRef Table, llvm::ArrayRef<Column *> Own,
                             RowFn Body) {
    DeviceColumns D;
    llvm::SmallVector<Column *, 24> Columns = {
        &D.Start, &D.End, &D.Device, &D.Stream, &D.Correlation, &D.Pid};
    Columns.append(Own.begin(), Own.end());
    return scan(Table, RowKind::Event, Columns, [&](const Statement &S) {
      DeviceRow Row;
      if (deviceRow(S, D, Table, Row))
        Body(S, Row);
    });
  }
  /// Reads the leading columns; false (counted) when the row is unusable.
  bool deviceRow(const Statement &S, const DeviceColumns &C, StringRef Table,
                 DeviceRow &R);
  /// An event of \p Kind on the row's device lane, and its device and stream.
  void deviceEvent(const DeviceRow &R, EventKind Kind, StringId Name,
                   model::Event &E, model::EventArgs &A);
  /// Emits the device-side record of a synchronisation (Kineto's cuda_sync)
  /// on the stream it waited for, named \p Name.
  void addSyncEvent(const SyncRow &R, StringId Name);
  /// Reads the leading columns of a host call; false (counted as
  /// \p NoThread when the thread is missing) when the row is unusable.
  bool hostRow(const Statement &S, const HostColumns &C, StringRef Table,
               StringRef NoThread, HostRow &R);
  /// An event of \p Kind on the row's thread.
  model::Event hostEvent(const HostRow &R, EventKind Kind, StringId Name);
  /// A byte count, or -1 when absent or negative.
  int64_t byteCount(const Statement &S, const Column &C) {
    std::optional<int64_t> Bytes = integer(S, C);
    return Bytes && *Bytes >= 0 ? *Bytes : -1;
  }
  void place(ImportStat Stat, StringRef Table, const llvm::Twine &What);
  void addEvent(model::Event &E, const model::EventArgs *A = nullptr);

  Database &Db;
  const ImportOptions &Opts;
  const ExportEra Era;
  model::TraceBuilder B;
  Enums Codes;
  llvm::Error Pending = llvm::Error::success();
  uint64_t RowsSinceCheck = 0;

  std::string ProductVersion, SchemaVersion, InputFile;
  Statement StringLookup;
  bool HaveStringLookup = false;
  llvm::DenseMap<int64_t, StringId> Strings;
  llvm::DenseMap<int64_t, ApiName> ApiNames;
  llvm::DenseMap<int64_t, uint32_t> HostLanes; ///< by pid << 24 | tid
  llvm::DenseMap<std::pair<uint64_t, uint64_t>, uint32_t> DeviceLanes;
  llvm::DenseMap<uint64_t, uint32_t> UnifiedMemoryLanes;
  llvm::DenseSet<int64_t> Pids;
  std::set<int32_t> UsedDevices;
  std::map<int64_t, model::DeviceInfo> Gpus;

  std::vector<SyncRow> SyncRows;
  llvm::DenseMap<uint64_t, llvm::SmallVector<uint32_t, 1>> SyncByCall;
  llvm::DenseMap<uint64_t, StringId> CopyNames, MemsetNames, MigrationNames;

  /// NVTX ranges without an end, closed at the last time seen.
  std::vector<std::pair<model::Event, StringId>> Unclosed;
  int64_t LastTime = std::numeric_limits<int64_t>::min();
};

Expected<Statement> NsysReader::select(StringRef Table,
                                       llvm::ArrayRef<Column *> Columns,
                                       StringRef Tail) {
  auto Have = Db.columns(Table);
  if (!Have)
    return Have.takeError();
  std::string List;
  for (const Column *C : Columns) {
    if (Have->count(C->Name))
      List += (List.empty() ? "" : ", ") + quoteIdentifier(C->Name);
    else if (C->P == Column::Required)
      return Db.fail(Table,
                     llvm::formatv("no column \"{0}\": every Nsight Systems "
                                   "export from 2020 to 2025.x has it, and "
                                   "no row of this table can be read without "
                                   "it",
                                   C->Name));
  }
  // A table with none of the columns still has rows to step through.
  if (List.empty())
    List = "NULL";
  std::string Sql = "SELECT " + List + " FROM " + quoteIdentifier(Table);
  if (!Tail.empty())
    Sql += " " + Tail.str();
  auto S = Db.prepare(Sql, Table);
  if (!S)
    return S.takeError();
  for (Column *C : Columns) {
    C->Index = -1;
    for (int I = 0, N = S->columnCount(); I < N; ++I)
      if (S->columnName(I) == C->Name)
        C->Index = I;
    assert((C->Index >= 0 || !Have->count(C->Name)) &&
           "a selected column is named as the table names it");
  }
  return S;
}

llvm::Error NsysReader::rowRead(StringRef Table) {
  B.stats().add(ImportStat::EventsRead);
  if (++RowsSinceCheck < 4096)
    return llvm::Error::success();
  RowsSinceCheck = 0;
  return checkLimits(Opts, B.numEvents(), B.estimatedPeakBytes(), Db.path(),
                     ("table " + Table).str());
}

llvm::Error NsysReader::finishScan(Statement &S) {
  if (llvm::Error E = S.error())
    return E;
  if (Pending)
    return std::move(Pending);
  return llvm::Error::success();
}

void NsysReader::place(ImportStat Stat, StringRef Table,
                       const llvm::Twine &What) {
  B.stats().addAt(Stat, (Table + ": " + What).str());
}

StringId NsysReader::stringById(int64_t Id, StringRef Table) {
  if (!usableKey(Id)) {
    place(ImportStat::MissingName, Table, llvm::formatv("name id {0}", Id));
    return B.strings().intern(llvm::formatv("<name {0}>", Id).str());
  }
  auto It = Strings.find(Id);
  if (It != Strings.end())
    return It->second;
  StringId Out = model::EmptyString;
  bool Found = false;
  if (!HaveStringLookup && Db.hasTable("StringIds")) {
    auto S =
        Db.prepare("SELECT value FROM StringIds WHERE id = ?1", "StringIds");
    if (!S) {
      if (!Pending)
        Pending = S.takeError();
      else
        llvm::consumeError(S.takeError());
    } else {
      StringLookup = std::move(*S);
      HaveStringLookup = true;
    }
  }
  if (HaveStringLookup) {
    StringLookup.reset();
    StringLookup.bindInt(1, Id);
    if (StringLookup.step()) {
      Out = B.strings().intern(StringLookup.text(0));
      Found = true;
    } else if (llvm::Error E = StringLookup.error()) {
      if (!Pending)
        Pending = std::move(E);
      else
        llvm::consumeError(std::move(E));
    }
  }
  if (!Found) {
    place(ImportStat::MissingName, Table,
          llvm::formatv("name id {0} is not in StringIds", Id));
    Out = B.strings().intern(llvm::formatv("<name {0}>", Id).str());
  }
  Strings[Id] = Out;
  return Out;
}

StringId NsysReader::name(const Statement &S, const Column &C,
                          StringRef Table) {
  int64_t Id;
  switch (S.integer(C.Index, Id)) {
  case Statement::Kind::Integer:
    return stringById(Id, Table);
  case Statement::Kind::Null:
    return model::EmptyString;
  case Statement::Kind::Other:
    break;
  }
  return B.strings().intern(S.text(C.Index));
}

StringId NsysReader::firstName(const Statement &S,
                               std::initializer_list<const Column *> Cols,
                               StringRef Table) {
  for (const Column *C : Cols)
    if (StringId Name = name(S, *C, Table); Name != model::EmptyString)
      return Name;
  return model::EmptyString;
}

uint32_t NsysReader::correlation(const Statement &S, const Column &Col) {
  std::optional<int64_t> C = integer(S, Col);
  if (!C || *C == 0)
    return 0;
  if (*C < 0 || *C > int64_t(std::numeric_limits<uint32_t>::max())) {
    B.stats().add(ImportStat::BadValue);
    return 0;
  }
  return uint32_t(*C);
}

bool NsysReader::times(const Statement &S, const Column &StartCol,
                       const Column &EndCol, StringRef Table, int64_t &Start,
                       int64_t &End) {
  std::optional<int64_t> A = integer(S, StartCol), Z = integer(S, EndCol);
  if (!A || !Z) {
    place(ImportStat::UnusableRow, Table, "a row without a start or end time");
    return false;
  }
  Start = *A;
  End = *Z;
  LastTime = std::max({LastTime, Start, End});
  return true;
}

uint32_t NsysReader::hostLane(int64_t GlobalTid) {
  int64_t Pid = pidOfGlobalId(GlobalTid), Tid = tidOfGlobalId(GlobalTid);
  auto [It, Inserted] = HostLanes.try_emplace((Pid << 24) | Tid, 0);
  if (Inserted) {
    It->second = B.lane(Pid, Tid);
    B.setCorrelationDomain(It->second, uint32_t(Pid));
    Pids.insert(Pid);
  }
  return It->second;
}

// Device lanes are per process: two processes on one GPU each have their own
// stream 7, and each process's correlation ids link only to its own calls.
// The lane key's tid is negative, so it never meets a host thread's.
uint32_t NsysReader::deviceLane(int64_t Pid, int32_t Device, int64_t Stream) {
  std::pair<uint64_t, uint64_t> Key{(uint64_t(Pid) << 32) | uint32_t(Device),
                                    uint64_t(Stream + 1)};
  auto [It, Inserted] = DeviceLanes.try_emplace(Key, 0);
  if (Inserted) {
    int64_t TidKey = std::numeric_limits<int64_t>::min() / 4 +
                     (int64_t(Device) << 33) + (Stream + 1);
    It->second = B.lane(Pid, TidKey);
    B.setDeviceLane(It->second, Device, Stream);
    B.setCorrelationDomain(It->second, uint32_t(Pid));
    Pids.insert(Pid);
    UsedDevices.insert(Device);
  }
  return It->second;
}

// Managed-memory migrations run on the copy engines, but no host call put
// them on a stream: they get a lane of their own per process and device, of
// the kind "other", so that no stream's work, order or busy time includes
// them. The lane shares its process's correlation domain, so a migration
// that carries the correlation id of the call behind it (a prefetch) finds
// that call.
uint32_t NsysReader::unifiedMemoryLane(int64_t Pid, int32_t Device) {
  auto [It, Inserted] = UnifiedMemoryLanes.try_emplace(
      (uint64_t(Pid) << 32) | uint32_t(Device), 0);
  if (Inserted) {
    std::string Name =
        Device >= 0 ? llvm::formatv("unified memory, device {0}", Device).str()
                    : std::string("unified memory, host");
    It->second = B.namedLane(std::to_string(Pid), Name);
    B.setCorrelationDomain(It->second, uint32_t(Pid));
    Pids.insert(Pid);
    if (Device >= 0)
      UsedDevices.insert(Device);
  }
  return It->second;
}

bool NsysReader::deviceAndStream(const Statement &S, const DeviceColumns &C,
                                 StringRef Table, int32_t &Device,
                                 int64_t &Stream) {
  std::optional<int64_t> D = integer(S, C.Device);
  if (!D || *D < 0 || *D >= MaxDevice) {
    place(ImportStat::UnusableRow, Table,
          D ? llvm::formatv("deviceId {0} out of range", *D).str()
            : std::string("a row without a deviceId"));
    return false;
  }
  Device = int32_t(*D);
  std::optional<int64_t> St = integer(S, C.Stream);
  // 0xFFFFFFFF means "no stream" (context-wide synchronisation).
  if (!St || *St == MaxStream)
    Stream = -1;
  else if (*St < 0 || *St > MaxStream) {
    B.stats().add(ImportStat::BadValue);
    Stream = -1;
  } else
    Stream = *St;
  return true;
}

bool NsysReader::deviceRow(const Statement &S, const DeviceColumns &C,
                           StringRef Table, DeviceRow &R) {
  if (!times(S, C.Start, C.End, Table, R.Start, R.End) ||
      !deviceAndStream(S, C, Table, R.Device, R.Stream))
    return false;
  R.Correlation = correlation(S, C.Correlation);
  R.Pid = pidOfGlobalId(integer(S, C.Pid).value_or(0));
  return true;
}

void NsysReader::deviceEvent(const DeviceRow &R, EventKind Kind, StringId Name,
                             model::Event &E, model::EventArgs &A) {
  E.Kind = Kind;
  E.Start = R.Start;
  E.Duration = R.End - R.Start;
  E.Name = Name;
  E.Correlation = R.Correlation;
  E.Lane = deviceLane(R.Pid, R.Device, R.Stream);
  A.Device = R.Device;
  A.Stream = R.Stream;
}

void NsysReader::addSyncEvent(const SyncRow &R, StringId Name) {
  model::Event D;
  model::EventArgs DA;
  deviceEvent(R.Row, EventKind::Sync, Name, D, DA);
  DA.Detail = Name;
  addEvent(D, &DA);
}

bool NsysReader::hostRow(const Statement &S, const HostColumns &C,
                         StringRef Table, StringRef NoThread, HostRow &R) {
  if (!times(S, C.Start, C.End, Table, R.Start, R.End))
    return false;
  std::optional<int64_t> Gtid = integer(S, C.Gtid);
  if (!Gtid) {
    place(ImportStat::UnusableRow, Table, NoThread);
    return false;
  }
  R.Gtid = *Gtid;
  return true;
}

model::Event NsysReader::hostEvent(const HostRow &R, EventKind Kind,
                                   StringId Name) {
  model::Event E;
  E.Kind = Kind;
  E.Start = R.Start;
  E.Duration = R.End - R.Start;
  E.Name = Name;
  E.Lane = hostLane(R.Gtid);
  return E;
}

void NsysReader::addEvent(model::Event &E, const model::EventArgs *A) {
  if (E.Duration == 0)
    B.stats().add(ImportStat::ZeroDuration);
  B.addEvent(E, A);
}

//===-- Tables ------------------------------------------------------------===//

llvm::Error NsysReader::readMetadata() {
  StringRef Table =
      Db.hasTable("META_DATA_EXPORT") ? "META_DATA_EXPORT" : "EXPORT_META_DATA";
  Column Key("name"), Value("value");
  return scan(Table, RowKind::Side, {&Key, &Value}, [&](const Statement &S) {
    StringRef K = S.text(Key.Index), V = S.text(Value.Index);
    if (K == "EXPORT_PRODUCT_VERSION")
      ProductVersion = printable(V);
    else if (K == "EXPORT_SCHEMA_VERSION")
      SchemaVersion = printable(V);
    else if (K == "EXPORT_INPUT_FILE" || K == "EXPORT_PARAM_INPUT_FILE")
      InputFile = V.str();
  });
}

llvm::Error NsysReader::readEnums() {
  // Reads ENUM table \p Table into \p Map when it exists and names at least
  // one known code; otherwise the built-in numbering stays.
  auto Load = [&](StringRef Table, auto &Map, bool &FromFile,
                  auto FromName) -> llvm::Error {
    using MapType = std::remove_reference_t<decltype(Map)>;
    MapType FileMap;
    Column Id("id"), Name("name");
    if (llvm::Error E =
            scan(Table, RowKind::Side, {&Id, &Name}, [&](const Statement &S) {
              int64_t Code;
              if (S.integer(Id.Index, Code) != Statement::Kind::Integer ||
                  !usableKey(Code))
                return;
              typename MapType::mapped_type V;
              if (FromName(S.text(Name.Index), V))
                FileMap[Code] = V;
            }))
      return E;
    if (!FileMap.empty()) {
      Map = std::move(FileMap);
      FromFile = true;
    }
    return llvm::Error::success();
  };
  if (llvm::Error E = Load("ENUM_CUDA_MEM_KIND", Codes.MemKind,
                           Codes.MemKindFromFile, memKindFromName))
    return E;
  if (llvm::Error E = Load("ENUM_CUDA_MEMCPY_OPER", Codes.CopyKind,
                           Codes.CopyKindFromFile, copyKindFromName))
    return E;
  if (llvm::Error E = Load("ENUM_CUPTI_SYNC_TYPE", Codes.Sync,
                           Codes.SyncFromFile, syncTypeFromName))
    return E;
  if (llvm::Error E = Load("ENUM_NSYS_EVENT_CLASS", Codes.EventClass,
                           Codes.EventClassFromFile, eventClassFromName))
    return E;
  return Load("ENUM_NSYS_EVENT_TYPE", Codes.Nvtx, Codes.NvtxFromFile,
              nvtxTypeFromName);
}

llvm::Error NsysReader::readSessionStart() {
  Column Ns("utcEpochNs");
  return scan(
      "TARGET_INFO_SESSION_START_TIME", RowKind::Side, {&Ns},
      [&](const Statement &S) {
        if (std::optional<int64_t> V = integer(S, Ns))
          B.setBaseTimeNs(*V);
      },
      "LIMIT 1");
}

llvm::Error NsysReader::readSystemEnv() {
  Column Name("name"), Value("value");
  return scan("TARGET_INFO_SYSTEM_ENV", RowKind::Side, {&Name, &Value},
              [&](const Statement &S) {
                if (S.text(Name.Index) == "CudaDriverVersion")
                  B.producer().CudaDriverVersion =
                      printable(S.text(Value.Index));
              });
}

llvm::Error NsysReader::readGpus() {
  // Early 2021 exports list the GPUs in TARGET_INFO_CUDA_GPU instead, under
  // the names of CUPTI's device record and keyed by the deviceId of the
  // activity tables (as nsys 2021.1's own reports join it; no such export is
  // in the corpus, so every column is optional there).
  bool Cuda =
      !Db.hasTable("TARGET_INFO_GPU") && Db.hasTable("TARGET_INFO_CUDA_GPU");
  StringRef Table = Cuda ? "TARGET_INFO_CUDA_GPU" : "TARGET_INFO_GPU";
  Column Id(Cuda ? "deviceId" : "id"), OtherId(Cuda ? "id" : ""), Name("name"),
      TotalMemory(Cuda ? "globalMemorySize" : "totalMemory"),
      SmCount(Cuda ? "numMultiprocessors" : "smCount"),
      ComputeMajor(Cuda ? "computeCapabilityMajor" : "computeMajor"),
      ComputeMinor(Cuda ? "computeCapabilityMinor" : "computeMinor"),
      ThreadsPerWarp(Cuda ? "numThreadsPerWarp" : "threadsPerWarp"),
      MaxWarpsPerSm(Cuda ? "maxWarpsPerMultiprocessor" : "maxWarpsPerSm");
  return scan(Table, RowKind::Side,
              {&Id, &OtherId, &Name, &TotalMemory, &SmCount, &ComputeMajor,
               &ComputeMinor, &ThreadsPerWarp, &MaxWarpsPerSm},
              [&](const Statement &S) {
                std::optional<int64_t> GpuId = integer(S, Id);
                if (!GpuId)
                  GpuId = integer(S, OtherId);
                if (!GpuId || *GpuId < 0 || *GpuId >= MaxDevice)
                  return;
                model::DeviceInfo D;
                D.Id = int32_t(*GpuId);
                D.Name = S.text(Name.Index).str();
                auto Small = [&](const Column &C) -> int32_t {
                  std::optional<int64_t> V = integer(S, C);
                  return V && *V >= 0 &&
                                 *V <= std::numeric_limits<int32_t>::max()
                             ? int32_t(*V)
                             : -1;
                };
                if (std::optional<int64_t> Mem = integer(S, TotalMemory))
                  D.TotalGlobalMemory = *Mem >= 0 ? *Mem : -1;
                D.NumSMs = Small(SmCount);
                D.ComputeMajor = Small(ComputeMajor);
                D.ComputeMinor = Small(ComputeMinor);
                D.WarpSize = Small(ThreadsPerWarp);
                int32_t Warps = Small(MaxWarpsPerSm);
                if (Warps > 0 && D.WarpSize > 0 &&
                    int64_t(Warps) * D.WarpSize < (1 << 30))
                  D.MaxThreadsPerMultiprocessor = Warps * D.WarpSize;
                // Every GPU of the node is listed, in any order; the first row
                // of an id wins.
                Gpus.try_emplace(*GpuId, std::move(D));
              });
}

llvm::Error NsysReader::readSyncRows() {
  Column Type("syncType");
  return scanDeviceRows(
      SyncTable, {&Type}, [&](const Statement &S, const DeviceRow &Row) {
        SyncRow R;
        R.Row = Row;
        R.Code = integer(S, Type).value_or(-1);
        if (Row.Correlation)
          SyncByCall[(uint64_t(Row.Pid) << 32) | Row.Correlation].push_back(
              uint32_t(SyncRows.size()));
        SyncRows.push_back(R);
      });
}

llvm::Error NsysReader::readApiCalls() {
  HostColumns H;
  Column Class("eventClass"), Correlation("correlationId"), NameId("nameId");
  return scan(
      ApiTable, RowKind::Event,
      {&H.Start, &H.End, &Class, &H.Gtid, &Correlation, &NameId},
      [&](const Statement &S) {
        std::optional<int64_t> ClassCode = integer(S, Class);
        ApiClass Api =
            ClassCode ? Codes.eventClass(*ClassCode) : ApiClass::Other;
        if (Api == ApiClass::Backtrace) {
          B.stats().add(ImportStat::DuplicateApiRows);
          return;
        }
        HostRow Row;
        if (!hostRow(S, H, ApiTable, "a call without a globalTid", Row))
          return;
        // Names repeat: normalise each name id once.
        ApiName Name;
        std::optional<int64_t> Id = integer(S, NameId);
        if (Id && usableKey(*Id)) {
          auto [It, Inserted] = ApiNames.try_emplace(*Id, ApiName());
          if (Inserted) {
            StringId Raw = stringById(*Id, ApiTable);
            StringRef Norm = normaliseApiName(B.strings().get(Raw));
            It->second.Name = B.strings().intern(Norm);
            It->second.Sync = syncTypeOfCall(Norm);
          }
          Name = It->second;
        } else {
          Name.Name = name(S, NameId, ApiTable);
        }
        StringRef NameText = B.strings().get(Name.Name);
        if (!ClassCode || Api == ApiClass::Other) {
          // No class we know: judge by the name, as nsys's own reports do.
          if (NameText.startswith("cuda"))
            Api = ApiClass::Runtime;
          else if (NameText.startswith("cu"))
            Api = ApiClass::Driver;
          else {
            place(ImportStat::UnmodelledRows, ApiTable,
                  llvm::formatv("eventClass {0}", ClassCode.value_or(-1)));
            return;
          }
        }
        model::Event E = hostEvent(Row,
                                   Api == ApiClass::Runtime ? EventKind::Runtime
                                                            : EventKind::Driver,
                                   Name.Name);
        E.Correlation = correlation(S, Correlation);

        // A synchronisation call: name its kind, and emit the device-side
        // record (Kineto's cuda_sync) on the stream it waited for.
        SyncType Kind = Name.Sync;
        llvm::SmallVector<uint32_t, 1> *Rows = nullptr;
        if (E.Correlation && !SyncRows.empty()) {
          auto It = SyncByCall.find((uint64_t(pidOfGlobalId(Row.Gtid)) << 32) |
                                    E.Correlation);
          if (It != SyncByCall.end())
            Rows = &It->second;
        }
        if (Rows) {
          for (uint32_t Idx : *Rows) {
            SyncRow &R = SyncRows[Idx];
            SyncType FromRow = Codes.sync(R.Code);
            if (Kind == SyncType::Unknown)
              Kind = FromRow;
            else if (FromRow != Kind && FromRow != SyncType::Unknown)
              place(
                  ImportStat::SyncTypeMismatch, SyncTable,
                  llvm::formatv("correlationId {0}: syncType {1} ({2}) for {3}",
                                R.Row.Correlation, R.Code,
                                syncTypeName(FromRow), NameText));
          }
        }
        if (Kind == SyncType::Unknown && !Rows) {
          addEvent(E);
          return;
        }
        model::EventArgs A;
        A.Detail = B.strings().intern(syncTypeName(Kind));
        addEvent(E, &A);
        for (uint32_t Idx : Rows ? llvm::ArrayRef<uint32_t>(*Rows)
                                 : llvm::ArrayRef<uint32_t>()) {
          SyncRows[Idx].Used = true;
          addSyncEvent(SyncRows[Idx], A.Detail);
        }
      });
}

// Sync records whose call was not recorded keep the type the row gives.
void NsysReader::addUnmatchedSyncs() {
  for (const SyncRow &R : SyncRows)
    if (!R.Used)
      addSyncEvent(R, B.strings().intern(syncTypeName(Codes.sync(R.Code))));
}

llvm::Error NsysReader::readKernels() {
  llvm::DenseMap<StringId, bool> IsCollective;
  Column Demangled("demangledName"), Short("shortName"), Mangled("mangledName"),
      Grid[] = {{"gridX"}, {"gridY"}, {"gridZ"}},
      Block[] = {{"blockX"}, {"blockY"}, {"blockZ"}},
      Registers("registersPerThread"), StaticShared("staticSharedMemory"),
      DynamicShared("dynamicSharedMemory");
  return scanDeviceRows(
      KernelTable,
      {&Demangled, &Short, &Mangled, &Grid[0], &Grid[1], &Grid[2], &Block[0],
       &Block[1], &Block[2], &Registers, &StaticShared, &DynamicShared},
      [&](const Statement &S, const DeviceRow &Row) {
        auto Small = [&](const Column &C) -> int32_t {
          std::optional<int64_t> V = integer(S, C);
          if (!V)
            return -1;
          if (*V < 0 || *V > std::numeric_limits<int32_t>::max()) {
            B.stats().add(ImportStat::BadValue);
            return -1;
          }
          return int32_t(*V);
        };
        // The demangled name is what Kineto shows; the short name drops the
        // template arguments.
        StringId Name =
            firstName(S, {&Demangled, &Short, &Mangled}, KernelTable);
        auto [It, Inserted] = IsCollective.try_emplace(Name, false);
        if (Inserted)
          It->second = Opts.names().matches(
              B.strings().get(Name), model::NameClass::CommunicationKernel);
        model::Event E;
        model::EventArgs A;
        deviceEvent(Row, It->second ? EventKind::Collective : EventKind::Kernel,
                    Name, E, A);
        for (int I = 0; I < 3; ++I) {
          A.Grid[I] = std::max(Small(Grid[I]), 0);
          A.Block[I] = std::max(Small(Block[I]), 0);
        }
        A.RegistersPerThread = Small(Registers);
        int32_t Static = Small(StaticShared), Dynamic = Small(DynamicShared);
        if (Static >= 0 || Dynamic >= 0)
          A.SharedMemory = std::max(Static, 0) + std::max(Dynamic, 0);
        // Kineto's "blocks per SM" and "warps per SM", from the GPU's SM
        // count.
        auto Gpu = Gpus.find(Row.Device);
        if (Gpu != Gpus.end() && Gpu->second.NumSMs > 0) {
          double Blocks = double(A.Grid[0]) * A.Grid[1] * A.Grid[2];
          double Threads = double(A.Block[0]) * A.Block[1] * A.Block[2];
          A.BlocksPerSM = float(Blocks / Gpu->second.NumSMs);
          A.WarpsPerSM = float(A.BlocksPerSM * Threads / 32.0);
        }
        addEvent(E, &A);
      });
}

llvm::Error NsysReader::readMemcpys() {
  Column Bytes("bytes"), Copy("copyKind"), Src("srcKind"), Dst("dstKind"),
      Cause("migrationCause");
  llvm::DenseMap<int64_t, StringId> Causes;
  return scanDeviceRows(
      MemcpyTable, {&Bytes, &Copy, &Src, &Dst, &Cause},
      [&](const Statement &S, const DeviceRow &Row) {
        model::EventArgs A;
        A.Bytes = byteCount(S, Bytes);
        std::optional<int64_t> CopyNum = integer(S, Copy),
                               SrcCode = integer(S, Src),
                               DstCode = integer(S, Dst);
        CopyCode Kind = CopyNum ? Codes.copyKind(*CopyNum) : CopyCode();
        A.Copy = Kind.Kind;
        A.Src = SrcCode ? Codes.memKind(*SrcCode) : model::MemoryKind::Unknown;
        A.Dst = DstCode ? Codes.memKind(*DstCode) : model::MemoryKind::Unknown;
        if (Kind.Migration) {
          // A page migration: the driver's, after a fault or a prefetch, not
          // a copy that a host call put on a stream.
          auto [Name, New] =
              MigrationNames.try_emplace(uint64_t(A.Copy), model::EmptyString);
          if (New)
            Name->second =
                B.strings().intern(("Migration " + copyLabel(A.Copy)).str());
          std::optional<int64_t> Why = integer(S, Cause);
          if (Why && usableKey(*Why)) {
            auto [It, First] = Causes.try_emplace(*Why, model::EmptyString);
            if (First && !migrationCauseName(*Why).empty())
              It->second = B.strings().intern(migrationCauseName(*Why));
            A.Detail = It->second;
          }
          model::Event E;
          E.Kind = EventKind::Migration;
          E.Start = Row.Start;
          E.Duration = Row.End - Row.Start;
          E.Name = Name->second;
          E.Correlation = Row.Correlation;
          E.Lane = unifiedMemoryLane(Row.Pid, Row.Device);
          A.Device = Row.Device;
          A.Stream = Row.Stream;
          addEvent(E, &A);
          return;
        }
        // Name copies as Kineto does: "Memcpy HtoD (Pageable -> Device)".
        uint64_t Key =
            (uint64_t(A.Copy) << 16) | (uint64_t(A.Src) << 8) | uint64_t(A.Dst);
        auto [It, Inserted] = CopyNames.try_emplace(Key, model::EmptyString);
        if (Inserted)
          It->second = B.strings().intern(
              llvm::formatv("Memcpy {0} ({1} -> {2})", copyLabel(A.Copy),
                            memoryLabel(A.Src), memoryLabel(A.Dst))
                  .str());
        model::Event E;
        deviceEvent(Row, EventKind::Memcpy, It->second, E, A);
        addEvent(E, &A);
      });
}

llvm::Error NsysReader::readMemsets() {
  Column Bytes("bytes"), Kind("memKind");
  return scanDeviceRows(
      MemsetTable, {&Bytes, &Kind},
      [&](const Statement &S, const DeviceRow &Row) {
        model::EventArgs A;
        A.Bytes = byteCount(S, Bytes);
        std::optional<int64_t> KindCode = integer(S, Kind);
        A.Dst =
            KindCode ? Codes.memKind(*KindCode) : model::MemoryKind::Unknown;
        auto [It, Inserted] = MemsetNames.try_emplace(uint64_t(A.Dst), 0);
        if (Inserted)
          It->second = B.strings().intern(
              llvm::formatv("Memset ({0})", memoryLabel(A.Dst)).str());
        model::Event E;
        deviceEvent(Row, EventKind::Memset, It->second, E, A);
        addEvent(E, &A);
      });
}

// Unified-memory page faults (nsys --cuda-um-gpu-page-faults and
// --cuda-um-cpu-page-faults) are markers on the unified-memory lanes: the
// instant a GPU fault group or a CPU fault was taken. A GPU row's span (the
// fault group's servicing) and its fault count and access type are not
// modelled.
llvm::Error NsysReader::readPageFaults() {
  StringId GpuName = model::EmptyString, CpuName = model::EmptyString;
  auto Fault = [&](int64_t Start, int64_t Pid, int32_t Device, StringId &Name) {
    if (Name == model::EmptyString)
      Name =
          B.strings().intern(Device >= 0 ? "GPU page fault" : "CPU page fault");
    LastTime = std::max(LastTime, Start);
    model::Event E;
    E.Kind = EventKind::Marker;
    E.Flags |= model::FlagInstant;
    E.Start = Start;
    E.Name = Name;
    E.Lane = unifiedMemoryLane(Pid, Device);
    model::EventArgs A;
    A.Device = Device;
    B.stats().add(ImportStat::InstantEvents);
    B.addEvent(E, Device >= 0 ? &A : nullptr);
  };
  {
    Column Start("start", Column::Required), Pid("globalPid"),
        Device("deviceId", Column::Required);
    if (llvm::Error E = scan(GpuFaultTable, RowKind::Event,
                             {&Start, &Pid, &Device}, [&](const Statement &S) {
                               std::optional<int64_t> At = integer(S, Start),
                                                      D = integer(S, Device);
                               if (!At || !D || *D < 0 || *D >= MaxDevice) {
                                 place(ImportStat::UnusableRow, GpuFaultTable,
                                       !At ? "a row without a start time"
                                           : "a row without a valid deviceId");
                                 return;
                               }
                               Fault(*At,
                                     pidOfGlobalId(integer(S, Pid).value_or(0)),
                                     int32_t(*D), GpuName);
                             }))
      return E;
  }
  Column Start("start", Column::Required), Pid("globalPid");
  return scan(
      CpuFaultTable, RowKind::Event, {&Start, &Pid}, [&](const Statement &S) {
        std::optional<int64_t> At = integer(S, Start);
        if (!At) {
          place(ImportStat::UnusableRow, CpuFaultTable,
                "a row without a start time");
          return;
        }
        Fault(*At, pidOfGlobalId(integer(S, Pid).value_or(0)), -1, CpuName);
      });
}

llvm::Error NsysReader::readNvtx() {
  if (!Db.hasTable(NvtxTable))
    return llvm::Error::success();
  // Both scans read these; each sets the indices for its own statement.
  Column Start("start", Column::Required), End("end"),
      Type("eventType", Column::Required), Text("text"), TextId("textId"),
      Gtid("globalTid", Column::Required), Domain("domainId");

  // Domain names first: nvtxDomainCreate rows name a domain id within their
  // process.
  llvm::DenseMap<uint64_t, StringId> Domains;
  std::string DomainTypes;
  for (auto &Entry : Codes.Nvtx)
    if (Entry.second == NvtxType::DomainName)
      DomainTypes +=
          (DomainTypes.empty() ? "" : ", ") + std::to_string(Entry.first);
  if (!DomainTypes.empty()) {
    // eventType is selected only so that a table without it gets the
    // missing-column error rather than SQLite's.
    if (llvm::Error E = scan(
            NvtxTable, RowKind::Side, {&Gtid, &Domain, &Text, &TextId, &Type},
            [&](const Statement &S) {
              std::optional<int64_t> G = integer(S, Gtid),
                                     Dom = integer(S, Domain);
              if (!G || !Dom || *Dom < 0 || *Dom > MaxStream)
                return;
              Domains[(uint64_t(pidOfGlobalId(*G)) << 32) | uint64_t(*Dom)] =
                  firstName(S, {&Text, &TextId}, NvtxTable);
            },
            "WHERE eventType IN (" + DomainTypes + ")"))
      return E;
  }

  StringId Unnamed = model::EmptyString;
  return scan(
      NvtxTable, RowKind::Event,
      {&Start, &End, &Type, &Text, &TextId, &Gtid, &Domain},
      [&](const Statement &S) {
        std::optional<int64_t> TypeCode = integer(S, Type);
        NvtxType T = TypeCode ? Codes.nvtx(*TypeCode) : NvtxType::Unknown;
        if (T == NvtxType::DomainName)
          return;
        if (T == NvtxType::Metadata || T == NvtxType::Unknown) {
          place(ImportStat::UnmodelledRows, NvtxTable,
                llvm::formatv("eventType {0}", TypeCode.value_or(-1)));
          return;
        }
        std::optional<int64_t> From = integer(S, Start), To = integer(S, End),
                               G = integer(S, Gtid);
        if (!From || !G) {
          place(ImportStat::UnusableRow, NvtxTable,
                !From ? "a row without a start time"
                      : "a row without a thread");
          return;
        }
        LastTime = std::max(LastTime, *From);
        if (To)
          LastTime = std::max(LastTime, *To);
        // The message is inline text or a registered string (textId).
        StringId Name = firstName(S, {&Text, &TextId}, NvtxTable);
        if (Name == model::EmptyString) {
          if (Unnamed == model::EmptyString)
            Unnamed = B.strings().intern("<unnamed NVTX range>");
          Name = Unnamed;
        }
        model::Event E;
        E.Kind =
            T == NvtxType::Mark ? EventKind::Marker : EventKind::Annotation;
        E.Start = *From;
        E.Name = Name;
        E.Lane = hostLane(*G);
        model::EventArgs A;
        bool HasArgs = false;
        std::optional<int64_t> Dom = integer(S, Domain);
        if (Dom && *Dom != 0 && *Dom > 0 && *Dom <= MaxStream) {
          auto It = Domains.find((uint64_t(pidOfGlobalId(*G)) << 32) |
                                 uint64_t(*Dom));
          A.Detail = It != Domains.end()
                         ? It->second
                         : B.strings().intern(
                               llvm::formatv("NVTX domain {0}", *Dom).str());
          HasArgs = true;
        }
        if (T == NvtxType::Mark) {
          E.Flags |= model::FlagInstant;
          B.stats().add(ImportStat::InstantEvents);
          B.addEvent(E, HasArgs ? &A : nullptr);
          return;
        }
        if (!To) {
          // Never closed (the capture ended first): closed once the last
          // time of the export is known.
          E.Flags |= model::FlagUnclosed;
          Unclosed.emplace_back(E, HasArgs ? A.Detail : model::EmptyString);
          return;
        }
        E.Duration = *To - *From;
        addEvent(E, HasArgs ? &A : nullptr);
      });
}

llvm::Error NsysReader::readOsRuntime() {
  HostColumns H;
  Column Name("nameId");
  return scan(
      OsrtTable, RowKind::Event, {&H.Start, &H.End, &H.Gtid, &Name},
      [&](const Statement &S) {
        HostRow Row;
        if (!hostRow(S, H, OsrtTable, "a call without a globalTid", Row))
          return;
        model::Event E =
            hostEvent(Row, EventKind::OsRuntime, name(S, Name, OsrtTable));
        addEvent(E);
      });
}

llvm::Error NsysReader::readOverhead() {
  if (!Db.hasTable(OverheadTable))
    return llvm::Error::success();
  // nsys 2025.6 names overhead by an overheadType code instead of a string.
  llvm::DenseMap<int64_t, StringId> TypeNames;
  Column Id("id"), Label("label");
  if (llvm::Error E =
          scan("ENUM_CUPTI_OVERHEAD_TYPE", RowKind::Side, {&Id, &Label},
               [&](const Statement &S) {
                 int64_t Code;
                 if (S.integer(Id.Index, Code) == Statement::Kind::Integer &&
                     usableKey(Code))
                   TypeNames[Code] = B.strings().intern(S.text(Label.Index));
               }))
    return E;

  HostColumns H;
  Column NameId("nameId"), Type("overheadType");
  return scan(
      OverheadTable, RowKind::Event,
      {&H.Start, &H.End, &H.Gtid, &NameId, &Type}, [&](const Statement &S) {
        HostRow Row;
        if (!hostRow(S, H, OverheadTable, "a row without a globalTid", Row))
          return;
        StringId Name = name(S, NameId, OverheadTable);
        if (Name == model::EmptyString) {
          std::optional<int64_t> Code = integer(S, Type);
          auto It = Code && usableKey(*Code) ? TypeNames.find(*Code)
                                             : TypeNames.end();
          Name = It != TypeNames.end()
                     ? It->second
                     : B.strings().intern("profiler overhead");
        }
        model::Event E = hostEvent(Row, EventKind::Overhead, Name);
        addEvent(E);
      });
}

llvm::Error NsysReader::readThreadAndProcessNames() {
  if (!HostLanes.empty()) {
    Column Gtid("globalTid"), Name("nameId"), Priority("priority");
    llvm::DenseMap<uint32_t, int64_t> Priorities;
    if (llvm::Error E =
            scan("ThreadNames", RowKind::Side, {&Gtid, &Name, &Priority},
                 [&](const Statement &S) {
                   std::optional<int64_t> G = integer(S, Gtid);
                   if (!G)
                     return;
                   int64_t Key = (pidOfGlobalId(*G) << 24) | tidOfGlobalId(*G);
                   auto Lane = HostLanes.find(Key);
                   if (Lane == HostLanes.end())
                     return;
                   // A thread may be named more than once; the highest priority
                   // wins.
                   int64_t Prio = integer(S, Priority).value_or(0);
                   auto [It, Inserted] =
                       Priorities.try_emplace(Lane->second, Prio);
                   if (!Inserted && Prio < It->second)
                     return;
                   It->second = Prio;
                   StringId N = name(S, Name, "ThreadNames");
                   B.setLaneName(Lane->second, B.strings().get(N));
                 }))
      return E;
  }
  if (Pids.empty())
    return llvm::Error::success();
  Column Pid("pid"), Gpid("globalPid"), Name("name");
  return scan("PROCESSES", RowKind::Side, {&Pid, &Gpid, &Name},
              [&](const Statement &S) {
                std::optional<int64_t> P = integer(S, Pid);
                if (!P)
                  if (std::optional<int64_t> G = integer(S, Gpid))
                    P = pidOfGlobalId(*G);
                if (!P || !Pids.count(*P) || S.text(Name.Index).empty())
                  return;
                B.setProcessName(*P, S.text(Name.Index));
              });
}

// Only the GPUs that did something are listed, unless none did.
void NsysReader::addDevices() {
  for (auto &[Id, D] : Gpus)
    if (UsedDevices.empty() || UsedDevices.count(int32_t(Id)))
      B.devices().push_back(D);
}

Expected<model::Trace> NsysReader::read() {
  if (llvm::Error E = readMetadata())
    return E;
  if (llvm::Error E = readEnums())
    return E;
  if (llvm::Error E = readSessionStart())
    return E;
  if (llvm::Error E = readSystemEnv())
    return E;
  if (llvm::Error E = readGpus())
    return E;

  // Reserve once for every row. TraceBuilder::reserve(N) sets aside room for
  // N events and N / 3 argument records; here every device row has one, so
  // ask for at least three times the device rows (reserved pages that are
  // never written cost no memory).
  uint64_t Rows = 0, DeviceRows = 0;
  for (StringRef T :
       {KernelTable, MemcpyTable, MemsetTable, SyncTable, ApiTable, NvtxTable,
        OsrtTable, OverheadTable, GpuFaultTable, CpuFaultTable}) {
    uint64_t N = Db.hasTable(T) ? Db.rowEstimate(T) : 0;
    Rows += N;
    if (T == KernelTable || T == MemcpyTable || T == MemsetTable ||
        T == SyncTable)
      DeviceRows += N;
  }
  uint64_t Reserve = std::max(Rows, 3 * DeviceRows);
  if (Opts.MaxEvents)
    Reserve = std::min<uint64_t>(Reserve, 3 * (Opts.MaxEvents + 1));
  B.reserve(size_t(std::min<uint64_t>(Reserve, uint64_t(1) << 32)));

  if (llvm::Error E = readSyncRows())
    return E;
  if (llvm::Error E = readApiCalls())
    return E;
  if (llvm::Error E = readKernels())
    return E;
  if (llvm::Error E = readMemcpys())
    return E;
  if (llvm::Error E = readMemsets())
    return E;
  if (llvm::Error E = readPageFaults())
    return E;
  addUnmatchedSyncs();
  if (llvm::Error E = readNvtx())
    return E;
  if (llvm::Error E = readOsRuntime())
    return E;
  if (llvm::Error E = readOverhead())
    return E;
  for (auto &[E, Domain] : Unclosed) {
    E.Duration = std::max<int64_t>(0, LastTime - E.Start);
    B.stats().add(ImportStat::UnclosedRange);
    model::EventArgs A;
    A.Detail = Domain;
    B.addEvent(E, Domain != model::EmptyString ? &A : nullptr);
  }
  if (llvm::Error E = readThreadAndProcessNames())
    return E;
  addDevices();
  if (llvm::Error E = checkLimits(Opts, B.numEvents(), B.estimatedPeakBytes(),
                                  Db.path(), "at the end"))
    return E;

  model::Producer &P = B.producer();
  P.Format = "nsys-sqlite";
  // Exports from before nsys recorded export metadata say nothing of their
  // version; their era is all that the tables tell.
  if (ProductVersion.empty() && !unversionedEraName(Era).empty())
    P.Era = unversionedEraName(Era).str();
  else
    P.Era = "nsys " + (ProductVersion.empty()
                           ? std::string("(version not recorded)")
                           : ProductVersion);
  if (!SchemaVersion.empty())
    P.Era += ", export schema " + SchemaVersion;
  P.TraceName = InputFile;
  return B.finish();
}

} // namespace

static Expected<model::Trace> importDatabase(Expected<Database> Db,
                                             const ImportOptions &Opts) {
  if (!Db)
    return Db.takeError();
  std::optional<ExportEra> Era = exportEraOf(Db->tables());
  if (!Era)
    return Db->fail("", describeOtherDatabase(Db->tables()));
  NsysReader Reader(*Db, Opts, *Era);
  return Reader.read();
}

Expected<model::Trace>
tracelint::import::importNsysExport(StringRef Path, const ImportOptions &Opts) {
  return importDatabase(Database::open(Path), Opts);
}

Expected<model::Trace>
tracelint::import::importNsysExportBytes(StringRef Name, StringRef Bytes,
                                         const ImportOptions &Opts) {
  return importDatabase(Database::openImage(Name, Bytes), Opts);
}
