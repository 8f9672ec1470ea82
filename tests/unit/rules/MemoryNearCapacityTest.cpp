//===- rules/MemoryNearCapacityTest.cpp - M005 memory near capacity -------===//
#include "../DetectorTestSupport.h"

#include "gtest/gtest.h"

using namespace tracelint;
using namespace tracelint::testing;
using analysis::TraceIndex;
using model::EventKind;

namespace {

constexpr int64_t GB = 1'000'000'000;

struct CapacityLayout {
  bool Retry = true;
  bool Memory = true;
  bool Capacity = true;
  int32_t MemoryDevice = 0;
  int64_t Reserved = 40 * GB;
  /// Frees between the failed allocation and the retry.
  int Frees = 2;
};

/// 4 steps of 10 ms (times in ms from the step start): with Retry,
/// aten::empty [0.05, 1.2) holds cudaMalloc [0.06, 0.08), Frees frees
/// splitting [0.1, 1.1), and cudaMalloc [1.1, 1.15); a gemm runs
/// [1.21, 9.5). A memory event at 1.15 records Reserved (allocated 2 GB
/// less); the device has 42,298,834,944 bytes.
model::Trace memoryTrace(const CapacityLayout &L) {
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  for (int K = 0; K < 4; ++K) {
    int64_t T0 = K * 10 * Ms;
    M.step(K + 1, T0, T0 + 10 * Ms);
    if (L.Retry) {
      M.op("aten::empty", T0 + 50 * Us, T0 + 1200 * Us);
      M.runtime("cudaMalloc", T0 + 60 * Us, T0 + 80 * Us);
      int64_t Each = 1000 * Us / L.Frees;
      for (int F = 0; F < L.Frees; ++F)
        M.runtime("cudaFree", T0 + 100 * Us + F * Each,
                  T0 + 100 * Us + (F + 1) * Each);
      M.runtime("cudaMalloc", T0 + 1100 * Us, T0 + 1150 * Us);
    }
    if (L.Memory) {
      model::EventArgs A;
      A.Device = L.MemoryDevice;
      A.TotalAllocated = L.Reserved - 2 * GB;
      A.TotalReserved = L.Reserved;
      M.add(M.Host, EventKind::Marker, "[memory]", T0 + 1150 * Us,
            T0 + 1150 * Us, 0, &A);
    }
    M.launch(S, "gemm", T0 + 1200 * Us, T0 + 1210 * Us, T0 + 1210 * Us,
             T0 + 9500 * Us);
  }
  model::Trace T = M.finish();
  if (L.Capacity) {
    model::DeviceInfo D;
    D.Id = 0;
    D.TotalGlobalMemory = 42'298'834'944;
    T.Devices.push_back(D);
  }
  return T;
}

TEST(MemoryCapacityDetector, FiresOnRetriesNearCapacity) {
  model::Trace T = memoryTrace({});
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("M005", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  const rules::Detection &D = Out.front();
  EXPECT_EQ(D.Values.at("share"), "94.6 %");
  EXPECT_EQ(D.Values.at("retries"), "3");
  EXPECT_EQ(D.Values.at("retry_frees"), "6");
  // The retry [0.06, 1.15) with the device idle from 0.06 to 1.21.
  EXPECT_EQ(D.ImpactNs, 1090 * Us);
  EXPECT_EQ(D.Subject, "retries > aten::empty > cudaMalloc");
  EXPECT_FALSE(D.SeverityOverride.has_value());
}

TEST(MemoryCapacityDetector, NearCapacityWithoutRetriesIsARiskAtInfo) {
  CapacityLayout L;
  L.Retry = false;
  model::Trace T = memoryTrace(L);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("M005", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_EQ(Out.front().ImpactNs, 0);
  EXPECT_EQ(Out.front().SeverityOverride, rules::Severity::Info);
}

TEST(MemoryCapacityDetector, RoomAndNoRetriesIsQuiet) {
  CapacityLayout L;
  L.Retry = false;
  L.Reserved = 30 * GB;
  model::Trace T = memoryTrace(L);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("M005", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
}

TEST(MemoryCapacityDetector, OneFreeIsNotARetry) {
  CapacityLayout L;
  L.Frees = 1;
  L.Reserved = 30 * GB;
  model::Trace T = memoryTrace(L);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("M005", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
}

TEST(MemoryCapacityDetector, RetriesFireBelowTheThreshold) {
  // Memory outside the allocator can fill the device: the retry decides.
  CapacityLayout L;
  L.Reserved = 30 * GB;
  model::Trace T = memoryTrace(L);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("M005", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_EQ(Out.front().Values.at("share"), "70.9 %");
}

TEST(MemoryCapacityDetector, CannotJudgeWithoutMemoryEventsAndCountsRetries) {
  CapacityLayout L;
  L.Memory = false;
  model::Trace T = memoryTrace(L);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  std::string Why = run("M005", Ctx, Out);
  EXPECT_NE(Why.find("no memory events; profile with profile_memory=True"),
            std::string::npos)
      << Why;
  EXPECT_NE(Why.find("4 allocations retried"), std::string::npos) << Why;
}

TEST(MemoryCapacityDetector, CannotJudgeHostMemoryOnly) {
  CapacityLayout L;
  L.MemoryDevice = -1;
  model::Trace T = memoryTrace(L);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  std::string Why = run("M005", Ctx, Out);
  EXPECT_NE(Why.find("all host (CPU) memory"), std::string::npos) << Why;
}

TEST(MemoryCapacityDetector, CannotJudgeWithoutCapacity) {
  CapacityLayout L;
  L.Capacity = false;
  model::Trace T = memoryTrace(L);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  std::string Why = run("M005", Ctx, Out);
  EXPECT_NE(Why.find("does not give the memory capacity of device 0"),
            std::string::npos)
      << Why;
}

} // namespace
