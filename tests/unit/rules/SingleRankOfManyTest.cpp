//===- rules/SingleRankOfManyTest.cpp - N003 one rank of many -------------===//
#include "../DetectorTestSupport.h"

#include "gtest/gtest.h"

using namespace tracelint;
using namespace tracelint::testing;
using analysis::TraceIndex;
using model::EventKind;

namespace {

/// Three 10 ms steps; in each, a compute kernel [+1, +6) ms and a 5 ms
/// all-reduce [+4, +9) ms on another stream.
model::Trace rankTrace() {
  TraceMaker M;
  uint32_t Compute = M.stream(0, 7);
  uint32_t Comm = M.stream(0, 20);
  for (int K = 0; K < 3; ++K) {
    int64_t T0 = K * 10 * Ms;
    M.step(K + 1, T0, T0 + 10 * Ms);
    M.launch(Compute, "gemm", T0 + 100 * Us, T0 + 110 * Us, T0 + Ms,
             T0 + 6 * Ms);
    M.launch(Comm,
             "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned "
             "long)",
             T0 + 200 * Us, T0 + 210 * Us, T0 + 4 * Ms, T0 + 9 * Ms,
             "cudaLaunchKernel", EventKind::Collective);
  }
  return M.finish();
}

TEST(SingleRankDetector, FiresOnAWorldSizeAboveOne) {
  model::Trace T = rankTrace();
  T.Source.Rank = 2;
  T.Source.WorldSize = 4;
  T.Source.DistributedBackend = "nccl";
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("N003", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_EQ(Out[0].Values.at("value"), "rank 2 of 4");
  EXPECT_EQ(Out[0].ImpactNs, 0);
  EXPECT_EQ(*Out[0].SeverityOverride, rules::Severity::Info);
  // Three 5 ms all-reduces, [+4, +9) ms of each 10 ms step: 15 ms.
  EXPECT_NE(Out[0]
                .Values.at("collectives")
                .text()
                .find("3 communication kernels "
                      "on this rank occupy 15 ms"),
            std::string::npos)
      << Out[0].Values.at("collectives");
}

TEST(SingleRankDetector, ARankAboveZeroImpliesSeveralRanks) {
  model::Trace T = rankTrace();
  T.Source.Rank = 1;
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("N003", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_EQ(Out[0].Values.at("world"), "at least 2 (no world size given)");
}

TEST(SingleRankDetector, CannotJudgeRankZeroOrCollectivesWithoutMetadata) {
  model::Trace T = rankTrace();
  {
    TraceIndex Ctx(T);
    std::vector<rules::Detection> Out;
    EXPECT_NE(run("N003", Ctx, Out).find("no distributedInfo"),
              std::string::npos);
    EXPECT_TRUE(Out.empty());
  }
  T.Source.Rank = 0;
  {
    TraceIndex Ctx(T);
    std::vector<rules::Detection> Out;
    EXPECT_NE(run("N003", Ctx, Out).find("rank 0 but gives no"),
              std::string::npos);
  }
  T.Source.WorldSize = 1;
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("N003", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
}

} // namespace
