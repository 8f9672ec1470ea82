//===- import/rocpd/RocpdImporter.cpp -------------------------------------===//
//
// The runs of a file, the values of a row (times, ids, names, correlation),
// the lanes, and the producer. The tables themselves are read in
// RocpdInfo.cpp and RocpdEvents.cpp.
//
//===----------------------------------------------------------------------===//
#include "import/rocpd/RocpdImporter.h"
#include "import/rocpd/RocpdReader.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <algorithm>

using namespace tracelint;
using namespace tracelint::import;
using namespace tracelint::import::rocpd;
using llvm::Expected;
using llvm::StringRef;
using model::ImportStat;
using model::StringId;
using nsys::Statement;

namespace {

/// Device ids beyond this are not real ones.
constexpr int64_t MaxDevice = 1 << 20;
/// Process and thread ids beyond this are not an operating system's.
constexpr int64_t MaxOsId = std::numeric_limits<int32_t>::max();
/// A roctx message is a line of text; an extdata this long is not one.
constexpr size_t MaxMessageJson = 64 << 10;

/// The tables of events, for reserving memory.
const StringRef EventTables[] = {RegionTable, SampleTable, DispatchTable,
                                 CopyTable, AllocTable};

} // namespace

//===-- Values of a row ---------------------------------------------------===//

llvm::Error RocpdReader::rowRead(StringRef Table) {
  B.stats().add(ImportStat::EventsRead);
  if (++RowsSinceCheck < 4096)
    return llvm::Error::success();
  RowsSinceCheck = 0;
  return checkLimits(Opts, B.numEvents(), B.estimatedPeakBytes(), Db.path(),
                     ("table " + Table).str());
}

void RocpdReader::defer(llvm::Error E) {
  if (!Pending)
    Pending = std::move(E);
  else
    llvm::consumeError(std::move(E));
}

void RocpdReader::place(ImportStat Stat, StringRef Table,
                        const llvm::Twine &What) {
  B.stats().addAt(Stat, (Table + ": " + What).str());
}

int32_t RocpdReader::small(const Statement &S, const Column &C) {
  std::optional<int64_t> V = integer(S, C);
  if (!V)
    return -1;
  if (*V < 0 || *V > std::numeric_limits<int32_t>::max()) {
    B.stats().add(ImportStat::BadValue);
    return -1;
  }
  return int32_t(*V);
}

int64_t RocpdReader::byteCount(const Statement &S, const Column &C) {
  std::optional<int64_t> V = integer(S, C);
  return V && *V >= 0 ? *V : -1;
}

bool RocpdReader::times(const Statement &S, const Column &StartCol,
                        const Column &EndCol, StringRef Table, int64_t &Start,
                        int64_t &End) {
  std::optional<int64_t> A = integer(S, StartCol), Z = integer(S, EndCol);
  if (!A || !Z) {
    place(ImportStat::UnusableRow, Table, "a row without a start or end time");
    return false;
  }
  Start = *A;
  End = *Z;
  return true;
}

bool RocpdReader::hostIds(const Statement &S, const Column &PidCol,
                          const Column &TidCol, StringRef Table, int64_t &Pid,
                          int64_t &Tid) {
  std::optional<int64_t> P = integer(S, PidCol), T = integer(S, TidCol);
  if (!P || !T) {
    place(ImportStat::UnusableRow, Table,
          !P ? "a row without a process" : "a row without a thread");
    return false;
  }
  // The columns point at rocpd_info_process and rocpd_info_thread, whose
  // ids rocprofv3 makes the OS's own; another writer's may not be.
  auto PI = usableKey(*P) ? Pids.find(*P) : Pids.end();
  auto TI = usableKey(*T) ? Tids.find(*T) : Tids.end();
  Pid = PI != Pids.end() ? PI->second : *P;
  Tid = TI != Tids.end() ? TI->second : *T;
  if (Pid < 0 || Pid > MaxOsId || Tid < 0 || Tid > MaxOsId) {
    place(ImportStat::UnusableRow, Table,
          llvm::formatv("process {0}, thread {1}: not an OS id", Pid, Tid));
    return false;
  }
  return true;
}

