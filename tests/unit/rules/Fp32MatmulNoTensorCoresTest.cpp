//===- rules/Fp32MatmulNoTensorCoresTest.cpp - K001 and kernel-name -------===//
#include "../DetectorTestSupport.h"
#include "rules/detectors/KernelNames.h"

#include "gtest/gtest.h"

using namespace tracelint;
using namespace tracelint::testing;
using namespace tracelint::rules::detect;
using analysis::TraceIndex;

namespace {

MatmulEngine engine(llvm::StringRef Name) {
  return classifyMatmulKernel(Name).Engine;
}

TEST(KernelNames, FP32SimtKernels) {
  EXPECT_EQ(engine("volta_sgemm_128x64_nn"), MatmulEngine::Fp32Simt);
  EXPECT_EQ(engine("ampere_sgemm_32x32_sliced1x4_tn"), MatmulEngine::Fp32Simt);
  MatmulKernel Conv = classifyMatmulKernel(
      "void implicit_convolve_sgemm<float, float, 1024, 6, 7, 3, 3, 5, 1, "
      "false, true, true>(int, int, int, float const*, int, float*)");
  EXPECT_EQ(Conv.Engine, MatmulEngine::Fp32Simt);
  EXPECT_TRUE(Conv.Convolution);
  EXPECT_EQ(engine("volta_scudnn_128x128_stridedB_splitK_medium_nn_v1"),
            MatmulEngine::Fp32Simt);
  EXPECT_EQ(engine("sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize32x32x8_"
                   "stage3_warpsize1x2x1_ffma_aligna4_alignc4_execute_kernel"),
            MatmulEngine::Fp32Simt);
  EXPECT_EQ(engine("void cutlass::Kernel<cutlass_80_simt_sgemm_128x128_8x4_nn_"
                   "align1>(cutlass_80_simt_sgemm_128x128_8x4_nn_align1::"
                   "Params)"),
            MatmulEngine::Fp32Simt);
  MatmulKernel Tensile = classifyMatmulKernel(
      "Cijk_Ailk_Bljk_SB_MT64x64x8_SE_APM1_AF0EM1_AF1EM1_AMAS3_ASAE01");
  EXPECT_EQ(Tensile.Engine, MatmulEngine::Fp32Simt);
  EXPECT_EQ(Tensile.Vendor, KernelVendor::Amd);
}

TEST(KernelNames, MatrixUnitKernels) {
  MatmulKernel S1688 = classifyMatmulKernel(
      "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_256x64_16x4_nn_"
      "align4>(cutlass_80_tensorop_s1688gemm_256x64_16x4_nn_align4::Params)");
  EXPECT_EQ(S1688.Engine, MatmulEngine::MatrixUnit);
  EXPECT_TRUE(S1688.Tf32);
  EXPECT_EQ(engine("sm80_xmma_fprop_implicit_gemm_indexed_tf32f32_tf32f32_f32_"
                   "nhwckrsc_nchw_tilesize128x128x16_stage4"),
            MatmulEngine::MatrixUnit);
  EXPECT_EQ(engine("volta_h884gemm_64x64_ldg8_nn"), MatmulEngine::MatrixUnit);
  EXPECT_EQ(engine("ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_"
                   "32x5_tn"),
            MatmulEngine::MatrixUnit);
  EXPECT_EQ(engine("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64"
                   "_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_"
                   "cublas"),
            MatmulEngine::MatrixUnit);
  EXPECT_EQ(engine("nvjet_tst_128x256_64x4_1x2_h_bz_coopA_NNT"),
            MatmulEngine::MatrixUnit);
  EXPECT_EQ(engine("Cijk_Alik_Bljk_SB_Bias_AS_SAV_UserArgs_MT64x16x32_"
                   "MI16x16x1_SN_LDSB0_AFC1"),
            MatmulEngine::MatrixUnit);
  EXPECT_EQ(engine("Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT256x192x64_"
                   "MI16x16x1_SN_LDSB1"),
            MatmulEngine::MatrixUnit);
  EXPECT_EQ(engine("igemm_fwd_gtcx3_nhwc_bf16_bx0_ex1_bt64x128x32_wt32x32x8"),
            MatmulEngine::MatrixUnit);
}

TEST(KernelNames, OtherKernels) {
  // Matrix-vector and small-N products are memory-bound: not counted.
  EXPECT_EQ(engine("void gemmSN_TN_kernel<float, 128, 16, 2, 4, 8, 9, false, "
                   "cublasGemvTensorStridedBatched<float const> >("
                   "cublasGemmSmallNParams<float>)"),
            MatmulEngine::Other);
  EXPECT_EQ(engine("void gemmk1_kernel<int, float, 256, 5, false>()"),
            MatmulEngine::Other);
  EXPECT_EQ(engine("volta_fp16_sgemm_fp16_128x64_nn"), MatmulEngine::Other);
  EXPECT_EQ(engine("void at::native::vectorized_elementwise_kernel<4, "
                   "at::native::AddFunctor<float>>"),
            MatmulEngine::NotMatmul);
  EXPECT_EQ(engine("Cijk_Ailk_Bljk_HHS_BH_MT64x64x16_SE_K1"),
            MatmulEngine::Other);
}

TEST(KernelNames, ShortNames) {
  EXPECT_EQ(shortKernelName("void implicit_convolve_sgemm<float, float>(int)"),
            "implicit_convolve_sgemm");
  EXPECT_EQ(shortKernelName("void cutlass::Kernel<cutlass_80_tensorop_s1688gemm"
                            "_64x64_16x6_tn_align4>(cutlass::Params)"),
            "cutlass_80_tensorop_s1688gemm_64x64_16x6_tn_align4");
  EXPECT_EQ(shortKernelName("ampere_sgemm_128x64_nn"),
            "ampere_sgemm_128x64_nn");
}

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
