//===- CaptureCollectorTest.cpp - Collector, JSON writer, round trip ------===//
//
// The capture's events go through the writer and back through tracelint's
// own Kineto importer: what the library writes must be what lint reads.
//
//===----------------------------------------------------------------------===//
#include "Collector.h"
#include "TraceWriter.h"

#include "import/Import.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include "gtest/gtest.h"

using namespace tracelint;
using namespace tracelint::capture;

namespace {

TraceEvent event(const char *Cat, std::string Name, uint64_t Start,
                 uint64_t End, int64_t Pid, int64_t Tid, bool Device,
                 uint32_t Correlation = 0) {
  TraceEvent E;
  E.Cat = Cat;
  E.Name = std::move(Name);
  E.StartNs = Start;
  E.EndNs = End;
  E.Pid = Pid;
  E.Tid = Tid;
  E.OnDevice = Device;
  E.Correlation = Correlation;
  return E;
}

TEST(CaptureCollectorTest, KeepsOnlyEventsThatOverlapTheWindow) {
  TraceCollector C;
  EXPECT_FALSE(C.add(event("kernel", "early", 0, 10, 0, 7, true)));
  C.windowStarted(100);
  EXPECT_FALSE(C.add(event("kernel", "before", 10, 99, 0, 7, true)));
  EXPECT_TRUE(C.add(event("kernel", "straddles", 90, 110, 0, 7, true)));
  EXPECT_TRUE(C.add(event("kernel", "inside", 120, 130, 0, 7, true)));
  C.windowEnded(200);
  EXPECT_TRUE(C.add(event("kernel", "late flush", 150, 250, 0, 7, true)));
  EXPECT_FALSE(C.add(event("kernel", "after", 201, 300, 0, 7, true)));
  EXPECT_EQ(C.events().size(), 3u);
  EXPECT_EQ(C.counts().OutsideWindow, 3u);
  EXPECT_EQ(C.counts().Received, 6u);
  // A negative duration is clamped, not kept as a huge unsigned span.
  EXPECT_TRUE(C.add(event("kernel", "backwards", 180, 170, 0, 7, true)));
  EXPECT_EQ(C.events().back().EndNs, 180u);
}

TEST(CaptureCollectorTest, MaxEventsDropsAndCounts) {
  TraceCollector C(2);
  C.windowStarted(0);
  for (int I = 0; I < 5; ++I)
    C.add(event("kernel", "k", 10 * I, 10 * I + 5, 0, 7, true));
  EXPECT_EQ(C.events().size(), 2u);
  EXPECT_EQ(C.counts().Kept, 2u);
  EXPECT_EQ(C.counts().DroppedByCap, 3u);
  C.addCuptiDropped(11);
  EXPECT_EQ(C.counts().CuptiDropped, 11u);
}

TEST(CaptureCollectorTest, MarkersPairAcrossTheWindowStart) {
  TraceCollector C;
  // The range starts just before the window (the trigger's own range).
  C.markerStart(1, "step", "", 95, 42, 43);
  C.windowStarted(100);
  C.markerStart(2, "inner", "mydomain", 110, 42, 43);
  C.markerEnd(2, 120);
  C.markerEnd(1, 150);
  C.markerEnd(99, 160); // never started
  C.markerStart(3, "still open", "", 170, 42, 43);
  C.windowEnded(180);
  C.closeOpenMarkers();
  ASSERT_EQ(C.events().size(), 3u);
  EXPECT_EQ(C.events()[0].Name, "inner");
  EXPECT_EQ(C.events()[1].Name, "step");
  EXPECT_EQ(C.events()[1].StartNs, 95u);
  EXPECT_EQ(C.events()[1].EndNs, 150u);
  EXPECT_EQ(C.events()[2].Name, "still open");
  EXPECT_EQ(C.events()[2].EndNs, 180u);
  EXPECT_EQ(C.counts().UnpairedMarkerEnds, 1u);
  EXPECT_EQ(C.counts().OpenMarkersClosed, 1u);
}

TEST(CaptureCollectorTest, ExternalCorrelationPrefersOperatorIds) {
  TraceCollector C;
  C.addExternalCorrelation(5, 900, 4); // CUSTOM1: a user annotation
  C.addExternalCorrelation(5, 77, 3);  // CUSTOM0: the operator
  C.addExternalCorrelation(5, 901, 4);
  C.addExternalCorrelation(6, 12, 4);
  EXPECT_EQ(C.externalId(5), 77u);
  EXPECT_EQ(C.externalId(6), 12u);
  EXPECT_EQ(C.externalId(7), 0u);
}

TEST(CaptureCollectorTest, JsonStringsAreEscapedAndValidUtf8) {
  EXPECT_EQ(jsonString("a\"b\\c\n\t"), "\"a\\\"b\\\\c\\n\\t\"");
  EXPECT_EQ(jsonString(std::string("x\x01y", 3)), "\"x\\u0001y\"");
  EXPECT_EQ(jsonString("caf\xc3\xa9"), "\"caf\xc3\xa9\"");
  // A lone continuation byte and a truncated sequence are replaced.
  EXPECT_EQ(jsonString("a\x80z"), "\"a\\ufffdz\"");
  EXPECT_EQ(jsonString("b\xe2\x82"), "\"b\\ufffd\\ufffd\"");
  EXPECT_EQ(jsonInts({1, -2, 3}), "[1, -2, 3]");
}

class CaptureRoundTripTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("capture-rt", Dir));
  }
  void TearDown() override { llvm::sys::fs::remove_directories(Dir); }

  /// Writes \p C and imports it with the real importer.
  model::Trace roundTrip(const TraceCollector &C, const TraceMetadata &M) {
    llvm::SmallString<128> Path(Dir);
    llvm::sys::path::append(Path, "capture.pid1.json");
    std::string Err =
        writeFileAtomically(std::string(Path), renderTraceJson(C, M));
    EXPECT_EQ(Err, "");
    auto T = import::importTraceFile(Path);
    if (!T) {
      ADD_FAILURE() << llvm::toString(T.takeError());
      return model::Trace();
    }
    return std::move(*T);
  }

  llvm::SmallString<128> Dir;
};

