//===- RocprofImportTest.cpp - Legacy rocprof results.json rows -----------===//
//
// The pieces of reading rocprof's results.json (import/RocprofRows.h): the
// numbers rocprof writes as strings, the names of its processes, the
// arguments of its API rows, and whole small files through the importer.
//
//===----------------------------------------------------------------------===//
#include "import/Import.h"
#include "import/Numbers.h"
#include "import/RocprofRows.h"

#include "gtest/gtest.h"

#include <string>

using namespace tracelint;
using namespace tracelint::import;
using model::EventKind;
using model::ImportStat;

namespace {

// rocprof writes "ts" and "dur" as strings of whole (or, in some files,
// fractional) microseconds; the importer reads the string's text exactly as
// it reads a number's, never through a double.
TEST(RocprofNumbersTest, StringTimesParseLikeNumbers) {
  // 1048928000135 us holds 13 digits: a double would still hold it, but
  // not with three decimals at the nanosecond.
  EXPECT_EQ(microsToNanos("1048928000135"), 1048928000135000);
  EXPECT_EQ(microsToNanos("\"1048928000135\""), 1048928000135000);
  EXPECT_EQ(microsToNanos("1048928000135.123"), 1048928000135123);
  EXPECT_EQ(microsToNanos(" 1234567.123 "), 1234567123);
  // 16 integer digits go through the slow path and stay exact.
  EXPECT_EQ(microsToNanos("1700000000123456.789"), 1700000000123456789);
  // Rounded half away from zero at the nanosecond.
  EXPECT_EQ(microsToNanos("12.3455"), 12346);
  EXPECT_EQ(microsToNanos("-12.3455"), -12346);
  EXPECT_EQ(microsToNanos(""), std::nullopt);
  EXPECT_EQ(microsToNanos("12us"), std::nullopt);
  EXPECT_EQ(microsToNanos("nan"), std::nullopt);
}

TEST(RocprofNumbersTest, NanosecondStringsAreIntegers) {
  EXPECT_EQ(parseInteger("1048928000135250"), 1048928000135250);
  EXPECT_EQ(parseInteger("\"1048928000135250\""), 1048928000135250);
  EXPECT_EQ(parseInteger("9223372036854775807"), INT64_MAX);
  EXPECT_EQ(parseInteger("9223372036854775808"), std::nullopt);
  EXPECT_EQ(parseInteger("12ns"), std::nullopt);
}

TEST(RocprofProcessTest, NamesOfEveryEra) {
  auto Role = [](llvm::StringRef N) { return rocprofProcess(N).Role; };
  EXPECT_EQ(Role("CPU HIP API"), RocprofRole::Api);
  EXPECT_TRUE(rocprofProcess("CPU HIP API").Hip);
  EXPECT_EQ(Role("CPU HSA API"), RocprofRole::Api);
  EXPECT_FALSE(rocprofProcess("CPU HSA API").Hip);
  EXPECT_EQ(Role("COPY"), RocprofRole::Copy);
  EXPECT_EQ(Role("Markers and Ranges"), RocprofRole::Markers);
  EXPECT_EQ(Role("GPU0"), RocprofRole::Gpu);
  EXPECT_EQ(rocprofProcess("GPU12").Device, 12);
  EXPECT_EQ(Role("GPU Barriers3"), RocprofRole::Barrier);
  EXPECT_EQ(rocprofProcess("GPU Barriers3").Device, 3);
  // One era numbers the sections.
  EXPECT_EQ(Role("3 GPU1"), RocprofRole::Gpu);
  EXPECT_EQ(rocprofProcess("3 GPU1").Device, 1);
  EXPECT_EQ(Role("1 CPU HIP API"), RocprofRole::Api);
  // Kineto's names are not rocprof's.
  EXPECT_EQ(Role("GPU 0"), RocprofRole::None);
  EXPECT_EQ(Role("python3"), RocprofRole::None);
  EXPECT_EQ(Role("GPU"), RocprofRole::None);
  EXPECT_EQ(Role("GPUx"), RocprofRole::None);
  EXPECT_EQ(Role("12"), RocprofRole::None);
}

TEST(RocprofCallArgsTest, SizeAndDirection) {
  RocprofCallArgs C = parseRocprofCallArgs(
      "( dst(0x7f3c40000000) src(0x55d1c0a4e000) sizeBytes(4194304) kind(1))");
  EXPECT_EQ(C.Bytes, 4194304);
  EXPECT_EQ(C.Copy, model::CopyKind::HtoD);
  // Older files keep roctracer's '=' form.
  C = parseRocprofCallArgs("dst=0x1, src=0x2, sizeBytes=4096, kind=2");
  EXPECT_EQ(C.Bytes, 4096);
  EXPECT_EQ(C.Copy, model::CopyKind::DtoH);
  // hipMemcpyDefault: the direction is not in the arguments.
  C = parseRocprofCallArgs("( dst(0x1) src(0x2) sizeBytes(8) kind(4))");
  EXPECT_EQ(C.Copy, model::CopyKind::Unknown);
  // Only whole words, and only numbers.
  C = parseRocprofCallArgs("( dpitchsizeBytes(8) sizeBytes(abc) kind(x))");
  EXPECT_EQ(C.Bytes, -1);
  EXPECT_EQ(C.Copy, model::CopyKind::Unknown);
  EXPECT_EQ(parseRocprofCallArgs("").Bytes, -1);
}

TEST(RocprofCallArgsTest, CopyNames) {
  model::EventArgs A;
  parseRocprofCopyName("CopyHostToDevice", A);
  EXPECT_EQ(A.Copy, model::CopyKind::HtoD);
  EXPECT_EQ(A.Src, model::MemoryKind::Host);
  EXPECT_EQ(A.Dst, model::MemoryKind::Device);
  model::EventArgs B;
  parseRocprofCopyName("CopyDeviceToDevice", B);
  EXPECT_EQ(B.Copy, model::CopyKind::DtoD);
  model::EventArgs C;
  parseRocprofCopyName("async-copy", C);
  EXPECT_EQ(C.Copy, model::CopyKind::Unknown);
}

// A minimal results.json: rocprof's opening "{}", its process names, a
// call, the kernel it launched (written twice: HIP activity and dispatch
// records), a copy, and the arrows, with times as rocprof writes them.
std::string rocprofFile(bool Flows) {
  // A custom delimiter: rocprof's argument text holds ')"'.
  std::string S = R"json({ "traceEvents":[{}
,{"args":{"name":"CPU HIP API"},"ph":"M","pid":2,"name":"process_name"}
,{"args":{"name":"COPY"},"ph":"M","pid":1,"name":"process_name"}
,{"args":{"name":"GPU0"},"ph":"M","pid":6,"name":"process_name"}
,{"ph":"X","name":"k","pid":"6","tid":"77","ts":"1000020","dur":"30","args":{"BeginNs":"1000020400","EndNs":"1000050900","gpu-id":"0","queue-id":"3","grd":"1000","wgr":"64","lds":"512"}}
,{"ph":"X","name":"CopyHostToDevice","pid":"1","tid":"0","ts":"1000002","dur":"5","args":{"BeginNs":"1000002100","EndNs":"1000007100","dev-id":"0","queue-id":"3"}}
,{"ph":"X","name":"hipMemcpyAsync","pid":"2","tid":"77","ts":"1000000","dur":"10","args":{"BeginNs":"1000000500","EndNs":"1000010500","pid":"70","tid":"77","args":"( dst(0x1) src(0x2) sizeBytes(65536) kind(1) stream(0))"}}
,{"ph":"X","name":"hipLaunchKernel","pid":"2","tid":"77","ts":"1000011","dur":"4","args":{"BeginNs":"1000011000","EndNs":"1000015000","pid":"70","tid":"77"}}
,{"ph":"X","name":"k","pid":"6","tid":"0","ts":"1000020","dur":"30","args":{"BeginNs":"1000020400","EndNs":"1000050900","dev-id":"0","queue-id":"3"}}
)json";
  if (Flows)
    S +=
        R"json(,{"ts":1000002,"ph":"s","cat":"DataFlow","id":0,"pid":2,"tid":77,"name":"dep"}
,{"ts":1000002,"ph":"t","cat":"DataFlow","id":0,"pid":1,"tid":0,"name":"dep"}
,{"ts":1000013,"ph":"s","cat":"DataFlow","id":5,"pid":2,"tid":77,"name":"dep"}
,{"ts":1000020,"ph":"t","cat":"DataFlow","id":5,"pid":6,"tid":0,"name":"dep"}
)json";
  S += "],\n\"otherData\": {\n    \"x\": \"y\"\n  }\n}";
  return S;
}

