//===- rules/LongSmallCollectiveTest.cpp - N002 long, small collectives ---===//
#include "../DetectorTestSupport.h"
#include "rules/detectors/DetectorSupport.h"

#include "gtest/gtest.h"

using namespace tracelint;
using namespace tracelint::testing;
using analysis::TraceIndex;
using model::EventKind;

namespace {

constexpr llvm::StringRef SendRecv =
    "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long)";

/// Four 10 ms steps; in each a 4 ms SendRecv kernel [+4, +8) ms whose
/// payload is \p Bytes in its own arguments (-1: none), or, with \p Dims,
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

} // namespace