int64_t RocpdReader::processOf(const Statement &S, const Column &PidCol) {
  std::optional<int64_t> P = integer(S, PidCol);
  if (!P)
    return 0;
  auto PI = usableKey(*P) ? Pids.find(*P) : Pids.end();
  int64_t Pid = PI != Pids.end() ? PI->second : *P;
  if (Pid < 0 || Pid > MaxOsId) {
    B.stats().add(ImportStat::BadValue);
    return 0;
  }
  return Pid;
}

StringId RocpdReader::stringById(int64_t Id, StringRef Table) {
  if (std::optional<StringId> S = Strings.get(Id, B.strings()))
    return *S;
  // Counted once per id: the table then holds the placeholder.
  place(ImportStat::MissingName, Table,
        llvm::formatv("name id {0} is not in {1}", Id, table(StringTable)));
  StringId Out = B.strings().intern(llvm::formatv("<name {0}>", Id).str());
  if (usableKey(Id))
    Strings.add(Id, B.strings().get(Out));
  return Out;
}

StringId RocpdReader::name(const Statement &S, const Column &C,
                           StringRef Table) {
  std::optional<int64_t> Id = integer(S, C);
  return Id ? stringById(*Id, Table) : model::EmptyString;
}

StringRef RocpdReader::categoryText(int64_t Id) {
  if (!usableKey(Id))
    return "";
  auto [It, Inserted] = CategoryTexts.try_emplace(Id, std::string());
  if (Inserted)
    if (std::optional<StringId> S = Strings.get(Id, B.strings()))
      It->second = B.strings().get(*S).str();
  return It->second;
}

Category RocpdReader::category(const Statement &S, const Column &C) {
  std::optional<int64_t> Id = integer(S, C);
  if (!Id || !usableKey(*Id))
    return Category::Unknown;
  auto [It, Inserted] = Categories.try_emplace(*Id, Category::Unknown);
  if (Inserted)
    It->second = classifyCategory(categoryText(*Id));
  return It->second;
}

uint32_t RocpdReader::correlation(const Statement &S, const Column &C) {
  std::optional<int64_t> V = integer(S, C);
  if (!V || *V == 0)
    return 0;
  if (*V < 0 || *V > int64_t(std::numeric_limits<uint32_t>::max())) {
    B.stats().add(ImportStat::BadValue);
    return 0;
  }
  return uint32_t(*V);
}

std::string RocpdReader::message(const Statement &S, const Column &C) {
  StringRef Json = S.text(C.Index);
  if (Json.empty() || Json == "{}")
    return "";
  if (Json.size() > MaxMessageJson) {
    B.stats().add(ImportStat::BadValue);
    return "";
  }
  Expected<llvm::json::Value> V = llvm::json::parse(Json);
  if (!V) {
    llvm::consumeError(V.takeError());
    B.stats().add(ImportStat::BadValue);
    return "";
  }
  const llvm::json::Object *O = V->getAsObject();
  if (!O)
    return "";
  auto M = O->getString("message");
  return M ? M->str() : std::string();
}

const RocpdReader::Agent *RocpdReader::agent(std::optional<int64_t> Id) const {
  if (!Id || !usableKey(*Id))
    return nullptr;
  auto It = Agents.find(*Id);
  return It == Agents.end() ? nullptr : &It->second;
}

int32_t RocpdReader::deviceOf(std::optional<int64_t> Id, StringRef Table) {
  if (const Agent *A = agent(Id)) {
    if (A->Gpu && A->Device >= 0)
      return A->Device;
    place(ImportStat::UnusableRow, Table,
          llvm::formatv("agent {0} is not a GPU", *Id));
    return -1;
  }
  // Without a description of the agent its number is the device's.
  if (Id && *Id >= 0 && *Id < MaxDevice) {
    if (!Agents.empty())
      place(ImportStat::BadValue, Table,
            llvm::formatv("agent {0} is not in {1}", *Id, table(AgentTable)));
    return int32_t(*Id);
  }
  place(ImportStat::UnusableRow, Table,
        Id ? llvm::formatv("agent {0} out of range", *Id).str()
           : std::string("a row without an agent"));
  return -1;
}

//===-- Lanes -------------------------------------------------------------===//

