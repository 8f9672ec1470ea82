//===- tests/corpus/CorpusTest.cpp - Every real trace in ../shared/traces -===//
//
// For each file: a Chrome trace or an Nsight Systems SQLite export imports
// without error and its model keeps the invariants (sorted lanes, nesting
// inside parents, busy <= window), and its counts match an independent count
// made here (simdjson's DOM parser over the decompressed text; plain SQL over
// the export); anything else is rejected with a message that names the file.
//
//===----------------------------------------------------------------------===//
#include "CorpusFiles.h"
#include "analysis/Stats.h"
#include "import/Import.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>
#include <simdjson.h>
#include <sqlite3.h>
#include <zlib.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

using namespace tracelint;
using corpus::tracesDir;

namespace {

// Every input-looking file, the ones that must be rejected included.
std::vector<std::string> corpusFiles() {
  return corpus::corpusFiles(/*TracesOnly=*/false);
}

bool expectRejected(llvm::StringRef Path) { return corpus::isNotATrace(Path); }

// The whole decompressed file, for the independent count.
std::string readAll(const std::string &Path) {
  gzFile F = gzopen(Path.c_str(), "rb"); // also reads plain files
  std::string Out;
  if (!F)
    return Out;
  char Chunk[1 << 16];
  int N;
  while ((N = gzread(F, Chunk, sizeof(Chunk))) > 0)
    Out.append(Chunk, size_t(N));
  gzclose(F);
  return Out;
}

struct IndependentCount {
  size_t Elements = 0;
  std::map<std::string, size_t> ByPhase;
  size_t DeviceKernels = 0; // 'X' events in category kernel/Kernel
  double KernelMicros = 0;
};

bool countIndependently(const std::string &Text, IndependentCount &C) {
  simdjson::dom::parser Parser;
  simdjson::dom::element Root;
  if (Parser.parse(Text).get(Root))
    return false;
  simdjson::dom::array Events;
  if (Root.is_array()) {
    Events = Root.get_array().value_unsafe();
  } else if (Root["traceEvents"].get_array().get(Events)) {
    return false;
  }
  for (simdjson::dom::element E : Events) {
    ++C.Elements;
    std::string_view Ph, Cat;
    if (!E["ph"].get_string().get(Ph))
      ++C.ByPhase[std::string(Ph)];
    if (Ph == "X" && !E["cat"].get_string().get(Cat) &&
        (Cat == "kernel" || Cat == "Kernel")) {
      ++C.DeviceKernels;
      double Dur = 0;
      if (!E["dur"].get_double().get(Dur))
        C.KernelMicros += Dur;
      else {
        int64_t I = 0;
        if (!E["dur"].get_int64().get(I))
          C.KernelMicros += double(I);
      }
    }
  }
  return true;
}

/// One integer from \p Sql over the export at \p Path (read-only), or -1
/// when the query fails (a table that this export does not have).
int64_t sqlInteger(const std::string &Path, const char *Sql) {
  sqlite3 *Db = nullptr;
  int64_t Out = -1;
  if (sqlite3_open_v2(Path.c_str(), &Db, SQLITE_OPEN_READONLY, nullptr) ==
      SQLITE_OK) {
    sqlite3_stmt *S = nullptr;
    if (sqlite3_prepare_v2(Db, Sql, -1, &S, nullptr) == SQLITE_OK &&
        sqlite3_step(S) == SQLITE_ROW)
      Out = sqlite3_column_int64(S, 0);
    sqlite3_finalize(S);
  }
  sqlite3_close(Db);
  return Out;
}

/// Counts made with plain SQL, independently of the importer: every kernel,
/// copy and memset row is in the model with its exact duration, every API
/// row that is not a backtrace copy (eventClass 67) is a runtime or driver
/// call, and kernels link to their launches.
void checkNsysCounts(const std::string &Path, const model::Trace &T) {
  auto Count = [&](const char *Sql) {
    return std::max<int64_t>(0, sqlInteger(Path, Sql));
  };
  int64_t Kernels = Count("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL");
  int64_t KernelNs =
      Count("SELECT sum(end - start) FROM CUPTI_ACTIVITY_KIND_KERNEL");
  int64_t Copies = Count("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY");
  int64_t Memsets = Count("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMSET");
  int64_t Calls = Count("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME "
                        "WHERE eventClass != 67");
  size_t ModelKernels = T.countKind(model::EventKind::Kernel) +
                        T.countKind(model::EventKind::Collective);
  EXPECT_EQ(int64_t(ModelKernels), Kernels);
  int64_t ModelKernelNs = 0;
  size_t Linked = 0;
  for (const model::Event &E : T.Events)
    if (E.Kind == model::EventKind::Kernel ||
        E.Kind == model::EventKind::Collective) {
      ModelKernelNs += E.Duration;
      Linked += T.launchOf(E) != model::NoIndex;
    }
  EXPECT_EQ(ModelKernelNs, KernelNs);
  EXPECT_EQ(int64_t(T.countKind(model::EventKind::Memcpy)), Copies);
  EXPECT_EQ(int64_t(T.countKind(model::EventKind::Memset)), Memsets);
  EXPECT_EQ(int64_t(T.countKind(model::EventKind::Runtime) +
                    T.countKind(model::EventKind::Driver)),
            Calls);
  // With CUDA API tracing on, nsys records the launch of every kernel.
  if (Calls > 0) {
    EXPECT_GE(double(Linked), 0.9 * double(ModelKernels));
  }
  EXPECT_EQ(T.Source.Format, "nsys-sqlite");
  EXPECT_EQ(T.Stats.get(model::ImportStat::UnusableRow), 0u);
}

class Corpus : public ::testing::TestWithParam<std::string> {};

TEST_P(Corpus, ImportsOrRejectsCleanly) {
  const std::string &Path = GetParam();
  if (Path.empty())
    GTEST_SKIP() << "no traces under " << tracesDir();
  auto Trace = import::importTraceFile(Path);
  if (expectRejected(Path)) {
    ASSERT_FALSE(bool(Trace)) << Path << " should be rejected";
    std::string Message = llvm::toString(Trace.takeError());
    EXPECT_NE(Message.find(Path), std::string::npos) << Message;
    return;
  }
  ASSERT_TRUE(bool(Trace)) << llvm::toString(Trace.takeError());
  const model::Trace &T = *Trace;

  // Model invariants.
  for (const model::Lane &L : T.Lanes) {
    ASSERT_LE(L.Begin, L.End);
    for (uint32_t I = L.Begin; I < L.End; ++I) {
      const model::Event &E = T.Events[I];
      ASSERT_GE(E.Duration, 0);
      ASSERT_GE(E.Start, T.WindowStart);
      ASSERT_LE(E.end(), T.WindowEnd);
      if (I > L.Begin) {
        ASSERT_LE(T.Events[I - 1].Start, E.Start) << "lane not sorted";
      }
      if (E.Parent != model::NoIndex) {
        const model::Event &P = T.Events[E.Parent];
        ASSERT_LT(E.Parent, I);
        ASSERT_LE(P.Start, E.Start);
        ASSERT_GE(P.end(), E.end());
        ASSERT_EQ(P.Lane, E.Lane);
      }
    }
  }
  for (const model::Step &S : T.Steps) {
    EXPECT_LE(S.Start, S.End);
    EXPECT_LE(S.End, T.WindowEnd);
  }

  // Busy never exceeds the window, and never is reported without device work.
  analysis::TraceStats S = analysis::computeStats(T);
  for (const auto &D : S.Devices) {
    EXPECT_LE(D.BusyNs, S.Window.length());
    EXPECT_GE(D.BusyNs, 0);
  }

  if (llvm::StringRef(Path).endswith(".sqlite")) {
    checkNsysCounts(Path, T);
    return;
  }

  // Independent count over the decompressed text.
  IndependentCount C;
  ASSERT_TRUE(countIndependently(readAll(Path), C)) << Path;
  EXPECT_EQ(T.Stats.get(model::ImportStat::EventsRead), C.Elements);
  EXPECT_EQ(T.Stats.get(model::ImportStat::MetadataEvents), C.ByPhase["M"]);
  EXPECT_EQ(T.Stats.get(model::ImportStat::MalformedEvent), 0u);
  EXPECT_EQ(T.Stats.get(model::ImportStat::MissingTimestamp), 0u);
  size_t Kernels = T.countKind(model::EventKind::Kernel) +
                   T.countKind(model::EventKind::Collective);
  EXPECT_EQ(Kernels, C.DeviceKernels);
  double ModelMicros = 0;
  for (const model::Event &E : T.Events)
    if (E.Kind == model::EventKind::Kernel ||
        E.Kind == model::EventKind::Collective)
      ModelMicros += double(E.Duration) / 1000.0;
  EXPECT_NEAR(ModelMicros, C.KernelMicros,
              0.001 * double(C.DeviceKernels) + 1e-6);
}

INSTANTIATE_TEST_SUITE_P(
    SharedTraces, Corpus,
    ::testing::ValuesIn(corpus::filesOrAbsent(corpusFiles())),
    corpus::caseName);

} // namespace

// The placeholder case: skipped when ../shared/traces is absent.
class CorpusPresence : public ::testing::Test {};
TEST_F(CorpusPresence, FolderPresentOrSkipped) {
  if (corpusFiles().empty())
    GTEST_SKIP() << "no traces under " << tracesDir();
  SUCCEED();
}
