//===- NsysImporterTest.cpp - Nsight Systems exports built in the test ----===//
//
// Each test writes a tiny export with the SQLite C API and imports it through
// the same entry point as the command line. The lit tests cover whole
// fixtures in four schema versions; these cover the corners: per-process
// correlation, ENUM tables that override the built-in numbering, hostile
// values, missing tables and columns, columns in any order, the era of a
// file, managed-memory migrations and page faults.
//
//===----------------------------------------------------------------------===//
#include "import/Import.h"
#include "import/nsys/NsysEnums.h"

#include "llvm/Support/FileSystem.h"

#include "gtest/gtest.h"

#include <sqlite3.h>

#include <string>

using namespace tracelint;
using namespace tracelint::import;
using namespace tracelint::model;

namespace {

/// The two tables that make a file an nsys export, and a StringIds row.
const char *const BaseSchema =
    "CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT "
    "NULL);"
    "CREATE TABLE META_DATA_EXPORT (name TEXT, value TEXT);"
    "INSERT INTO META_DATA_EXPORT VALUES "
    "('EXPORT_PRODUCT_VERSION', '2024.5.1.113'), "
    "('EXPORT_SCHEMA_VERSION', '3.13.2');"
    "INSERT INTO StringIds VALUES (1, 'cudaLaunchKernel_v7000'), "
    "(2, 'gemm'), (3, 'void gemm<float>(float *)');";

const char *const KernelTable =
    "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, "
    "deviceId INTEGER, streamId INTEGER, correlationId INTEGER, globalPid "
    "INTEGER, demangledName INTEGER, shortName INTEGER);";
const char *const RuntimeTable =
    "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER, end INTEGER, "
    "eventClass INTEGER, globalTid INTEGER, correlationId INTEGER, nameId "
    "INTEGER);";

int64_t globalTid(int64_t Pid, int64_t Tid) {
  return (int64_t(1) << 48) | (Pid << 24) | Tid;
}

class NsysImporterTest : public ::testing::Test {
protected:
  void TearDown() override {
    for (const std::string &P : Files)
      llvm::sys::fs::remove(P);
  }

  /// A new SQLite file holding \p Sql.
  std::string makeDb(const std::string &Sql) {
    llvm::SmallString<128> Path;
    EXPECT_FALSE(
        llvm::sys::fs::createTemporaryFile("nsys-test", "sqlite", Path));
    Files.push_back(Path.str().str());
    sqlite3 *Db = nullptr;
    EXPECT_EQ(sqlite3_open(Path.c_str(), &Db), SQLITE_OK);
    char *Err = nullptr;
    // One transaction, no syncing: these files live for one test.
    std::string Script =
        "PRAGMA synchronous = OFF; PRAGMA journal_mode = MEMORY; BEGIN;" + Sql +
        "COMMIT;";
    EXPECT_EQ(sqlite3_exec(Db, Script.c_str(), nullptr, nullptr, &Err),
              SQLITE_OK)
        << (Err ? Err : "");
    sqlite3_free(Err);
    sqlite3_close(Db);
    return Files.back();
  }

  Trace import(const std::string &Sql, ImportOptions Opts = {}) {
    auto T = importTraceFile(makeDb(Sql), Opts);
    EXPECT_TRUE(bool(T)) << llvm::toString(T.takeError());
    return T ? std::move(*T) : Trace();
  }

