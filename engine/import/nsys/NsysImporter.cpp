//===- import/nsys/NsysImporter.cpp ---------------------------------------===//
//
// One pass per table, in an order that lets each table find what it needs:
// metadata, ENUM tables, the session start and the GPUs first; then the
// synchronisation records (kept in memory: they are few), so that the API
// calls can be read next and each sync call emitted with its record; then
// the device activity, NVTX, OS runtime calls and profiler overhead; last
// the names of the threads and processes that were seen.
//
// Every table is optional: nsys creates tables lazily, so a missing table
// means that nothing of that kind was recorded. Columns are looked up with
// PRAGMA table_info and a column that a version lacks is selected as NULL,
// so one query text serves every schema from 2022.2 to 2025.x.
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

/// The select list for \p Wanted: present columns by name, absent ones as
/// NULL, so that column I of every row is Wanted[I] whatever the version.
std::string selectList(const llvm::StringSet<> &Have,
                       llvm::ArrayRef<StringRef> Wanted) {
  std::string S;
  for (StringRef C : Wanted) {
    if (!S.empty())
      S += ", ";
    S += Have.count(C) ? quoteIdentifier(C) : std::string("NULL");
  }
  return S;
}

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
         "the tables StringIds and EXPORT_META_DATA (nsys 2023 and older) or "
         "META_DATA_EXPORT; found " +
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
  NsysReader(Database &Db, const ImportOptions &Opts) : Db(Db), Opts(Opts) {}
  ~NsysReader() { llvm::consumeError(std::move(Pending)); }

  Expected<model::Trace> read();

