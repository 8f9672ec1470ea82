//===- rules/PageableHostCopiesTest.cpp - M002 pageable host copies -------===//
#include "../DetectorTestSupport.h"

#include "gtest/gtest.h"

using namespace tracelint;
using namespace tracelint::testing;
using analysis::TraceIndex;
using model::EventKind;
using model::MemoryKind;

namespace {

/// 4 steps of 10 ms (t0 = step start): a 4 MB HtoD copy from \p Host memory
/// whose cudaMemcpyAsync call lasts [0.2, CallEnd) ms and whose copy runs
/// [0.4, 1.6) ms, then a kernel [KernelStart, 9.0) ms.
model::Trace batchTrace(MemoryKind Host, int64_t CallEnd = 1600 * Us,
                        int64_t KernelStart = 1710 * Us,
                        model::CopyKind Kind = model::CopyKind::HtoD) {
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  model::EventArgs A;
  A.Copy = Kind;
  A.Src = Kind == model::CopyKind::HtoD ? Host : MemoryKind::Device;
  A.Dst = Kind == model::CopyKind::HtoD ? MemoryKind::Device : Host;
  A.Bytes = 4'000'000;
  for (int K = 0; K < 4; ++K) {
    int64_t T0 = K * 10 * Ms;
    M.step(K + 1, T0, T0 + 10 * Ms);
    M.op("aten::copy_", T0 + 100 * Us, T0 + CallEnd + 10 * Us);
    M.launch(S, "Memcpy", T0 + 200 * Us, T0 + CallEnd, T0 + 400 * Us,
             T0 + 1600 * Us, "cudaMemcpyAsync", EventKind::Memcpy, &A);
    M.launch(S, "conv", T0 + KernelStart - 10 * Us, T0 + KernelStart,
             T0 + KernelStart, T0 + 9 * Ms);
  }
  return M.finish();
}

TEST(PageableCopiesDetector, FiresOnABlockingPageableCopy) {
  model::Trace T = batchTrace(MemoryKind::Pageable);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("M002", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  const rules::Detection &D = Out.front();
  // Blocked 1.4 ms per step; idle [0.2, 0.4) and [1.6, 1.71) ms before the
  // next work after the call: min(1.4, 0.31) = 0.31 ms.
  EXPECT_EQ(D.Values.at("value"), "1.4 ms");
  EXPECT_EQ(D.ImpactNs, 310 * Us);
  EXPECT_EQ(D.Values.at("count"), "1");
  EXPECT_EQ(D.Values.at("bytes"), "4 MB");
  EXPECT_EQ(D.Values.at("htod"), "3");
  EXPECT_EQ(D.Subject, "aten::copy_ > cudaMemcpyAsync");
  EXPECT_FALSE(D.SeverityOverride.has_value());
}

TEST(PageableCopiesDetector, ADtoHIntoPageableMemoryCounts) {
  model::Trace T = batchTrace(MemoryKind::Pageable, 1600 * Us, 1710 * Us,
                              model::CopyKind::DtoH);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("M002", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_EQ(Out.front().Values.at("dtoh"), "3");
}

TEST(PageableCopiesDetector, PinnedCopiesAreQuiet) {
  model::Trace T = batchTrace(MemoryKind::Pinned, 210 * Us);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("M002", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
}

TEST(PageableCopiesDetector, UnderTheGainFloorItIsInfo) {
  // The kernel starts as the copy call returns (1.6 ms): the only idle time
  // the blocked call is followed by is [0.2, 0.4) ms before the copy, so
  // the bound is 0.2 ms, 2 % of the step: at the default floor, a warning.
  model::Trace T = batchTrace(MemoryKind::Pageable, 1600 * Us, 1600 * Us);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("M002", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_EQ(Out.front().ImpactNs, 200 * Us);
  EXPECT_FALSE(Out.front().SeverityOverride.has_value());
  // With a higher floor it is only shown, at info.
  Out.clear();
  EXPECT_EQ(run("M002", Ctx, Out, {{"min-gain-share", 0.05}}), "");
  ASSERT_EQ(Out.size(), 1u);
  ASSERT_TRUE(Out.front().SeverityOverride.has_value());
  EXPECT_EQ(*Out.front().SeverityOverride, rules::Severity::Info);
}

TEST(PageableCopiesDetector, RocmHostMemoryCannotBeJudged) {
  model::Trace T = batchTrace(MemoryKind::Host);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  std::string Why = run("M002", Ctx, Out);
  EXPECT_NE(Why.find("cannot judge"), std::string::npos);
  EXPECT_NE(Why.find("pageable or pinned"), std::string::npos);
  EXPECT_TRUE(Out.empty());
}

TEST(PageableCopiesDetector, ShortBlocksAreInfoNotSilent) {
  // A call blocking 0.1 ms per 10 ms step: 1 %, under the 2 % default.
  // The copies are still reported, at info, with their real bound: the
  // device is idle from the call's start to the copy at 0.4 ms, so all
  // 0.1 ms of the block counts.
  model::Trace T = batchTrace(MemoryKind::Pageable, 300 * Us);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("M002", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  const rules::Detection &D = Out.front();
  EXPECT_EQ(*D.SeverityOverride, rules::Severity::Info);
  EXPECT_EQ(D.ImpactNs, 100 * Us);
  EXPECT_EQ(D.Values.at("value"), "100 us");
  ASSERT_FALSE(D.ExtraEvidence.empty());
  EXPECT_EQ(D.ExtraEvidence.back(),
            "1.0 % is under the rule's min-share-of-step (2.0 % of the "
            "target), so the finding is info: small, but on record");
}

TEST(PageableCopiesDetector, ACopyWithoutItsCallIsNamedNotCounted) {
  // A second pageable copy per step, [5, 6) ms, that no host call issued:
  // it counts as a copy, but its blocked time is unknown.
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  model::EventArgs A;
  A.Copy = model::CopyKind::HtoD;
  A.Src = MemoryKind::Pageable;
  A.Dst = MemoryKind::Device;
  A.Bytes = 1'000'000;
  for (int K = 0; K < 4; ++K) {
    int64_t T0 = K * 10 * Ms;
    M.step(K + 1, T0, T0 + 10 * Ms);
    M.op("aten::copy_", T0 + 100 * Us, T0 + 1610 * Us);
    M.launch(S, "Memcpy", T0 + 200 * Us, T0 + 1600 * Us, T0 + 400 * Us,
             T0 + 1600 * Us, "cudaMemcpyAsync", EventKind::Memcpy, &A);
    M.add(S, EventKind::Memcpy, "Memcpy", T0 + 5 * Ms, T0 + 6 * Ms, 0, &A);
  }
  model::Trace T = M.finish();
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("M002", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  const rules::Detection &D = Out.front();
  EXPECT_EQ(D.Values.at("value"), "1.4 ms");
  EXPECT_EQ(D.Values.at("count"), "2");
  EXPECT_EQ(D.Subject, "aten::copy_ > cudaMemcpyAsync");
  ASSERT_FALSE(D.ExtraEvidence.empty());
  EXPECT_EQ(D.ExtraEvidence.back(),
            "3 pageable copies without the host call that issued them: "
            "their blocked time is not counted");
}

} // namespace