const model::Event *find(const model::Trace &T, llvm::StringRef Name) {
  for (const model::Event &E : T.Events)
    if (T.name(E) == Name)
      return &E;
  return nullptr;
}

TEST_F(CaptureRoundTripTest, EveryKindImportsAsItsKind) {
  TraceCollector C;
  C.windowStarted(1000000);
  DeviceProps D;
  D.Id = 0;
  D.Name = "Test GPU";
  D.NumSms = 132;
  D.WarpSize = 32;
  D.ComputeMajor = 9;
  D.MaxThreadsPerMultiprocessor = 2048;
  D.TotalGlobalMem = 80ull << 30;
  C.addDevice(D);
  C.addContext(1, 0);

  TraceEvent Launch = event("cuda_runtime", "cudaLaunchKernel", 1000100,
                            1000200, 4242, 4243, false, 11);
  C.add(Launch);
  TraceEvent K =
      event("kernel", "gemm_kernel", 1001000, 1003000, 0, 7, true, 11);
  K.Args = {{"grid", jsonInts({4, 1, 1})}, {"block", jsonInts({128, 1, 1})}};
  C.add(K);
  C.add(event("cuda_runtime", "cudaMemcpyAsync", 1004000, 1004100, 4242, 4243,
              false, 12));
  TraceEvent Copy = event("gpu_memcpy", "Memcpy HtoD (Pageable -> Device)",
                          1004050, 1005050, 0, 7, true, 12);
  Copy.Args = {{"bytes", jsonUInt(4096)}};
  C.add(Copy);
  C.add(event("gpu_memset", "Memset (Device)", 1006000, 1006100, 0, 7, true));
  C.add(event("cuda_driver", "cuLaunchKernel", 1006200, 1006300, 4242, 4243,
              false, 13));
  TraceEvent Sync =
      event("cuda_sync", "Stream Sync", 1007000, 1008000, 0, 7, true, 14);
  Sync.DeviceFromContext = true;
  Sync.ContextId = 1;
  Sync.Pid = 0;
  C.add(Sync);
  C.add(event("overhead", "CUPTI buffer flush", 1008000, 1008500, 4242, 4243,
              false));
  C.markerStart(1, "train_step", "", 1000050, 4242, 4243);
  C.markerEnd(1, 1009000);
  TraceEvent Mark = event("user_annotation", "checkpoint", 1008800, 1008800,
                          4242, 4243, false);
  Mark.Ph = 'i';
  C.add(Mark);
  C.addExternalCorrelation(11, 555, 3);
  C.setThreadName(4242, 4243, "python3");
  C.windowEnded(1010000);
  C.closeOpenMarkers();

  TraceMetadata M;
  M.ProducerVersion = "9.9.9";
  M.CuptiRuntimeVersion = 130001;
  M.CudaDriverVersion = 13000;
  M.Pid = 4242;
  M.ProcessName = "python3";
  M.Rank = 1;
  M.WorldSize = 2;
  M.WindowMode = "time";
  model::Trace T = roundTrip(C, M);

  EXPECT_EQ(T.Events.size(), 10u);
  struct {
    const char *Name;
    model::EventKind Kind;
    bool Device;
  } Expect[] = {
      {"cudaLaunchKernel", model::EventKind::Runtime, false},
      {"gemm_kernel", model::EventKind::Kernel, true},
      {"Memcpy HtoD (Pageable -> Device)", model::EventKind::Memcpy, true},
      {"Memset (Device)", model::EventKind::Memset, true},
      {"cuLaunchKernel", model::EventKind::Driver, false},
      {"Stream Sync", model::EventKind::Sync, true},
      {"CUPTI buffer flush", model::EventKind::Overhead, false},
      {"train_step", model::EventKind::Annotation, false},
      {"checkpoint", model::EventKind::Annotation, false},
  };
  for (const auto &X : Expect) {
    const model::Event *E = find(T, X.Name);
    ASSERT_NE(E, nullptr) << X.Name;
    EXPECT_EQ(E->Kind, X.Kind) << X.Name;
    EXPECT_EQ(T.laneOf(*E).Kind, X.Device ? model::LaneKind::DeviceStream
                                          : model::LaneKind::HostThread)
        << X.Name;
  }
  // Times survive in ns relative to the earliest event.
  const model::Event *Kernel = find(T, "gemm_kernel");
  const model::Event *Step = find(T, "train_step");
  EXPECT_EQ(Kernel->Start - Step->Start, 950);
  EXPECT_EQ(Kernel->Duration, 2000);
  // Host call and kernel are linked by correlation, the operator by
  // external id.
  EXPECT_EQ(Kernel->ExternalId, 555);
  uint32_t L = T.launchOf(*Kernel);
  ASSERT_NE(L, model::NoIndex);
  EXPECT_EQ(T.name(T.Events[L]), "cudaLaunchKernel");
  const model::EventArgs *Args = T.args(*find(T, "Memcpy HtoD (Pageable -> "
                                                 "Device)"));
  ASSERT_NE(Args, nullptr);
  EXPECT_EQ(Args->Copy, model::CopyKind::HtoD);
  EXPECT_EQ(Args->Src, model::MemoryKind::Pageable);
  EXPECT_EQ(Args->Bytes, 4096);
  EXPECT_EQ(T.args(*Kernel)->Grid[0], 4);
  // Metadata.
  ASSERT_EQ(T.Devices.size(), 1u);
  EXPECT_EQ(T.Devices[0].Name, "Test GPU");
  EXPECT_EQ(T.Devices[0].NumSMs, 132);
  EXPECT_EQ(T.Source.CuptiVersion, "130001");
  EXPECT_EQ(T.Source.CudaDriverVersion, "13000");
  EXPECT_EQ(T.Source.Rank, 1);
  EXPECT_EQ(T.Source.WorldSize, 2);
  EXPECT_EQ(T.Source.SchemaVersion, 1);
  EXPECT_EQ(T.Stats.get(model::ImportStat::UnknownCategory), 0u);
  EXPECT_GE(T.Flows.size(), 1u);
}