private:
  struct SyncRow {
    int64_t Start, End, Pid, Stream, Code;
    int32_t Device;
    uint32_t Correlation;
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
  void addUnmatchedSyncs();
  llvm::Error readNvtx();
  llvm::Error readOsRuntime();
  llvm::Error readOverhead();
  llvm::Error readThreadAndProcessNames();
  void addDevices();

  /// Prepares "SELECT <Wanted> FROM Table [Tail]".
  Expected<Statement> select(StringRef Table, llvm::ArrayRef<StringRef> Wanted,
                             StringRef Tail = "");
  /// Called for every row: counts it and enforces --max-events.
  llvm::Error rowRead(StringRef Table);
  /// The error that ended a scan, or one deferred from a name lookup.
  llvm::Error finishScan(Statement &S);

  /// Integer column \p Col, or nullopt for NULL; a non-integer is counted.
  std::optional<int64_t> integer(const Statement &S, int Col) {
    int64_t V;
    Statement::Kind K = S.integer(Col, V);
    if (LLVM_LIKELY(K == Statement::Kind::Integer))
      return V;
    if (K == Statement::Kind::Other)
      B.stats().add(ImportStat::BadValue);
    return std::nullopt;
  }
  /// A name column: an id into StringIds or, in some versions, inline text.
  StringId name(const Statement &S, int Col, StringRef Table);
  StringId stringById(int64_t Id, StringRef Table);
  /// A correlation id the model can hold (0 = none).
  uint32_t correlation(const Statement &S, int Col);
  /// Start and end of a row; false (counted) when unusable.
  bool times(const Statement &S, int StartCol, int EndCol, StringRef Table,
             int64_t &Start, int64_t &End);

  uint32_t hostLane(int64_t GlobalTid);
  uint32_t deviceLane(int64_t Pid, int32_t Device, int64_t Stream);
  /// Device and stream of a row; false (counted) when the device is unusable.
  bool deviceAndStream(const Statement &S, int DevCol, int StreamCol,
                       StringRef Table, int32_t &Device, int64_t &Stream);

  /// The columns every device-work table (kernels, copies, memsets,
  /// synchronisation) starts with; a reader's own columns follow from
  /// column DeviceRow::Columns on.
  struct DeviceRow {
    static constexpr int Columns = 6;
    int64_t Start = 0, End = 0, Pid = 0, Stream = -1;
    int32_t Device = 0;
    uint32_t Correlation = 0;
  };
  /// Calls \p Body(Statement, DeviceRow) for each usable row of "SELECT
  /// start, end, deviceId, streamId, correlationId, globalPid, <Own> FROM
  /// Table"; a missing table has no rows.
  template <typename RowFn>
  llvm::Error scanDeviceRows(StringRef Table, llvm::ArrayRef<StringRef> Own,
                             RowFn Body) {
    if (!Db.hasTable(Table))
      return llvm::Error::success();
    llvm::SmallVector<StringRef, 24> Wanted = {
        "start", "end", "deviceId", "streamId", "correlationId", "globalPid"};
    static_assert(DeviceRow::Columns == 6, "the list above");
    Wanted.append(Own.begin(), Own.end());
    auto S = select(Table, Wanted);
    if (!S)
      return S.takeError();
    while (S->step()) {
      if (llvm::Error E = rowRead(Table))
        return E;
      DeviceRow Row;
      if (deviceRow(*S, Table, Row))
        Body(*S, Row);
    }
    return finishScan(*S);
  }
  /// Reads the leading columns; false (counted) when the row is unusable.
  bool deviceRow(const Statement &S, StringRef Table, DeviceRow &R);
  /// An event of \p Kind on the row's device lane, and its device and stream.
  void deviceEvent(const DeviceRow &R, EventKind Kind, StringId Name,
                   model::Event &E, model::EventArgs &A);
  /// A byte count, or -1 when absent or negative.
  int64_t byteCount(const Statement &S, int Col) {
    std::optional<int64_t> Bytes = integer(S, Col);
    return Bytes && *Bytes >= 0 ? *Bytes : -1;
  }
  void place(ImportStat Stat, StringRef Table, const llvm::Twine &What);
  void addEvent(model::Event &E, const model::EventArgs *A = nullptr);

  Database &Db;
  const ImportOptions &Opts;
  model::TraceBuilder B;
  Enums Codes = Enums::builtin();
  llvm::Error Pending = llvm::Error::success();
  uint64_t RowsSinceCheck = 0;

  std::string ProductVersion, SchemaVersion, InputFile;
  Statement StringLookup;
  bool HaveStringLookup = false;
  llvm::DenseMap<int64_t, StringId> Strings;
  llvm::DenseMap<int64_t, ApiName> ApiNames;
  llvm::DenseMap<int64_t, uint32_t> HostLanes; ///< by pid << 24 | tid
  llvm::DenseMap<std::pair<uint64_t, uint64_t>, uint32_t> DeviceLanes;
  llvm::DenseSet<int64_t> Pids;
  std::set<int32_t> UsedDevices;
  std::map<int64_t, model::DeviceInfo> Gpus;

  std::vector<SyncRow> SyncRows;
  llvm::DenseMap<uint64_t, llvm::SmallVector<uint32_t, 1>> SyncByCall;
  llvm::DenseMap<uint64_t, StringId> CopyNames, MemsetNames;

  /// NVTX ranges without an end, closed at the last time seen.
  std::vector<std::pair<model::Event, StringId>> Unclosed;
  int64_t LastTime = std::numeric_limits<int64_t>::min();
};

