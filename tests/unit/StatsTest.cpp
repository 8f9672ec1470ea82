//===- StatsTest.cpp - `stats` figures on hand-built traces ---------------===//
//
// Every expected number below is worked out by hand in the comments, from the
// event times of the trace that the test builds.
//
//===----------------------------------------------------------------------===//
#include "analysis/Stats.h"
#include "model/TraceBuilder.h"
#include "report/StatsReport.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include "UnitTestTimes.h"

using namespace tracelint;
using namespace tracelint::model;
using analysis::computeStats;
using analysis::TraceStats;

using tracelint::testing::Ms;

namespace {

class StatsTraceMaker {
public:
  uint32_t host(int64_t Pid, int64_t Tid) { return B.lane(Pid, Tid); }
  uint32_t stream(int64_t Pid, int32_t Device, int64_t Stream) {
    uint32_t L = B.lane(Pid, Stream);
    B.setDeviceLane(L, Device, Stream);
    return L;
  }
  void add(uint32_t Lane, EventKind Kind, llvm::StringRef Name, int64_t Start,
           int64_t End, const EventArgs *A = nullptr) {
    Event E;
    E.Lane = Lane;
    E.Kind = Kind;
    E.Name = B.strings().intern(Name);
    E.Start = Start;
    E.Duration = End - Start;
    B.addEvent(E, A);
  }
  TraceBuilder B;
};

/// The main fixture, all times in ms:
///
/// host thread (1, 1):
///   ProfilerStep#1 [0, 10]  ProfilerStep#2 [10, 30]  ProfilerStep#3 [30, 70]
///   cudaLaunchKernel [1, 1.5] [2, 2.25] [5, 5.25]     (3 calls, 1 ms total)
///   cudaMemcpyAsync [3, 4]                             (1 call, 1 ms)
///   cudaDeviceSynchronize [60, 70]                     (1 call, 10 ms)
///   python "tail" [70, 80]                             -> window [0, 80]
/// device 0, stream 7: gemm [2, 12], gemm [20, 30],
///   memcpy HtoD pageable->device [40, 42] 50e6 bytes, and [44, 45] size
///   unknown
/// device 0, stream 8: relu [8, 16], memset [50, 51] 1000 bytes,
///   ncclAllReduce (collective) [75, 78]
/// device 1, stream 3: gemm [60, 64]
/// device 2, stream 1: a sync record only [10, 11] (no device work)
Trace makeMainTrace() {
  StatsTraceMaker M;
  uint32_t H = M.host(1, 1);
  M.add(H, EventKind::Annotation, "ProfilerStep#1", 0, 10 * Ms);
  M.add(H, EventKind::Annotation, "ProfilerStep#2", 10 * Ms, 30 * Ms);
  M.add(H, EventKind::Annotation, "ProfilerStep#3", 30 * Ms, 70 * Ms);
  M.add(H, EventKind::Runtime, "cudaLaunchKernel", 1 * Ms, 1500'000);
  M.add(H, EventKind::Runtime, "cudaLaunchKernel", 2 * Ms, 2250'000);
  M.add(H, EventKind::Runtime, "cudaMemcpyAsync", 3 * Ms, 4 * Ms);
  M.add(H, EventKind::Runtime, "cudaLaunchKernel", 5 * Ms, 5250'000);
  M.add(H, EventKind::Runtime, "cudaDeviceSynchronize", 60 * Ms, 70 * Ms);
  M.add(H, EventKind::Python, "tail", 70 * Ms, 80 * Ms);

  uint32_t S7 = M.stream(0, 0, 7), S8 = M.stream(0, 0, 8);
  M.add(S7, EventKind::Kernel, "gemm", 2 * Ms, 12 * Ms);
  M.add(S7, EventKind::Kernel, "gemm", 20 * Ms, 30 * Ms);
  EventArgs Copy;
  Copy.Copy = CopyKind::HtoD;
  Copy.Src = MemoryKind::Pageable;
  Copy.Dst = MemoryKind::Device;
  Copy.Bytes = 50'000'000;
  M.add(S7, EventKind::Memcpy, "Memcpy HtoD (Pageable -> Device)", 40 * Ms,
        42 * Ms, &Copy);
  Copy.Bytes = -1;
  M.add(S7, EventKind::Memcpy, "Memcpy HtoD (Pageable -> Device)", 44 * Ms,
        45 * Ms, &Copy);
  M.add(S8, EventKind::Kernel, "relu", 8 * Ms, 16 * Ms);
  EventArgs Set;
  Set.Bytes = 1000;
  M.add(S8, EventKind::Memset, "Memset (Device)", 50 * Ms, 51 * Ms, &Set);
  M.add(S8, EventKind::Collective, "ncclAllReduce", 75 * Ms, 78 * Ms);

  uint32_t D1 = M.stream(100, 1, 3);
  M.add(D1, EventKind::Kernel, "gemm", 60 * Ms, 64 * Ms);
  uint32_t D2 = M.stream(200, 2, 1);
  M.add(D2, EventKind::Sync, "Event Sync", 10 * Ms, 11 * Ms);

  M.B.stats().add(ImportStat::EventsRead, 20);
  M.B.stats().addAt(ImportStat::BadFieldType, "event 5 at byte 99");
  M.B.producer().Format = "kineto";
  M.B.producer().CudaRuntimeVersion = "12010";
  M.B.producer().RecordShapes = 1;
  DeviceInfo Gpu;
  Gpu.Id = 0;
  Gpu.Name = "Test GPU";
  Gpu.ComputeMajor = 9;
  Gpu.ComputeMinor = 0;
  Gpu.NumSMs = 132;
  M.B.devices().push_back(Gpu);
  return M.B.finish();
}

TEST(StatsTest, LanesWindowAndSteps) {
  Trace T = makeMainTrace();
  TraceStats S = computeStats(T);
  EXPECT_EQ(S.NumHostThreads, 1u);
  EXPECT_EQ(S.NumDeviceStreams, 4u);
  EXPECT_EQ(S.Window, (Interval{0, 80 * Ms}));
  EXPECT_EQ(S.Steps.From, StepSource::ProfilerStep);
  EXPECT_EQ(S.Steps.Count, 3u);
  // The step time of every command: the median of the steady steps (all
  // but the first of three), 20 and 40 ms.
  EXPECT_EQ(S.Steps.MedianNs, 30 * Ms);
  EXPECT_EQ(S.Steps.Steady, 2u);
  EXPECT_EQ(S.Steps.MinNs, 10 * Ms);
  EXPECT_EQ(S.Steps.MaxNs, 40 * Ms);
  EXPECT_EQ(S.Steps.FirstNumber, 1);
  EXPECT_EQ(S.Steps.LastNumber, 3);
  EXPECT_EQ(S.Steps.Span, (Interval{0, 70 * Ms}));
}

TEST(StatsTest, MedianOfEvenCountIsMeanOfMiddleTwo) {
  StatsTraceMaker M;
  uint32_t H = M.host(1, 1);
  // Durations 5, 10, 20, 40, 50 ms; the steady steps (all but the first)
  // 10, 20, 40, 50 ms: median (20 + 40) / 2 = 30 ms.
  M.add(H, EventKind::Annotation, "ProfilerStep#6", 0, 5 * Ms);
  M.add(H, EventKind::Annotation, "ProfilerStep#7", 5 * Ms, 15 * Ms);
  M.add(H, EventKind::Annotation, "ProfilerStep#8", 15 * Ms, 35 * Ms);
  M.add(H, EventKind::Annotation, "ProfilerStep#9", 35 * Ms, 75 * Ms);
  M.add(H, EventKind::Annotation, "ProfilerStep#10", 75 * Ms, 125 * Ms);
  Trace T = M.B.finish();
  TraceStats S = computeStats(T);
  EXPECT_EQ(S.Steps.Count, 5u);
  EXPECT_EQ(S.Steps.MedianNs, 30 * Ms);
  EXPECT_EQ(S.Steps.FirstNumber, 6);
  EXPECT_EQ(S.Steps.LastNumber, 10);
}

TEST(StatsTest, BusyIsAUnionPerDevice) {
  Trace T = makeMainTrace();
  TraceStats S = computeStats(T);
  ASSERT_TRUE(S.hasDeviceActivity());
  EXPECT_EQ(S.NumDeviceWorkEvents, 8u); // the sync record is not work
  ASSERT_EQ(S.Devices.size(), 3u);

  const analysis::DeviceStats &D0 = S.Devices[0];
  EXPECT_EQ(D0.Device, 0);
  EXPECT_EQ(D0.NumStreams, 2u);
  EXPECT_EQ(D0.NumWorkEvents, 7u);
  EXPECT_TRUE(D0.HasWork);
  EXPECT_EQ(D0.Active, (Interval{2 * Ms, 78 * Ms}));
  // Union: [2,16] 14 + [20,30] 10 + [40,42] 2 + [44,45] 1 + [50,51] 1
  // + [75,78] 3 = 31 ms (the kernel sum alone would be 10+10+8 = 28).
  EXPECT_EQ(D0.BusyNs, 31 * Ms);
  EXPECT_EQ(D0.IdleNs, 49 * Ms);
  ASSERT_TRUE(D0.BusyShare.has_value());
  EXPECT_DOUBLE_EQ(*D0.BusyShare, 31.0 / 80.0);
  EXPECT_EQ(D0.ComputeNs, 24 * Ms); // [2,16] + [20,30]
  EXPECT_EQ(D0.CopyNs, 3 * Ms);
  EXPECT_EQ(D0.MemsetNs, 1 * Ms);
  EXPECT_EQ(D0.CommunicationNs, 3 * Ms);
  // Within the step span [0, 70]: the collective at [75, 78] is outside.
  ASSERT_TRUE(D0.StepBusyNs.has_value());
  EXPECT_EQ(*D0.StepBusyNs, 28 * Ms);
  EXPECT_DOUBLE_EQ(*D0.StepBusyShare, 28.0 / 70.0);

  const analysis::DeviceStats &D1 = S.Devices[1];
  EXPECT_EQ(D1.Device, 1);
  EXPECT_EQ(D1.BusyNs, 4 * Ms);
  EXPECT_EQ(D1.IdleNs, 76 * Ms);
  EXPECT_DOUBLE_EQ(*D1.BusyShare, 0.05);
  EXPECT_EQ(*D1.StepBusyNs, 4 * Ms);

  // Device 2 has a stream but no device work: cannot judge, not "idle".
  const analysis::DeviceStats &D2 = S.Devices[2];
  EXPECT_EQ(D2.Device, 2);
  EXPECT_FALSE(D2.HasWork);
  EXPECT_FALSE(D2.BusyShare.has_value());
  EXPECT_FALSE(D2.StepBusyNs.has_value());

  EXPECT_EQ(S.TotalBusyNs, 35 * Ms);
}

TEST(StatsTest, TopKernelsByTotalTime) {
  Trace T = makeMainTrace();
  TraceStats S = computeStats(T);
  EXPECT_EQ(S.NumKernels, 5u);
  EXPECT_EQ(S.NumDistinctKernels, 3u);
  ASSERT_EQ(S.TopKernels.size(), 3u);
  const analysis::NameStats &Gemm = S.TopKernels[0];
  EXPECT_EQ(T.Strings.get(Gemm.Name), "gemm");
  EXPECT_EQ(Gemm.Count, 3u);
  EXPECT_EQ(Gemm.TotalNs, 24 * Ms); // 10 + 10 + 4, across two devices
  EXPECT_EQ(Gemm.MaxNs, 10 * Ms);
  EXPECT_DOUBLE_EQ(Gemm.meanNs(), 8.0 * Ms);
  EXPECT_DOUBLE_EQ(*Gemm.BusyShare, 24.0 / 35.0);
  EXPECT_EQ(T.Strings.get(S.TopKernels[1].Name), "relu");
  EXPECT_DOUBLE_EQ(*S.TopKernels[1].BusyShare, 8.0 / 35.0);
  EXPECT_EQ(T.Strings.get(S.TopKernels[2].Name), "ncclAllReduce");
  EXPECT_EQ(S.TopKernels[2].Kind, EventKind::Collective);

  TraceStats Top1 = computeStats(T, {/*TopN=*/1});
  ASSERT_EQ(Top1.TopKernels.size(), 1u);
  EXPECT_EQ(Top1.NumDistinctKernels, 3u);
  TraceStats All = computeStats(T, {/*TopN=*/0});
  EXPECT_EQ(All.TopKernels.size(), 3u);
}

TEST(StatsTest, TopRuntimeCallsTieBrokenByName) {
  Trace T = makeMainTrace();
  TraceStats S = computeStats(T);
  EXPECT_EQ(S.NumRuntimeCalls, 5u);
  EXPECT_EQ(S.NumLaunchCalls, 3u);
  ASSERT_EQ(S.TopRuntimeCalls.size(), 3u);
  EXPECT_EQ(T.Strings.get(S.TopRuntimeCalls[0].Name), "cudaDeviceSynchronize");
  EXPECT_EQ(S.TopRuntimeCalls[0].TotalNs, 10 * Ms);
  // cudaLaunchKernel and cudaMemcpyAsync both total 1 ms: name order.
  const analysis::NameStats &Launch = S.TopRuntimeCalls[1];
  EXPECT_EQ(T.Strings.get(Launch.Name), "cudaLaunchKernel");
  EXPECT_EQ(Launch.Count, 3u);
  EXPECT_EQ(Launch.TotalNs, 1 * Ms); // 0.5 + 0.25 + 0.25
  EXPECT_EQ(Launch.MaxNs, 500'000);
  EXPECT_FALSE(Launch.BusyShare.has_value());
  EXPECT_EQ(T.Strings.get(S.TopRuntimeCalls[2].Name), "cudaMemcpyAsync");
  EXPECT_EQ(S.TopRuntimeCalls[2].TotalNs, 1 * Ms);
}

// nsys's summary columns (cuda_gpu_kern_sum, cuda_api_sum, osrt_sum):
// median, minimum, sample standard deviation and share of the table's time.
TEST(StatsTest, SpreadOfDurations) {
  StatsTraceMaker M;
  uint32_t H = M.host(1, 1);
  uint32_t S7 = M.stream(0, 0, 7);
  // gemm 10, 20, 40, 50 ms: total 120, median (20 + 40) / 2 = 30, min 10,
  // mean 30, sample stddev sqrt((400 + 100 + 100 + 400) / 3) = 18.257 ms.
  M.add(S7, EventKind::Kernel, "gemm", 0, 10 * Ms);
  M.add(S7, EventKind::Kernel, "gemm", 10 * Ms, 30 * Ms);
  M.add(S7, EventKind::Kernel, "gemm", 30 * Ms, 70 * Ms);
  M.add(S7, EventKind::Kernel, "gemm", 70 * Ms, 120 * Ms);
  // relu one event of 30 ms: stddev 0; kernel time 150 ms in all.
  M.add(S7, EventKind::Kernel, "relu", 120 * Ms, 150 * Ms);
  // OS runtime calls: read 1, 2, 6 ms (median 2); poll 1 ms.
  M.add(H, EventKind::OsRuntime, "read", 0, 1 * Ms);
  M.add(H, EventKind::OsRuntime, "read", 2 * Ms, 4 * Ms);
  M.add(H, EventKind::OsRuntime, "read", 5 * Ms, 11 * Ms);
  M.add(H, EventKind::OsRuntime, "poll", 12 * Ms, 13 * Ms);
  Trace T = M.B.finish();
  TraceStats S = computeStats(T);

  ASSERT_EQ(S.TopKernels.size(), 2u);
  const analysis::NameStats &G = S.TopKernels[0];
  EXPECT_EQ(T.Strings.get(G.Name), "gemm");
  EXPECT_EQ(G.TotalNs, 120 * Ms);
  EXPECT_EQ(G.MedianNs, 30 * Ms);
  EXPECT_EQ(G.MinNs, 10 * Ms);
  EXPECT_EQ(G.MaxNs, 50 * Ms);
  EXPECT_NEAR(G.StdDevNs, 18257418.58, 1);
  ASSERT_TRUE(G.TimeShare);
  EXPECT_DOUBLE_EQ(*G.TimeShare, 0.8);
  EXPECT_EQ(S.TopKernels[1].StdDevNs, 0);
  EXPECT_DOUBLE_EQ(*S.TopKernels[1].TimeShare, 0.2);

  EXPECT_EQ(S.NumOsRuntimeCalls, 4u);
  EXPECT_EQ(S.NumDistinctOsRuntimeCalls, 2u);
  ASSERT_EQ(S.TopOsRuntimeCalls.size(), 2u);
  EXPECT_EQ(T.Strings.get(S.TopOsRuntimeCalls[0].Name), "read");
  EXPECT_EQ(S.TopOsRuntimeCalls[0].MedianNs, 2 * Ms);
  EXPECT_DOUBLE_EQ(*S.TopOsRuntimeCalls[0].TimeShare, 0.9);
  // OS runtime calls are not CUDA API calls.
  EXPECT_EQ(S.NumRuntimeCalls, 0u);
}

// cuda_gpu_mem_time_sum: copies by direction, then memsets, with summed
// (not unioned) device time.
TEST(StatsTest, MemoryOperations) {
  Trace T = makeMainTrace();
  TraceStats S = computeStats(T);
  // HtoD copies of 2 and 1 ms; the memset of 1 ms.
  ASSERT_EQ(S.MemoryOps.size(), 2u);
  EXPECT_EQ(S.MemoryOps[0].Kind, EventKind::Memcpy);
  EXPECT_EQ(S.MemoryOps[0].Copy, CopyKind::HtoD);
  EXPECT_EQ(S.MemoryOps[0].Count, 2u);
  EXPECT_EQ(S.MemoryOps[0].TotalNs, 3 * Ms);
  EXPECT_EQ(S.MemoryOps[0].MedianNs, 1500'000);
  EXPECT_EQ(S.MemoryOps[0].MinNs, 1 * Ms);
  EXPECT_EQ(S.MemoryOps[0].MaxNs, 2 * Ms);
  EXPECT_DOUBLE_EQ(*S.MemoryOps[0].TimeShare, 0.75);
  EXPECT_EQ(S.MemoryOps[1].Kind, EventKind::Memset);
  EXPECT_EQ(S.MemoryOps[1].TotalNs, 1 * Ms);
  EXPECT_DOUBLE_EQ(*S.MemoryOps[1].TimeShare, 0.25);
}

TEST(StatsTest, CopiesAndBandwidth) {
  Trace T = makeMainTrace();
  TraceStats S = computeStats(T);
  ASSERT_EQ(S.Copies.size(), 1u);
  const analysis::CopyStats &C = S.Copies[0];
  EXPECT_EQ(C.Kind, CopyKind::HtoD);
  EXPECT_EQ(C.Src, MemoryKind::Pageable);
  EXPECT_EQ(C.Dst, MemoryKind::Device);
  EXPECT_EQ(C.Count, 2u);
  EXPECT_EQ(C.UnknownBytesCount, 1u);
  EXPECT_EQ(C.Bytes, 50'000'000);
  EXPECT_EQ(C.DurationNs, 3 * Ms);
  EXPECT_EQ(C.KnownBytesDurationNs, 2 * Ms);
  // 50e6 bytes in 2 ms = 25e9 bytes/s = 25 GB/s; the copy of unknown size
  // does not dilute it.
  ASSERT_TRUE(C.BandwidthGBps.has_value());
  EXPECT_DOUBLE_EQ(*C.BandwidthGBps, 25.0);

  EXPECT_EQ(S.Memsets.Count, 1u);
  EXPECT_EQ(S.Memsets.Bytes, 1000);
  EXPECT_EQ(S.Memsets.DurationNs, 1 * Ms);
  EXPECT_EQ(S.Memsets.UnknownBytesCount, 0u);
}

TEST(StatsTest, ImportCountersAreListed) {
  Trace T = makeMainTrace();
  TraceStats S = computeStats(T);
  ASSERT_EQ(S.Import.size(), 2u);
  EXPECT_EQ(S.Import[0].Stat, ImportStat::EventsRead);
  EXPECT_EQ(S.Import[0].Count, 20u);
  EXPECT_EQ(S.Import[1].Stat, ImportStat::BadFieldType);
}

Trace makeHostOnlyTrace(bool WithLaunches) {
  StatsTraceMaker M;
  uint32_t H = M.host(1, 1);
  M.add(H, EventKind::Op, "aten::mm", 0, 5 * Ms);
  if (WithLaunches) {
    M.add(H, EventKind::Runtime, "cudaLaunchKernel", 1 * Ms, 2 * Ms);
    M.add(H, EventKind::Runtime, "cudaLaunchKernel", 3 * Ms, 4 * Ms);
  }
  return M.B.finish();
}

/// A JSON integer, or INT64_MIN when absent (llvm::Optional<int64_t> does
/// not compare with plain int literals).
int64_t val(llvm::Optional<int64_t> V) { return V.getValueOr(INT64_MIN); }

std::string textOf(const Trace &T, const TraceStats &S, bool Color = false) {
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  report::writeStatsText(OS, T, S, "in.json", Color);
  return OS.str();
}

std::string jsonOf(const Trace &T, const TraceStats &S) {
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  report::writeStatsJson(OS, T, S, "in.json");
  return OS.str();
}

TEST(StatsTest, NoDeviceEventsCannotBeJudged) {
  Trace T = makeHostOnlyTrace(/*WithLaunches=*/false);
  TraceStats S = computeStats(T);
  EXPECT_FALSE(S.hasDeviceActivity());
  EXPECT_TRUE(S.Devices.empty());
  EXPECT_EQ(S.NumLaunchCalls, 0u);

  std::string Text = textOf(T, S);
  EXPECT_NE(Text.find("device activity was not recorded"), std::string::npos)
      << Text;
  EXPECT_NE(Text.find("cannot be judged"), std::string::npos);
  EXPECT_EQ(Text.find("% of window"), std::string::npos);
  EXPECT_EQ(Text.find("launch calls exist"), std::string::npos);
  EXPECT_NE(Text.find("no step markers; the whole window is used"),
            std::string::npos);

  llvm::Expected<llvm::json::Value> V = llvm::json::parse(jsonOf(T, S));
  ASSERT_TRUE(bool(V)) << llvm::toString(V.takeError());
  const llvm::json::Object &O = *V->getAsObject();
  EXPECT_EQ(O.getString("device_activity"), llvm::StringRef("absent"));
  EXPECT_EQ(O.get("devices"), nullptr);
  EXPECT_EQ(O.get("total_busy_ns"), nullptr);
  EXPECT_EQ(val(O.getObject("steps")->getInteger("count")), 0);
}

TEST(StatsTest, LaunchesWithoutDeviceEventsAreCalledOut) {
  Trace T = makeHostOnlyTrace(/*WithLaunches=*/true);
  TraceStats S = computeStats(T);
  EXPECT_FALSE(S.hasDeviceActivity());
  EXPECT_EQ(S.NumLaunchCalls, 2u);
  std::string Text = textOf(T, S);
  EXPECT_NE(Text.find("2 kernel launch calls exist but no device events were "
                      "captured"),
            std::string::npos)
      << Text;
  llvm::Expected<llvm::json::Value> V = llvm::json::parse(jsonOf(T, S));
  ASSERT_TRUE(bool(V)) << llvm::toString(V.takeError());
  const llvm::json::Object &O = *V->getAsObject();
  EXPECT_EQ(O.getString("device_activity"), llvm::StringRef("absent"));
  EXPECT_EQ(val(O.getInteger("launch_calls")), 2);
  EXPECT_TRUE(O.getString("device_note")->contains("no device events"));
}

TEST(StatsTest, JsonCarriesTheNumbers) {
  Trace T = makeMainTrace();
  TraceStats S = computeStats(T);
  std::string Json = jsonOf(T, S);
  llvm::Expected<llvm::json::Value> V = llvm::json::parse(Json);
  ASSERT_TRUE(bool(V)) << llvm::toString(V.takeError());
  const llvm::json::Object &O = *V->getAsObject();
  EXPECT_EQ(O.getString("input"), llvm::StringRef("in.json"));
  EXPECT_EQ(O.getObject("producer")->getString("format"),
            llvm::StringRef("kineto"));
  EXPECT_EQ(O.getObject("producer")->getBoolean("record_shapes"), true);
  EXPECT_EQ(val(O.getObject("window")->getInteger("duration_ns")), 80 * Ms);
  const llvm::json::Object *Steps = O.getObject("steps");
  EXPECT_EQ(val(Steps->getInteger("count")), 3);
  EXPECT_EQ(val(Steps->getInteger("median_ns")), 30 * Ms);
  EXPECT_EQ(val(Steps->getInteger("steady")), 2);
  EXPECT_EQ(O.getString("device_activity"), llvm::StringRef("present"));
  EXPECT_EQ(val(O.getInteger("total_busy_ns")), 35 * Ms);

  const llvm::json::Array *Devices = O.getArray("devices");
  ASSERT_EQ(Devices->size(), 3u);
  const llvm::json::Object &D0 = *(*Devices)[0].getAsObject();
  EXPECT_EQ(val(D0.getInteger("busy_ns")), 31 * Ms);
  EXPECT_EQ(val(D0.getInteger("idle_ns")), 49 * Ms);
  EXPECT_DOUBLE_EQ(*D0.getNumber("busy_share"), 0.3875);
  EXPECT_EQ(val(D0.getObject("busy_by_category")->getInteger("compute_ns")),
            24 * Ms);
  EXPECT_EQ(val(D0.getObject("in_steps")->getInteger("busy_ns")), 28 * Ms);
  const llvm::json::Object &D2 = *(*Devices)[2].getAsObject();
  EXPECT_EQ(D2.getString("device_activity"), llvm::StringRef("absent"));
  EXPECT_EQ(D2.get("busy_ns"), nullptr);

  const llvm::json::Object *Kernels = O.getObject("top_kernels");
  EXPECT_EQ(val(Kernels->getInteger("distinct")), 3);
  const llvm::json::Object &K0 =
      *(*Kernels->getArray("entries"))[0].getAsObject();
  EXPECT_EQ(K0.getString("name"), llvm::StringRef("gemm"));
  EXPECT_EQ(val(K0.getInteger("total_ns")), 24 * Ms);
  EXPECT_EQ(val(K0.getInteger("mean_ns")), 8 * Ms);

  const llvm::json::Object &Call =
      *(*O.getObject("top_runtime_calls")->getArray("entries"))[1]
           .getAsObject();
  EXPECT_EQ(Call.getString("name"), llvm::StringRef("cudaLaunchKernel"));
  EXPECT_EQ(val(Call.getInteger("mean_ns")), 333'333); // 1 ms / 3, rounded

  const llvm::json::Object &Copy = *(*O.getArray("copies"))[0].getAsObject();
  EXPECT_EQ(Copy.getString("kind"), llvm::StringRef("HtoD"));
  EXPECT_EQ(Copy.getString("src"), llvm::StringRef("pageable"));
  EXPECT_EQ(val(Copy.getInteger("bytes")), 50'000'000);
  EXPECT_DOUBLE_EQ(*Copy.getNumber("bandwidth_gbps"), 25.0);

  const llvm::json::Array *Counters =
      O.getObject("import")->getArray("counters");
  ASSERT_EQ(Counters->size(), 2u);
  const llvm::json::Object &Bad = *(*Counters)[1].getAsObject();
  EXPECT_EQ(Bad.getString("name"), llvm::StringRef("BadFieldType"));
  EXPECT_EQ(Bad.getString("severity"), llvm::StringRef("warning"));
  EXPECT_EQ(Bad.getString("first_place"),
            llvm::StringRef("event 5 at byte 99"));

  // Deterministic: a second run gives the same bytes.
  EXPECT_EQ(Json, jsonOf(T, computeStats(T)));
}

TEST(StatsTest, TextHasTheKeyLines) {
  Trace T = makeMainTrace();
  TraceStats S = computeStats(T);
  std::string Text = textOf(T, S);
  for (const char *Want : {
           "tracelint stats: in.json\n",
           "producer    kineto\n",
           "CUDA runtime 12010",
           "profiler options: record_shapes on",
           "gpu 0       Test GPU, compute 9.0, 132 SMs\n",
           "lanes       1 host thread, 4 device streams, 0 other; 18 events\n",
           "window      80 ms (0 ns .. 80 ms)\n",
           "steps       3 from ProfilerStep (#1..#3): median step time 30 ms (the 2 "
           "steady steps), min 10 ms, "
           "max 40 ms\n",
           "device 0 (Test GPU): 2 streams, 7 events, active 2 ms .. 78 ms\n",
           "busy 31 ms",
           ", idle 49 ms\n",
           "compute 24 ms, copy 3 ms, memset 1 ms, communication 3 ms",
           "in steps: busy 28 ms (40.0 % of step span)\n",
           "busy 4 ms (5.0 % of window, 100.0 % of active span), idle 76 ms\n",
           "device 2: 1 stream, no device work recorded; cannot judge\n",
           "top kernels 3 of 3 distinct names, 5 events",
           "top runtime/driver calls  3 of 3 distinct, 5 calls",
           "HtoD  pageable  device",
           "25.00 GB/s  (1 of unknown size)\n",
           "memsets     1, 1 kB, 1 ms\n",
           "BadFieldType",
           "first: event 5 at byte 99\n",
       })
    EXPECT_NE(Text.find(Want), std::string::npos)
        << "missing: " << Want << "\nin:\n"
        << Text;
  // Kernel rows, in rank order.
  size_t Gemm = Text.find("  gemm\n"), Relu = Text.find("  relu\n");
  EXPECT_NE(Gemm, std::string::npos);
  EXPECT_LT(Gemm, Relu);
  EXPECT_EQ(Text.find('\x1b'), std::string::npos);
  EXPECT_NE(textOf(T, S, /*Color=*/true).find("\x1b[1m"), std::string::npos);
}

TEST(StatsTest, TraceStringsAreSanitizedAndTruncatedInTextOnly) {
  StatsTraceMaker M;
  uint32_t S = M.stream(0, 0, 7);
  std::string Long = "\x1b[31mevil" + std::string(200, 'k');
  M.add(S, EventKind::Kernel, Long, 0, 10);
  Trace T = M.B.finish();
  TraceStats St = computeStats(T);
  std::string Text = textOf(T, St);
  EXPECT_EQ(Text.find('\x1b'), std::string::npos);
  EXPECT_NE(Text.find("\\x1B[31mevilkkk"), std::string::npos) << Text;
  EXPECT_NE(Text.find("k...\n"), std::string::npos);
  EXPECT_EQ(Text.find(std::string(200, 'k')), std::string::npos);

  llvm::Expected<llvm::json::Value> V = llvm::json::parse(jsonOf(T, St));
  ASSERT_TRUE(bool(V)) << llvm::toString(V.takeError());
  const llvm::json::Object &K0 =
      *(*V->getAsObject()->getObject("top_kernels")->getArray("entries"))[0]
           .getAsObject();
  EXPECT_EQ(K0.getString("name"), llvm::StringRef(Long));
}

TEST(StatsTest, EmptyTrace) {
  Trace T = TraceBuilder().finish();
  TraceStats S = computeStats(T);
  EXPECT_FALSE(S.hasDeviceActivity());
  EXPECT_EQ(S.Window.length(), 0);
  std::string Text = textOf(T, S);
  EXPECT_NE(Text.find("producer    not recorded"), std::string::npos) << Text;
  EXPECT_NE(Text.find("import      nothing counted"), std::string::npos);
  EXPECT_TRUE(bool(llvm::json::parse(jsonOf(T, S))));
}

} // namespace