const model::Event *named(const model::Trace &T, llvm::StringRef Name) {
  for (const model::Event &E : T.Events)
    if (T.name(E) == Name)
      return &E;
  return nullptr;
}

TEST(RocprofImportTest, RowsBecomeDeviceWorkLinkedByFlows) {
  auto T = importTraceBytes("results.json", rocprofFile(true));
  ASSERT_TRUE(bool(T)) << llvm::toString(T.takeError());
  EXPECT_EQ(T->Source.Format, "rocprof");
  EXPECT_EQ(T->Source.Era, "rocprof v1/v2 results.json");
  // The leading "{}" is rocprof's, not an unknown phase.
  EXPECT_EQ(T->Stats.get(ImportStat::UnknownPhase), 0u);
  // The kernel's two rows are one event.
  EXPECT_EQ(T->Stats.get(ImportStat::DuplicateRows), 1u);
  ASSERT_EQ(T->Events.size(), 4u);

  const model::Event *K = named(*T, "k");
  ASSERT_TRUE(K);
  EXPECT_EQ(K->Kind, EventKind::Kernel);
  // BeginNs/EndNs, not ts/dur: 30.5 us from 1000020.4 us.
  EXPECT_EQ(K->Duration, 30500);
  const model::Lane &KL = T->laneOf(*K);
  EXPECT_EQ(KL.Kind, model::LaneKind::DeviceStream);
  EXPECT_EQ(KL.Device, 0);
  EXPECT_EQ(KL.Stream, 3);
  const model::EventArgs *KA = T->args(*K);
  ASSERT_TRUE(KA);
  EXPECT_EQ(KA->Grid[0], 16); // ceil(1000 / 64) work-groups
  EXPECT_EQ(KA->Block[0], 64);
  EXPECT_EQ(KA->SharedMemory, 512);
  uint32_t Launch = T->launchOf(*K);
  ASSERT_NE(Launch, model::NoIndex);
  EXPECT_EQ(T->name(T->Events[Launch]), "hipLaunchKernel");

  const model::Event *C = named(*T, "CopyHostToDevice");
  ASSERT_TRUE(C);
  EXPECT_EQ(C->Kind, EventKind::Memcpy);
  // Copies share the lane of their device's queue with its kernels.
  EXPECT_EQ(C->Lane, K->Lane);
  const model::EventArgs *CA = T->args(*C);
  ASSERT_TRUE(CA);
  EXPECT_EQ(CA->Copy, model::CopyKind::HtoD);
  EXPECT_EQ(CA->Src, model::MemoryKind::Host);
  EXPECT_EQ(CA->Bytes, 65536); // from the call's sizeBytes
  uint32_t CopyCall = T->launchOf(*C);
  ASSERT_NE(CopyCall, model::NoIndex);
  EXPECT_EQ(T->name(T->Events[CopyCall]), "hipMemcpyAsync");

  // API calls are runtime calls on the OS thread from their arguments.
  const model::Event &Call = T->Events[Launch];
  EXPECT_EQ(Call.Kind, EventKind::Runtime);
  EXPECT_EQ(T->laneOf(Call).Kind, model::LaneKind::HostThread);
  EXPECT_EQ(T->laneOf(Call).Pid, 70);
  EXPECT_EQ(T->laneOf(Call).Tid, 77);
}

