//===- RocpdImporterTest.cpp - rocprofv3 databases built in the test ------===//
//
// Each test writes a tiny rocpd database (rocprofv3's schema 3, tables
// suffixed with a run's UUID) with the SQLite C API and imports it through
// the command line's entry point, which must tell it from an nsys export.
// The lit tests (tests/lit/rocpd) cover whole fixtures; these cover the
// corners: grids in work-items, correlation through rocpd_event.stack_id,
// copies placed by their agents, a file without API rows, and files that
// must be refused with a message naming the table.
//
//===----------------------------------------------------------------------===//
#include "import/Import.h"

#include "llvm/Support/FileSystem.h"

#include "gtest/gtest.h"

#include <sqlite3.h>

#include <string>

using namespace tracelint;
using namespace tracelint::import;
using namespace tracelint::model;

namespace {

/// The run's table suffix, as rocprofv3 writes it (a UUID, '_' for '-').
const std::string RocpdRun = "_0192d7a4_5b3c_7e21_9a4f_3c5e7d9b1a20";

/// A table of the run: rocpd_<Base><RocpdRun>.
std::string rocpdTable(const std::string &Base) {
  return "rocpd_" + Base + RocpdRun;
}

/// The small tables of a run: strings, a process and thread (ids are the
/// OS's), a CPU agent 0 and an MI300X agent 1, one kernel symbol.
std::string rocpdBase() {
  return "CREATE TABLE " + rocpdTable("metadata") +
         " (id INTEGER PRIMARY KEY, tag TEXT, value TEXT);"
         "INSERT INTO " +
         rocpdTable("metadata") +
         " (tag, value) VALUES ('schema_version', '3');"
         "CREATE TABLE " +
         rocpdTable("string") +
         " (id INTEGER PRIMARY KEY, string TEXT);"
         "INSERT INTO " +
         rocpdTable("string") +
         " VALUES (1, 'HIP_RUNTIME_API_EXT'), (2, 'hipLaunchKernel'), "
         "(3, 'KERNEL_DISPATCH'), (4, 'MEMORY_COPY_HOST_TO_DEVICE'), "
         "(5, 'hipMemcpy'), (6, 'MEMORY_COPY');"
         "CREATE TABLE " +
         rocpdTable("info_process") +
         " (id INTEGER PRIMARY KEY, pid INTEGER, command TEXT);"
         "INSERT INTO " +
         rocpdTable("info_process") +
         " VALUES (500, 500, '/opt/bin/train --steps 3');"
         "CREATE TABLE " +
         rocpdTable("info_thread") +
         " (id INTEGER PRIMARY KEY, pid INTEGER, tid INTEGER, name TEXT);"
         "INSERT INTO " +
         rocpdTable("info_thread") +
         " VALUES (501, 500, 501, NULL);"
         "CREATE TABLE " +
         rocpdTable("info_agent") +
         " (id INTEGER PRIMARY KEY, type TEXT, absolute_index INTEGER, "
         "type_index INTEGER, name TEXT, model_name TEXT, product_name TEXT, "
         "extdata TEXT);"
         "INSERT INTO " +
         rocpdTable("info_agent") +
         " VALUES (0, 'CPU', 0, 0, 'AMD EPYC 9654', '', 'AMD EPYC 9654', "
         "'{}'), (1, 'GPU', 1, 0, 'gfx942', 'aqua_vanjaram', "
         "'AMD Instinct MI300X', '{\"cu_count\":304,\"wave_front_size\":64,"
         "\"max_waves_per_cu\":32,\"local_mem_size\":206158430208}');"
         "CREATE TABLE " +
         rocpdTable("info_kernel_symbol") +
         " (id INTEGER PRIMARY KEY, kernel_name TEXT, display_name TEXT);"
         "INSERT INTO " +
         rocpdTable("info_kernel_symbol") +
         " VALUES (1, '_Z4gemmPf.kd', 'gemm(float*)');"
         "CREATE TABLE " +
         rocpdTable("event") +
         " (id INTEGER PRIMARY KEY, category_id INTEGER, stack_id INTEGER, "
         "correlation_id INTEGER, extdata TEXT);";
}

/// rocprofv3's dispatch table, with one dispatch of kernel 1 on agent 1:
/// 1024 x 2 work-items in work-groups of 256 x 1, [1000, 3000] ns, its
/// rocpd_event row 10 carrying correlation id \p Corr.
std::string rocpdDispatch(int Corr) {
  return "CREATE TABLE " + rocpdTable("kernel_dispatch") +
         " (id INTEGER PRIMARY KEY, pid INTEGER, tid INTEGER, agent_id "
         "INTEGER, kernel_id INTEGER, queue_id INTEGER, stream_id INTEGER, "
         "start INTEGER, end INTEGER, group_segment_size INTEGER, "
         "workgroup_size_x INTEGER, workgroup_size_y INTEGER, "
         "workgroup_size_z INTEGER, grid_size_x INTEGER, grid_size_y "
         "INTEGER, grid_size_z INTEGER, event_id INTEGER);"
         "INSERT INTO " +
         rocpdTable("event") + " VALUES (10, 3, " + std::to_string(Corr) +
         ", 0, '{}');"
         "INSERT INTO " +
         rocpdTable("kernel_dispatch") +
         " VALUES (1, 500, 501, 1, 1, 7, 0, 1000, 3000, 4096, 256, 1, 1, "
         "1024, 2, 1, 10);";
}

/// A hipLaunchKernel region [500, 900] ns whose rocpd_event row carries
/// correlation id \p Corr.
std::string rocpdLaunch(int Corr) {
  return "CREATE TABLE " + rocpdTable("region") +
         " (id INTEGER PRIMARY KEY, pid INTEGER, tid INTEGER, start INTEGER, "
         "end INTEGER, name_id INTEGER, event_id INTEGER);"
         "INSERT INTO " +
         rocpdTable("event") + " VALUES (20, 1, " + std::to_string(Corr) +
         ", 0, '{}');"
         "INSERT INTO " +
         rocpdTable("region") + " VALUES (1, 500, 501, 500, 900, 2, 20);";
}

class RocpdImporterTest : public ::testing::Test {
protected:
  void TearDown() override {
    for (const std::string &P : Files)
      llvm::sys::fs::remove(P);
  }

