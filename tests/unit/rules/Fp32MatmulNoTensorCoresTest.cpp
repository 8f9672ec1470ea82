//===- rules/Fp32MatmulNoTensorCoresTest.cpp - K001 FP32 SIMT products --===//
#include "../DetectorTestSupport.h"

#include "gtest/gtest.h"

using namespace tracelint;
using namespace tracelint::testing;
using analysis::TraceIndex;

namespace {

model::DeviceInfo device(int Major, int Minor, const char *Name) {
  model::DeviceInfo D;
  D.Id = 0;
  D.Name = Name;
  D.ComputeMajor = Major;
  D.ComputeMinor = Minor;
  D.NumSMs = 80;
  return D;
}

/// 4 steps of 2 ms. In each: aten::mm launches a \p GemmUs kernel named
/// \p Gemm, then aten::relu a 300 us elementwise kernel. The product's
/// share of busy time is GemmUs / (GemmUs + 300).
model::Trace gemmTrace(const char *Gemm, int64_t GemmUs = 900,
                       const char *Second = nullptr) {
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  for (int K = 0; K < 4; ++K) {
    int64_t T0 = K * 2 * Ms;
    M.step(K + 1, T0, T0 + 2 * Ms);
    M.op("aten::mm", T0, T0 + 20 * Us);
    M.launch(S, Gemm, T0 + 5 * Us, T0 + 10 * Us, T0 + 10 * Us,
             T0 + (10 + GemmUs) * Us);
    int64_t E = T0 + (10 + GemmUs) * Us;
    M.op("aten::relu", T0 + 30 * Us, T0 + 40 * Us);
    M.launch(S, "void at::native::vectorized_elementwise_kernel<4>",
             T0 + 32 * Us, T0 + 36 * Us, E, E + 300 * Us);
    if (Second) {
      M.op("aten::addmm", T0 + 50 * Us, T0 + 60 * Us);
      M.launch(S, Second, T0 + 52 * Us, T0 + 56 * Us, E + 300 * Us,
               E + 400 * Us);
    }
  }
  return M.finish();
}

TEST(Fp32SimtMatmulDetector, FiresOnAVoltaSgemm) {
  model::Trace T = gemmTrace("volta_sgemm_128x64_nn");
  T.Devices.push_back(device(7, 0, "Tesla V100-SXM2-32GB"));
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("K001", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  const rules::Detection &D = Out.front();
  // 900 of 1200 us busy per step, steps 2-4.
  EXPECT_EQ(D.Values.at("value"), "75.0 %");
  EXPECT_EQ(D.Values.at("count"), "3");
  EXPECT_EQ(D.ImpactNs, 900 * Us);
  EXPECT_EQ(D.Values.at("top_op"), "aten::mm");
  EXPECT_EQ(D.Values.at("capability"), "compute capability 7.0");
  // Volta tensor cores take fp16 only: the advice is fp16 autocast.
  EXPECT_NE(D.Values.at("change").text().find("torch.float16"),
            std::string::npos);
  EXPECT_DOUBLE_EQ(D.Confidence, 0.6);
}

TEST(Fp32SimtMatmulDetector, AmpereGetsTF32Advice) {
  model::Trace T = gemmTrace("ampere_sgemm_128x64_nn");
  T.Devices.push_back(device(8, 0, "NVIDIA A100-SXM4-40GB"));
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("K001", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_NE(
      Out[0].Values.at("change").text().find("set_float32_matmul_precision"),
      std::string::npos);
}

TEST(Fp32SimtMatmulDetector, QuietWithoutTensorCores) {
  model::Trace T = gemmTrace("maxwell_sgemm_128x64_nn");
  T.Devices.push_back(device(6, 0, "Tesla P100-PCIE-16GB"));
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("K001", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
}

TEST(Fp32SimtMatmulDetector, QuietOnTensorCoreKernels) {
  model::Trace T =
      gemmTrace("sm80_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize128x128x16");
  T.Devices.push_back(device(8, 0, "NVIDIA A100-SXM4-40GB"));
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("K001", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
}

TEST(Fp32SimtMatmulDetector, QuietUnderTheBusyShare) {
  // 15 us of 315 us busy: 4.8 %, under the 5 % default.
  model::Trace T = gemmTrace("ampere_sgemm_32x32_sliced1x4_tn", 15);
  T.Devices.push_back(device(8, 0, "NVIDIA A100-SXM4-40GB"));
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("K001", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
}

TEST(Fp32SimtMatmulDetector, CannotJudgeWithoutDeviceProperties) {
  model::Trace T = gemmTrace("ampere_sgemm_128x64_nn");
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  std::string Why = run("K001", Ctx, Out);
  EXPECT_TRUE(llvm::StringRef(Why).startswith("cannot judge: 4 FP32 SIMT"))
      << Why;
  EXPECT_TRUE(Out.empty());
}

TEST(Fp32SimtMatmulDetector, TF32ElsewhereLowersConfidence) {
  model::Trace T = gemmTrace(
      "ampere_sgemm_128x64_nn", 900,
      "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_16x6_tn_"
      "align4>(cutlass_80_tensorop_s1688gemm_64x64_16x6_tn_align4::Params)");
  T.Devices.push_back(device(8, 0, "NVIDIA A100-SXM4-40GB"));
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("K001", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_DOUBLE_EQ(Out[0].Confidence, 0.4);
  EXPECT_FALSE(Out[0].ConfidenceNotes.empty());
}

TEST(Fp32SimtMatmulDetector, AmdNeedsMfmaEvidence) {
  const char *Simt = "Cijk_Ailk_Bljk_SB_MT64x64x8_SE_K1";
  model::Trace T = gemmTrace(Simt);
  T.Devices.push_back(device(9, 0, "AMD Instinct MI250X"));
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  std::string Why = run("K001", Ctx, Out);
  EXPECT_TRUE(llvm::StringRef(Why).startswith("cannot judge")) << Why;

  model::Trace T2 =
      gemmTrace(Simt, 900, "Cijk_Alik_Bljk_BBS_BH_MT64x64x64_MI16x16x16x1_SN");
  T2.Devices.push_back(device(9, 0, "AMD Instinct MI250X"));
  TraceIndex Ctx2(T2);
  EXPECT_EQ(run("K001", Ctx2, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_NE(Out[0].Values.at("change").text().find("bfloat16"),
            std::string::npos);
}

} // namespace
