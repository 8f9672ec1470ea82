//===- rules/DimsNotMultipleOf8Test.cpp - K003 dims not multiple of 8 -----===//
#include "../DetectorTestSupport.h"

#include "gtest/gtest.h"

using namespace tracelint;
using namespace tracelint::testing;
using analysis::TraceIndex;

namespace {

/// 4 steps of 2 ms. In each: aten::mm [0, 20) us with input dims \p Dims
/// and types \p Types launches a 400 us kernel; aten::relu launches a
/// 600 us kernel. The product is 40 % of busy time.
model::Trace productTrace(const char *Dims, const char *Types) {
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  for (int K = 0; K < 4; ++K) {
    int64_t T0 = K * 2 * Ms;
    M.step(K + 1, T0, T0 + 2 * Ms);
    model::EventArgs A;
    if (Dims) {
      A.InputDims = M.B.strings().intern(Dims);
      A.InputTypes = M.B.strings().intern(Types);
    }
    M.add(M.Host, model::EventKind::Op, "aten::mm", T0, T0 + 20 * Us, 0,
          Dims ? &A : nullptr);
    M.launch(S, "gemm", T0 + 5 * Us, T0 + 10 * Us, T0 + 10 * Us, T0 + 410 * Us);
    M.op("aten::relu", T0 + 30 * Us, T0 + 40 * Us);
    M.launch(S, "relu", T0 + 32 * Us, T0 + 36 * Us, T0 + 410 * Us,
             T0 + 1010 * Us);
  }
  return M.finish();
}

TEST(MisalignedMatmulDetector, FiresOnAnOddVocabulary) {
  model::Trace T = productTrace("[[512, 768], [768, 50257]]",
                                "[\"c10::BFloat16\", \"c10::BFloat16\"]");
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("K003", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  const rules::Detection &D = Out.front();
  EXPECT_EQ(D.Values.at("value"), "40.0 %");
  EXPECT_EQ(D.Values.at("top_dims"), "N=50257");
  EXPECT_EQ(D.ImpactNs, 400 * Us);
  EXPECT_EQ(D.Subject, "aten::mm N=50257");
}

TEST(MisalignedMatmulDetector, QuietWhenAligned) {
  model::Trace T = productTrace("[[513, 768], [768, 50264]]",
                                "[\"c10::Half\", \"c10::Half\"]");
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("K003", Ctx, Out), "");
  EXPECT_TRUE(Out.empty()); // M = 513 does not matter
}

TEST(MisalignedMatmulDetector, QuietInFP32) {
  model::Trace T =
      productTrace("[[512, 1000], [1000, 50257]]", "[\"float\", \"float\"]");
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("K003", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
}

TEST(MisalignedMatmulDetector, CannotJudgeWithoutShapes) {
  model::Trace T = productTrace(nullptr, nullptr);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  std::string Why = run("K003", Ctx, Out);
  // The rule needs shapes: the engine says so before the detector runs.
  EXPECT_TRUE(llvm::StringRef(Why).startswith(
      "cannot judge: the trace has no operator input shapes"))
      << Why;
}

} // namespace