Expected<Statement> NsysReader::select(StringRef Table,
                                       llvm::ArrayRef<StringRef> Wanted,
                                       StringRef Tail) {
  auto Columns = Db.columns(Table);
  if (!Columns)
    return Columns.takeError();
  std::string Sql = "SELECT " + selectList(*Columns, Wanted) + " FROM " +
                    quoteIdentifier(Table);
  if (!Tail.empty())
    Sql += " " + Tail.str();
  return Db.prepare(Sql, Table);
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

StringId NsysReader::name(const Statement &S, int Col, StringRef Table) {
  int64_t Id;
  switch (S.integer(Col, Id)) {
  case Statement::Kind::Integer:
    return stringById(Id, Table);
  case Statement::Kind::Null:
    return model::EmptyString;
  case Statement::Kind::Other:
    break;
  }
  return B.strings().intern(S.text(Col));
}

uint32_t NsysReader::correlation(const Statement &S, int Col) {
  std::optional<int64_t> C = integer(S, Col);
  if (!C || *C == 0)
    return 0;
  if (*C < 0 || *C > int64_t(std::numeric_limits<uint32_t>::max())) {
    B.stats().add(ImportStat::BadValue);
    return 0;
  }
  return uint32_t(*C);
}

bool NsysReader::times(const Statement &S, int StartCol, int EndCol,
                       StringRef Table, int64_t &Start, int64_t &End) {
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

bool NsysReader::deviceAndStream(const Statement &S, int DevCol, int StreamCol,
                                 StringRef Table, int32_t &Device,
                                 int64_t &Stream) {
  std::optional<int64_t> D = integer(S, DevCol);
  if (!D || *D < 0 || *D >= MaxDevice) {
    place(ImportStat::UnusableRow, Table,
          D ? llvm::formatv("deviceId {0} out of range", *D).str()
            : std::string("a row without a deviceId"));
    return false;
  }
  Device = int32_t(*D);
  std::optional<int64_t> St = integer(S, StreamCol);
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

bool NsysReader::deviceRow(const Statement &S, StringRef Table, DeviceRow &R) {
  if (!times(S, 0, 1, Table, R.Start, R.End) ||
      !deviceAndStream(S, 2, 3, Table, R.Device, R.Stream))
    return false;
  R.Correlation = correlation(S, 4);
  R.Pid = pidOfGlobalId(integer(S, 5).value_or(0));
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

void NsysReader::addEvent(model::Event &E, const model::EventArgs *A) {
  if (E.Duration == 0)
    B.stats().add(ImportStat::ZeroDuration);
  B.addEvent(E, A);
}

//===-- Tables ------------------------------------------------------------===//

llvm::Error NsysReader::readMetadata() {
  StringRef Table =
      Db.hasTable("META_DATA_EXPORT") ? "META_DATA_EXPORT" : "EXPORT_META_DATA";
  auto S = select(Table, {"name", "value"});
  if (!S)
    return S.takeError();
  while (S->step()) {
    StringRef Key = S->text(0), Value = S->text(1);
    if (Key == "EXPORT_PRODUCT_VERSION")
      ProductVersion = printable(Value);
    else if (Key == "EXPORT_SCHEMA_VERSION")
      SchemaVersion = printable(Value);
    else if (Key == "EXPORT_INPUT_FILE" || Key == "EXPORT_PARAM_INPUT_FILE")
      InputFile = Value.str();
  }
  return S->error();
}

llvm::Error NsysReader::readEnums() {
  // Reads ENUM table \p Table into \p Map when it exists and names at least
  // one known code; otherwise the built-in numbering stays.
  auto Load = [&](StringRef Table, auto &Map, bool &FromFile,
                  auto FromName) -> llvm::Error {
    if (!Db.hasTable(Table))
      return llvm::Error::success();
    auto S = select(Table, {"id", "name"});
    if (!S)
      return S.takeError();
    std::remove_reference_t<decltype(Map)> FileMap;
    while (S->step()) {
      int64_t Code;
      if (S->integer(0, Code) != Statement::Kind::Integer || !usableKey(Code))
        continue;
      typename std::remove_reference_t<decltype(Map)>::mapped_type V;
      if (FromName(S->text(1), V))
        FileMap[Code] = V;
    }
    if (llvm::Error E = S->error())
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
  StringRef Table = "TARGET_INFO_SESSION_START_TIME";
  if (!Db.hasTable(Table))
    return llvm::Error::success();
  auto S = select(Table, {"utcEpochNs"});
  if (!S)
    return S.takeError();
  if (S->step()) {
    if (std::optional<int64_t> Ns = integer(*S, 0))
      B.setBaseTimeNs(*Ns);
  }
  return S->error();
}

llvm::Error NsysReader::readSystemEnv() {
  StringRef Table = "TARGET_INFO_SYSTEM_ENV";
  if (!Db.hasTable(Table))
    return llvm::Error::success();
  auto S = select(Table, {"name", "value"});
  if (!S)
    return S.takeError();
  while (S->step())
    if (S->text(0) == "CudaDriverVersion")
      B.producer().CudaDriverVersion = printable(S->text(1));
  return S->error();
}

llvm::Error NsysReader::readGpus() {
  StringRef Table = "TARGET_INFO_GPU";
  if (!Db.hasTable(Table))
    return llvm::Error::success();
  auto S =
      select(Table, {"id", "name", "totalMemory", "smCount", "computeMajor",
                     "computeMinor", "threadsPerWarp", "maxWarpsPerSm"});
  if (!S)
    return S.takeError();
  while (S->step()) {
    std::optional<int64_t> Id = integer(*S, 0);
    if (!Id || *Id < 0 || *Id >= MaxDevice)
      continue;
    model::DeviceInfo D;
    D.Id = int32_t(*Id);
    D.Name = S->text(1).str();
    auto Small = [&](int Col) -> int32_t {
      std::optional<int64_t> V = integer(*S, Col);
      return V && *V >= 0 && *V <= std::numeric_limits<int32_t>::max()
                 ? int32_t(*V)
                 : -1;
    };
    if (std::optional<int64_t> Mem = integer(*S, 2))
      D.TotalGlobalMemory = *Mem >= 0 ? *Mem : -1;
    D.NumSMs = Small(3);
    D.ComputeMajor = Small(4);
    D.ComputeMinor = Small(5);
    D.WarpSize = Small(6);
    int32_t Warps = Small(7);
    if (Warps > 0 && D.WarpSize > 0 && int64_t(Warps) * D.WarpSize < (1 << 30))
      D.MaxThreadsPerMultiprocessor = Warps * D.WarpSize;
    // Every GPU of the node is listed, in any order; the first row of an id
    // wins.
    Gpus.try_emplace(*Id, std::move(D));
  }
  return S->error();
}

llvm::Error NsysReader::readSyncRows() {
  return scanDeviceRows(
      SyncTable, {"syncType"}, [&](const Statement &S, const DeviceRow &Row) {
        SyncRow R;
        R.Start = Row.Start;
        R.End = Row.End;
        R.Device = Row.Device;
        R.Stream = Row.Stream;
        R.Correlation = Row.Correlation;
        R.Pid = Row.Pid;
        R.Code = integer(S, 6).value_or(-1);
        if (R.Correlation)
          SyncByCall[(uint64_t(R.Pid) << 32) | R.Correlation].push_back(
              uint32_t(SyncRows.size()));
        SyncRows.push_back(R);
      });
}

llvm::Error NsysReader::readApiCalls() {
  if (!Db.hasTable(ApiTable))
    return llvm::Error::success();
  auto S = select(ApiTable, {"start", "end", "eventClass", "globalTid",
                             "correlationId", "nameId"});
  if (!S)
    return S.takeError();
  while (S->step()) {
    if (llvm::Error E = rowRead(ApiTable))
      return E;
    std::optional<int64_t> Class = integer(*S, 2);
    ApiClass Api = Class ? Codes.eventClass(*Class) : ApiClass::Other;
    if (Api == ApiClass::Backtrace) {
      B.stats().add(ImportStat::DuplicateApiRows);
      continue;
    }
    int64_t Start, End;
    if (!times(*S, 0, 1, ApiTable, Start, End))
      continue;
    std::optional<int64_t> Gtid = integer(*S, 3);
    if (!Gtid) {
      place(ImportStat::UnusableRow, ApiTable, "a call without a globalTid");
      continue;
    }
    // Names repeat: normalise each name id once.
    ApiName Name;
    std::optional<int64_t> NameId = integer(*S, 5);
    if (NameId && usableKey(*NameId)) {
      auto [It, Inserted] = ApiNames.try_emplace(*NameId, ApiName());
      if (Inserted) {
        StringId Raw = stringById(*NameId, ApiTable);
        StringRef Norm = normaliseApiName(B.strings().get(Raw));
        It->second.Name = B.strings().intern(Norm);
        It->second.Sync = syncTypeOfCall(Norm);
      }
      Name = It->second;
    } else {
      Name.Name = name(*S, 5, ApiTable);
    }
    StringRef NameText = B.strings().get(Name.Name);
    if (!Class || Api == ApiClass::Other) {
      // No class we know: judge by the name, as nsys's own reports do.
      if (NameText.startswith("cuda"))
        Api = ApiClass::Runtime;
      else if (NameText.startswith("cu"))
        Api = ApiClass::Driver;
      else {
        place(ImportStat::UnmodelledRows, ApiTable,
              llvm::formatv("eventClass {0}", Class.value_or(-1)));
        continue;
      }
    }
    model::Event E;
    E.Kind = Api == ApiClass::Runtime ? EventKind::Runtime : EventKind::Driver;
    E.Start = Start;
    E.Duration = End - Start;
    E.Lane = hostLane(*Gtid);
    E.Name = Name.Name;
    E.Correlation = correlation(*S, 4);

    // A synchronisation call: name its kind, and emit the device-side record
    // (Kineto's cuda_sync) on the stream it waited for.
    SyncType Kind = Name.Sync;
    llvm::SmallVector<uint32_t, 1> *Rows = nullptr;
    if (E.Correlation && !SyncRows.empty()) {
      auto It = SyncByCall.find((uint64_t(pidOfGlobalId(*Gtid)) << 32) |
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
          place(ImportStat::SyncTypeMismatch, SyncTable,
                llvm::formatv("correlationId {0}: syncType {1} ({2}) for {3}",
                              R.Correlation, R.Code, syncTypeName(FromRow),
                              NameText));
      }
    }
    if (Kind != SyncType::Unknown || Rows) {
      model::EventArgs A;
      A.Detail = B.strings().intern(syncTypeName(Kind));
      addEvent(E, &A);
      for (uint32_t Idx : Rows ? llvm::ArrayRef<uint32_t>(*Rows)
                               : llvm::ArrayRef<uint32_t>()) {
        SyncRow &R = SyncRows[Idx];
        R.Used = true;
        model::Event D;
        D.Kind = EventKind::Sync;
        D.Start = R.Start;
        D.Duration = R.End - R.Start;
        D.Lane = deviceLane(R.Pid, R.Device, R.Stream);
        D.Correlation = R.Correlation;
        D.Name = A.Detail;
        model::EventArgs DA;
        DA.Device = R.Device;
        DA.Stream = R.Stream;
        DA.Detail = A.Detail;
        addEvent(D, &DA);
      }
    } else {
      addEvent(E);
    }
  }
  return finishScan(*S);
}

// Sync records whose call was not recorded keep the type the row gives.
void NsysReader::addUnmatchedSyncs() {
  for (SyncRow &R : SyncRows) {
    if (R.Used)
      continue;
    model::Event D;
    D.Kind = EventKind::Sync;
    D.Start = R.Start;
    D.Duration = R.End - R.Start;
    D.Lane = deviceLane(R.Pid, R.Device, R.Stream);
    D.Correlation = R.Correlation;
    D.Name = B.strings().intern(syncTypeName(Codes.sync(R.Code)));
    model::EventArgs DA;
    DA.Device = R.Device;
    DA.Stream = R.Stream;
    DA.Detail = D.Name;
    addEvent(D, &DA);
  }
}

llvm::Error NsysReader::readKernels() {
  llvm::DenseMap<StringId, bool> IsCollective;
  return scanDeviceRows(
      KernelTable,
      {"demangledName", "shortName", "mangledName", "gridX", "gridY", "gridZ",
       "blockX", "blockY", "blockZ", "registersPerThread", "staticSharedMemory",
       "dynamicSharedMemory"},
      [&](const Statement &S, const DeviceRow &Row) {
        auto Small = [&](int Col) -> int32_t {
          std::optional<int64_t> V = integer(S, Col);
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
        StringId Name = name(S, 6, KernelTable);
        if (Name == model::EmptyString)
          Name = name(S, 7, KernelTable);
        if (Name == model::EmptyString)
          Name = name(S, 8, KernelTable);
        auto [It, Inserted] = IsCollective.try_emplace(Name, false);
        if (Inserted)
          It->second = isCommunicationKernelName(B.strings().get(Name));
        model::Event E;
        model::EventArgs A;
        deviceEvent(Row, It->second ? EventKind::Collective : EventKind::Kernel,
                    Name, E, A);
        for (int I = 0; I < 3; ++I) {
          A.Grid[I] = std::max(Small(9 + I), 0);
          A.Block[I] = std::max(Small(12 + I), 0);
        }
        A.RegistersPerThread = Small(15);
        int32_t Static = Small(16), Dynamic = Small(17);
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
  return scanDeviceRows(
      MemcpyTable, {"bytes", "copyKind", "srcKind", "dstKind"},
      [&](const Statement &S, const DeviceRow &Row) {
        model::EventArgs A;
        A.Bytes = byteCount(S, 6);
        std::optional<int64_t> Copy = integer(S, 7), Src = integer(S, 8),
                               Dst = integer(S, 9);
        A.Copy = Copy ? Codes.copyKind(*Copy) : model::CopyKind::Unknown;
        A.Src = Src ? Codes.memKind(*Src) : model::MemoryKind::Unknown;
        A.Dst = Dst ? Codes.memKind(*Dst) : model::MemoryKind::Unknown;
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
  return scanDeviceRows(
      MemsetTable, {"bytes", "memKind"},
      [&](const Statement &S, const DeviceRow &Row) {
        model::EventArgs A;
        A.Bytes = byteCount(S, 6);
        std::optional<int64_t> Kind = integer(S, 7);
        A.Dst = Kind ? Codes.memKind(*Kind) : model::MemoryKind::Unknown;
        auto [It, Inserted] = MemsetNames.try_emplace(uint64_t(A.Dst), 0);
        if (Inserted)
          It->second = B.strings().intern(
              llvm::formatv("Memset ({0})", memoryLabel(A.Dst)).str());
        model::Event E;
        deviceEvent(Row, EventKind::Memset, It->second, E, A);
        addEvent(E, &A);
      });
}

llvm::Error NsysReader::readNvtx() {
  if (!Db.hasTable(NvtxTable))
    return llvm::Error::success();
  // Domain names first: nvtxDomainCreate rows name a domain id within their
  // process.
  llvm::DenseMap<uint64_t, StringId> Domains;
  std::string DomainTypes;
  for (auto &Entry : Codes.Nvtx)
    if (Entry.second == NvtxType::DomainName)
      DomainTypes +=
          (DomainTypes.empty() ? "" : ", ") + std::to_string(Entry.first);
  if (!DomainTypes.empty()) {
    auto S = select(NvtxTable, {"globalTid", "domainId", "text", "textId"},
                    "WHERE eventType IN (" + DomainTypes + ")");
    if (!S)
      return S.takeError();
    while (S->step()) {
      std::optional<int64_t> Gtid = integer(*S, 0), Dom = integer(*S, 1);
      if (!Gtid || !Dom || *Dom < 0 || *Dom > MaxStream)
        continue;
      StringId Name = name(*S, 2, NvtxTable);
      if (Name == model::EmptyString)
        Name = name(*S, 3, NvtxTable);
      Domains[(uint64_t(pidOfGlobalId(*Gtid)) << 32) | uint64_t(*Dom)] = Name;
    }
    if (llvm::Error E = finishScan(*S))
      return E;
  }

  auto S = select(NvtxTable, {"start", "end", "eventType", "text", "textId",
                              "globalTid", "domainId"});
  if (!S)
    return S.takeError();
  StringId Unnamed = model::EmptyString;
  while (S->step()) {
    if (llvm::Error E = rowRead(NvtxTable))
      return E;
    std::optional<int64_t> Type = integer(*S, 2);
    NvtxType T = Type ? Codes.nvtx(*Type) : NvtxType::Unknown;
    if (T == NvtxType::DomainName)
      continue;
    if (T == NvtxType::Metadata || T == NvtxType::Unknown) {
      place(ImportStat::UnmodelledRows, NvtxTable,
            llvm::formatv("eventType {0}", Type.value_or(-1)));
      continue;
    }
    std::optional<int64_t> Start = integer(*S, 0), End = integer(*S, 1),
                           Gtid = integer(*S, 5);
    if (!Start || !Gtid) {
      place(ImportStat::UnusableRow, NvtxTable,
            !Start ? "a row without a start time" : "a row without a thread");
      continue;
    }
    LastTime = std::max(LastTime, *Start);
    if (End)
      LastTime = std::max(LastTime, *End);
    // The message is inline text or a registered string (textId).
    StringId Name = name(*S, 3, NvtxTable);
    if (Name == model::EmptyString)
      Name = name(*S, 4, NvtxTable);
    if (Name == model::EmptyString) {
      if (Unnamed == model::EmptyString)
        Unnamed = B.strings().intern("<unnamed NVTX range>");
      Name = Unnamed;
    }
    model::Event E;
    E.Kind = T == NvtxType::Mark ? EventKind::Marker : EventKind::Annotation;
    E.Start = *Start;
    E.Name = Name;
    E.Lane = hostLane(*Gtid);
    model::EventArgs A;
    bool HasArgs = false;
    std::optional<int64_t> Dom = integer(*S, 6);
    if (Dom && *Dom != 0 && *Dom > 0 && *Dom <= MaxStream) {
      auto It =
          Domains.find((uint64_t(pidOfGlobalId(*Gtid)) << 32) | uint64_t(*Dom));
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
      continue;
    }
    if (!End) {
      // Never closed (the capture ended first): closed once the last time
      // of the export is known.
      E.Flags |= model::FlagUnclosed;
      Unclosed.emplace_back(E, HasArgs ? A.Detail : model::EmptyString);
      continue;
    }
    E.Duration = *End - *Start;
    addEvent(E, HasArgs ? &A : nullptr);
  }
  return finishScan(*S);
}

llvm::Error NsysReader::readOsRuntime() {
  if (!Db.hasTable(OsrtTable))
    return llvm::Error::success();
  auto S = select(OsrtTable, {"start", "end", "globalTid", "nameId"});
  if (!S)
    return S.takeError();
  while (S->step()) {
    if (llvm::Error E = rowRead(OsrtTable))
      return E;
    int64_t Start, End;
    if (!times(*S, 0, 1, OsrtTable, Start, End))
      continue;
    std::optional<int64_t> Gtid = integer(*S, 2);
    if (!Gtid) {
      place(ImportStat::UnusableRow, OsrtTable, "a call without a globalTid");
      continue;
    }
    model::Event E;
    E.Kind = EventKind::OsRuntime;
    E.Start = Start;
    E.Duration = End - Start;
    E.Name = name(*S, 3, OsrtTable);
    E.Lane = hostLane(*Gtid);
    addEvent(E);
  }
  return finishScan(*S);
}

llvm::Error NsysReader::readOverhead() {
  if (!Db.hasTable(OverheadTable))
    return llvm::Error::success();
  // nsys 2025.6 names overhead by an overheadType code instead of a string.
  llvm::DenseMap<int64_t, StringId> TypeNames;
  if (Db.hasTable("ENUM_CUPTI_OVERHEAD_TYPE")) {
    auto S = select("ENUM_CUPTI_OVERHEAD_TYPE", {"id", "label"});
    if (!S)
      return S.takeError();
    while (S->step()) {
      int64_t Code;
      if (S->integer(0, Code) == Statement::Kind::Integer && usableKey(Code))
        TypeNames[Code] = B.strings().intern(S->text(1));
    }
    if (llvm::Error E = S->error())
      return E;
  }
  auto S = select(OverheadTable,
                  {"start", "end", "globalTid", "nameId", "overheadType"});
  if (!S)
    return S.takeError();
  while (S->step()) {
    if (llvm::Error E = rowRead(OverheadTable))
      return E;
    int64_t Start, End;
    if (!times(*S, 0, 1, OverheadTable, Start, End))
      continue;
    std::optional<int64_t> Gtid = integer(*S, 2);
    if (!Gtid) {
      place(ImportStat::UnusableRow, OverheadTable,
            "a row without a globalTid");
      continue;
    }
    model::Event E;
    E.Kind = EventKind::Overhead;
    E.Start = Start;
    E.Duration = End - Start;
    E.Name = name(*S, 3, OverheadTable);
    if (E.Name == model::EmptyString) {
      std::optional<int64_t> Type = integer(*S, 4);
      auto It =
          Type && usableKey(*Type) ? TypeNames.find(*Type) : TypeNames.end();
      E.Name = It != TypeNames.end() ? It->second
                                     : B.strings().intern("profiler overhead");
    }
    E.Lane = hostLane(*Gtid);
    addEvent(E);
  }
  return finishScan(*S);
}

llvm::Error NsysReader::readThreadAndProcessNames() {
  if (Db.hasTable("ThreadNames") && !HostLanes.empty()) {
    auto S = select("ThreadNames", {"globalTid", "nameId", "priority"});
    if (!S)
      return S.takeError();
    llvm::DenseMap<uint32_t, int64_t> Priority;
    while (S->step()) {
      std::optional<int64_t> Gtid = integer(*S, 0);
      if (!Gtid)
        continue;
      int64_t Key = (pidOfGlobalId(*Gtid) << 24) | tidOfGlobalId(*Gtid);
      auto Lane = HostLanes.find(Key);
      if (Lane == HostLanes.end())
        continue;
      // A thread may be named more than once; the highest priority wins.
      int64_t Prio = integer(*S, 2).value_or(0);
      auto [It, Inserted] = Priority.try_emplace(Lane->second, Prio);
      if (!Inserted && Prio < It->second)
        continue;
      It->second = Prio;
      StringId Name = name(*S, 1, "ThreadNames");
      B.setLaneName(Lane->second, B.strings().get(Name));
    }
    if (llvm::Error E = finishScan(*S))
      return E;
  }
  if (Db.hasTable("PROCESSES") && !Pids.empty()) {
    auto S = select("PROCESSES", {"pid", "globalPid", "name"});
    if (!S)
      return S.takeError();
    while (S->step()) {
      std::optional<int64_t> Pid = integer(*S, 0);
      if (!Pid)
        if (std::optional<int64_t> G = integer(*S, 1))
          Pid = pidOfGlobalId(*G);
      if (!Pid || !Pids.count(*Pid) || S->text(2).empty())
        continue;
      B.setProcessName(*Pid, S->text(2));
    }
    if (llvm::Error E = S->error())
      return E;
  }
  return llvm::Error::success();
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
  for (StringRef T : {KernelTable, MemcpyTable, MemsetTable, SyncTable,
                      ApiTable, NvtxTable, OsrtTable, OverheadTable}) {
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
  P.Era = "nsys " + (ProductVersion.empty() ? std::string("(version not "
                                                          "recorded)")
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
  if (!Db->hasTable("StringIds") ||
      (!Db->hasTable("EXPORT_META_DATA") && !Db->hasTable("META_DATA_EXPORT")))
    return Db->fail("", describeOtherDatabase(Db->tables()));
  NsysReader Reader(*Db, Opts);
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