  /// A new SQLite file holding \p Sql.
  std::string makeDb(const std::string &Sql) {
    llvm::SmallString<128> Path;
    EXPECT_FALSE(llvm::sys::fs::createTemporaryFile("rocpd-test", "db", Path));
    Files.push_back(Path.str().str());
    sqlite3 *Db = nullptr;
    EXPECT_EQ(sqlite3_open(Path.c_str(), &Db), SQLITE_OK);
    char *Err = nullptr;
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

  Trace import(const std::string &Sql) {
    auto T = importTraceFile(makeDb(Sql));
    EXPECT_TRUE(bool(T)) << llvm::toString(T.takeError());
    return T ? std::move(*T) : Trace();
  }

  /// The error importing \p Sql gives.
  std::string failure(const std::string &Sql) {
    auto T = importTraceFile(makeDb(Sql));
    EXPECT_FALSE(bool(T));
    return T ? std::string() : llvm::toString(T.takeError());
  }

  std::vector<std::string> Files;
};

const Event *firstOfKind(const Trace &T, EventKind K) {
  for (const Event &E : T.Events)
    if (E.Kind == K)
      return &E;
  return nullptr;
}

// A file with dispatches alone (rocprofv3 --kernel-trace) is a whole trace:
// the GPU described from its agent, the grid in work-groups, no host calls.
TEST_F(RocpdImporterTest, KernelDispatchesAloneImport) {
  Trace T = import(rocpdBase() + rocpdDispatch(7));
  EXPECT_EQ(T.Source.Format, "rocpd-sqlite");
  EXPECT_TRUE(T.Source.KernelGridInBlocks);
  EXPECT_EQ(T.countKind(EventKind::Runtime), 0u);
  const Event *K = firstOfKind(T, EventKind::Kernel);
  ASSERT_TRUE(K);
  EXPECT_EQ(T.name(*K), "gemm(float*)");
  EXPECT_EQ(K->Duration, 2000);
  const EventArgs *A = T.args(*K);
  ASSERT_TRUE(A);
  // 1024 x 2 work-items in groups of 256 x 1: 4 x 2 work-groups.
  EXPECT_EQ(A->Grid[0], 4);
  EXPECT_EQ(A->Grid[1], 2);
  EXPECT_EQ(A->Grid[2], 1);
  EXPECT_EQ(A->Block[0], 256);
  EXPECT_EQ(A->SharedMemory, 4096);
  EXPECT_EQ(A->Device, 0); // HIP's device 0: the GPU's type_index
  // Nothing to link the dispatch to.
  EXPECT_EQ(T.launchOf(*K), NoIndex);

  ASSERT_EQ(T.Devices.size(), 1u);
  const DeviceInfo &D = T.Devices[0];
  EXPECT_EQ(D.Id, 0);
  EXPECT_EQ(D.Name, "AMD Instinct MI300X");
  EXPECT_EQ(D.Arch, "gfx942");
  EXPECT_EQ(D.NumSMs, 304);
  EXPECT_EQ(D.WarpSize, 64);
  EXPECT_EQ(D.TotalGlobalMemory, 206158430208);
  EXPECT_EQ(D.MaxThreadsPerMultiprocessor, 32 * 64);
}

// rocpd_event.stack_id is the correlation id an API call shares with the
// device work it enqueued.
TEST_F(RocpdImporterTest, DispatchLinksToItsLaunchCall) {
  Trace T = import(rocpdBase() + rocpdDispatch(7) + rocpdLaunch(7));
  const Event *K = firstOfKind(T, EventKind::Kernel);
  const Event *L = firstOfKind(T, EventKind::Runtime);
  ASSERT_TRUE(K && L);
  EXPECT_EQ(T.name(*L), "hipLaunchKernel");
  EXPECT_EQ(T.laneOf(*L).Pid, 500);
  EXPECT_EQ(T.laneOf(*L).Tid, 501);
  uint32_t Launch = T.launchOf(*K);
  ASSERT_NE(Launch, NoIndex);
  EXPECT_EQ(&T.Events[Launch], L);

  // Another correlation id links nothing.
  Trace U = import(rocpdBase() + rocpdDispatch(7) + rocpdLaunch(8));
  const Event *K2 = firstOfKind(U, EventKind::Kernel);
  ASSERT_TRUE(K2);
  EXPECT_EQ(U.launchOf(*K2), NoIndex);
}

// The agents at each end of a copy say its direction and its GPU.
TEST_F(RocpdImporterTest, CopiesTakeTheirDirectionFromTheAgents) {
  std::string Sql =
      rocpdBase() + "CREATE TABLE " + rocpdTable("memory_copy") +
      " (id INTEGER PRIMARY KEY, pid INTEGER, start INTEGER, end INTEGER, "
      "name_id INTEGER, dst_agent_id INTEGER, src_agent_id INTEGER, size "
      "INTEGER, stream_id INTEGER, event_id INTEGER);"
      "INSERT INTO " +
      rocpdTable("event") + " VALUES (30, 6, 9, 0, '{}');" + "INSERT INTO " +
      rocpdTable("memory_copy") +
      " VALUES (1, 500, 2000, 6000, 4, 1, 0, 1048576, 0, 30);";
  Trace T = import(Sql);
  const Event *C = firstOfKind(T, EventKind::Memcpy);
  ASSERT_TRUE(C);
  const EventArgs *A = T.args(*C);
  ASSERT_TRUE(A);
  EXPECT_EQ(A->Copy, CopyKind::HtoD);
  EXPECT_EQ(A->Src, MemoryKind::Host);
  EXPECT_EQ(A->Dst, MemoryKind::Device);
  EXPECT_EQ(A->Bytes, 1048576);
  EXPECT_EQ(A->Device, 0);
  EXPECT_EQ(C->Correlation, 9u);
  EXPECT_EQ(T.name(*C), "Memcpy HtoD (Host -> Device)");
}

// rocmProfileData's databases also name their tables rocpd_*: they are
// refused with what to do instead, not read as an nsys export.
TEST_F(RocpdImporterTest, RocmProfileDataIsRefused) {
  std::string E = failure("CREATE TABLE rocpd_api (id INTEGER PRIMARY KEY);"
                          "CREATE TABLE rocpd_op (id INTEGER PRIMARY KEY);"
                          "CREATE TABLE rocpd_string (id INTEGER PRIMARY "
                          "KEY, string TEXT);");
  EXPECT_NE(E.find("rocmProfileData (RPD)"), std::string::npos) << E;
  EXPECT_NE(E.find("rpd2tracing.py"), std::string::npos) << E;
}

// A table without a column no row can do without names the table and the
// column; times moved into rocpd_timestamp (schema 4) are said so.
TEST_F(RocpdImporterTest, MissingRequiredColumnsNameTheTable) {
  std::string Sql = rocpdBase() + "CREATE TABLE " +
                    rocpdTable("kernel_dispatch") +
                    " (id INTEGER PRIMARY KEY, agent_id INTEGER, start_id "
                    "INTEGER, end_id INTEGER);";
  std::string E = failure(Sql);
  EXPECT_NE(E.find(rocpdTable("kernel_dispatch")), std::string::npos) << E;
  EXPECT_NE(E.find("no column \"start\""), std::string::npos) << E;
  EXPECT_NE(E.find("rocpd_timestamp"), std::string::npos) << E;
}

// Rows that cannot be placed are counted, never trusted: a dispatch on the
// CPU agent, one whose kernel is not listed, a time of the wrong type.
TEST_F(RocpdImporterTest, HostileRowsAreCounted) {
  std::string Sql = rocpdBase() + rocpdDispatch(7) + "INSERT INTO " +
                    rocpdTable("kernel_dispatch") +
                    " VALUES (2, 500, 501, 0, 1, 7, 0, 4000, 5000, 0, 64, 1, "
                    "1, 64, 1, 1, NULL),"
                    " (3, 500, 501, 1, 99, 7, 0, 6000, 7000, 0, 64, 1, 1, "
                    "64, 1, 1, NULL),"
                    " (4, 500, 501, 1, 1, 7, 0, 'soon', 9000, 0, 64, 1, 1, "
                    "64, 1, 1, NULL);";
  Trace T = import(Sql);
  EXPECT_EQ(T.countKind(EventKind::Kernel), 2u);
  EXPECT_EQ(T.Stats.get(ImportStat::UnusableRow), 2u);
  EXPECT_EQ(T.Stats.get(ImportStat::MissingName), 1u);
  bool Placeholder = false;
  for (const Event &E : T.Events)
    Placeholder |= T.name(E) == "<kernel 99>";
  EXPECT_TRUE(Placeholder);
}

} // namespace