  std::vector<std::string> Files;
};

TEST(NsysEnumsTest, ApiVersionSuffixesAreRemoved) {
  using nsys::normaliseApiName;
  EXPECT_EQ(normaliseApiName("cudaLaunchKernel_v7000"), "cudaLaunchKernel");
  EXPECT_EQ(normaliseApiName("cudaMalloc_v3020"), "cudaMalloc");
  EXPECT_EQ(normaliseApiName("cudaGetDeviceProperties_v2_v12000"),
            "cudaGetDeviceProperties_v2");
  // The function's own name, not an API version.
  EXPECT_EQ(normaliseApiName("cuGetProcAddress_v2"), "cuGetProcAddress_v2");
  EXPECT_EQ(normaliseApiName("cuLaunchKernel"), "cuLaunchKernel");
  EXPECT_EQ(normaliseApiName("_v1234"), "_v1234");
  EXPECT_EQ(normaliseApiName("cudaFoo_v12a4"), "cudaFoo_v12a4");
}

TEST(NsysEnumsTest, GlobalIdsAndBuiltins) {
  EXPECT_EQ(nsys::pidOfGlobalId(globalTid(4242, 17)), 4242);
  EXPECT_EQ(nsys::tidOfGlobalId(globalTid(4242, 17)), 17);
  for (nsys::ExportEra Era :
       {nsys::ExportEra::NoMetadata, nsys::ExportEra::Metadata}) {
    nsys::Enums E = nsys::Enums::builtin(Era);
    // nsys numbers memory kinds from 0 = pageable (CUPTI: 1 = pageable), in
    // 2020-2021 as later.
    EXPECT_EQ(E.memKind(0), MemoryKind::Pageable);
    EXPECT_EQ(E.memKind(1), MemoryKind::Pinned);
    EXPECT_EQ(E.memKind(4), MemoryKind::Managed);
    EXPECT_EQ(E.memKind(5), MemoryKind::Device); // device static
    EXPECT_EQ(E.memKind(99), MemoryKind::Unknown);
    EXPECT_EQ(E.copyKind(1).Kind, CopyKind::HtoD);
    EXPECT_FALSE(E.copyKind(1).Migration);
    EXPECT_EQ(E.copyKind(8).Kind, CopyKind::DtoD);
    EXPECT_EQ(E.copyKind(10).Kind, CopyKind::PtoP);
    // The unified-memory kinds are page migrations.
    EXPECT_EQ(E.copyKind(11).Kind, CopyKind::HtoD);
    EXPECT_TRUE(E.copyKind(11).Migration);
    EXPECT_EQ(E.copyKind(12).Kind, CopyKind::DtoH);
    EXPECT_TRUE(E.copyKind(12).Migration);
    EXPECT_TRUE(E.copyKind(13).Migration);
    EXPECT_FALSE(E.copyKind(99).Migration);
  }
  nsys::Enums E = nsys::Enums::builtin(nsys::ExportEra::Metadata);
  EXPECT_EQ(E.eventClass(67), nsys::ApiClass::Backtrace);
  EXPECT_EQ(E.nvtx(59), nsys::NvtxType::PushPop);
  EXPECT_EQ(E.nvtx(60), nsys::NvtxType::StartEnd);
  EXPECT_EQ(nsys::syncTypeOfCall("cudaStreamSynchronize"),
            nsys::SyncType::StreamSync);
  EXPECT_EQ(nsys::syncTypeOfCall("cuCtxSynchronize"),
            nsys::SyncType::ContextSync);
  // Communication kernels are a name class (model/NameClasses.h), the same
  // one the Kineto importer reads.
  auto Comm = [](llvm::StringRef Name) {
    return model::NameClassifier::builtin()->matches(
        Name, model::NameClass::CommunicationKernel);
  };
  EXPECT_TRUE(
      Comm("void ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)"));
  EXPECT_FALSE(Comm("void gemm<float>(float *)"));
}

// The era of a file, from its tables alone.
TEST(NsysEnumsTest, ExportEras) {
  auto Era = [](std::initializer_list<llvm::StringRef> Names) {
    llvm::StringSet<> Tables;
    for (llvm::StringRef N : Names)
      Tables.insert(N);
    return nsys::exportEraOf(Tables);
  };
  using nsys::ExportEra;
  EXPECT_EQ(Era({"StringIds", "META_DATA_EXPORT", "ENUM_CUDA_MEM_KIND"}),
            ExportEra::EnumTables);
  EXPECT_EQ(Era({"StringIds", "EXPORT_META_DATA"}), ExportEra::Metadata);
  EXPECT_EQ(Era({"StringIds", "CUPTI_ACTIVITY_KIND_RUNTIME"}),
            ExportEra::NoMetadata);
  // Not an export: no StringIds; nothing but StringIds; nvprof's tables.
  EXPECT_EQ(Era({"EXPORT_META_DATA", "CUPTI_ACTIVITY_KIND_KERNEL"}),
            std::nullopt);
  EXPECT_EQ(Era({"StringIds", "users"}), std::nullopt);
  EXPECT_EQ(Era({"StringIds", "StringTable", "CUPTI_ACTIVITY_KIND_KERNEL"}),
            std::nullopt);
  EXPECT_EQ(nsys::unversionedEraName(ExportEra::NoMetadata),
            "nsys 2020-2021, no export metadata");
  EXPECT_EQ(nsys::unversionedEraName(ExportEra::EnumTables), "");
}

TEST_F(NsysImporterTest, EmptyExportImports) {
  Trace T = import(BaseSchema);
  EXPECT_TRUE(T.Events.empty());
  EXPECT_EQ(T.Source.Format, "nsys-sqlite");
  EXPECT_EQ(T.Source.Era, "nsys 2024.5.1.113, export schema 3.13.2");
}

// Correlation ids are unique only within a process: two processes may both
// launch with id 5, on the same GPU and stream number. Each kernel must link
// to its own process's launch, on a device lane of its own process.
TEST_F(NsysImporterTest, CorrelationIsPerProcess) {
  std::string Sql = std::string(BaseSchema) + KernelTable + RuntimeTable;
  for (int64_t Pid : {100, 200}) {
    int64_t Offset = Pid * 1000;
    Sql += "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (" +
           std::to_string(Offset) + ", " + std::to_string(Offset + 10) +
           ", 0, " + std::to_string(globalTid(Pid, Pid)) + ", 5, 1);";
    Sql += "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (" +
           std::to_string(Offset + 20) + ", " + std::to_string(Offset + 50) +
           ", 0, 7, 5, " + std::to_string(globalTid(Pid, 0)) + ", 3, 2);";
  }
  Trace T = import(Sql);
  ASSERT_EQ(T.countKind(EventKind::Kernel), 2u);
  unsigned DeviceLanes = 0;
  for (const Lane &L : T.Lanes) {
    if (L.Kind != LaneKind::DeviceStream)
      continue;
    ++DeviceLanes;
    EXPECT_EQ(L.Device, 0);
    EXPECT_EQ(L.Stream, 7);
    for (const Event &K : T.events(L)) {
      uint32_t Launch = T.launchOf(K);
      ASSERT_NE(Launch, NoIndex);
      EXPECT_EQ(T.laneOf(T.Events[Launch]).Pid, L.Pid);
      EXPECT_EQ(T.name(T.Events[Launch]), "cudaLaunchKernel");
      EXPECT_EQ(T.name(K), "void gemm<float>(float *)");
    }
  }
  EXPECT_EQ(DeviceLanes, 2u);
  EXPECT_EQ(T.Stats.get(ImportStat::DeviceWithoutLaunch), 0u);
}

// With an ENUM table, its names decide what a code means, even where that
// disagrees with the built-in numbering.
TEST_F(NsysImporterTest, EnumTablesOverrideBuiltins) {
  std::string Sql = std::string(BaseSchema) +
                    "CREATE TABLE ENUM_CUDA_MEM_KIND (id INTEGER, name TEXT, "
                    "label TEXT);"
                    "INSERT INTO ENUM_CUDA_MEM_KIND VALUES "
                    "(0, 'CUDA_MEMOPR_MEMORY_KIND_PINNED', 'Pinned'), "
                    "(1, 'CUDA_MEMOPR_MEMORY_KIND_PAGEABLE', 'Pageable'), "
                    "(2, 'CUDA_MEMOPR_MEMORY_KIND_DEVICE', 'Device');"
                    "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start, end, "
                    "deviceId, streamId, correlationId, globalPid, bytes, "
                    "copyKind, srcKind, dstKind);"
                    "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES "
                    "(0, 100, 0, 7, 1, 0, 4096, 1, 0, 2);";
  Trace T = import(Sql);
  ASSERT_EQ(T.Events.size(), 1u);
  const EventArgs *A = T.args(T.Events[0]);
  ASSERT_TRUE(A);
  EXPECT_EQ(A->Copy, CopyKind::HtoD);
  EXPECT_EQ(A->Src, MemoryKind::Pinned);
  EXPECT_EQ(A->Dst, MemoryKind::Device);
  EXPECT_EQ(A->Bytes, 4096);
  EXPECT_EQ(T.name(T.Events[0]), "Memcpy HtoD (Pinned -> Device)");
}

// Values of the wrong type or out of range are counted, never trusted.
TEST_F(NsysImporterTest, HostileValuesAreCountedNotTrusted) {
  std::string Sql =
      std::string(BaseSchema) + KernelTable + RuntimeTable +
      "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES "
      // A start that is text, a device id out of range: dropped.
      "('abc', 100, 0, 7, 1, 0, 3, 2), "
      "(0, 100, 99999999, 7, 1, 0, 3, 2), "
      // A negative correlation id: kept, without a link.
      "(0, 100, 0, 7, -5, 0, 3, 2), "
      // A name id missing from StringIds, and one too large for any map.
      "(200, 300, 0, 7, 2, 0, 12345, NULL), "
      "(300, 400, 0, 7, 3, 0, 9223372036854775807, NULL), "
      // No stream (0xFFFFFFFF) and a stream id that is text.
      "(400, 500, 0, 4294967295, 4, 0, 3, 2), "
      "(500, 600, 0, 'x', 5, 0, 3, 2);"
      "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES "
      "(0, 10, 0, NULL, 9, 1);";
  Trace T = import(Sql);
  EXPECT_EQ(T.countKind(EventKind::Kernel), 5u);
  EXPECT_EQ(T.countKind(EventKind::Runtime), 0u);
  EXPECT_EQ(T.Stats.get(ImportStat::UnusableRow), 3u);
  EXPECT_GE(T.Stats.get(ImportStat::BadValue), 3u);
  EXPECT_EQ(T.Stats.get(ImportStat::MissingName), 2u);
  bool SawMissing = false, SawNoStream = false;
  for (const Event &E : T.Events) {
    SawMissing |= T.name(E) == "<name 12345>";
    SawNoStream |=
        T.laneOf(E).Kind == LaneKind::DeviceStream && T.laneOf(E).Stream == -1;
  }
  EXPECT_TRUE(SawMissing);
  EXPECT_TRUE(SawNoStream);
}

// A view cannot stand in for a table (views are disabled and only ordinary
// tables count), and missing optional tables mean "nothing recorded".
TEST_F(NsysImporterTest, ViewsAreNotTables) {
  std::string Sql = std::string(BaseSchema) +
                    "CREATE VIEW CUPTI_ACTIVITY_KIND_KERNEL AS SELECT 0 AS "
                    "start, 10 AS end, 0 AS deviceId, 7 AS streamId;";
  Trace T = import(Sql);
  EXPECT_TRUE(T.Events.empty());
}

TEST_F(NsysImporterTest, SyncRecordsWithoutTheirCall) {
  std::string Sql =
      std::string(BaseSchema) +
      "CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start, end, "
      "deviceId, streamId, correlationId, globalPid, syncType);"
      "INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES "
      "(0, 100, 0, 4294967295, 7, 0, 4);";
  Trace T = import(Sql);
  ASSERT_EQ(T.Events.size(), 1u);
  const Event &E = T.Events[0];
  EXPECT_EQ(E.Kind, EventKind::Sync);
  EXPECT_EQ(T.name(E), "Context Sync");
  EXPECT_EQ(T.laneOf(E).Stream, -1);
  EXPECT_EQ(T.Stats.get(ImportStat::DeviceWithoutLaunch), 1u);
}

// nsys 2025.6 names overhead by a code (overheadType), not a string.
TEST_F(NsysImporterTest, OverheadNamedByType) {
  std::string Sql =
      std::string(BaseSchema) +
      "CREATE TABLE ENUM_CUPTI_OVERHEAD_TYPE (id, name, label);"
      "INSERT INTO ENUM_CUPTI_OVERHEAD_TYPE VALUES (65536, "
      "'CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH', 'CUPTI buffer flush');"
      "CREATE TABLE PROFILER_OVERHEAD (start, end, globalTid, overheadType);"
      "INSERT INTO PROFILER_OVERHEAD VALUES (0, 50, " +
      std::to_string(globalTid(9, 9)) + ", 65536);";
  Trace T = import(Sql);
  ASSERT_EQ(T.Events.size(), 1u);
  EXPECT_EQ(T.Events[0].Kind, EventKind::Overhead);
  EXPECT_EQ(T.name(T.Events[0]), "CUPTI buffer flush");
}

TEST_F(NsysImporterTest, NvtxRangesDomainsAndUnclosedRanges) {
  std::string G = std::to_string(globalTid(5, 6));
  std::string Sql =
      std::string(BaseSchema) +
      "CREATE TABLE NVTX_EVENTS (start, end, eventType, text, globalTid, "
      "textId, domainId);"
      "INSERT INTO StringIds VALUES (10, 'registered');"
      "INSERT INTO NVTX_EVENTS VALUES "
      "(0, NULL, 75, 'mydomain', " +
      G +
      ", NULL, 3), "
      "(10, 100, 59, 'outer', " +
      G +
      ", NULL, 0), "
      "(20, 30, 59, NULL, " +
      G +
      ", 10, 3), "
      "(40, NULL, 59, 'open', " +
      G +
      ", NULL, 0), "
      "(50, 50, 34, 'mark', " +
      G +
      ", NULL, 0), "
      "(60, 70, 33, 'a category', " +
      G + ", NULL, 0);";
  Trace T = import(Sql);
  ASSERT_EQ(T.Lanes.size(), 1u);
  EXPECT_EQ(T.Lanes[0].Pid, 5);
  EXPECT_EQ(T.Lanes[0].Tid, 6);
  EXPECT_EQ(T.countKind(EventKind::Annotation), 3u);
  EXPECT_EQ(T.countKind(EventKind::Marker), 1u);
  EXPECT_EQ(T.Stats.get(ImportStat::UnclosedRange), 1u);
  EXPECT_EQ(T.Stats.get(ImportStat::UnmodelledRows), 1u);
  for (const Event &E : T.Events) {
    if (T.name(E) == "registered") {
      const EventArgs *A = T.args(E);
      ASSERT_TRUE(A);
      EXPECT_EQ(T.Strings.get(A->Detail), "mydomain");
      EXPECT_EQ(T.name(T.Events[E.Parent]), "outer");
    }
    if (T.name(E) == "open") {
      EXPECT_TRUE(E.hasFlag(FlagUnclosed));
      EXPECT_EQ(E.end(), T.WindowEnd); // closed at the last time: 100
    }
  }
}

// Columns are read by name: their order in the table does not matter, a
// column tracelint does not know is ignored, and an optional one that is
// absent reads as NULL.
TEST_F(NsysImporterTest, ColumnsAreReadByName) {
  std::string Sql =
      std::string(BaseSchema) +
      "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (gridZ, futureColumn, "
      "shortName, blockX, globalPid, correlationId, streamId, deviceId, end, "
      "start, gridX, gridY);"
      "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES "
      "(3, 'x', 2, 128, 0, 0, 7, 0, 250, 200, 40, 2);"
      "CREATE TABLE OSRT_API (nameId, globalTid, end, start);"
      "INSERT INTO StringIds VALUES (4, 'read');"
      "INSERT INTO OSRT_API VALUES (4, " +
      std::to_string(globalTid(5, 6)) + ", 90, 10);";
  Trace T = import(Sql);
  ASSERT_EQ(T.Events.size(), 2u);
  const Event *Read = nullptr, *Kernel = nullptr;
  for (const Event &E : T.Events)
    (E.Kind == EventKind::OsRuntime ? Read : Kernel) = &E;
  ASSERT_TRUE(Read && Kernel);
  EXPECT_EQ(T.name(*Read), "read");
  EXPECT_EQ(Read->Duration, 80);
  EXPECT_EQ(T.laneOf(*Read).Tid, 6);
  ASSERT_EQ(Kernel->Kind, EventKind::Kernel);
  // No demangledName column: the short name stands in.
  EXPECT_EQ(T.name(*Kernel), "gemm");
  EXPECT_EQ(Kernel->Start - Read->Start, 190);
  EXPECT_EQ(Kernel->Duration, 50);
  EXPECT_EQ(T.laneOf(*Kernel).Stream, 7);
  const EventArgs *A = T.args(*Kernel);
  ASSERT_TRUE(A);
  EXPECT_EQ(A->Grid[0], 40);
  EXPECT_EQ(A->Grid[1], 2);
  EXPECT_EQ(A->Grid[2], 3);
  EXPECT_EQ(A->Block[0], 128);
  EXPECT_EQ(A->Block[1], 0); // no blockY column
  EXPECT_EQ(A->RegistersPerThread, -1);
  EXPECT_EQ(T.Stats.get(ImportStat::BadValue), 0u);
}

// A table without a column that no row can do without (its times, its
// device or thread) is not read as a table of unusable rows: the error names
// the file, the table and the column.
TEST_F(NsysImporterTest, MissingRequiredColumnIsAnError) {
  struct Case {
    const char *Schema, *Table, *Column;
  } Cases[] = {
      {"CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start, end, streamId, "
       "correlationId, globalPid, shortName);",
       "CUPTI_ACTIVITY_KIND_KERNEL", "deviceId"},
      {"CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start, end, eventClass, "
       "correlationId, nameId);",
       "CUPTI_ACTIVITY_KIND_RUNTIME", "globalTid"},
      {"CREATE TABLE OSRT_API (start, globalTid, nameId);", "OSRT_API", "end"},
      // Also when the column is needed only to pick the domain-name rows.
      {"CREATE TABLE NVTX_EVENTS (start, end, text, globalTid, domainId);",
       "NVTX_EVENTS", "eventType"},
  };
  for (const Case &C : Cases) {
    auto T = importTraceFile(makeDb(std::string(BaseSchema) + C.Schema));
    ASSERT_FALSE(bool(T)) << C.Table;
    std::string Message = llvm::toString(T.takeError());
    EXPECT_NE(Message.find(Files.back()), std::string::npos) << Message;
    EXPECT_NE(Message.find(std::string("table ") + C.Table + ": "),
              std::string::npos)
        << Message;
    EXPECT_NE(Message.find(std::string("no column \"") + C.Column + "\""),
              std::string::npos)
        << Message;
  }
  // An optional column may be absent, even from every table.
  Trace T = import(std::string(BaseSchema) +
                   "CREATE TABLE PROFILER_OVERHEAD (start, end, globalTid);"
                   "INSERT INTO PROFILER_OVERHEAD VALUES (0, 5, 1);");
  ASSERT_EQ(T.Events.size(), 1u);
  EXPECT_EQ(T.name(T.Events[0]), "profiler overhead");
}

TEST_F(NsysImporterTest, MaxEventsIsEnforced) {
  std::string Sql = std::string(BaseSchema) + KernelTable;
  for (int I = 0; I < 10; ++I)
    Sql += "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (" +
           std::to_string(I * 10) + ", " + std::to_string(I * 10 + 5) +
           ", 0, 7, 0, 0, 2, 2);";
  ImportOptions Opts;
  Opts.MaxEvents = 5;
  auto T = importTraceFile(makeDb(Sql), Opts);
  ASSERT_FALSE(bool(T));
  EXPECT_NE(llvm::toString(T.takeError()).find("--max-events"),
            std::string::npos);
  Opts.MaxEvents = 10;
  EXPECT_EQ(import(Sql, Opts).Events.size(), 10u);
}

// An export from before nsys recorded export metadata (2020-2021): taken
// for one by its StringIds and CUPTI tables, read with nsys's memory-kind
// numbering (0 = pageable, 1 = pinned), its GPU from TARGET_INFO_CUDA_GPU,
// and its producer said to be unversioned.
TEST_F(NsysImporterTest, ExportWithoutMetadata) {
  Trace T = import(
      "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);"
      "CREATE TABLE TARGET_INFO_CUDA_GPU (deviceId, name, globalMemorySize, "
      "numMultiprocessors, computeCapabilityMajor, computeCapabilityMinor);"
      "INSERT INTO TARGET_INFO_CUDA_GPU VALUES (0, 'Tesla V100-SXM2-16GB', "
      "17071734784, 80, 7, 0);"
      "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start, end, deviceId, "
      "streamId, correlationId, globalPid, bytes, copyKind, srcKind, "
      "dstKind);"
      "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES "
      "(0, 100, 0, 7, 0, 0, 4096, 1, 0, 2), (200, 300, 0, 7, 0, 0, 4096, "
      "1, 1, 2);");
  ASSERT_EQ(T.Events.size(), 2u);
  EXPECT_EQ(T.Source.Format, "nsys-sqlite");
  EXPECT_EQ(T.Source.Era, "nsys 2020-2021, no export metadata");
  EXPECT_EQ(T.name(T.Events[0]), "Memcpy HtoD (Pageable -> Device)");
  EXPECT_EQ(T.name(T.Events[1]), "Memcpy HtoD (Pinned -> Device)");
  ASSERT_EQ(T.Devices.size(), 1u);
  EXPECT_EQ(T.Devices[0].Name, "Tesla V100-SXM2-16GB");
  EXPECT_EQ(T.Devices[0].NumSMs, 80);
  EXPECT_EQ(T.Devices[0].ComputeMajor, 7);
  EXPECT_EQ(T.Devices[0].TotalGlobalMemory, 17071734784);
}

// Unified-memory copies (copyKind 11-13, by the built-in numbering or an
// ENUM table's UVM names) are page migrations: EventKind::Migration on a
// lane of their own, not device work, with their direction, bytes, device
// and cause; an unmatched correlation id links nothing and is not counted.
// Page faults are instant markers on the same lanes.
TEST_F(NsysImporterTest, UnifiedMemoryIsMigrationNotCopy) {
  for (bool WithEnum : {false, true}) {
    std::string Sql =
        std::string(BaseSchema) +
        "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start, end, deviceId, "
        "streamId, correlationId, globalPid, bytes, copyKind, srcKind, "
        "dstKind, migrationCause);"
        "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES "
        "(0, 100, 0, 7, 0, " +
        std::to_string(globalTid(300, 0)) +
        ", 65536, 11, 4, 2, 2), "
        "(200, 300, 0, 7, 77, " +
        std::to_string(globalTid(300, 0)) +
        ", 4096, 12, 2, 4, 1), "
        "(400, 500, 0, 7, 1, " +
        std::to_string(globalTid(300, 0)) +
        ", 1024, 1, 0, 2, NULL);"
        "CREATE TABLE CUDA_UM_GPU_PAGE_FAULT_EVENTS (start, end, globalPid, "
        "deviceId, address, numberOfPageFaults, faultAccessType);"
        "INSERT INTO CUDA_UM_GPU_PAGE_FAULT_EVENTS VALUES (5, 9, " +
        std::to_string(globalTid(300, 0)) +
        ", 0, 4096, 3, 1);"
        "CREATE TABLE CUDA_UM_CPU_PAGE_FAULT_EVENTS (start, globalPid, "
        "address);"
        "INSERT INTO CUDA_UM_CPU_PAGE_FAULT_EVENTS VALUES (150, " +
        std::to_string(globalTid(300, 0)) + ", 8192);";
    if (WithEnum)
      Sql += "CREATE TABLE ENUM_CUDA_MEMCPY_OPER (id, name, label);"
             "INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES "
             "(1, 'CUDA_MEMCPY_KIND_HTOD', 'Host-to-Device'), "
             "(11, 'CUDA_MEMCPY_KIND_UVM_HTOD', 'Unified Host-to-Device'), "
             "(12, 'CUDA_MEMCPY_KIND_UVM_DTOH', 'Unified Device-to-Host');";
    Trace T = import(Sql);
    ASSERT_EQ(T.countKind(EventKind::Migration), 2u) << WithEnum;
    EXPECT_EQ(T.countKind(EventKind::Memcpy), 1u);
    EXPECT_EQ(T.countKind(EventKind::Marker), 2u);
    unsigned Migrations = 0;
    for (const Event &E : T.Events) {
      const Lane &L = T.laneOf(E);
      if (E.Kind == EventKind::Memcpy) {
        EXPECT_EQ(L.Kind, LaneKind::DeviceStream);
        continue;
      }
      // Never on a stream's lane.
      EXPECT_EQ(L.Kind, LaneKind::Other);
      EXPECT_FALSE(isDeviceWork(E.Kind));
      if (E.Kind == EventKind::Marker) {
        EXPECT_TRUE(E.hasFlag(FlagInstant));
        // Times count from the first event, the migration at 0.
        EXPECT_EQ(T.name(E),
                  E.Start == 5 ? "GPU page fault" : "CPU page fault");
        EXPECT_EQ(T.Strings.get(L.RawTid), E.Start == 5
                                               ? "unified memory, device 0"
                                               : "unified memory, host");
        continue;
      }
      const EventArgs *A = T.args(E);
      ASSERT_TRUE(A);
      EXPECT_EQ(A->Device, 0);
      EXPECT_EQ(T.launchOf(E), NoIndex);
      if (Migrations++ == 0) {
        EXPECT_EQ(T.name(E), "Migration HtoD");
        EXPECT_EQ(A->Copy, CopyKind::HtoD);
        EXPECT_EQ(A->Bytes, 65536);
        EXPECT_EQ(A->Src, MemoryKind::Managed);
        EXPECT_EQ(T.Strings.get(A->Detail), "coherence (page fault)");
      } else {
        EXPECT_EQ(T.name(E), "Migration DtoH");
        EXPECT_EQ(A->Copy, CopyKind::DtoH);
        EXPECT_EQ(T.Strings.get(A->Detail), "user (prefetch or copy)");
      }
    }
    EXPECT_EQ(T.Stats.get(ImportStat::DeviceWithoutLaunch), 1u)
        << "only the HtoD copy's id 1, which no call has";
  }
}

TEST_F(NsysImporterTest, OtherDatabasesAreRejected) {
  auto T = importTraceFile(
      makeDb("CREATE TABLE StringTable (_id_ INTEGER PRIMARY KEY, value TEXT);"
             "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (_id_ INTEGER);"));
  ASSERT_FALSE(bool(T));
  std::string Message = llvm::toString(T.takeError());
  EXPECT_NE(Message.find("an nvprof database"), std::string::npos) << Message;
  EXPECT_NE(Message.find(Files.back()), std::string::npos) << Message;
}

} // namespace
