//===- rules/KernelsFarFromRoofTest.cpp - K005 kernels far from roof ------===//
#include "../DetectorTestSupport.h"

#include "gtest/gtest.h"

using namespace tracelint;
using namespace tracelint::testing;
using analysis::TraceIndex;

namespace {

/// 4 steps of 2.5 ms on an H100 SXM (3.35 TB/s, bf16 989 TFLOP/s dense). In
/// each, aten::bmm [96, 3137, 64] x [96, 64, 3137] in bf16 launches one
/// kernel of \p KernelUs: 120.9 GFLOP and (2 x 19.27 M + 944.7 M) x 2 B =
/// 1.966 GB, 61 FLOP/B, far below the ridge (295): memory-bound. At
/// 1900 us it moves 1.035 TB/s, 30.9 % of the bandwidth; the gap is
/// 1900 x 0.691 = 1313 us per step. \p Device names the part; \p Shapes
/// false drops the recorded shapes.
model::Trace roofTrace(int64_t KernelUs,
                       const char *Device = "NVIDIA H100 "
                                            "80GB HBM3",
                       bool Shapes = true,
                       const char *Dims = "[[96, 3137, 64], [96, 64, 3137]]") {
  TraceMaker M;
  model::DeviceInfo D;
  D.Id = 0;
  D.Name = Device;
  D.ComputeMajor = 9;
  D.ComputeMinor = 0;
  D.NumSMs = 132;
  M.B.devices().push_back(D);
  uint32_t S = M.stream(0, 7);
  for (int K = 0; K < 4; ++K) {
    int64_t T0 = K * 2500 * Us;
    M.step(K + 1, T0, T0 + 2500 * Us);
    model::EventArgs A;
    A.InputDims = M.B.strings().intern(Dims);
    A.InputTypes =
        M.B.strings().intern("[\"c10::BFloat16\", \"c10::BFloat16\"]");
    M.add(M.Host, model::EventKind::Op, "aten::bmm", T0, T0 + 20 * Us, 0,
          Shapes ? &A : nullptr);
    M.launch(S, "Cijk_Alik_Bljk_BBS_BH_MT128x128x64", T0 + 5 * Us, T0 + 10 * Us,
             T0 + 20 * Us, T0 + (20 + KernelUs) * Us);
  }
  return M.finish();
}

TEST(KernelsFarFromRoofDetector, FiresOnAMemoryBoundProductFarFromHbm) {
  model::Trace T = roofTrace(1900);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("K005", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  const rules::Detection &D = Out.front();
  EXPECT_EQ(D.Values.at("top_op"), "aten::bmm");
  EXPECT_EQ(D.Values.at("top_shape"), "[96, 3137, 3137, 64]");
  EXPECT_EQ(D.Values.at("top_bound"), "memory-bound");
  EXPECT_EQ(D.Values.at("top_intensity"), "61.5");
  EXPECT_EQ(D.Values.at("top_share"), "30.9 %");
  // 1900 us x (1 - 0.309): the time a kernel at the roof would not take.
  EXPECT_NEAR(double(D.ImpactNs), 1313.0 * Us, 3.0 * Us);
  EXPECT_EQ(D.Subject, "aten::bmm [96, 3137, 3137, 64]");
}

TEST(KernelsFarFromRoofDetector, DefersToK003AndOtherwiseFollowsTheShape) {
  // N = 3137 is not a multiple of 8: K003's change comes first.
  model::Trace Odd = roofTrace(1900);
  TraceIndex OddCtx(Odd);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("K005", OddCtx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_NE(Out[0].Values.at("change").str().find("K003 proposes"),
            std::string::npos);
  // Aligned, the same short-K product is told to fuse with its consumer.
  model::Trace Even = roofTrace(1900, "NVIDIA H100 80GB HBM3", true,
                                "[[96, 3136, 64], [96, 64, 3136]]");
  TraceIndex EvenCtx(Even);
  Out.clear();
  EXPECT_EQ(run("K005", EvenCtx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_EQ(Out[0].Values.at("top_cooperation").str(), "");
  EXPECT_NE(Out[0].Values.at("change").str().find("short reduction (K = 64)"),
            std::string::npos);
}

TEST(KernelsFarFromRoofDetector, QuietNearTheRoof) {
  // 700 us: 2.81 TB/s, 84 % of the bandwidth, above max-share-of-roof.
  model::Trace T = roofTrace(700);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("K005", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
}

TEST(KernelsFarFromRoofDetector, CannotJudgeAnUnknownDevice) {
  model::Trace T = roofTrace(1900, "Acme Accelerator 9000");
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  std::string Why = run("K005", Ctx, Out);
  EXPECT_NE(Why.find("cannot judge"), std::string::npos) << Why;
  EXPECT_NE(Why.find("Acme Accelerator 9000"), std::string::npos) << Why;
  EXPECT_TRUE(Out.empty());
}

TEST(KernelsFarFromRoofDetector, CannotJudgeWithoutShapes) {
  model::Trace T = roofTrace(1900, "NVIDIA H100 80GB HBM3", /*Shapes=*/false);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  std::string Why = run("K005", Ctx, Out);
  EXPECT_NE(Why.find("record_shapes"), std::string::npos) << Why;
}

} // namespace
