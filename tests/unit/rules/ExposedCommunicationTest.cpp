//===- rules/ExposedCommunicationTest.cpp - N001 exposed communication ----===//
#include "../DetectorTestSupport.h"

#include "gtest/gtest.h"

using namespace tracelint;
using namespace tracelint::testing;
using analysis::TraceIndex;
using model::EventKind;

namespace {

constexpr llvm::StringRef AllReduce =
    "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long)";
constexpr llvm::StringRef AllGather =
    "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)";

/// Three 10 ms steps; in each, a compute kernel [+1, +6) ms on stream 7 and
/// an all-reduce [+4, +9) ms on stream 20: [+6, +9) ms of it is exposed.
/// \p Extra adds per step a second collective [+7, +9.5) ms on stream 21.
model::Trace overlapTrace(bool Extra = false, int64_t CommStream = 20) {
  TraceMaker M;
  uint32_t Compute = M.stream(0, 7);
  uint32_t Comm = M.stream(0, CommStream);
  uint32_t Comm2 = M.stream(0, 21);
  for (int K = 0; K < 3; ++K) {
    int64_t T0 = K * 10 * Ms;
    M.step(K + 1, T0, T0 + 10 * Ms);
    M.launch(Compute, "gemm", T0 + 100 * Us, T0 + 110 * Us, T0 + Ms,
             T0 + 6 * Ms);
    M.launch(Comm, AllReduce, T0 + 200 * Us, T0 + 210 * Us, T0 + 4 * Ms,
             T0 + 9 * Ms, "cudaLaunchKernel", EventKind::Collective);
    if (Extra)
      M.launch(Comm2, AllGather, T0 + 300 * Us, T0 + 310 * Us, T0 + 7 * Ms,
               T0 + 9500 * Us, "cudaLaunchKernel", EventKind::Collective);
  }
  return M.finish();
}

TEST(ExposedCommunicationDetector, MeasuresTheCollectiveTimeNoComputeCovers) {
  model::Trace T = overlapTrace();
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("N001", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  const rules::Detection &D = Out.front();
  // Steps 2-3: 5 ms of all-reduce per step, 2 ms of it under the gemm.
  EXPECT_EQ(D.Values.at("exposed"), "3 ms");
  EXPECT_EQ(D.Values.at("share"), "30.0 %");
  EXPECT_EQ(D.Values.at("comm"), "5 ms");
  EXPECT_EQ(D.Values.at("hidden_share"), "40.0 %");
  EXPECT_EQ(D.Values.at("count"), "2");
  EXPECT_EQ(D.Values.at("window"), "steps 2-3");
  EXPECT_EQ(D.Subject, "ncclKernel_AllReduce_RING_LL_Sum_float");
  EXPECT_EQ(D.ImpactNs, 3 * Ms);
  EXPECT_NE(D.Values.at("same_stream").text().find("without compute"),
            std::string::npos);
}

TEST(ExposedCommunicationDetector, OverlappingCollectivesAreAUnionNotASum) {
  model::Trace T = overlapTrace(/*Extra=*/true);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("N001", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  // [+6, +9) and [+7, +9.5) ms are exposed: 3.5 ms, not 3 + 2.5 ms.
  EXPECT_EQ(Out[0].Values.at("exposed"), "3.5 ms");
  EXPECT_EQ(Out[0].ImpactNs, 3500 * Us);
  // Communication [+4, +9.5) ms: 5.5 ms.
  EXPECT_EQ(Out[0].Values.at("comm"), "5.5 ms");
}

TEST(ExposedCommunicationDetector, SaysWhenCollectivesShareTheComputeStream) {
  model::Trace T = overlapTrace(false, /*CommStream=*/7);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("N001", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_NE(Out[0].Values.at("same_stream").text().find("3 of 3 collectives"),
            std::string::npos);
}

TEST(ExposedCommunicationDetector, QuietBelowTheShare) {
  model::Trace T = overlapTrace();
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  // 30 % exposed against a 35 % threshold.
  EXPECT_EQ(run("N001", Ctx, Out, {{"min-exposed-share", 0.35}}), "");
  EXPECT_TRUE(Out.empty());
}

TEST(ExposedCommunicationDetector, ALaggingDeviceCountsCollectivesByLaunch) {
  // The host launches each step's all-reduce inside the step, but the
  // device runs it in the next step's time. It still belongs to its step.
  TraceMaker M;
  uint32_t Compute = M.stream(0, 7);
  uint32_t Comm = M.stream(0, 20);
  for (int K = 0; K < 4; ++K) {
    int64_t T0 = K * 10 * Ms;
    M.step(K + 1, T0, T0 + 10 * Ms);
    M.launch(Compute, "gemm", T0 + 100 * Us, T0 + 110 * Us, T0 + 5 * Ms,
             T0 + 11 * Ms);
    M.launch(Comm, AllReduce, T0 + 200 * Us, T0 + 210 * Us, T0 + 11 * Ms,
             T0 + 13 * Ms, "cudaLaunchKernel", EventKind::Collective);
  }
  model::Trace T = M.finish();
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("N001", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  // Steps 2-4: three all-reduces, each [+11, +13) ms with the next step's
  // gemm starting at +15 ms: 2 ms exposed each.
  EXPECT_EQ(Out[0].Values.at("count"), "3");
  EXPECT_EQ(Out[0].Values.at("exposed"), "2 ms");
}

TEST(ExposedCommunicationDetector, NoCollectivesIsQuietUnlessRanksAreDeclared) {
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  for (int K = 0; K < 3; ++K) {
    int64_t T0 = K * 10 * Ms;
    M.step(K + 1, T0, T0 + 10 * Ms);
    M.launch(S, "gemm", T0 + 100 * Us, T0 + 110 * Us, T0 + Ms, T0 + 6 * Ms);
  }
  model::Trace T = M.finish();
  {
    TraceIndex Ctx(T);
    std::vector<rules::Detection> Out;
    EXPECT_EQ(run("N001", Ctx, Out), "");
    EXPECT_TRUE(Out.empty());
  }
  T.Source.WorldSize = 4;
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  std::string Why = run("N001", Ctx, Out);
  EXPECT_NE(Why.find("cannot judge: distributedInfo gives a world size of 4"),
            std::string::npos)
      << Why;
  EXPECT_TRUE(Out.empty());
}

} // namespace
