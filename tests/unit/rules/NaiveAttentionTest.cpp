//===- rules/NaiveAttentionTest.cpp - K002 unfused attention --------------===//
#include "../DetectorTestSupport.h"

#include "gtest/gtest.h"

using namespace tracelint;
using namespace tracelint::testing;
using analysis::TraceIndex;

namespace {

/// 4 steps of 2 ms. In each (t0 = step start, us), inside a 200 us
/// "attention" annotation: \p First [10, 30) launches a 100 us kernel,
/// aten::div [35, 40) a 50 us kernel, \p Middle [45, 60) a 200 us softmax
/// kernel, \p Last [65, 85) a 100 us kernel; then aten::linear [300, 320)
/// launches a 550 us gemm. Attention: 450 of 1000 us busy per step.
model::Trace attentionTrace(const char *First = "aten::matmul",
                            const char *Middle = "aten::softmax",
                            const char *Last = "aten::matmul") {
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  for (int K = 0; K < 4; ++K) {
    int64_t T0 = K * 2 * Ms;
    M.step(K + 1, T0, T0 + 2 * Ms);
    M.add(M.Host, model::EventKind::Annotation, "attention", T0 + 5 * Us,
          T0 + 200 * Us);
    int64_t D = T0 + 100 * Us; // device cursor
    auto Op = [&](const char *Name, int64_t B, int64_t E, const char *Kernel,
                  int64_t KUs) {
      M.op(Name, T0 + B * Us, T0 + E * Us);
      M.launch(S, Kernel, T0 + (B + 1) * Us, T0 + (B + 3) * Us, D,
               D + KUs * Us);
      D += KUs * Us;
    };
    Op(First, 10, 30, "gemm_qk", 100);
    Op("aten::div", 35, 40, "div_kernel", 50);
    Op(Middle, 45, 60, "softmax_warp_forward", 200);
    Op(Last, 65, 85, "gemm_pv", 100);
    Op("aten::linear", 300, 320, "gemm_out", 550);
  }
  return M.finish();
}

TEST(NaiveAttentionDetector, FiresOnProductSoftmaxProduct) {
  model::Trace T = attentionTrace();
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("K002", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  const rules::Detection &D = Out.front();
  // Steps 2-4: 450 of 1000 us busy per step.
  EXPECT_EQ(D.Values.at("value"), "45.0 %");
  EXPECT_EQ(D.Values.at("count"), "3");
  EXPECT_EQ(D.Values.at("kernels"), "12");
  EXPECT_EQ(D.Values.at("softmax_time"), "600 us");
  EXPECT_EQ(D.ImpactNs, 450 * Us);
  EXPECT_EQ(D.Subject, "matmul-softmax-matmul");
  // No shapes recorded: less certain, and said so.
  EXPECT_DOUBLE_EQ(D.Confidence, 0.5);
  EXPECT_FALSE(D.ConfidenceNotes.empty());
}

TEST(NaiveAttentionDetector, QuietWithoutASecondProduct) {
  // A classifier head: a product, then a softmax, then no product.
  model::Trace T = attentionTrace("aten::matmul", "aten::softmax", "aten::add");
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("K002", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
}

TEST(NaiveAttentionDetector, QuietOnFusedAttention) {
  model::Trace T = attentionTrace("aten::matmul",
                                  "aten::_scaled_dot_product_flash_attention",
                                  "aten::matmul");
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("K002", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
}

TEST(NaiveAttentionDetector, QuietUnderTheBusyShare) {
  model::Trace T = attentionTrace();
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("K002", Ctx, Out, {{"min-share-of-busy", 0.5}}), "");
  EXPECT_TRUE(Out.empty());
}

TEST(NaiveAttentionDetector, CannotJudgeWithoutOps) {
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  M.step(1, 0, 2 * Ms);
  M.launch(S, "softmax_warp_forward", 10 * Us, 15 * Us, 15 * Us, 300 * Us);
  model::Trace T = M.finish();
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  std::string Why = run("K002", Ctx, Out);
  EXPECT_TRUE(llvm::StringRef(Why).startswith(
      "cannot judge: the trace records no framework ops"))
      << Why;
}

} // namespace