// rocprof numbers its GPUs in the order of rocminfo's GPU agents, whose
// names it copies into "otherData"; the grids it gave in work-items are
// stored in work-groups, which the trace says once for K004.
TEST(RocprofImportTest, AgentsNameTheDevicesAndGridsAreInBlocks) {
  std::string S = rocprofFile(true);
  const std::string Other = "\"x\": \"y\"";
  S.replace(S.find(Other), Other.size(),
            "\"Agent 1 Name\": \"AMD EPYC 7763\",\n"
            "\"Agent 3 Name\": \"gfx942\",\n"
            "\"Agent 3 Marketing Name\": \"AMD Instinct MI300X\",\n"
            "\"Agent 2 Name\": \"gfx90a\"");
  auto T = importTraceBytes("results.json", S);
  ASSERT_TRUE(bool(T)) << llvm::toString(T.takeError());
  EXPECT_TRUE(T->Source.KernelGridInBlocks);
  ASSERT_EQ(T->Devices.size(), 2u);
  EXPECT_EQ(T->Devices[0].Id, 0);
  EXPECT_EQ(T->Devices[0].Arch, "gfx90a");
  EXPECT_EQ(T->Devices[0].Name, "");
  EXPECT_EQ(T->Devices[1].Id, 1);
  EXPECT_EQ(T->Devices[1].Arch, "gfx942");
  EXPECT_EQ(T->Devices[1].Name, "AMD Instinct MI300X");

  // Without agents, no device is invented.
  auto U = importTraceBytes("results.json", rocprofFile(true));
  ASSERT_TRUE(bool(U)) << llvm::toString(U.takeError());
  EXPECT_TRUE(U->Devices.empty());
}

