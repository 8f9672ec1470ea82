//===- rules/HostFilledTensorTest.cpp - M006 host-filled tensors ----------===//
#include "../DetectorTestSupport.h"

#include "gtest/gtest.h"

using namespace tracelint;
using namespace tracelint::testing;
using analysis::TraceIndex;
using model::EventKind;

namespace {

struct Layout {
  llvm::StringRef Factory = "aten::arange";
  /// "Input Dims" of the factory and of the copy op ("" for none).
  llvm::StringRef FactoryDims, CopyDims;
  bool FactoryLaunches = false; ///< the factory ran on the device
  /// Ops between the factory and the copy.
  int Between = 0;
  bool CopyInAnnotation = false; ///< the copy sits in another container
  /// "Input Dims" of an in-place fill op inside the factory ("": none).
  llvm::StringRef FillDims;
  bool LoaderBetween = false; ///< a data-loader range before the copy
};

/// 4 steps of 2 ms (t0 = step start, times in us): a 500 us kernel [30,
/// 530); the factory op [600, 700); the copy op aten::to [710, 800) whose
/// cudaMemcpyAsync [730, 780) copies 4 KB from pageable memory, the copy
/// running [760, 770); then a 1 ms kernel [825, 1825).
model::Trace stepsTrace(const Layout &L) {
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  model::EventArgs Copy;
  Copy.Copy = model::CopyKind::HtoD;
  Copy.Src = model::MemoryKind::Pageable;
  Copy.Dst = model::MemoryKind::Device;
  Copy.Bytes = 4096;
  auto Op = [&](llvm::StringRef Name, int64_t B, int64_t E,
                llvm::StringRef Dims) {
    model::EventArgs A;
    if (!Dims.empty())
      A.InputDims = M.B.strings().intern(Dims);
    M.add(M.Host, EventKind::Op, Name, B, E, 0, Dims.empty() ? nullptr : &A);
  };
  for (int K = 0; K < 4; ++K) {
    int64_t T0 = K * 2 * Ms;
    M.step(K + 1, T0, T0 + 2 * Ms);
    M.op("aten::mm", T0 + 10 * Us, T0 + 40 * Us);
    M.launch(S, "gemm", T0 + 20 * Us, T0 + 30 * Us, T0 + 30 * Us,
             T0 + 530 * Us);
    Op(L.Factory, T0 + 600 * Us, T0 + 700 * Us, L.FactoryDims);
    if (!L.FillDims.empty())
      Op("aten::normal_", T0 + 650 * Us, T0 + 690 * Us, L.FillDims);
    if (L.LoaderBetween)
      M.op("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__",
           T0 + 703 * Us, T0 + 706 * Us);
    if (L.FactoryLaunches)
      M.launch(S, "arange_kernel", T0 + 610 * Us, T0 + 620 * Us, T0 + 620 * Us,
               T0 + 625 * Us);
    for (int B = 0; B < L.Between; ++B)
      M.op("aten::detach_", T0 + (701 + 2 * B) * Us, T0 + (702 + 2 * B) * Us);
    if (L.CopyInAnnotation)
      M.add(M.Host, EventKind::Annotation, "upload", T0 + 705 * Us,
            T0 + 805 * Us);
    Op("aten::to", T0 + 710 * Us, T0 + 800 * Us, L.CopyDims);
    M.launch(S, "Memcpy HtoD (Pageable -> Device)", T0 + 730 * Us,
             T0 + 780 * Us, T0 + 760 * Us, T0 + 770 * Us, "cudaMemcpyAsync",
             EventKind::Memcpy, &Copy);
    M.op("aten::add", T0 + 810 * Us, T0 + 830 * Us);
    M.launch(S, "add_kernel", T0 + 815 * Us, T0 + 825 * Us, T0 + 825 * Us,
             T0 + 1825 * Us);
  }
  return M.finish();
}

TEST(HostFilledTensorDetector, FiresOnAHostFactoryFollowedByACopy) {
  model::Trace T = stepsTrace({});
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("M006", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  const rules::Detection &D = Out.front();
  // Host 100 + 90 us, device copy 10 us: 200 us per step.
  EXPECT_EQ(D.Values.at("value"), "200 us");
  EXPECT_EQ(D.Values.at("count"), "1");
  EXPECT_EQ(D.Values.at("pairs"), "3"); // the three steady steps
  EXPECT_EQ(D.Values.at("bytes"), "4.096 kB");
  // The factory [600, 700) is followed by idle time up to the copy at 760:
  // min(100, 160) = 100. The copy op [710, 800) is followed by the kernel at
  // 825; the idle time after 760 not yet claimed is [770, 825): min(90,
  // 55) = 55. Plus the 10 us copy: 165 us.
  EXPECT_EQ(D.ImpactNs, 165 * Us);
  EXPECT_EQ(D.Subject, "aten::arange then aten::to at the top level");
  EXPECT_DOUBLE_EQ(D.Confidence, 0.5); // linked by order alone
  EXPECT_EQ(D.Values.at("linked").text().rfind(
                "3 of 3 pairs are linked by order alone", 0),
            0u);
  EXPECT_NE(D.Values.at("remedy").text().find("device="), std::string::npos);
  EXPECT_FALSE(D.SeverityOverride.has_value());
  ASSERT_EQ(D.PathQuery.Names.size(), 2u);
  EXPECT_EQ(D.PathQuery.Names[0], "aten::arange");
  EXPECT_EQ(D.PathQuery.Names[1], "aten::to");
}

TEST(HostFilledTensorDetector, MatchingShapesConfirmTheLink) {
  Layout L;
  L.Factory = "aten::lift_fresh";
  L.FactoryDims = "[[1, 77]]";
  L.CopyDims = "[[1, 77], [], [], [], [], []]";
  L.Between = 1; // torch.tensor records a detach_ between the two
  model::Trace T = stepsTrace(L);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("M006", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_DOUBLE_EQ(Out.front().Confidence, 0.7);
  EXPECT_EQ(Out.front().Values.at("linked"), "every pair's shapes match");
  EXPECT_NE(
      Out.front().Values.at("remedy").text().find("values come from the host"),
      std::string::npos);
}

TEST(HostFilledTensorDetector, DifferentShapesBreakTheLink) {
  Layout L;
  L.Factory = "aten::lift_fresh";
  L.FactoryDims = "[[1, 4]]";
  L.CopyDims = "[[1, 77], [], [], [], [], []]";
  model::Trace T = stepsTrace(L);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("M006", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
}

TEST(HostFilledTensorDetector, AGeneratedFillShowsItsShapeThroughItsFill) {
  // torch.randn(5, 128) records its size only through aten::normal_.
  Layout L;
  L.Factory = "aten::randn";
  L.FillDims = "[[5, 128], [], [], []]";
  L.CopyDims = "[[5, 128], [], [], [], [], []]";
  model::Trace T = stepsTrace(L);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("M006", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_DOUBLE_EQ(Out.front().Confidence, 0.7);

  // A one-element counter made before a batch is copied: not linked.
  L.FillDims = "[[1], [], [], []]";
  L.CopyDims = "[[32, 3, 224, 224], [], [], [], [], []]";
  model::Trace T2 = stepsTrace(L);
  TraceIndex Ctx2(T2);
  Out.clear();
  EXPECT_EQ(run("M006", Ctx2, Out), "");
  EXPECT_TRUE(Out.empty());
}

TEST(HostFilledTensorDetector, ABatchFromTheDataLoaderBreaksTheLink) {
  Layout L;
  L.LoaderBetween = true;
  model::Trace T = stepsTrace(L);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("M006", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
}

TEST(HostFilledTensorDetector, AFactoryOnTheDeviceIsQuiet) {
  Layout L;
  L.FactoryLaunches = true;
  model::Trace T = stepsTrace(L);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("M006", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
}

TEST(HostFilledTensorDetector, TooManyOpsBetweenOrAnotherContainerAreQuiet) {
  Layout Far;
  Far.Between = 3;
  model::Trace T = stepsTrace(Far);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("M006", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
  // The option widens the search.
  EXPECT_EQ(run("M006", Ctx, Out, {{"max-ops-between", 3}}), "");
  EXPECT_EQ(Out.size(), 1u);

  Layout Apart;
  Apart.CopyInAnnotation = true;
  model::Trace T2 = stepsTrace(Apart);
  TraceIndex Ctx2(T2);
  Out.clear();
  EXPECT_EQ(run("M006", Ctx2, Out), "");
  EXPECT_TRUE(Out.empty());
}

TEST(HostFilledTensorDetector, UnderTheShareFloorItIsInfo) {
  model::Trace T = stepsTrace({});
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  // 200 us is 10 % of the 2 ms step: under an 11 % floor the pair is still
  // reported, at info.
  EXPECT_EQ(run("M006", Ctx, Out, {{"min-share-of-step", 0.11}}), "");
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_EQ(Out.front().SeverityOverride, rules::Severity::Info);
  ASSERT_FALSE(Out.front().ExtraEvidence.empty());
  EXPECT_EQ(Out.front().ExtraEvidence.back(),
            "10.0 % is under the rule's min-share-of-step (11.0 % of the "
            "target), so the finding is info: small, but on record");
  Out.clear();
  EXPECT_EQ(run("M006", Ctx, Out,
                {{"min-share-of-step", 0.09}, {"min-gain-share", 0.09}}),
            "");
  ASSERT_EQ(Out.size(), 1u);
  // 165 us is 8.25 %: under a 9 % gain floor the finding is info.
  EXPECT_EQ(Out.front().SeverityOverride, rules::Severity::Info);
}

TEST(HostFilledTensorDetector, WithoutFrameworkOpsItCannotJudge) {
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  for (int K = 0; K < 4; ++K) {
    int64_t T0 = K * 2 * Ms;
    M.step(K + 1, T0, T0 + 2 * Ms);
    M.launch(S, "gemm", T0 + 20 * Us, T0 + 30 * Us, T0 + 30 * Us,
             T0 + 530 * Us);
  }
  model::Trace T = M.finish();
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_NE(run("M006", Ctx, Out)
                .find("cannot judge: the trace records no framework ops"),
            std::string::npos);
}

} // namespace
