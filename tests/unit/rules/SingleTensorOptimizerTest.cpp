//===- rules/SingleTensorOptimizerTest.cpp - L003 single-tensor optimizer -===//
#include "../DetectorTestSupport.h"

#include "gtest/gtest.h"

using namespace tracelint;
using namespace tracelint::testing;
using analysis::TraceIndex;
using model::EventKind;

namespace {

enum class OptimizerVariant { Single, Hidden, Foreach, NoRange, Inference };

/// 4 steps of 10 ms (times from the step start). A backward kernel runs
/// [0.11, 5.0) (Hidden: [0.11, 9.0)). Optimizer.step#Adam.step starts at 5.0:
/// Single/Hidden loop over 30 parameters with aten::mul_, aten::add_ per
/// parameter (60 ops 50 us apart, each launching a 2 us elementwise kernel),
/// the range ending at 8.0; Foreach launches two multi-tensor kernels.
/// NoRange has the backward op but no optimizer range; Inference neither.
model::Trace optimizerTrace(OptimizerVariant V) {
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  for (int K = 0; K < 4; ++K) {
    int64_t T0 = K * 10 * Ms;
    M.step(K + 1, T0, T0 + 10 * Ms);
    M.launch(S, "wgrad_alg0_engine", T0 + 100 * Us, T0 + 110 * Us,
             T0 + 110 * Us,
             T0 + (V == OptimizerVariant::Hidden ? 9000 : 5000) * Us);
    if (V != OptimizerVariant::Inference)
      M.op("autograd::engine::evaluate_function: MulBackward0", T0 + 90 * Us,
           T0 + 120 * Us);
    if (V != OptimizerVariant::NoRange && V != OptimizerVariant::Inference)
      M.add(M.Host, EventKind::Annotation, "Optimizer.step#Adam.step",
            T0 + 5 * Ms,
            T0 + (V == OptimizerVariant::Foreach ? 5100 : 8000) * Us);
    if (V == OptimizerVariant::Foreach) {
      for (int I = 0; I < 2; ++I) {
        int64_t B = T0 + 5 * Ms + I * 40 * Us;
        M.op(I ? "aten::_foreach_add_" : "aten::_foreach_mul_", B, B + 30 * Us);
        M.launch(S, "multi_tensor_apply_kernel", B + 10 * Us, B + 15 * Us,
                 B + 15 * Us, B + 55 * Us);
      }
      continue;
    }
    int64_t Free = V == OptimizerVariant::Hidden ? T0 + 9 * Ms : 0;
    for (int I = 0; I < 60; ++I) {
      int64_t B = T0 + 5 * Ms + I * 50 * Us;
      M.op(I % 2 ? "aten::add_" : "aten::mul_", B, B + 30 * Us);
      int64_t KStart = std::max(B + 15 * Us, Free);
      M.launch(S, "vectorized_elementwise_kernel<4, AddFunctor>", B + 10 * Us,
               B + 15 * Us, KStart, KStart + 2 * Us);
      Free = KStart + 2 * Us;
    }
  }
  return M.finish();
}

TEST(OptimizerStormDetector, APerParameterLoopFires) {
  model::Trace T = optimizerTrace(OptimizerVariant::Single);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("L003", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  // Nothing else runs in the optimizer's span [5.0, 8.0).
  EXPECT_EQ(Out.front().ImpactNs, 3 * Ms);
  EXPECT_EQ(Out.front().Values.at("per_tensor"), "60");
  EXPECT_EQ(Out.front().Values.at("multi"), "0");
  EXPECT_EQ(Out.front().Values.at("optimizer"), "Adam");
  EXPECT_EQ(Out.front().Subject, "Optimizer.step#Adam.step");
}

TEST(OptimizerStormDetector, TimeUnderOtherDeviceWorkIsNotCounted) {
  // The 60 kernels queue behind the backward kernel and run [9.0, 9.12):
  // only those 120 us are left of the span [5.0, 9.12).
  model::Trace T = optimizerTrace(OptimizerVariant::Hidden);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("L003", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
  EXPECT_EQ(run("L003", Ctx, Out, {{"min-share-of-step", 0.0}}), "");
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_EQ(Out.front().ImpactNs, 120 * Us);
}

TEST(OptimizerStormDetector, ForeachKernelsAreQuiet) {
  model::Trace T = optimizerTrace(OptimizerVariant::Foreach);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("L003", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
}

TEST(OptimizerStormDetector, TooFewKernelsAreQuiet) {
  model::Trace T = optimizerTrace(OptimizerVariant::Single);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("L003", Ctx, Out, {{"min-kernels", 61}}), "");
  EXPECT_TRUE(Out.empty());
}

TEST(OptimizerStormDetector, CannotJudgeWithoutOptimizerRanges) {
  model::Trace T = optimizerTrace(OptimizerVariant::NoRange);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_NE(run("L003", Ctx, Out)
                .find("cannot judge: the trace has no optimizer step ranges"),
            std::string::npos);
  EXPECT_TRUE(Out.empty());
}

TEST(OptimizerStormDetector, InferenceIsNotApplicable) {
  // No backward pass and no optimizer: nothing is missing from the trace,
  // the rule's subject does not occur.
  model::Trace T = optimizerTrace(OptimizerVariant::Inference);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_NE(run("L003", Ctx, Out)
                .find("not applicable: the trace has neither "
                      "a backward pass nor an optimizer"),
            std::string::npos);
  EXPECT_TRUE(Out.empty());
}

} // namespace