TEST(RocprofImportTest, WithoutFlowsNothingIsLinked) {
  auto T = importTraceBytes("results.json", rocprofFile(false));
  ASSERT_TRUE(bool(T)) << llvm::toString(T.takeError());
  const model::Event *K = named(*T, "k");
  ASSERT_TRUE(K);
  EXPECT_EQ(K->Correlation, 0u);
  EXPECT_EQ(T->launchOf(*K), model::NoIndex);
  // The kept kernel row still has the dispatch record's sizes.
  ASSERT_TRUE(T->args(*K));
  EXPECT_EQ(T->args(*K)->Grid[0], 16);
  // Without its call, a copy has no size.
  const model::Event *C = named(*T, "CopyHostToDevice");
  ASSERT_TRUE(C && T->args(*C));
  EXPECT_EQ(T->args(*C)->Bytes, -1);
}

TEST(RocprofImportTest, BadRowsAreCountedWhereTheyAre) {
  std::string S = R"({ "traceEvents":[{}
,{"args":{"name":"0 GPU0"},"ph":"M","pid":6,"name":"process_name"}
,{"ph":"X","name":"k1","pid":"6","tid":"0","ts":"100.5","dur":"2.25","args":{"BeginNs":"soon","EndNs":"1"}}
,{"ph":"X","name":"k2","pid":"6","tid":"0","dur":"2"}
,{"ts":5,"ph":"t","cat":"DataFlow","id":9,"pid":6,"tid":0,"name":"dep"}
]})";
  auto T = importTraceBytes("bad.json", S);
  ASSERT_TRUE(bool(T)) << llvm::toString(T.takeError());
  EXPECT_EQ(T->Source.Format, "rocprof");
  // k1 keeps its (fractional, string) ts and dur.
  const model::Event *K1 = named(*T, "k1");
  ASSERT_TRUE(K1);
  EXPECT_EQ(K1->Duration, 2250);
  EXPECT_EQ(T->Stats.get(ImportStat::BadValue), 1u);
  EXPECT_TRUE(
      T->Stats.firstPlace(ImportStat::BadValue).contains("event 2 at byte"));
  // k2 has no time at all.
  EXPECT_FALSE(named(*T, "k2"));
  EXPECT_EQ(T->Stats.get(ImportStat::MissingTimestamp), 1u);
  EXPECT_TRUE(T->Stats.firstPlace(ImportStat::MissingTimestamp)
                  .contains("event 3 at byte"));
  // An arrow's end without its start.
  EXPECT_EQ(T->Stats.get(ImportStat::FlowUnbound), 1u);
}

