//===- rules/MaterializedCopiesTest.cpp - M001 materialized copies --------===//
#include "../DetectorTestSupport.h"

#include "gtest/gtest.h"

using namespace tracelint;
using namespace tracelint::testing;
using analysis::TraceIndex;
using model::EventKind;

namespace {

constexpr const char *CopyKernel =
    "void at::native::elementwise_kernel<128, 2, "
    "at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)>";

/// 4 steps of 2 ms. In each (t0 = step start, us): a 900 us gemm, then an
/// op path \p Outer > ... > aten::copy_ that launches a \p CopyUs copy
/// kernel. Copy share of busy = CopyUs / (900 + CopyUs). With \p Orphan,
/// a 100 us copy kernel that no host call launched follows at t0 + 1000.
model::Trace copyTrace(std::vector<const char *> Path, int64_t CopyUs,
                       const char *Kernel = CopyKernel, bool Orphan = false) {
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  for (int K = 0; K < 4; ++K) {
    int64_t T0 = K * 2 * Ms;
    M.step(K + 1, T0, T0 + 2 * Ms);
    M.op("aten::mm", T0, T0 + 20 * Us);
    M.launch(S, "gemm", T0 + 5 * Us, T0 + 10 * Us, T0 + 10 * Us, T0 + 910 * Us);
    // Nested ops, each 1 us inside the previous one.
    int64_t B = T0 + 30 * Us, E = T0 + 60 * Us;
    for (size_t I = 0; I < Path.size(); ++I)
      M.op(Path[I], B + int64_t(I) * Us, E - int64_t(I) * Us);
    M.launch(S, Kernel, B + 10 * Us, B + 15 * Us, T0 + 910 * Us,
             T0 + (910 + CopyUs) * Us);
    if (Orphan)
      M.add(S, EventKind::Kernel, Kernel, T0 + 1000 * Us, T0 + 1100 * Us);
  }
  return M.finish();
}

TEST(DeviceCopiesDetector, FiresOnAMaterializedView) {
  model::Trace T =
      copyTrace({"aten::reshape", "aten::clone", "aten::copy_"}, 100);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("M001", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  const rules::Detection &D = Out.front();
  // 100 us of copies in 1000 us of busy time per step; steps 2-4.
  EXPECT_EQ(D.Values.at("value"), "10.0 %");
  EXPECT_EQ(D.Values.at("count"), "3");
  EXPECT_EQ(D.ImpactNs, 100 * Us);
  EXPECT_EQ(D.Subject, "aten::reshape > aten::clone > aten::copy_");
  EXPECT_DOUBLE_EQ(D.Confidence, 0.7); // a layout materialization
}

TEST(DeviceCopiesDetector, ABareConversionIsLessCertain) {
  model::Trace T =
      copyTrace({"aten::to", "aten::_to_copy", "aten::copy_"}, 100);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("M001", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_DOUBLE_EQ(Out[0].Confidence, 0.5);
  EXPECT_FALSE(Out[0].ConfidenceNotes.empty());
}

TEST(DeviceCopiesDetector, QuietWhenCopiesAreNegligible) {
  // 20 us of 920 us busy: 2.2 %, under the 3 % default.
  model::Trace T =
      copyTrace({"aten::contiguous", "aten::clone", "aten::copy_"}, 20);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("M001", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
}

TEST(DeviceCopiesDetector, ACopyKernelOfAnotherOpIsNotAMaterialization) {
  // torch.cat's batched copy kernel belongs to aten::cat.
  model::Trace T = copyTrace(
      {"aten::cat"}, 300,
      "void at::native::(anonymous namespace)::CatArrayBatchedCopy<float>");
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("M001", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
}

TEST(DeviceCopiesDetector, CountsDeviceToDeviceMemcpys) {
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  model::EventArgs DtoD;
  DtoD.Copy = model::CopyKind::DtoD;
  DtoD.Src = DtoD.Dst = model::MemoryKind::Device;
  for (int K = 0; K < 3; ++K) {
    int64_t T0 = K * Ms;
    M.step(K + 1, T0, T0 + Ms);
    M.launch(S, "gemm", T0, T0 + 5 * Us, T0 + 5 * Us, T0 + 505 * Us);
    M.op("aten::clone", T0 + 10 * Us, T0 + 30 * Us);
    M.op("aten::copy_", T0 + 11 * Us, T0 + 29 * Us);
    M.launch(S, "Memcpy DtoD (Device -> Device)", T0 + 12 * Us, T0 + 20 * Us,
             T0 + 505 * Us, T0 + 605 * Us, "cudaMemcpyAsync", EventKind::Memcpy,
             &DtoD);
  }
  model::Trace T = M.finish();
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("M001", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_EQ(Out[0].Values.at("dtod"), "2");       // steps 2-3
  EXPECT_EQ(Out[0].Values.at("value"), "16.7 %"); // 100 of 600 us
}

} // namespace

namespace {

TEST(DeviceCopiesDetector, QuietWhenCopiesAreNothingNextToTheStep) {
  // 10 % of busy time, but 100 us of a 2 ms step is 5 %: quiet with a
  // 10 % floor on the share of the step.
  model::Trace T =
      copyTrace({"aten::reshape", "aten::clone", "aten::copy_"}, 100);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("M001", Ctx, Out, {{"min-share-of-step", 0.1}}), "");
  EXPECT_TRUE(Out.empty());
}

TEST(DeviceCopiesDetector, CopiesWithoutAHostCallAreNotCounted) {
  // Nothing says who asked for the orphan copies: they are named in the
  // evidence, and only the copy_ kernels count (100 of 1090 us busy).
  model::Trace T = copyTrace({"aten::reshape", "aten::clone", "aten::copy_"},
                             100, CopyKernel, /*Orphan=*/true);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("M001", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_EQ(Out[0].Values.at("count"), "3");
  EXPECT_EQ(Out[0].Values.at("value"), "9.2 %");
  EXPECT_EQ(Out[0].ImpactNs, 100 * Us);
  ASSERT_EQ(Out[0].ExtraEvidence.size(), 1u);
  EXPECT_EQ(Out[0].ExtraEvidence[0], "3 more device copies have no host "
                                     "call in the trace and are not counted");
}

} // namespace
