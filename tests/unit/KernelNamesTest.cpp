//===- KernelNamesTest.cpp - What kernel names reveal ---------------------===//
#include "rules/detectors/KernelNames.h"

#include "gtest/gtest.h"

using namespace tracelint;
using namespace tracelint::rules::detect;

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

} // namespace
