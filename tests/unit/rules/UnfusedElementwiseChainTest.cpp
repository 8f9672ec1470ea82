//===- rules/UnfusedElementwiseChainTest.cpp - L005 unfused elementwise ---===//
#include "../DetectorTestSupport.h"

#include "gtest/gtest.h"

using namespace tracelint;
using namespace tracelint::testing;
using analysis::TraceIndex;

namespace {

const char *Gelu = "void at::native::vectorized_elementwise_kernel<4, "
                   "at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&)>"
                   "(int, float*)";
const char *Mul = "void at::native::vectorized_elementwise_kernel<4, "
                  "at::native::binary_internal::MulFunctor<float>>(int)";
const char *Copy = "void at::native::vectorized_elementwise_kernel<4, "
                   "at::native::direct_copy_kernel_cuda>(int)";

struct Layout {
  const char *Second = Mul; ///< the second op's kernel
  const char *SecondOp = "aten::mul";
  const char *SecondDims = "[[8, 1024], [8, 1024]]";
  bool GemmBetween = false; ///< a product runs between the two kernels
  bool Ops = true;
  const char *Parent = nullptr; ///< an annotation around both ops
};

/// 4 steps of 2 ms. In each (t0 = step start, us): aten::gelu [10, 20)
/// launches a 100 us kernel at 100, the second op [25, 35) a 60 us kernel
/// right after it, and aten::linear [40, 60) a 400 us gemm after that (or
/// between the two when GemmBetween). Busy: 560 us per step.
model::Trace chainTrace(const Layout &L = {}) {
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  for (int K = 0; K < 4; ++K) {
    int64_t T0 = K * 2 * Ms;
    M.step(K + 1, T0, T0 + 2 * Ms);
    if (L.Parent)
      M.add(M.Host, model::EventKind::Annotation, L.Parent, T0 + 5 * Us,
            T0 + 70 * Us);
    int64_t D = T0 + 100 * Us;
    auto Op = [&](const char *Name, const char *Dims, int64_t B, int64_t E,
                  const char *Kernel, int64_t KUs) {
      if (L.Ops) {
        model::EventArgs A;
        A.InputDims = M.B.strings().intern(Dims);
        M.add(M.Host, model::EventKind::Op, Name, T0 + B * Us, T0 + E * Us, 0,
              &A);
      }
      M.launch(S, Kernel, T0 + (B + 1) * Us, T0 + (B + 3) * Us, D,
               D + KUs * Us);
      D += KUs * Us;
    };
    Op("aten::gelu", "[[8, 1024]]", 10, 20, Gelu, 100);
    if (L.GemmBetween)
      Op("aten::linear", "[[8, 1024], [1024, 1024]]", 40, 60, "gemm_out", 400);
    Op(L.SecondOp, L.SecondDims, 25, 35, L.Second, 60);
    if (!L.GemmBetween)
      Op("aten::linear", "[[8, 1024], [1024, 1024]]", 40, 60, "gemm_out", 400);
  }
  return M.finish();
}

std::vector<rules::Detection> detect(const model::Trace &T,
                                     std::string *Why = nullptr) {
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  std::string R = run("L005", Ctx, Out);
  if (Why)
    *Why = R;
  else
    EXPECT_EQ(R, "");
  return Out;
}

TEST(ElementwiseChainDetector, FiresOnGeluThenMultiply) {
  std::vector<rules::Detection> Out = detect(chainTrace());
  ASSERT_EQ(Out.size(), 1u);
  const rules::Detection &D = Out.front();
  // Steps 2-4: one chain each, 160 us of kernels of which the 100 us gelu
  // pass stays: 60 us saved per step, 180 of 1680 us busy.
  EXPECT_EQ(D.Values.at("count"), "3");
  EXPECT_EQ(D.Values.at("kernels"), "6");
  EXPECT_EQ(D.Values.at("chain_time"), "480 us");
  EXPECT_EQ(D.Values.at("saving"), "180 us");
  EXPECT_EQ(D.Values.at("value"), "10.7 %");
  EXPECT_EQ(D.Values.at("top_sequence"), "aten::gelu -> aten::mul");
  EXPECT_EQ(D.Values.at("longest_pass"), "100 us");
  EXPECT_EQ(D.ImpactNs, 60 * Us);
  EXPECT_EQ(D.Subject, "aten::gelu -> aten::mul");
  // The what-if names exactly the chain's two kernels.
  ASSERT_EQ(D.PathQuery.Names.size(), 2u);
  EXPECT_DOUBLE_EQ(D.Confidence, 0.5);
}

TEST(ElementwiseChainDetector, QuietWhenSizesDiffer) {
  // The multiply works on a tensor of another size: not the gelu's output.
  Layout L;
  L.SecondDims = "[[8, 4096], [8, 4096]]";
  EXPECT_TRUE(detect(chainTrace(L)).empty());
}

TEST(ElementwiseChainDetector, QuietWhenOtherWorkSeparatesThem) {
  Layout L;
  L.GemmBetween = true;
  EXPECT_TRUE(detect(chainTrace(L)).empty());
}

TEST(ElementwiseChainDetector, CopiesAreNotLinks) {
  Layout L;
  L.Second = Copy;
  L.SecondOp = "aten::copy_";
  EXPECT_TRUE(detect(chainTrace(L)).empty());
}

TEST(ElementwiseChainDetector, OptimizerStepsAreLeftToTheOptimizerRules) {
  Layout L;
  L.Parent = "Optimizer.step#SGD.step";
  EXPECT_TRUE(detect(chainTrace(L)).empty());
}

TEST(ElementwiseChainDetector, UnknownShapesLowerConfidence) {
  Layout L;
  L.SecondDims = "";
  std::vector<rules::Detection> Out = detect(chainTrace(L));
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_DOUBLE_EQ(Out.front().Confidence, 0.4);
  EXPECT_FALSE(Out.front().ConfidenceNotes.empty());
}

TEST(ElementwiseChainDetector, CannotJudgeWithoutOps) {
  Layout L;
  L.Ops = false;
  std::string Why;
  EXPECT_TRUE(detect(chainTrace(L), &Why).empty());
  EXPECT_NE(Why.find("cannot judge"), std::string::npos);
  EXPECT_NE(Why.find("ProfilerActivity.CPU"), std::string::npos);
}

TEST(ElementwiseChainDetector, RespectsTheShareFloor) {
  model::Trace T = chainTrace();
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("L005", Ctx, Out, {{"min-share-of-busy", 0.2}}), "");
  EXPECT_TRUE(Out.empty());
}

} // namespace