void RocpdReader::notePid(int64_t Pid) {
  // Rows come in runs of one process: look each change up once.
  if (Pid == LastPid)
    return;
  LastPid = Pid;
  auto [It, Inserted] = PidRuns.try_emplace(Pid, Suffix);
  if (Inserted || It->second == Suffix)
    return;
  auto Name = [](StringRef S) {
    return S.empty() ? std::string("without a suffix") : ("rocpd_*" + S).str();
  };
  defer(Db.fail(
      "", llvm::formatv("two runs record process {0} (tables {1} and {2}); "
                        "their threads and correlation ids would mix: split "
                        "the database into one file per run",
                        Pid, Name(It->second), Name(Suffix))));
}

// Correlation ids are unique within a process: each process is its own
// correlation domain, and its device work has lanes of its own.
uint32_t RocpdReader::hostLane(int64_t Pid, int64_t Tid) {
  notePid(Pid);
  uint32_t L = B.lane(Pid, Tid);
  if (B.laneInfo(L).Domain == 0) {
    B.setCorrelationDomain(L, uint32_t(Pid) + 1);
    auto N = ThreadNames.find(Tid);
    if (N != ThreadNames.end())
      B.setLaneName(L, N->second);
  }
  return L;
}

uint32_t RocpdReader::deviceLane(int64_t Pid, int32_t Device,
                                 DeviceLaneKind Kind, int64_t Id) {
  notePid(Pid);
  auto Key = std::make_tuple(Pid, Device, Kind, Id);
  auto It = DeviceLanes.find(Key);
  if (It != DeviceLanes.end())
    return It->second;
  // A lane key of its own, below every thread id; the stream numbers of a
  // device count its lanes from 0.
  uint32_t L = B.lane(Pid, NextDeviceLaneKey++);
  int64_t &Streams = StreamsPerDevice[{Pid, Device}];
  B.setDeviceLane(L, Device, Streams++);
  B.setCorrelationDomain(L, uint32_t(Pid) + 1);
  const auto &Names = Kind == DeviceLaneKind::Queue ? QueueNames : StreamNames;
  auto N = usableKey(Id) ? Names.find(Id) : Names.end();
  std::string Label =
      N != Names.end()
          ? N->second
          : llvm::formatv("{0} {1}",
                          Kind == DeviceLaneKind::Queue ? "queue" : "stream",
                          Id)
                .str();
  B.setLaneName(L, Kind == DeviceLaneKind::Queue ? Label : "copies, " + Label);
  UsedDevices.insert(Device);
  DeviceLanes.emplace(Key, L);
  return L;
}

void RocpdReader::addEvent(model::Event &E, const model::EventArgs *A) {
  if (E.Duration == 0)
    B.stats().add(ImportStat::ZeroDuration);
  B.addEvent(E, A);
}

//===-- The file ----------------------------------------------------------===//

void RocpdReader::reserve(llvm::ArrayRef<std::string> Runs) {
  // Every dispatch, copy and allocation has an argument record; the builder
  // reserves N / 3 of them for N events (untouched pages cost nothing).
  uint64_t Rows = 0, WithArgs = 0;
  for (const std::string &R : Runs)
    for (StringRef Base : EventTables) {
      std::string T = (Base + R).str();
      uint64_t N = Db.hasTable(T) ? Db.rowEstimate(T) : 0;
      Rows += N;
      if (Base != RegionTable && Base != SampleTable)
        WithArgs += N;
    }
  uint64_t Reserve = std::max(Rows, 3 * WithArgs);
  if (Opts.MaxEvents)
    Reserve = std::min<uint64_t>(Reserve, 3 * (Opts.MaxEvents + 1));
  B.reserve(size_t(std::min<uint64_t>(Reserve, uint64_t(1) << 32)));
}

