//===- rules/UnrecordedDependencyStallTest.cpp - S004 --------------------===//
//
// Case 1 and 3 of issue 17, scaled: device work that waits with the device
// idle and nothing recorded in front of it.
//
//===----------------------------------------------------------------------===//
#include "../DetectorTestSupport.h"

#include "analysis/PathAnalysis.h"

#include "gtest/gtest.h"

using namespace tracelint;
using namespace tracelint::testing;
using analysis::TraceIndex;

namespace {

/// Four 100 ms steps. In each, kernel "decode" is launched at [10, 15) us
/// and a blocking cudaMemcpy [20 us, 61.5 ms) waits for the copy after it
/// [61, 61.4) ms. With \p Stall the kernel starts at 60 ms on an idle
/// device (a 59.985 ms delay: 50 us of launch latency, 59.935 ms
/// unrecorded); without, it starts at 30 us and the copy follows it.
model::Trace steps(bool Stall) {
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  model::EventArgs A;
  A.Copy = model::CopyKind::DtoH;
  for (int K = 0; K < 4; ++K) {
    int64_t T0 = K * 100 * Ms;
    M.step(K + 1, T0, T0 + 100 * Ms);
    int64_t KStart = T0 + (Stall ? 60 * Ms : 30 * Us);
    M.launch(S, "decode", T0 + 10 * Us, T0 + 15 * Us, KStart, KStart + Ms);
    int64_t CopyAt = KStart + Ms;
    M.launch(S, "Memcpy DtoH (Device -> Pageable)", T0 + 20 * Us,
             CopyAt + 500 * Us, CopyAt, CopyAt + 400 * Us, "cudaMemcpy",
             model::EventKind::Memcpy, &A);
  }
  return M.finish();
}

TEST(UnrecordedDependencyStall, FiresOnAStallOnAnIdleDevice) {
  model::Trace T = steps(/*Stall=*/true);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("S004", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  const rules::Detection &D = Out[0];
  EXPECT_EQ(D.ImpactNs, 60 * Ms - 15 * Us - 50 * Us);
  EXPECT_EQ(D.Subject, "decode");
  EXPECT_NE(D.Values.at("waits").text().find("cudaMemcpy"), std::string::npos);
  EXPECT_NE(D.Values.at("device_state").text().find("ran nothing recorded"),
            std::string::npos);
  // The rule's figure and the critical path's unrecorded-dependency time
  // are the same fact.
  analysis::PathModel P(Ctx);
  EXPECT_EQ(P.medianCategories()[unsigned(
                analysis::PathCategory::UnrecordedDependency)],
            D.ImpactNs);
}

TEST(UnrecordedDependencyStall, QuietWhenWorkStartsOnTime) {
  model::Trace T = steps(/*Stall=*/false);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("S004", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
}

TEST(UnrecordedDependencyStall, QuietWhenTheDeviceIsBusyInFront) {
  // The same delay with another stream busy through it is queued work, not
  // an unrecorded dependency.
  TraceMaker M;
  uint32_t S = M.stream(0, 7), Other = M.stream(0, 8);
  for (int K = 0; K < 4; ++K) {
    int64_t T0 = K * 100 * Ms;
    M.step(K + 1, T0, T0 + 100 * Ms);
    M.launch(Other, "gemm", T0 + 1 * Us, T0 + 2 * Us, T0 + 3 * Us,
             T0 + 60 * Ms);
    M.launch(S, "decode", T0 + 10 * Us, T0 + 15 * Us, T0 + 60 * Ms,
             T0 + 61 * Ms);
  }
  model::Trace T = M.finish();
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("S004", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
}

} // namespace
