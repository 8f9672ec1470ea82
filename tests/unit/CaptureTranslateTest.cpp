//===- CaptureTranslateTest.cpp - CUPTI records to trace events -----------===//
//
// Records are the real CUDA 13 structures from cupti_activity.h, filled in
// memory as CUPTI would fill them; the API names come from the real libcupti
// (cuptiGetCallbackName needs no GPU).
//
//===----------------------------------------------------------------------===//
#include "Translate.h"

#include <cupti.h>

#include "gtest/gtest.h"

#include <cstring>

using namespace tracelint::capture;

namespace {

const char *realApiName(bool Runtime, uint32_t Cbid) {
  const char *Name = nullptr;
  if (cuptiGetCallbackName(Runtime ? CUPTI_CB_DOMAIN_RUNTIME_API
                                   : CUPTI_CB_DOMAIN_DRIVER_API,
                           Cbid, &Name) != CUPTI_SUCCESS)
    return nullptr;
  return Name;
}

template <typename T> T zeroed(CUpti_ActivityKind Kind) {
  T R;
  std::memset(&R, 0, sizeof(R));
  R.kind = Kind;
  return R;
}

std::string arg(const TraceEvent &E, const std::string &Key) {
  for (const EventArg &A : E.Args)
    if (A.first == Key)
      return A.second;
  return "<missing>";
}

class CaptureTranslateTest : public ::testing::Test {
protected:
  CaptureTranslateTest() : T(C, realApiName, 4242) { C.windowStarted(0); }
  const TraceEvent &only() {
    EXPECT_EQ(C.events().size(), 1u);
    return C.events().back();
  }
  TraceCollector C;
  RecordTranslator T;
};

TEST_F(CaptureTranslateTest, ConcurrentKernel) {
  auto Dev = zeroed<CUpti_ActivityDevice5>(CUPTI_ACTIVITY_KIND_DEVICE);
  Dev.id = 0;
  Dev.name = "NVIDIA H200";
  Dev.numMultiprocessors = 132;
  Dev.numThreadsPerWarp = 32;
  Dev.maxWarpsPerMultiprocessor = 64;
  Dev.computeCapabilityMajor = 9;
  Dev.globalMemorySize = 141ull << 30;
  T.translate(reinterpret_cast<CUpti_Activity *>(&Dev));
  ASSERT_EQ(C.devices().size(), 1u);
  EXPECT_EQ(C.devices()[0].MaxThreadsPerMultiprocessor, 2048u);

  auto R =
      zeroed<CUpti_ActivityKernel10>(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  R.start = 1000;
  R.end = 3500;
  R.deviceId = 0;
  R.contextId = 1;
  R.streamId = 7;
  R.correlationId = 99;
  R.gridX = 264;
  R.gridY = R.gridZ = 1;
  R.blockX = 256;
  R.blockY = R.blockZ = 1;
  R.registersPerThread = 64;
  R.staticSharedMemory = 1024;
  R.dynamicSharedMemory = 2048;
  R.name = "_Z4gemmPfS_";
  R.queued = 900;
  R.graphId = 3;
  T.translate(reinterpret_cast<CUpti_Activity *>(&R));
  const TraceEvent &E = only();
  EXPECT_STREQ(E.Cat, "kernel");
  EXPECT_EQ(E.Name, "_Z4gemmPfS_");
  EXPECT_TRUE(E.OnDevice);
  EXPECT_EQ(E.Pid, 0);
  EXPECT_EQ(E.Tid, 7);
  EXPECT_EQ(E.StartNs, 1000u);
  EXPECT_EQ(E.EndNs, 3500u);
  EXPECT_EQ(E.Correlation, 99u);
  EXPECT_EQ(arg(E, "grid"), "[264, 1, 1]");
  EXPECT_EQ(arg(E, "block"), "[256, 1, 1]");
  EXPECT_EQ(arg(E, "shared memory"), "3072");
  EXPECT_EQ(arg(E, "registers per thread"), "64");
  EXPECT_EQ(arg(E, "blocks per SM"), "2");
  EXPECT_EQ(arg(E, "warps per SM"), "16");
  EXPECT_EQ(arg(E, "queued"), "900");
  EXPECT_EQ(arg(E, "graph id"), "3");
}

TEST_F(CaptureTranslateTest, KernelWithoutNameOrDevice) {
  auto R = zeroed<CUpti_ActivityKernel10>(CUPTI_ACTIVITY_KIND_KERNEL);
  R.start = 5;
  R.end = 6;
  T.translate(reinterpret_cast<CUpti_Activity *>(&R));
  EXPECT_EQ(only().Name, "(unnamed kernel)");
  EXPECT_EQ(arg(only(), "blocks per SM"), "<missing>");
}

TEST_F(CaptureTranslateTest, MemcpyUsesCuptiMemoryKinds) {
  auto R = zeroed<CUpti_ActivityMemcpy6>(CUPTI_ACTIVITY_KIND_MEMCPY);
  R.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
  R.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE; // 1 in CUPTI, 0 in nsys
  R.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  R.flags = CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC;
  R.bytes = 1 << 20;
  R.start = 0;
  R.end = 1000;
  R.streamId = 13;
  R.correlationId = 5;
  T.translate(reinterpret_cast<CUpti_Activity *>(&R));
  const TraceEvent &E = only();
  EXPECT_STREQ(E.Cat, "gpu_memcpy");
  EXPECT_EQ(E.Name, "Memcpy HtoD (Pageable -> Device)");
  EXPECT_EQ(arg(E, "bytes"), "1048576");
  EXPECT_EQ(arg(E, "memory bandwidth (GB/s)"), "1048.58"); // bytes/ns
  EXPECT_EQ(arg(E, "async"), "true");
}

TEST_F(CaptureTranslateTest, PeerMemcpy) {
  auto R = zeroed<CUpti_ActivityMemcpyPtoP4>(CUPTI_ACTIVITY_KIND_MEMCPY2);
  R.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_PTOP;
  R.srcKind = R.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  R.deviceId = 1;
  R.srcDeviceId = 0;
  R.dstDeviceId = 1;
  R.bytes = 64;
  R.start = 10;
  R.end = 20;
  T.translate(reinterpret_cast<CUpti_Activity *>(&R));
  const TraceEvent &E = only();
  EXPECT_EQ(E.Name, "Memcpy PtoP (Device -> Device)");
  EXPECT_EQ(E.Pid, 1);
  EXPECT_EQ(arg(E, "fromDevice"), "0");
  EXPECT_EQ(arg(E, "toDevice"), "1");
}

TEST_F(CaptureTranslateTest, Memset) {
  auto R = zeroed<CUpti_ActivityMemset4>(CUPTI_ACTIVITY_KIND_MEMSET);
  R.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  R.bytes = 256;
  R.value = 0;
  R.start = 1;
  R.end = 2;
  R.streamId = 7;
  T.translate(reinterpret_cast<CUpti_Activity *>(&R));
  EXPECT_EQ(only().Name, "Memset (Device)");
  EXPECT_STREQ(only().Cat, "gpu_memset");
  EXPECT_EQ(arg(only(), "bytes"), "256");
}

TEST_F(CaptureTranslateTest, RuntimeAndDriverCallsUseCuptiNames) {
  auto R = zeroed<CUpti_ActivityAPI>(CUPTI_ACTIVITY_KIND_RUNTIME);
  R.cbid = CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000;
  R.start = 100;
  R.end = 105;
  R.processId = 4242;
  R.threadId = 4250;
  R.correlationId = 99;
  T.translate(reinterpret_cast<CUpti_Activity *>(&R));
  auto D = zeroed<CUpti_ActivityAPI>(CUPTI_ACTIVITY_KIND_DRIVER);
  D.cbid = CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel;
  D.start = 200;
  D.end = 201;
  D.returnValue = 700;
  T.translate(reinterpret_cast<CUpti_Activity *>(&D));
  auto M = zeroed<CUpti_ActivityAPI>(CUPTI_ACTIVITY_KIND_RUNTIME);
  M.cbid = CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_ptsz_v7000;
  M.start = 300;
  M.end = 301;
  T.translate(reinterpret_cast<CUpti_Activity *>(&M));
  auto U = zeroed<CUpti_ActivityAPI>(CUPTI_ACTIVITY_KIND_RUNTIME);
  U.cbid = 0xFFFFFF; // no such callback
  U.start = 400;
  U.end = 401;
  T.translate(reinterpret_cast<CUpti_Activity *>(&U));
  ASSERT_EQ(C.events().size(), 4u);
  const TraceEvent &Rt = C.events()[0];
  EXPECT_STREQ(Rt.Cat, "cuda_runtime");
  EXPECT_EQ(Rt.Name, "cudaLaunchKernel");
  EXPECT_EQ(Rt.Pid, 4242);
  EXPECT_EQ(Rt.Tid, 4250);
  EXPECT_FALSE(Rt.OnDevice);
  EXPECT_EQ(Rt.Correlation, 99u);
  EXPECT_STREQ(C.events()[1].Cat, "cuda_driver");
  EXPECT_EQ(C.events()[1].Name, "cuLaunchKernel");
  EXPECT_EQ(arg(C.events()[1], "return value"), "700");
  EXPECT_EQ(C.events()[2].Name, "cudaMemcpyAsync");
  EXPECT_EQ(C.events()[3].Name, "cudaRuntimeApi#16777215");
}

TEST_F(CaptureTranslateTest, CanonicalApiNames) {
  EXPECT_EQ(canonicalApiName("cudaLaunchKernel_v7000"), "cudaLaunchKernel");
  EXPECT_EQ(canonicalApiName("cudaMemcpyAsync_ptsz_v7000"), "cudaMemcpyAsync");
  EXPECT_EQ(canonicalApiName("cuMemcpyHtoD_v2"), "cuMemcpyHtoD");
  EXPECT_EQ(canonicalApiName("cuLaunchKernel"), "cuLaunchKernel");
  EXPECT_EQ(canonicalApiName("cudaStreamGetCaptureInfo_v2_v11030"),
            "cudaStreamGetCaptureInfo");
  EXPECT_EQ(canonicalApiName("odd_v"), "odd_v");
}

TEST_F(CaptureTranslateTest, SynchronizationTakesItsDeviceFromTheContext) {
  auto Ctx = zeroed<CUpti_ActivityContext3>(CUPTI_ACTIVITY_KIND_CONTEXT);
  Ctx.contextId = 5;
  Ctx.deviceId = 2;
  T.translate(reinterpret_cast<CUpti_Activity *>(&Ctx));
  auto S = zeroed<CUpti_ActivitySynchronization2>(
      CUPTI_ACTIVITY_KIND_SYNCHRONIZATION);
  S.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE;
  S.contextId = 5;
  S.streamId = UINT32_MAX;
  S.cudaEventId = UINT32_MAX;
  S.start = 10;
  S.end = 90;
  S.correlationId = 8;
  T.translate(reinterpret_cast<CUpti_Activity *>(&S));
  auto W = zeroed<CUpti_ActivitySynchronization2>(
      CUPTI_ACTIVITY_KIND_SYNCHRONIZATION);
  W.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE;
  W.contextId = 5;
  W.streamId = UINT32_MAX;
  W.cudaEventId = 4;
  W.start = 100;
  W.end = 110;
  T.translate(reinterpret_cast<CUpti_Activity *>(&W));
  ASSERT_EQ(C.events().size(), 2u);
  const TraceEvent &E = C.events()[0];
  EXPECT_STREQ(E.Cat, "cuda_sync");
  EXPECT_EQ(E.Name, "Context Sync");
  EXPECT_TRUE(E.DeviceFromContext);
  EXPECT_EQ(C.deviceOfContext(E.ContextId), 2);
  EXPECT_EQ(E.Tid, -1);
  EXPECT_EQ(arg(E, "cuda_sync_kind"), "\"Context Sync\"");
  EXPECT_EQ(arg(E, "wait_on_cuda_event_id"), "<missing>");
  EXPECT_EQ(C.events()[1].Name, "Event Sync");
  EXPECT_EQ(arg(C.events()[1], "wait_on_cuda_event_id"), "4");
}

TEST_F(CaptureTranslateTest, NvtxMarkersBecomeRangesAndMarks) {
  auto Start = zeroed<CUpti_ActivityMarker2>(CUPTI_ACTIVITY_KIND_MARKER);
  Start.flags = CUPTI_ACTIVITY_FLAG_MARKER_START;
  Start.id = 17;
  Start.timestamp = 50;
  Start.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
  Start.objectId.pt.processId = 4242;
  Start.objectId.pt.threadId = 4243;
  Start.name = "train_step";
  Start.domain = "my.domain";
  T.translate(reinterpret_cast<CUpti_Activity *>(&Start));
  EXPECT_TRUE(C.events().empty()); // held until its end
  auto End = zeroed<CUpti_ActivityMarker2>(CUPTI_ACTIVITY_KIND_MARKER);
  End.flags = CUPTI_ACTIVITY_FLAG_MARKER_END;
  End.id = 17;
  End.timestamp = 80;
  T.translate(reinterpret_cast<CUpti_Activity *>(&End));
  auto Mark = zeroed<CUpti_ActivityMarker2>(CUPTI_ACTIVITY_KIND_MARKER);
  Mark.flags = CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS;
  Mark.timestamp = 60;
  Mark.name = "checkpoint";
  T.translate(reinterpret_cast<CUpti_Activity *>(&Mark));
  ASSERT_EQ(C.events().size(), 2u);
  const TraceEvent &R = C.events()[0];
  EXPECT_EQ(R.Name, "train_step");
  EXPECT_STREQ(R.Cat, "user_annotation");
  EXPECT_EQ(R.StartNs, 50u);
  EXPECT_EQ(R.EndNs, 80u);
  EXPECT_EQ(R.Pid, 4242);
  EXPECT_EQ(R.Tid, 4243);
  EXPECT_EQ(arg(R, "domain"), "\"my.domain\"");
  EXPECT_EQ(C.events()[1].Ph, 'i');
  EXPECT_EQ(C.events()[1].Pid, 4242); // no thread: this process
}

TEST_F(CaptureTranslateTest, OverheadAndExternalCorrelation) {
  auto O = zeroed<CUpti_ActivityOverhead3>(CUPTI_ACTIVITY_KIND_OVERHEAD);
  O.overheadKind = CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH;
  O.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
  O.objectId.pt.processId = 4242;
  O.objectId.pt.threadId = 9;
  O.start = 5;
  O.end = 25;
  T.translate(reinterpret_cast<CUpti_Activity *>(&O));
  EXPECT_EQ(only().Name, "CUPTI buffer flush");
  EXPECT_STREQ(only().Cat, "overhead");
  EXPECT_EQ(only().Tid, 9);

  auto X = zeroed<CUpti_ActivityExternalCorrelation>(
      CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION);
  X.externalKind = CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0;
  X.externalId = 1234;
  X.correlationId = 99;
  T.translate(reinterpret_cast<CUpti_Activity *>(&X));
  EXPECT_EQ(C.externalId(99), 1234u);
}

TEST_F(CaptureTranslateTest, UnknownKindsAreCounted) {
  CUpti_Activity R;
  R.kind = CUPTI_ACTIVITY_KIND_PCIE;
  T.translate(&R);
  T.translate(nullptr);
  EXPECT_TRUE(C.events().empty());
  EXPECT_EQ(C.counts().UnknownRecords, 1u);
}

TEST(CaptureEnumNamesTest, EveryValueHasAName) {
  EXPECT_STREQ(memcpyKindName(CUPTI_ACTIVITY_MEMCPY_KIND_DTOH), "DtoH");
  EXPECT_STREQ(memcpyKindName(CUPTI_ACTIVITY_MEMCPY_KIND_DTOD), "DtoD");
  EXPECT_STREQ(memcpyKindName(200), "Unknown");
  EXPECT_STREQ(memoryKindName(CUPTI_ACTIVITY_MEMORY_KIND_PINNED), "Pinned");
  EXPECT_STREQ(memoryKindName(CUPTI_ACTIVITY_MEMORY_KIND_MANAGED), "Managed");
  EXPECT_STREQ(memoryKindName(0), "Unknown");
  EXPECT_STREQ(
      syncTypeName(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE),
      "Stream Sync");
  EXPECT_STREQ(
      syncTypeName(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT),
      "Stream Wait Event");
  EXPECT_STREQ(overheadKindName(CUPTI_ACTIVITY_OVERHEAD_LAZY_FUNCTION_LOADING),
               "Lazy function loading");
}

} // namespace
