//===- rules/HtodOnComputeStreamTest.cpp - M003 exposed HtoD copies -------===//
#include "../DetectorTestSupport.h"

#include "gtest/gtest.h"

using namespace tracelint;
using namespace tracelint::testing;
using analysis::TraceIndex;
using model::EventKind;

namespace {

/// 4 steps of 10 ms: a 1 ms HtoD copy on \p CopyStream at [CopyAt, CopyAt
/// + 1) ms, and a kernel [1.5, 8.0) ms on stream 7.
model::Trace copyTrace(int64_t CopyStream, int64_t CopyAt) {
  TraceMaker M;
  uint32_t Compute = M.stream(0, 7);
  uint32_t Copy = CopyStream == 7 ? Compute : M.stream(0, CopyStream);
  model::EventArgs A;
  A.Copy = model::CopyKind::HtoD;
  A.Src = model::MemoryKind::Pinned;
  A.Dst = model::MemoryKind::Device;
  A.Bytes = 1'000'000;
  for (int K = 0; K < 4; ++K) {
    int64_t T0 = K * 10 * Ms;
    M.step(K + 1, T0, T0 + 10 * Ms);
    M.launch(Compute, "conv", T0 + 100 * Us, T0 + 110 * Us, T0 + 1500 * Us,
             T0 + 8 * Ms);
    M.launch(Copy, "Memcpy HtoD (Pinned -> Device)", T0 + 200 * Us,
             T0 + 210 * Us, T0 + CopyAt, T0 + CopyAt + 1 * Ms,
             "cudaMemcpyAsync", EventKind::Memcpy, &A);
  }
  return M.finish();
}

TEST(ExposedCopiesDetector, ACopyBeforeTheKernelIsExposed) {
  model::Trace T = copyTrace(7, 300 * Us);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("M003", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_EQ(Out.front().ImpactNs, 1 * Ms);
  EXPECT_EQ(Out.front().Values.at("on_compute"), "3");
  EXPECT_EQ(Out.front().Subject, "cudaMemcpyAsync");
}

TEST(ExposedCopiesDetector, OnlyTheUnoverlappedPartCounts) {
  // A side-stream copy [1.0, 2.0) ms: half of it under the kernel.
  model::Trace T = copyTrace(9, 1 * Ms);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("M003", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_EQ(Out.front().ImpactNs, 500 * Us);
  EXPECT_EQ(Out.front().Values.at("on_compute"), "0");
  EXPECT_EQ(Out.front().Confidence, 0.5);
}

TEST(ExposedCopiesDetector, ExposedTimeUnderTheFloorIsInfoNotSilent) {
  // 1 ms exposed per 10 ms step is 10 %; with a 20 % floor the copies are
  // still reported, at info, with their impact.
  model::Trace T = copyTrace(7, 300 * Us);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("M003", Ctx, Out, {{"min-share-of-step", 0.2}}), "");
  ASSERT_EQ(Out.size(), 1u);
  const rules::Detection &D = Out.front();
  EXPECT_EQ(D.SeverityOverride, rules::Severity::Info);
  EXPECT_EQ(D.ImpactNs, 1 * Ms);
  ASSERT_FALSE(D.ExtraEvidence.empty());
  EXPECT_EQ(D.ExtraEvidence.back(),
            "10.0 % is under the rule's min-share-of-step (20.0 % of the "
            "target), so the finding is info: small, but on record");
}

TEST(ExposedCopiesDetector, AnOverlappedCopyIsQuiet) {
  model::Trace T = copyTrace(9, 2 * Ms);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("M003", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
}

} // namespace
