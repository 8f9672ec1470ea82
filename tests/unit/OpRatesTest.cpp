//===- OpRatesTest.cpp - Achieved rates per op and argument set -----------===//
//
// The conventions docs/efficiency.md states, worked by hand per category
// (several with the figures TraceLens publishes for the MI300X traces), and
// the nesting rule: one kernel set is counted once.
//
//===----------------------------------------------------------------------===//
#include "DetectorTestSupport.h"

#include "rules/detectors/OpModels.h"
#include "rules/detectors/OpRates.h"

#include "gtest/gtest.h"

using namespace tracelint;
using namespace tracelint::testing;
using rules::detect::OpCategory;
using rules::detect::OpRate;

namespace {

/// The recorded arguments of one op call.
struct RecordedOpArgs {
  const char *Dims, *Types, *Values = "";
};

model::EventArgs recordedOpArgs(TraceMaker &M, const RecordedOpArgs &R) {
  model::EventArgs A;
  A.InputDims = M.B.strings().intern(R.Dims);
  A.InputTypes = M.B.strings().intern(R.Types);
  if (*R.Values)
    A.Detail = M.B.strings().intern(R.Values);
  return A;
}

/// Three calls of \p Op with \p R, each launching a kernel of 10, 20 and
/// 40 us (the last through two kernels of 20 us), 1 ms apart.
model::Trace threeOpCalls(const char *Op, const RecordedOpArgs &R) {
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  const int64_t Kernel[] = {10 * Us, 20 * Us, 20 * Us};
  for (int K = 0; K < 3; ++K) {
    const int64_t T0 = K * Ms;
    model::EventArgs A = recordedOpArgs(M, R);
    M.add(M.Host, model::EventKind::Op, Op, T0, T0 + 50 * Us, 0, &A);
    M.launch(S, "some_kernel", T0 + 5 * Us, T0 + 10 * Us, T0 + 100 * Us,
             T0 + 100 * Us + Kernel[K]);
    if (K == 2)
      M.launch(S, "some_kernel", T0 + 20 * Us, T0 + 25 * Us, T0 + 200 * Us,
               T0 + 220 * Us);
  }
  return M.finish();
}

/// One call of the op \p Outer [0, 100 us) holding a call of \p Inner
/// [10, 60 us) that launches a kernel of 30 us; \p Outer itself launches
/// another of 5 us at 70 us.
model::Trace nestedOpCalls(const char *Outer, const RecordedOpArgs &OuterArgs,
                           const char *Inner, const RecordedOpArgs &InnerArgs) {
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  model::EventArgs A = recordedOpArgs(M, OuterArgs),
                   B = recordedOpArgs(M, InnerArgs);
  M.add(M.Host, model::EventKind::Op, Outer, 0, 100 * Us, 0, &A);
  M.add(M.Host, model::EventKind::Op, Inner, 10 * Us, 60 * Us, 0, &B);
  M.launch(S, "inner_kernel", 20 * Us, 25 * Us, 200 * Us, 230 * Us);
  M.launch(S, "outer_kernel", 70 * Us, 75 * Us, 300 * Us, 305 * Us);
  return M.finish();
}

/// The only rate of \p T's ops; fails the test when there is not one.
OpRate onlyOpRate(const model::Trace &T) {
  std::vector<OpRate> R = rules::detect::opRates(T);
  EXPECT_EQ(R.size(), 1u);
  return R.empty() ? OpRate() : R[0];
}

using RateParams = std::vector<std::pair<std::string, int64_t>>;

const char *const ThreeBf16Types =
    "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\"]";

TEST(OpRates, AddmmCountsTheBiasAndTheMedianCall) {
  // M 788, N 768, K 768 with a bias of 768 in bf16: 2 MNK + MN =
  // 930,167,808 FLOPs and (MK + KN + MN + 768) x 2 = 3,601,920 bytes per
  // call (TraceLens's figures for the ViT's attention projection). Calls of
  // 10, 20 and 40 us: the median call runs 20 us, 46.51 TFLOP/s.
  OpRate R = onlyOpRate(threeOpCalls(
      "aten::addmm", {"[[768], [788, 768], [768, 768], [], []]",
                      "[\"c10::BFloat16\", \"c10::BFloat16\", "
                      "\"c10::BFloat16\", \"Scalar\", \"Scalar\"]"}));
  EXPECT_EQ(R.Op, "aten::addmm");
  EXPECT_EQ(R.Category, OpCategory::Gemm);
  EXPECT_TRUE(R.MatrixUnits);
  EXPECT_EQ(
      R.Params,
      (RateParams{{"B", 1}, {"M", 788}, {"N", 768}, {"K", 768}, {"bias", 1}}));
  EXPECT_EQ(R.shapeText(), "[1, 788, 768, 768]");
  EXPECT_EQ(R.Dtype, "c10::BFloat16");
  EXPECT_DOUBLE_EQ(R.Flops, 930167808.0);
  EXPECT_DOUBLE_EQ(R.Bytes, 3601920.0);
  EXPECT_EQ(R.Calls, 3u);
  EXPECT_EQ(R.CallOps.size(), 3u);
  EXPECT_EQ(R.KernelNsMedian, 20 * Us);
  EXPECT_EQ(R.KernelNsTotal, 70 * Us);
  EXPECT_NEAR(R.TflopsMedian, 930167808.0 / 20000 / 1e3, 1e-9);
  EXPECT_NEAR(R.TbpsMedian, 3601920.0 / 20000 / 1e3, 1e-12);
}

TEST(OpRates, BatchedProductsAndTheirShapes) {
  // bmm [96, 3137, 64] x [96, 64, 3137] in fp32: 2 B M N K FLOPs, no bias.
  OpRate R =
      onlyOpRate(threeOpCalls("aten::bmm", {"[[96, 3137, 64], [96, 64, 3137]]",
                                            "[\"float\", \"float\"]"}));
  EXPECT_EQ(R.shapeText(), "[96, 3137, 3137, 64]");
  EXPECT_EQ(R.param("bias", -1), 0);
  EXPECT_DOUBLE_EQ(R.Flops, 2.0 * 96 * 3137 * 3137 * 64);
  EXPECT_DOUBLE_EQ(R.Bytes,
                   4.0 * 96 * (3137.0 * 64 + 64.0 * 3137 + 3137.0 * 3137));
}

TEST(OpRates, CallsWithoutShapesOrKernelsAreLeftOut) {
  // Shapes that do not fit the op (a 3-D input to mm), an op that is not
  // modelled, and an unknown element type (no bytes, still FLOPs).
  EXPECT_TRUE(rules::detect::opRates(
                  threeOpCalls("aten::mm", {"[[2, 3, 4], [4, 5]]", "[]"}))
                  .empty());
  EXPECT_TRUE(rules::detect::opRates(
                  threeOpCalls("aten::embedding", {"[[2, 3], [2, 3]]", "[]"}))
                  .empty());
  OpRate R = onlyOpRate(
      threeOpCalls("aten::mm", {"[[2, 3], [3, 5]]", "[\"mystery\"]"}));
  EXPECT_DOUBLE_EQ(R.Flops, 60.0);
  EXPECT_DOUBLE_EQ(R.Bytes, 0.0);
  EXPECT_DOUBLE_EQ(R.flopsPerByte(), 0.0);
}

TEST(OpRates, LinearCountsOnlyWhenNoProductBelowIt) {
  // aten::linear holding aten::addmm: the addmm is counted, with all of
  // its own kernels (30 us); linear's other kernel is nobody's.
  const RecordedOpArgs Linear{"[[4, 197, 768], [3072, 768], [3072]]",
                              ThreeBf16Types};
  model::Trace T = nestedOpCalls(
      "aten::linear", Linear, "aten::addmm",
      {"[[3072], [788, 768], [768, 3072], [], []]", ThreeBf16Types});
  OpRate R = onlyOpRate(T);
  EXPECT_EQ(R.Op, "aten::addmm");
  EXPECT_EQ(R.KernelNsTotal, 30 * Us);
  // Alone, linear is modelled itself: M is every row of the input.
  R = onlyOpRate(threeOpCalls("aten::linear", Linear));
  EXPECT_EQ(R.shapeText(), "[1, 788, 3072, 768]");
  EXPECT_DOUBLE_EQ(R.Flops, 2.0 * 788 * 3072 * 768 + 788.0 * 3072);
}

TEST(OpRates, MatmulBroadcastsItsBatch) {
  // [8, 1, 64, 32] x [4, 32, 16]: batch [8, 4], 2 x 32 x 64 x 16 x 32.
  OpRate R =
      onlyOpRate(threeOpCalls("aten::matmul", {"[[8, 1, 64, 32], [4, 32, 16]]",
                                               "[\"float\", \"float\"]"}));
  EXPECT_EQ(R.shapeText(), "[32, 64, 16, 32]");
  EXPECT_DOUBLE_EQ(R.Flops, 2.0 * 32 * 64 * 16 * 32);
  EXPECT_DOUBLE_EQ(R.Bytes, 4.0 * (8 * 64 * 32 + 4 * 32 * 16 + 32 * 64 * 16));
}

const char *const ConvolutionTypes =
    "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", "
    "\"ScalarList\", \"ScalarList\", \"ScalarList\", \"Scalar\", "
    "\"ScalarList\", \"Scalar\"]";

TEST(OpRates, ConvolutionOutputFromStrideAndPadding) {
  // The ViT patch embedding (TraceLens's figures): [4, 3, 224, 224] by
  // [768, 3, 16, 16] at stride 16 gives 14 x 14 outputs; 2 N C_out 196 x 3
  // x 256 = 924,844,032 FLOPs, (input + weight + output) x 2 = 3,588,096
  // bytes (the bias left out).
  OpRate R = onlyOpRate(threeOpCalls(
      "aten::convolution",
      {"[[4, 3, 224, 224], [768, 3, 16, 16], [768], [], [], [], [], [], []]",
       ConvolutionTypes,
       "[\"\", \"\", \"\", \"[16, 16]\", \"[0, 0]\", \"[1, 1]\", \"False\", "
       "\"[0, 0]\", \"1\"]"}));
  EXPECT_EQ(R.Category, OpCategory::Conv);
  EXPECT_TRUE(R.MatrixUnits);
  EXPECT_DOUBLE_EQ(R.Flops, 924844032.0);
  EXPECT_DOUBLE_EQ(R.Bytes, 3588096.0);
  EXPECT_EQ(R.param("out_H"), 14);
  EXPECT_EQ(R.param("out_W"), 14);
  EXPECT_EQ(R.param("C_out"), 768);
  EXPECT_EQ(R.shapeText(), "[4, 3, 224, 224] * [768, 3, 16, 16] stride 16");
}

TEST(OpRates, GroupedAndTransposedConvolutions) {
  // Depthwise 3 x 3, padding 1, 32 groups: each output sums 1 x 9 taps.
  OpRate R = onlyOpRate(threeOpCalls(
      "aten::convolution",
      {"[[8, 32, 56, 56], [32, 1, 3, 3], [], [], [], [], [], [], []]",
       ConvolutionTypes,
       "[\"\", \"\", \"\", \"[1, 1]\", \"[1, 1]\", \"[1, 1]\", \"False\", "
       "\"[0, 0]\", \"32\"]"}));
  EXPECT_DOUBLE_EQ(R.Flops, 2.0 * 8 * 32 * 56 * 56 * 9);
  EXPECT_DOUBLE_EQ(R.Bytes, 2.0 * (8 * 32 * 56 * 56 * 2 + 32 * 9));
  EXPECT_EQ(R.shapeText(), "[8, 32, 56, 56] * [32, 1, 3, 3] groups 32");
  // Transposed 1-D, stride 2, kernel 4, padding 1: (16 - 1) 2 - 2 + 3 + 1
  // = 32 outputs; weight [C_in 8, C_out 4, 4].
  R = onlyOpRate(threeOpCalls(
      "aten::convolution",
      {"[[2, 8, 16], [8, 4, 4], [], [], [], [], [], [], []]", ConvolutionTypes,
       "[\"\", \"\", \"\", \"[2]\", \"[1]\", \"[1]\", \"True\", \"[0]\", "
       "\"1\"]"}));
  EXPECT_EQ(R.param("out_L"), 32);
  EXPECT_EQ(R.param("C_out"), 4);
  EXPECT_DOUBLE_EQ(R.Flops, 2.0 * 2 * 8 * 16 * 4 * 4);
  EXPECT_DOUBLE_EQ(R.Bytes, 2.0 * (2 * 8 * 16 + 8 * 4 * 4 + 2 * 4 * 32));
  // Without the stride and padding recorded there is no output size.
  EXPECT_TRUE(
      rules::detect::opRates(
          threeOpCalls("aten::convolution",
                       {"[[2, 8, 16], [8, 4, 4], [], [], [], [], [], [], []]",
                        ConvolutionTypes}))
          .empty());
}

TEST(OpRates, AnAddInsideAConvolutionIsTheConvolutionsWork) {
  model::Trace T = nestedOpCalls(
      "aten::convolution",
      {"[[4, 3, 224, 224], [768, 3, 16, 16], [768], [], [], [], [], [], []]",
       ConvolutionTypes,
       "[\"\", \"\", \"\", \"[16, 16]\", \"[0, 0]\", \"[1, 1]\", \"False\", "
       "\"[0, 0]\", \"1\"]"},
      "aten::add_",
      {"[[4, 768, 14, 14], [1, 768, 1, 1], []]",
       "[\"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\"]",
       "[\"\", \"\", \"1\"]"});
  OpRate R = onlyOpRate(T);
  EXPECT_EQ(R.Op, "aten::convolution");
  EXPECT_EQ(R.KernelNsTotal, 35 * Us);
}

const char *const FlashAttentionTypes =
    "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\", "
    "\"Scalar\", \"Scalar\", \"Scalar\"]";

TEST(OpRates, CausalAttentionCountsHalfTheScores) {
  // Qwen's attention (TraceLens's figures): B 16, 16 heads, 559 tokens,
  // head size 64, causal: 4 B H N^2 d / 2 = 10,239,377,408 FLOPs; Q, K, V
  // and the output once: 73,269,248 bytes.
  const char *Qkv = "[[16, 16, 559, 64], [16, 16, 559, 64], [16, 16, 559, "
                    "64], [], [], [], []]";
  OpRate R = onlyOpRate(threeOpCalls(
      "aten::_scaled_dot_product_flash_attention",
      {Qkv, FlashAttentionTypes,
       "[\"\", \"\", \"\", \"0.\", \"True\", \"False\", \"0.125\"]"}));
  EXPECT_EQ(R.Category, OpCategory::Attention);
  EXPECT_EQ(R.Params, (RateParams{{"B", 16},
                                  {"H_Q", 16},
                                  {"H_KV", 16},
                                  {"N_Q", 559},
                                  {"N_KV", 559},
                                  {"d_qk", 64},
                                  {"d_v", 64},
                                  {"causal", 1}}));
  EXPECT_DOUBLE_EQ(R.Flops, 10239377408.0);
  EXPECT_DOUBLE_EQ(R.Bytes, 73269248.0);
  EXPECT_EQ(R.shapeText(), "[16, 16, 559, 559, 64] causal");
  R = onlyOpRate(threeOpCalls(
      "aten::_scaled_dot_product_flash_attention",
      {Qkv, FlashAttentionTypes,
       "[\"\", \"\", \"\", \"0.\", \"False\", \"False\", \"0.125\"]"}));
  EXPECT_DOUBLE_EQ(R.Flops, 2 * 10239377408.0);
  // Whether it is causal is not recorded: no guess.
  EXPECT_TRUE(rules::detect::opRates(
                  threeOpCalls("aten::_scaled_dot_product_flash_attention",
                               {Qkv, FlashAttentionTypes}))
                  .empty());
}

TEST(OpRates, GroupedQueryAttentionReadsFewerKeys) {
  // 32 query heads over 8 key/value heads, 128 queries against 512 keys:
  // FLOPs by the query heads, bytes of K and V by their own.
  OpRate R = onlyOpRate(threeOpCalls(
      "aten::_scaled_dot_product_flash_attention",
      {"[[1, 32, 128, 128], [1, 8, 512, 128], [1, 8, 512, 128], [], [], [], "
       "[]]",
       FlashAttentionTypes,
       "[\"\", \"\", \"\", \"0.\", \"False\", \"False\", \"\"]"}));
  EXPECT_EQ(R.param("H_KV"), 8);
  EXPECT_DOUBLE_EQ(R.Flops, 2.0 * 32 * 128 * 512 * 256);
  EXPECT_DOUBLE_EQ(R.Bytes, 2.0 * (32 * 128 * 256 + 8 * 512 * 256));
  EXPECT_EQ(R.shapeText(), "[1, 32, 128, 512, 128] H_KV 8");
  // _flash_attention_forward keeps the sequence before the heads.
  R = onlyOpRate(threeOpCalls(
      "aten::_flash_attention_forward",
      {"[[1, 128, 32, 128], [1, 512, 8, 128], [1, 512, 8, 128], [], [], [], "
       "[], [], [], [], []]",
       ThreeBf16Types,
       "[\"\", \"\", \"\", \"\", \"\", \"128\", \"512\", \"0.\", \"False\", "
       "\"False\", \"\"]"}));
  EXPECT_EQ(R.param("H_KV"), 8);
  EXPECT_EQ(R.param("N_KV"), 512);
  EXPECT_DOUBLE_EQ(R.Flops, 2.0 * 32 * 128 * 512 * 256);
}

TEST(OpRates, SdpaCountsOnlyWithoutAFusedFormBelow) {
  const char *Qkv = "[[4, 12, 197, 64], [4, 12, 197, 64], [4, 12, 197, 64]";
  model::Trace T = nestedOpCalls(
      "aten::scaled_dot_product_attention",
      {(std::string(Qkv) + ", [], [], [], [], []]").c_str(), ThreeBf16Types,
       "[\"\", \"\", \"\", \"\", \"0.\", \"False\", \"\", \"False\"]"},
      "aten::_scaled_dot_product_flash_attention",
      {(std::string(Qkv) + ", [], [], [], []]").c_str(), FlashAttentionTypes,
       "[\"\", \"\", \"\", \"0.\", \"False\", \"False\", \"\"]"});
  OpRate R = onlyOpRate(T);
  EXPECT_EQ(R.Op, "aten::_scaled_dot_product_flash_attention");
  EXPECT_EQ(R.KernelNsTotal, 30 * Us);
}

TEST(OpRates, BinaryOpsBroadcastAndCountEachTensorOnce) {
  // TraceLens's figures: [4, 197, 768] + [1, 197, 768] in bf16 reads both
  // inputs at their own size and writes the broadcast result.
  OpRate R = onlyOpRate(threeOpCalls(
      "aten::add", {"[[4, 197, 768], [1, 197, 768], []]",
                    "[\"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\"]",
                    "[\"\", \"\", \"1\"]"}));
  EXPECT_EQ(R.Category, OpCategory::Elementwise);
  EXPECT_FALSE(R.MatrixUnits);
  EXPECT_DOUBLE_EQ(R.Flops, 605184.0);
  EXPECT_DOUBLE_EQ(R.Bytes, 2723328.0);
  EXPECT_EQ(R.shapeText(), "[4, 197, 768], [1, 197, 768]");
  // A Python number becomes a tensor without dimensions: 8 bytes of double,
  // and the result keeps the tensor's type.
  R = onlyOpRate(
      threeOpCalls("aten::mul", {"[[8, 12, 3137, 3137], []]",
                                 "[\"c10::BFloat16\", \"double\"]"}));
  EXPECT_DOUBLE_EQ(R.Flops, 944713824.0);
  EXPECT_DOUBLE_EQ(R.Bytes, 944713824.0 * 4 + 8);
  EXPECT_EQ(R.shapeText(), "[8, 12, 3137, 3137], []");
  // In place, the result is written in the first tensor's type.
  R = onlyOpRate(threeOpCalls("aten::add_",
                              {"[[1, 5184, 4], [5184, 4], []]",
                               "[\"c10::BFloat16\", \"float\", \"Scalar\"]"}));
  EXPECT_DOUBLE_EQ(R.Bytes, 20736.0 * (2 + 4 + 2));
  // A comparison writes bools.
  R = onlyOpRate(
      threeOpCalls("aten::gt", {"[[5184], []]", "[\"float\", \"Scalar\"]",
                                "[\"\", \"0.1\"]"}));
  EXPECT_DOUBLE_EQ(R.Bytes, 5184.0 * (4 + 1));
}

TEST(OpRates, UnaryOpsCopiesAndResizes) {
  OpRate R = onlyOpRate(threeOpCalls(
      "aten::silu", {"[[16, 559, 2816]]", "[\"c10::BFloat16\"]", "[\"\"]"}));
  EXPECT_DOUBLE_EQ(R.Flops, 25186304.0);
  EXPECT_DOUBLE_EQ(R.Bytes, 25186304.0 * 4);
  // copy_(self, src) into fp32 from bf16: read 2 bytes, write 4.
  R = onlyOpRate(
      threeOpCalls("aten::copy_", {"[[16, 559, 1024], [16, 559, 1024], []]",
                                   "[\"float\", \"c10::BFloat16\", \"Scalar\"]",
                                   "[\"\", \"\", \"False\"]"}));
  EXPECT_DOUBLE_EQ(R.Bytes, 9158656.0 * 6);
  EXPECT_EQ(R.Dtype, "float");
  // upsample_nearest1d to 128 from 8: one FLOP per output element.
  R = onlyOpRate(threeOpCalls("aten::upsample_nearest1d",
                              {"[[1, 768, 8], [], []]",
                               "[\"c10::BFloat16\", \"ScalarList\", \"\"]",
                               "[\"\", \"[128]\", \"\"]"}));
  EXPECT_DOUBLE_EQ(R.Flops, 98304.0);
  EXPECT_DOUBLE_EQ(R.Bytes, (6144.0 + 98304) * 2);
}

TEST(OpRates, ToCopyCountsOnlyWithoutACopyBelow) {
  // aten::_to_copy holding aten::copy_: the copy is what ran.
  const char *ToTypes =
      "[\"float\", \"Scalar\", \"\", \"\", \"\", \"Scalar\", \"\"]";
  model::Trace T = nestedOpCalls(
      "aten::_to_copy",
      {"[[5, 5], [], [], [], [], [], []]", ToTypes,
       "[\"\", \"15\", \"\", \"\", \"\", \"False\", \"\"]"},
      "aten::copy_",
      {"[[5, 5], [5, 5], []]", "[\"c10::BFloat16\", \"float\", \"Scalar\"]",
       "[\"\", \"\", \"False\"]"});
  OpRate R = onlyOpRate(T);
  EXPECT_EQ(R.Op, "aten::copy_");
  // Alone, _to_copy reads fp32 and writes the bf16 its dtype (15) names.
  R = onlyOpRate(threeOpCalls(
      "aten::_to_copy", {"[[5, 5], [], [], [], [], [], []]", ToTypes,
                         "[\"\", \"15\", \"\", \"\", \"\", \"False\", \"\"]"}));
  EXPECT_DOUBLE_EQ(R.Bytes, 25.0 * (4 + 2));
}

TEST(OpRates, LayerNormFollowsTraceLensFitAndCountsOnce) {
  // [4, 197, 768] normalized over 768 (TraceLens's figures): 5 per element
  // plus 6 per channel = 3,030,528 FLOPs; (2 x 605,184 + 6 x 768) x 2 =
  // 2,429,952 bytes.
  const RecordedOpArgs LayerNorm{
      "[[4, 197, 768], [], [768], [768], [], []]",
      "[\"c10::BFloat16\", \"ScalarList\", \"c10::BFloat16\", "
      "\"c10::BFloat16\", \"Scalar\", \"Scalar\"]",
      "[\"\", \"[768]\", \"\", \"\", \"1e-12\", \"True\"]"};
  model::Trace T =
      nestedOpCalls("aten::layer_norm", LayerNorm, "aten::native_layer_norm",
                    {"[[4, 197, 768], [], [768], [768], []]",
                     "[\"c10::BFloat16\", \"ScalarList\", \"c10::BFloat16\", "
                     "\"c10::BFloat16\", \"Scalar\"]",
                     "[\"\", \"[768]\", \"\", \"\", \"1e-12\"]"});
  OpRate R = onlyOpRate(T);
  EXPECT_EQ(R.Op, "aten::layer_norm");
  EXPECT_EQ(R.Category, OpCategory::Normalization);
  EXPECT_EQ(R.KernelNsTotal, 35 * Us);
  EXPECT_DOUBLE_EQ(R.Flops, 3030528.0);
  EXPECT_DOUBLE_EQ(R.Bytes, 2429952.0);
  EXPECT_EQ(R.Params, (RateParams{{"elements", 605184}, {"channels", 768}}));
  // Group norm: C is the channel axis, the groups from the arguments.
  R = onlyOpRate(threeOpCalls(
      "aten::group_norm",
      {"[[2, 64, 32, 32], [], [64], [64], [], []]",
       "[\"float\", \"Scalar\", \"float\", \"float\", \"Scalar\", \"Scalar\"]",
       "[\"\", \"32\", \"\", \"\", \"1e-05\", \"True\"]"}));
  EXPECT_EQ(R.param("groups"), 32);
  EXPECT_DOUBLE_EQ(R.Flops, 5.0 * 131072 + 6 * 64);
}

TEST(OpRates, ReductionsCountTheElementsTheyLeave) {
  // mean over the last axis of [16, 559, 1024] in fp32: one FLOP per input
  // element; the output is 16 x 559 values (TraceLens counts one).
  OpRate R = onlyOpRate(threeOpCalls(
      "aten::mean", {"[[16, 559, 1024], [], [], []]",
                     "[\"float\", \"ScalarList\", \"Scalar\", \"\"]",
                     "[\"\", \"[-1]\", \"True\", \"\"]"}));
  EXPECT_EQ(R.Category, OpCategory::Reduction);
  EXPECT_DOUBLE_EQ(R.Flops, 9158656.0);
  EXPECT_DOUBLE_EQ(R.Bytes, (9158656.0 + 8944) * 4);
  EXPECT_EQ(R.param("out_elements"), 8944);
  // Over every axis when none is named; unknown without recorded values.
  R = onlyOpRate(
      threeOpCalls("aten::sum", {"[[6, 7], []]", "[\"float\", \"Scalar\"]",
                                 "[\"\", \"\"]"}));
  EXPECT_EQ(R.param("out_elements"), 1);
  EXPECT_TRUE(rules::detect::opRates(
                  threeOpCalls("aten::mean", {"[[16, 559, 1024], [], [], []]",
                                              "[\"float\", \"ScalarList\", "
                                              "\"Scalar\", \"\"]"}))
                  .empty());
  // max(self, other) is elementwise.
  R = onlyOpRate(threeOpCalls(
      "aten::max", {"[[4, 4], [4, 4]]", "[\"int\", \"int\"]", "[\"\", \"\"]"}));
  EXPECT_EQ(R.Category, OpCategory::Elementwise);
  EXPECT_DOUBLE_EQ(R.Bytes, 16.0 * 12);
  // Softmax: 5 FLOPs per element, read and written once.
  R = onlyOpRate(
      threeOpCalls("aten::softmax", {"[[16, 5185, 5185], [], []]",
                                     "[\"c10::BFloat16\", \"Scalar\", \"\"]",
                                     "[\"\", \"-1\", \"\"]"}));
  EXPECT_DOUBLE_EQ(R.Flops, 5.0 * 16 * 5185 * 5185);
  EXPECT_DOUBLE_EQ(R.Bytes, 4.0 * 16 * 5185 * 5185);
}

TEST(OpRates, ResultTypesFollowPromotion) {
  using rules::detect::OpArgs;
  auto Result = [](const char *Dims, const char *Types) {
    OpArgs A(*rules::detect::parseInputDims(Dims),
             rules::detect::parseInputTypes(Types), {});
    return rules::detect::resultType(A, {0, 1});
  };
  EXPECT_EQ(Result("[[2], [2]]", "[\"c10::BFloat16\", \"float\"]"), "float");
  EXPECT_EQ(Result("[[2], [2]]", "[\"c10::BFloat16\", \"c10::Half\"]"),
            "float");
  EXPECT_EQ(Result("[[2], []]", "[\"c10::BFloat16\", \"double\"]"),
            "c10::BFloat16");
  EXPECT_EQ(Result("[[2], []]", "[\"long int\", \"double\"]"), "float");
  EXPECT_EQ(Result("[[2], [2]]", "[\"c10::BFloat16\", \"int\"]"),
            "c10::BFloat16");
  EXPECT_EQ(Result("[[], []]", "[\"float\", \"double\"]"), "double");
  EXPECT_FALSE(rules::detect::broadcastShapes({3, 4}, {2, 4}));
  EXPECT_EQ(*rules::detect::broadcastShapes({5, 1, 4}, {3, 1}),
            (rules::detect::Shape{5, 3, 4}));
}

} // namespace