llvm::Error RocpdReader::readRun(StringRef Run) {
  Suffix = Run.str();
  LastPid = -1;
  Strings.clear();
  Symbols.clear();
  CategoryTexts.clear();
  Categories.clear();
  Pids.clear();
  Tids.clear();
  ThreadNames.clear();
  QueueNames.clear();
  StreamNames.clear();
  Agents.clear();
  for (auto Read :
       {&RocpdReader::readMetadata, &RocpdReader::readStrings,
        &RocpdReader::readProcesses, &RocpdReader::readThreads,
        &RocpdReader::readAgents, &RocpdReader::readQueuesAndStreams,
        &RocpdReader::readSymbols, &RocpdReader::readRegions,
        &RocpdReader::readSamples, &RocpdReader::readDispatches,
        &RocpdReader::readCopies, &RocpdReader::readAllocations})
    if (llvm::Error E = (this->*Read)())
      return E;
  return llvm::Error::success();
}

// Only the GPUs that did something are listed, unless none did.
void RocpdReader::addDevices() {
  for (auto &[Id, D] : Gpus)
    if (UsedDevices.empty() || UsedDevices.count(Id))
      B.devices().push_back(D);
}

void RocpdReader::setProducer(size_t Runs) {
  model::Producer &P = B.producer();
  P.Format = "rocpd-sqlite";
  P.Era = "rocprofv3 rocpd";
  if (!SchemaVersion.empty())
    P.Era += ", schema " + SchemaVersion;
  if (Runs > 1)
    P.Era += llvm::formatv(", {0} runs", Runs).str();
  P.KernelGridInBlocks = true;
}

Expected<model::Trace> RocpdReader::read() {
  std::vector<std::string> Runs = findRuns(Db.tables());
  if (Runs.empty())
    return Db.fail("", "no rocpd tables with a run suffix tracelint can "
                       "read (rocpd_string_<uuid>, ...)");
  // One node's runs share a clock and a set of GPUs; several nodes' do not.
  for (const std::string &R : Runs) {
    Suffix = R;
    if (llvm::Error E = readNode())
      return E;
  }
  std::set<std::string> Distinct;
  for (const auto &[Run, Machine] : Machines)
    Distinct.insert(Machine);
  if (Distinct.size() > 1) {
    std::string List;
    for (const auto &[Run, Machine] : Machines)
      List += (List.empty() ? "" : ", ") + (NodeTable + Run).str();
    return Db.fail("", llvm::formatv("runs recorded on {0} machines ({1} "
                                     "name different machine_ids); their "
                                     "clocks and GPUs differ: split the "
                                     "database into one file per machine",
                                     Distinct.size(), List));
  }

  reserve(Runs);
  for (const std::string &R : Runs)
    if (llvm::Error E = readRun(R))
      return E;
  if (Pending)
    return std::move(Pending);

  for (const auto &[Pid, Run] : PidRuns) {
    auto N = ProcessNames.find(Pid);
    if (N != ProcessNames.end())
      B.setProcessName(Pid, N->second);
  }
  addDevices();
  setProducer(Runs.size());
  if (llvm::Error E = checkLimits(Opts, B.numEvents(), B.estimatedPeakBytes(),
                                  Db.path(), "at the end"))
    return E;
  return B.finish();
}

//===-- Entry points ------------------------------------------------------===//

bool tracelint::import::isRocpdDatabase(const nsys::Database &Db) {
  return rocpd::isRocpdDatabase(Db.tables());
}

Expected<model::Trace>
tracelint::import::importRocpdDatabase(nsys::Database &Db,
                                       const ImportOptions &Opts) {
  if (!isRocpdDatabase(Db))
    return Db.fail("", "not a rocprofv3 rocpd database: expected the tables "
                       "rocpd_info_agent, rocpd_kernel_dispatch, "
                       "rocpd_region or rocpd_memory_copy (each with its "
                       "run's suffix)");
  RocpdReader Reader(Db, Opts);
  return Reader.read();
}

Expected<model::Trace>
tracelint::import::importRocpd(StringRef Path, const ImportOptions &Opts) {
  auto Db = nsys::Database::open(Path);
  if (!Db)
    return Db.takeError();
  return importRocpdDatabase(*Db, Opts);
}

Expected<model::Trace>
tracelint::import::importRocpdBytes(StringRef Name, StringRef Bytes,
                                    const ImportOptions &Opts) {
  auto Db = nsys::Database::openImage(Name, Bytes);
  if (!Db)
    return Db.takeError();
  return importRocpdDatabase(*Db, Opts);
}
