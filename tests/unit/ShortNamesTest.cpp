//===- ShortNamesTest.cpp - Short kernel names
//-----------------------------===//
#include "report/ShortNames.h"
#include "support/Format.h"

#include "gtest/gtest.h"

using namespace tracelint;
using namespace tracelint::report;

namespace {

// Names as the profilers write them (demangled by CUPTI or roctracer).
constexpr const char *AtenAdd =
    "void at::native::vectorized_elementwise_kernel<4, "
    "at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3> >(int, "
    "at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)";
constexpr const char *AtenCopy =
    "void at::native::elementwise_kernel<128, 2, "
    "at::native::gpu_kernel_impl_nocast<at::native::direct_copy_kernel_cuda("
    "at::TensorIteratorBase&)::{lambda()#3}::operator()() "
    "const::{lambda()#7}::operator()() const::{lambda(float)#1}>(at::"
    "TensorIteratorBase&, at::native::direct_copy_kernel_cuda(at::"
    "TensorIteratorBase&)::{lambda()#3}::operator()() "
    "const::{lambda()#7}::operator()() const::{lambda(float)#1} "
    "const&)::{lambda(int)#1}>(int, "
    "at::native::gpu_kernel_impl_nocast<at::native::direct_copy_kernel_cuda("
    "at::TensorIteratorBase&)::{lambda()#3}::operator()() "
    "const::{lambda()#7}::operator()() const::{lambda(float)#1}>(at::"
    "TensorIteratorBase&, at::native::direct_copy_kernel_cuda(at::"
    "TensorIteratorBase&)::{lambda()#3}::operator()() "
    "const::{lambda()#7}::operator()() const::{lambda(float)#1} "
    "const&)::{lambda(int)#1})";
constexpr const char *AtenIndex =
    "void at::native::(anonymous namespace)::indexSelectLargeIndex<float, "
    "long, unsigned int, 2, 2, -2, true>(at::cuda::detail::TensorInfo<float, "
    "unsigned int>, at::cuda::detail::TensorInfo<float const, unsigned int>, "
    "at::cuda::detail::TensorInfo<long const, unsigned int>, int, int, "
    "unsigned int, unsigned int, long)";
constexpr const char *Cutlass2 =
    "void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_128x128_16x4_nn_"
    "align4>(cutlass_80_tensorop_s1688gemm_128x128_16x4_nn_align4::Params)";
constexpr const char *CutlassUniversal =
    "void cutlass::Kernel<cutlass::gemm::kernel::GemmUniversal<cutlass::gemm::"
    "threadblock::MmaMultistage<cutlass::gemm::GemmShape<128, 128, 32>, "
    "cutlass::gemm::GemmShape<64, 64, 32>, float, 3>, "
    "cutlass::epilogue::threadblock::Epilogue<float, 4>, "
    "cutlass::gemm::threadblock::GemmIdentityThreadblockSwizzle<1>, false> "
    ">(cutlass::gemm::kernel::GemmUniversal<cutlass::gemm::threadblock::"
    "MmaMultistage<cutlass::gemm::GemmShape<128, 128, 32>, "
    "cutlass::gemm::GemmShape<64, 64, 32>, float, 3>, "
    "cutlass::epilogue::threadblock::Epilogue<float, 4>, "
    "cutlass::gemm::threadblock::GemmIdentityThreadblockSwizzle<1>, "
    "false>::Params)";
constexpr const char *CublasGemv =
    "void gemv2T_kernel_val<int, int, float, float, float, float, 128, 16, 4, "
    "4, false, false, cublasGemvParamsEx<int, "
    "cublasGemvTensorStridedBatched<float const>, "
    "cublasGemvTensorStridedBatched<float const>, "
    "cublasGemvTensorStridedBatched<float>, float> >(cublasGemvParamsEx<int, "
    "cublasGemvTensorStridedBatched<float const>, "
    "cublasGemvTensorStridedBatched<float const>, "
    "cublasGemvTensorStridedBatched<float>, float>, float, float)";
constexpr const char *Tensile =
    "Cijk_Alik_Bljk_HHS_BH_MT128x128x32_MI32x32x8x1_SN_1LDSB0_APM1_ABV0_ACED0_"
    "AF0EM1_AF1EM1_AMAS3_ASE_ASGT_ASLT_ASAE01_ASCE01_ASEM1_AAC0_BL1_BS1_DTL0_"
    "DTVA0_DVO0_ETSP_EPS1_FL0_GRVW8_GSU1_GSUASB_GLS0_ISA90a_IU1_K1_KLA_"
    "LBSPP128_LPA0_LPB8_LDL1_LRVW16_LWPMn1_LDW0_FMA_MIAV0_MDA2_MO40_NTA0_NTB0_"
    "NTC0_NTD0_NEPBS0_NLCA1_NLCB1_ONLL1_OPLV0_PK0_PAP0_PGR1_PLR1_SIA3_SS1_SU32_"
    "SUM0_SUS256_SCIUI1_SPO0_SRVW0_SSO0_SVW4_SNLL0_TT4_64_TLDS1_USFGROn1_VAW2_"
    "VSn1_VW4_WSGRA0_WSGRB0_WS64_WG32_4_1_WGM8";
constexpr const char *DeepEpDispatch =
    "void deep_ep::intranode::dispatch<8, 768, 8192>(int4*, float*, int*, "
    "long*, float*, int*, bool*, int4 const*, float const*, long const*, "
    "float const*, bool const*, int const*, int, int, int, int, int, int, "
    "void**, int, int, int)";
constexpr const char *DeepEpCombine =
    "void deep_ep::internode_ll::combine<false, 7168, 9>(void*, void*, int*, "
    "void*, void const*, long const*, int const*, long const*, int*, int*, "
    "int, int, int, int, int, int, int, int, int, bool)";

TEST(ShortNamesTest, AtenKernelsKeepTheirQualifiedName) {
  EXPECT_EQ(shortName(AtenAdd), "at::native::vectorized_elementwise_kernel<…>");
  EXPECT_EQ(shortName(AtenCopy), "at::native::elementwise_kernel<…>");
  // The anonymous namespace says nothing a reader can act on.
  EXPECT_EQ(shortName(AtenIndex), "at::native::indexSelectLargeIndex<…>");
}

TEST(ShortNamesTest, CutlassWrapperIsNamedByItsKernel) {
  EXPECT_EQ(shortName(Cutlass2),
            "cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_128x128_16x4_nn_"
            "align4>");
  EXPECT_EQ(shortName(CutlassUniversal),
            "cutlass::Kernel<cutlass::gemm::kernel::GemmUniversal<…>>");
}

TEST(ShortNamesTest, CublasAndTritonNames) {
  EXPECT_EQ(shortName(CublasGemv), "gemv2T_kernel_val<…>");
  // Generated identifiers are short enough already.
  EXPECT_EQ(shortName("ampere_sgemm_128x64_tn"), "ampere_sgemm_128x64_tn");
  EXPECT_EQ(shortName("sm80_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize96x128x32_"
                      "stage4_warpsize2x2x1_tensor16x8x16_kernel"),
            "sm80_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize96x128x32_stage4_"
            "warpsize2x2x1_tensor16x8x16_kernel");
  EXPECT_EQ(shortName("triton_poi_fused__to_copy_add_mul_0"),
            "triton_poi_fused__to_copy_add_mul_0");
  EXPECT_EQ(shortName("triton_red_fused_native_layer_norm_0"),
            "triton_red_fused_native_layer_norm_0");
}

TEST(ShortNamesTest, TensileIsCutAfterItsTile) {
  EXPECT_EQ(shortName(Tensile), "Cijk_Alik_Bljk_HHS_BH_MT128x128x32_"
                                "MI32x32x8x1_…");
  // No matrix-instruction field: cut after the macro tile.
  EXPECT_EQ(shortName("Cijk_Ailk_Bljk_SB_MT64x64x16_SN_AMAS3_BL1_GRVW4_GSU1_"
                      "ISA906_K1_KLA_LPA0_LPB0_NLCA1_NLCB1_PGR1_PLR1_TT4_4_"
                      "WG16_16_1"),
            "Cijk_Ailk_Bljk_SB_MT64x64x16_…");
}

TEST(ShortNamesTest, DeepEpKernels) {
  EXPECT_EQ(shortName(DeepEpDispatch), "deep_ep::intranode::dispatch<…>");
  EXPECT_EQ(shortName(DeepEpCombine), "deep_ep::internode_ll::combine<…>");
}

TEST(ShortNamesTest, OpsAndRuntimeCallsAreUnchanged) {
  for (const char *N : {"aten::addmm", "aten::copy_", "cudaStreamSynchronize",
                        "Memcpy HtoD (Pageable -> Device)", "ProfilerStep#3",
                        "nccl:all_reduce", "foo<128>"})
    EXPECT_EQ(shortName(N), N);
}

TEST(ShortNamesTest, HugeNamesFitAndAreStable) {
  std::string Huge =
      "void my::kernel_" + std::string(2000, 'x') + "(float*, int)";
  std::string Plain(2000, 'k');
  for (const std::string &N : {Huge, Plain}) {
    std::string S = shortName(N);
    EXPECT_LE(support::displayWidth(S), MaxShortName) << S;
    EXPECT_NE(S.find("…"), std::string::npos);
    EXPECT_EQ(shortName(S), S); // idempotent
    EXPECT_EQ(shortName(N), S); // deterministic
  }
  for (const char *N : {AtenAdd, AtenCopy, AtenIndex, Cutlass2,
                        CutlassUniversal, CublasGemv, Tensile, DeepEpDispatch})
    EXPECT_EQ(shortName(shortName(N)), shortName(N)) << N;
}

TEST(ShortNamesTest, NamesInsideSentences) {
  EXPECT_EQ(shortenNamesIn(std::string("aten::to > aten::copy_ launches ") +
                           AtenAdd + ", 3 per step (5 steps)"),
            "aten::to > aten::copy_ launches "
            "at::native::vectorized_elementwise_kernel<…>, 3 per step (5 "
            "steps)");
  EXPECT_EQ(shortenNamesIn(std::string("'") + DeepEpDispatch + "' at +1.5 s"),
            "'deep_ep::intranode::dispatch<…>' at +1.5 s");
  // Prose, comparisons and plurals stay as they are.
  for (const char *S : {"the wait(s) took 3 ms; 2 < 5 and 7 > 3",
                        "x < y, a->b, step #3 (of 5)", "no names here."})
    EXPECT_EQ(shortenNamesIn(S), S);
}

} // namespace
