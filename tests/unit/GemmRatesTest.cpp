//===- GemmRatesTest.cpp - Achieved rates of matrix products --------------===//
//
// The conventions docs/efficiency.md states, worked by hand: FLOPs of 2 B M
// N K plus B M N for a bias, bytes of both inputs, the output and the bias
// at the element size, and the rates from each call's kernel time.
//
//===----------------------------------------------------------------------===//
#include "DetectorTestSupport.h"

#include "rules/detectors/GemmRates.h"

#include "gtest/gtest.h"

using namespace tracelint;
using namespace tracelint::testing;
using rules::detect::GemmRate;

namespace {

/// Three calls of \p Op with \p Dims and \p Types, each launching a kernel
/// of 10, 20 and 40 us (the last through two kernels of 20 us), 1 ms apart.
model::Trace gemmCalls(const char *Op, const char *Dims, const char *Types) {
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  const int64_t Kernel[] = {10 * Us, 20 * Us, 20 * Us};
  for (int K = 0; K < 3; ++K) {
    const int64_t T0 = K * Ms;
    model::EventArgs A;
    A.InputDims = M.B.strings().intern(Dims);
    A.InputTypes = M.B.strings().intern(Types);
    M.add(M.Host, model::EventKind::Op, Op, T0, T0 + 50 * Us, 0, &A);
    M.launch(S, "Cijk_gemm", T0 + 5 * Us, T0 + 10 * Us, T0 + 100 * Us,
             T0 + 100 * Us + Kernel[K]);
    if (K == 2)
      M.launch(S, "Cijk_gemm", T0 + 20 * Us, T0 + 25 * Us, T0 + 200 * Us,
               T0 + 220 * Us);
  }
  return M.finish();
}

TEST(GemmRates, AddmmCountsTheBiasAndTheMedianCall) {
  // M 788, N 768, K 768 with a bias of 768 in bf16: 2 MNK + MN =
  // 930,167,808 FLOPs and (MK + KN + MN + 768) x 2 = 3,601,920 bytes per
  // call (TraceLens's figures for the ViT's attention projection). Calls of
  // 10, 20 and 40 us: the median call runs 20 us, 46.51 TFLOP/s.
  model::Trace T =
      gemmCalls("aten::addmm", "[[768], [788, 768], [768, 768], [], []]",
                "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", "
                "\"Scalar\", \"Scalar\"]");
  std::vector<GemmRate> R = rules::detect::gemmRates(T);
  ASSERT_EQ(R.size(), 1u);
  EXPECT_EQ(R[0].Op, "aten::addmm");
  EXPECT_EQ(R[0].M, 788);
  EXPECT_EQ(R[0].N, 768);
  EXPECT_EQ(R[0].K, 768);
  EXPECT_TRUE(R[0].Bias);
  EXPECT_EQ(R[0].Dtype, "c10::BFloat16");
  EXPECT_DOUBLE_EQ(R[0].Flops, 930167808.0);
  EXPECT_DOUBLE_EQ(R[0].Bytes, 3601920.0);
  EXPECT_EQ(R[0].Calls, 3u);
  EXPECT_EQ(R[0].KernelNsMedian, 20 * Us);
  EXPECT_EQ(R[0].KernelNsTotal, 70 * Us);
  EXPECT_NEAR(R[0].TflopsMedian, 930167808.0 / 20000 / 1e3, 1e-9);
  EXPECT_NEAR(R[0].TbpsMedian, 3601920.0 / 20000 / 1e3, 1e-12);
}

TEST(GemmRates, BatchedProductsAndTheirShapes) {
  // bmm [96, 3137, 64] x [96, 64, 3137] in fp32: 2 B M N K FLOPs, no bias.
  model::Trace T = gemmCalls("aten::bmm", "[[96, 3137, 64], [96, 64, 3137]]",
                             "[\"float\", \"float\"]");
  std::vector<GemmRate> R = rules::detect::gemmRates(T);
  ASSERT_EQ(R.size(), 1u);
  EXPECT_EQ(R[0].B, 96);
  EXPECT_EQ(R[0].M, 3137);
  EXPECT_EQ(R[0].N, 3137);
  EXPECT_EQ(R[0].K, 64);
  EXPECT_FALSE(R[0].Bias);
  EXPECT_DOUBLE_EQ(R[0].Flops, 2.0 * 96 * 3137 * 3137 * 64);
  EXPECT_DOUBLE_EQ(R[0].Bytes,
                   4.0 * 96 * (3137.0 * 64 + 64.0 * 3137 + 3137.0 * 3137));
}

TEST(GemmRates, CallsWithoutShapesOrKernelsAreLeftOut) {
  // Shapes that do not fit the op (a 3-D input to mm), an op that is not a
  // matrix product, and an unknown element type (no bytes, still FLOPs).
  EXPECT_TRUE(rules::detect::gemmRates(
                  gemmCalls("aten::mm", "[[2, 3, 4], [4, 5]]", "[]"))
                  .empty());
  EXPECT_TRUE(
      rules::detect::gemmRates(gemmCalls("aten::add", "[[2, 3], [2, 3]]", "[]"))
          .empty());
  std::vector<GemmRate> R = rules::detect::gemmRates(
      gemmCalls("aten::mm", "[[2, 3], [3, 5]]", "[\"mystery\"]"));
  ASSERT_EQ(R.size(), 1u);
  EXPECT_DOUBLE_EQ(R[0].Flops, 60.0);
  EXPECT_DOUBLE_EQ(R[0].Bytes, 0.0);
  EXPECT_DOUBLE_EQ(R[0].flopsPerByte(), 0.0);
}

} // namespace
