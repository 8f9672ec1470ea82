//===- LegacyExporterImportTest.cpp - PyTorch's exporter without Kineto ---===//
//
// The format export_chrome_trace writes in a PyTorch built without Kineto:
// a bare array of uncategorised 'X' rows on "pid": "CPU functions". Its
// rows are a host thread's ops, its ProfilerStep#N ranges are steps, the
// producer names the era, and the rule is kept to that process: other
// string-pid rows without a category stay as they were.
//
//===----------------------------------------------------------------------===//
#include "import/Import.h"

#include "gtest/gtest.h"

using namespace tracelint;
using model::EventKind;

namespace {

model::Trace importLegacyJson(llvm::StringRef Json) {
  auto T = import::importTraceBytes("legacy.json", Json);
  if (!T) {
    ADD_FAILURE() << llvm::toString(T.takeError());
    return model::Trace();
  }
  return std::move(*T);
}

// Two steps on thread 1 (as Debian's torch 1.13 writes them, one line),
// with an op before the first and one in each, and a remote-thread row.
constexpr llvm::StringLiteral LegacyTrace =
    R"([{"name": "aten::zeros", "ph": "X", "ts": 10, "dur": 4, "tid": 1, "pid": "CPU functions", "args": {}}, )"
    R"({"name": "ProfilerStep#1", "ph": "X", "ts": 20, "dur": 100, "tid": 1, "pid": "CPU functions", "args": {}}, )"
    R"({"name": "aten::linear", "ph": "X", "ts": 25, "dur": 30, "tid": 1, "pid": "CPU functions", "args": {}}, )"
    R"({"name": "Optimizer.step#SGD.step", "ph": "X", "ts": 60, "dur": 20, "tid": 1, "pid": "CPU functions", "args": {}}, )"
    R"({"name": "ProfilerStep#2", "ph": "X", "ts": 130, "dur": 90, "tid": 1, "pid": "CPU functions", "args": {}}, )"
    R"({"name": "aten::linear", "ph": "X", "ts": 135, "dur": 30, "tid": 1, "pid": "CPU functions", "args": {}}, )"
    R"({"name": "rpc_async", "ph": "X", "ts": 140, "dur": 5, "tid": " node_id:1, thread_id:3 ", "pid": "CPU functions", "args": {}}])";

TEST(LegacyExporterImport, RowsAreAHostThreadsOpsAndStepsAreFound) {
  model::Trace T = importLegacyJson(LegacyTrace);
  ASSERT_EQ(T.Steps.size(), 2u);
  EXPECT_EQ(T.StepsFrom, model::StepSource::ProfilerStep);
  EXPECT_EQ(T.Steps[0].Number, 1);
  EXPECT_EQ(T.Steps[0].Start, 10'000); // ts 20 - the first event's 10
  EXPECT_EQ(T.Steps[0].End, 110'000);
  EXPECT_EQ(T.Steps[1].Number, 2);
  EXPECT_EQ(T.Steps[1].duration(), 90'000);

  unsigned Ops = 0, Annotations = 0;
  const model::Lane *Thread = nullptr;
  for (const model::Lane &L : T.Lanes) {
    if (L.Kind != model::LaneKind::HostThread)
      continue;
    EXPECT_EQ(Thread, nullptr) << "one host thread";
    Thread = &L;
    for (uint32_t I = L.Begin; I < L.End; ++I) {
      const model::Event &E = T.Events[I];
      llvm::StringRef Name = T.Strings.get(E.Name);
      if (Name.startswith("ProfilerStep#")) {
        EXPECT_EQ(E.Kind, EventKind::Annotation) << Name.str();
        ++Annotations;
      } else {
        EXPECT_EQ(E.Kind, EventKind::Op) << Name.str();
        ++Ops;
      }
    }
  }
  ASSERT_NE(Thread, nullptr);
  EXPECT_EQ(Ops, 4u);
  EXPECT_EQ(Annotations, 2u);
  EXPECT_EQ(Thread->Tid, 1);
  EXPECT_EQ(T.Strings.get(Thread->Process), "CPU functions");
  // Written back as read (report/Annotate.cpp).
  EXPECT_EQ(T.Strings.get(Thread->RawPid), "CPU functions");
  EXPECT_EQ(T.Source.Era,
            "PyTorch legacy exporter without Kineto: CPU ops, no categories");
}

TEST(LegacyExporterImport, RemoteThreadRowsStayApart) {
  // A row of a remote (RPC) thread has a string tid: it is not a local
  // thread, so it keeps a lane of its own and is not made an op.
  model::Trace T = importLegacyJson(LegacyTrace);
  unsigned OtherLanes = 0;
  for (const model::Lane &L : T.Lanes) {
    if (L.Kind != model::LaneKind::Other)
      continue;
    ++OtherLanes;
    ASSERT_EQ(L.End - L.Begin, 1u);
    EXPECT_EQ(T.Events[L.Begin].Kind, EventKind::Other);
  }
  EXPECT_EQ(OtherLanes, 1u);
}

TEST(LegacyExporterImport, OnlyTheExportersProcessIsRead) {
  // Uncategorised rows of any other named process are not ops and make no
  // host thread, and a trace with categories keeps its Kineto era.
  model::Trace T = importLegacyJson(
      R"([{"name": "ProfilerStep#1", "ph": "X", "ts": 0, "dur": 10, "tid": 1, "pid": "Spans", "args": {}}, )"
      R"({"name": "aten::mm", "ph": "X", "ts": 1, "dur": 2, "tid": 1, "pid": "Spans", "args": {}}])");
  EXPECT_TRUE(T.Steps.empty());
  for (const model::Event &E : T.Events) {
    if (T.Strings.get(E.Name) == "aten::mm") {
      EXPECT_EQ(E.Kind, EventKind::Other);
    }
  }
  EXPECT_TRUE(T.Source.Era.empty());

  model::Trace K = importLegacyJson(
      R"([{"name": "aten::mm", "cat": "cpu_op", "ph": "X", "ts": 1, "dur": 2, "tid": 1, "pid": "CPU functions", "args": {}}])");
  EXPECT_EQ(K.Source.Era, "2022+ Kineto (lower-case categories)");
}

} // namespace