// A row's exact times are kept only when they make a duration; otherwise
// its "ts"/"dur", and a missing "dur" is counted where it is.
TEST(RocprofImportTest, EndBeforeStartAndMissingDurationAreCounted) {
  std::string S = R"({ "traceEvents":[{}
,{"args":{"name":"GPU0"},"ph":"M","pid":6,"name":"process_name"}
,{"ph":"X","name":"k1","pid":"6","tid":"0","ts":"100","dur":"3","args":{"BeginNs":"100000","EndNs":"90000"}}
,{"ph":"X","name":"k2","pid":"6","tid":"0","ts":"200","args":{"BeginNs":"200000"}}
,{"ph":"X","name":"k3","pid":"6","tid":"0","ts":"later","dur":"2","args":{"BeginNs":"300000","EndNs":"302000"}}
]})";
  auto T = importTraceBytes("bad.json", S);
  ASSERT_TRUE(bool(T)) << llvm::toString(T.takeError());
  const model::Event *K1 = named(*T, "k1");
  ASSERT_TRUE(K1);
  EXPECT_EQ(K1->Duration, 3000);
  EXPECT_EQ(T->Stats.get(ImportStat::BadValue), 1u);
  EXPECT_TRUE(
      T->Stats.firstPlace(ImportStat::BadValue).contains("event 2 at byte"));
  const model::Event *K2 = named(*T, "k2");
  ASSERT_TRUE(K2);
  EXPECT_EQ(K2->Duration, 0);
  EXPECT_EQ(T->Stats.get(ImportStat::MissingDuration), 1u);
  EXPECT_TRUE(T->Stats.firstPlace(ImportStat::MissingDuration)
                  .contains("event 3 at byte"));
  // A "ts" that is not a number does not matter when "BeginNs" is exact.
  const model::Event *K3 = named(*T, "k3");
  ASSERT_TRUE(K3);
  EXPECT_EQ(K3->Duration, 2000);
  EXPECT_EQ(T->Stats.get(ImportStat::MissingTimestamp), 0u);
}

// Not a rocprof file: its leading "{}" is an unknown phase, as before, and
// nothing changes for a Kineto trace.
TEST(RocprofImportTest, KinetoTracesAreUntouched) {
  std::string S = R"({"traceEvents":[{}
,{"ph":"M","name":"process_name","pid":6,"args":{"name":"GPU 0"}}
,{"ph":"X","cat":"kernel","name":"k","pid":6,"tid":7,"ts":"10","dur":"5","args":{"device":0,"stream":7,"correlation":1}}
,{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":"2","dur":"3","args":{"correlation":1}}
]})";
  auto T = importTraceBytes("kineto.json", S);
  ASSERT_TRUE(bool(T)) << llvm::toString(T.takeError());
  EXPECT_EQ(T->Source.Format, "chrome-trace");
  EXPECT_EQ(T->Stats.get(ImportStat::UnknownPhase), 1u);
  EXPECT_EQ(T->Stats.firstPlace(ImportStat::UnknownPhase).substr(0, 8),
            "event 0 ");
  const model::Event *K = named(*T, "k");
  ASSERT_TRUE(K);
  EXPECT_NE(T->launchOf(*K), model::NoIndex);
}

} // namespace