TEST_F(CaptureRoundTripTest, DroppedRecordsAreDataLossOnImport) {
  TraceCollector C(1);
  C.windowStarted(0);
  C.add(event("kernel", "kept", 1, 2, 0, 7, true));
  C.add(event("kernel", "over the cap", 3, 4, 0, 7, true));
  C.add(event("kernel", "also over", 5, 6, 0, 7, true));
  C.addCuptiDropped(5);
  C.windowEnded(10);
  model::Trace T = roundTrip(C, TraceMetadata());
  EXPECT_EQ(T.Events.size(), 1u);
  EXPECT_EQ(T.Stats.get(model::ImportStat::ProducerDropped), 7u);
  EXPECT_EQ(model::importStatSeverity(model::ImportStat::ProducerDropped),
            model::StatSeverity::DataLoss);
}

TEST_F(CaptureRoundTripTest, AnEmptyCaptureIsAValidTrace) {
  TraceCollector C;
  TraceMetadata M;
  M.WindowMode = "nvtx-range";
  M.StopReason = "process exit before the window opened";
  model::Trace T = roundTrip(C, M);
  EXPECT_TRUE(T.Events.empty());
}

TEST_F(CaptureRoundTripTest, WriterRecordsDroppedCountsAndVersions) {
  TraceCollector C(1);
  C.windowStarted(0);
  C.add(event("kernel", "a", 1, 2, 0, 7, true));
  C.add(event("kernel", "b", 3, 4, 0, 7, true));
  C.addCuptiDropped(5);
  C.windowEnded(10);
  TraceMetadata M;
  M.ProducerVersion = "1.2.3";
  M.CuptiHeaderVersion = 130001;
  M.StopReason = "duration elapsed";
  std::string J = renderTraceJson(C, M);
  EXPECT_NE(J.find("\"dropped_max_events\": 1"), std::string::npos) << J;
  EXPECT_NE(J.find("\"dropped_by_cupti\": 5"), std::string::npos);
  EXPECT_NE(J.find("\"cupti_header_version\": 130001"), std::string::npos);
  EXPECT_NE(J.find("\"stop_reason\": \"duration elapsed\""), std::string::npos);
  EXPECT_NE(J.find("\"version\": \"1.2.3\""), std::string::npos);
}

TEST_F(CaptureRoundTripTest, AtomicWriteLeavesNoTemporaryAndReportsErrors) {
  llvm::SmallString<128> Path(Dir);
  llvm::sys::path::append(Path, "t.json");
  EXPECT_EQ(writeFileAtomically(std::string(Path), "{}"), "");
  std::error_code EC;
  int Files = 0;
  for (llvm::sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC;
       It.increment(EC))
    ++Files;
  EXPECT_EQ(Files, 1);
  auto Buf = llvm::MemoryBuffer::getFile(Path);
  ASSERT_TRUE(bool(Buf));
  EXPECT_EQ((*Buf)->getBuffer(), "{}");
  llvm::SmallString<128> Bad(Dir);
  llvm::sys::path::append(Bad, "missing", "t.json");
  std::string Err = writeFileAtomically(std::string(Bad), "{}");
  EXPECT_NE(Err.find("missing/t.json.tmp"), std::string::npos) << Err;
  EXPECT_NE(Err.find("cannot create"), std::string::npos) << Err;
}

} // namespace
