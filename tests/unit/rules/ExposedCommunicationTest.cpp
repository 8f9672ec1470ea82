//===- CommunicationDetectorTest.cpp - N001 exposed communication --------===//
#include "../DetectorTestSupport.h"
#include "rules/detectors/DetectorSupport.h"

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

namespace {

TEST(SingleRankDetector, FiresOnAWorldSizeAboveOne) {
  model::Trace T = overlapTrace();
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
  model::Trace T = overlapTrace();
  T.Source.Rank = 1;
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("N003", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_EQ(Out[0].Values.at("world"), "at least 2 (no world size given)");
}

TEST(SingleRankDetector, CannotJudgeRankZeroOrCollectivesWithoutMetadata) {
  model::Trace T = overlapTrace();
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

namespace {

constexpr llvm::StringRef SendRecv =
    "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long)";

/// Four 10 ms steps; in each a 4 ms SendRecv kernel [+4, +8) ms whose
/// payload is \p Bytes in its own arguments (-1: none), or, with \p Shapes,
/// the tensors of the enclosing nccl:all_to_all range.
model::Trace allToAllTrace(int64_t Bytes, llvm::StringRef Dims = "",
                           llvm::StringRef Types = "",
                           int64_t Duration = 4 * Ms) {
  TraceMaker M;
  uint32_t Comm = M.stream(0, 20);
  for (int K = 0; K < 4; ++K) {
    int64_t T0 = K * 10 * Ms;
    M.step(K + 1, T0, T0 + 10 * Ms);
    model::EventArgs KA;
    KA.Bytes = Bytes;
    if (!Dims.empty()) {
      model::EventArgs AA;
      AA.InputDims = M.B.strings().intern(Dims);
      AA.InputTypes = M.B.strings().intern(Types);
      M.add(M.Host, EventKind::Annotation, "nccl:all_to_all", T0 + 30 * Us,
            T0 + 50 * Us, 0, &AA);
    }
    M.launch(Comm, SendRecv, T0 + 35 * Us, T0 + 45 * Us, T0 + 4 * Ms,
             T0 + 4 * Ms + Duration, "cudaLaunchKernel", EventKind::Collective,
             Bytes >= 0 ? &KA : nullptr);
  }
  return M.finish();
}

TEST(LongSmallCollectiveDetector, ALongCollectiveWithFewBytesIsWaiting) {
  model::Trace T = allToAllTrace(24576);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("N002", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  const rules::Detection &D = Out.front();
  // Steps 2-4 are measured: three kernels, 24576 B / 4 ms = 0.006 GB/s.
  EXPECT_EQ(D.Values.at("count"), "3");
  EXPECT_EQ(D.Values.at("max"), "4 ms");
  EXPECT_EQ(D.Values.at("rate"), "0.006 GB/s");
  EXPECT_EQ(D.Values.at("payload_from"), "the kernel's message size");
  EXPECT_EQ(D.ImpactNs, 4 * Ms);
  EXPECT_EQ(D.Subject, "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t");
}

TEST(LongSmallCollectiveDetector, ReadsThePayloadFromTheNcclRangeShapes) {
  // Two inputs: 6144 floats and 3 x 2 longs = 24576 + 48 bytes.
  model::Trace T =
      allToAllTrace(-1, "[[6144], [3, 2]]", R"(["float", "long int"])");
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("N002", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_EQ(Out[0].Values.at("payload_from"),
            "the input shapes of its nccl:* range");
  EXPECT_EQ(Out[0].Values.at("payload"), rules::detect::bytes(24576 + 48));
}

TEST(LongSmallCollectiveDetector, QuietWhenTheBytesExplainTheTime) {
  // 8 MB in 4 ms: 2 GB/s, above the 1 GB/s line.
  model::Trace T = allToAllTrace(8'000'000);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("N002", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
  // A tiny but short collective is latency, not waiting.
  model::Trace Short = allToAllTrace(64, "", "", 500 * Us);
  TraceIndex SCtx(Short);
  EXPECT_EQ(run("N002", SCtx, Out), "");
  EXPECT_TRUE(Out.empty());
}

TEST(LongSmallCollectiveDetector, CannotJudgeWithoutAPayload) {
  model::Trace T = allToAllTrace(-1);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  std::string Why = run("N002", Ctx, Out);
  EXPECT_NE(Why.find("cannot judge: none of the 4 communication kernels"),
            std::string::npos)
      << Why;
  EXPECT_TRUE(Out.empty());
}

TEST(ScalarTypeSize, KnowsBothSpellings) {
  EXPECT_EQ(model::scalarTypeSize("Float"), 4);
  EXPECT_EQ(model::scalarTypeSize("float"), 4);
  EXPECT_EQ(model::scalarTypeSize("BFloat16"), 2);
  EXPECT_EQ(model::scalarTypeSize("c10::BFloat16"), 2);
  EXPECT_EQ(model::scalarTypeSize("long int"), 8);
  EXPECT_EQ(model::scalarTypeSize("signed char"), 1);
  EXPECT_EQ(model::scalarTypeSize("Float8_e4m3fn"), 1);
  EXPECT_EQ(model::scalarTypeSize("Quaternion"), -1);
}

} // namespace
