//===- rules/RoundTripTransfersTest.cpp - M008 round-trip-transfers -------===//
//
// The same data copied up and down around every kernel or every step; the
// figures are worked out beside each trace.
//
//===----------------------------------------------------------------------===//
#include "../DetectorTestSupport.h"

#include "rules/Config.h"

#include "gtest/gtest.h"

using namespace tracelint;
using namespace tracelint::testing;
using analysis::TraceIndex;
using model::EventKind;

namespace {

model::EventArgs copyArgs(model::CopyKind K, int64_t Bytes) {
  model::EventArgs A;
  A.Copy = K;
  bool Up = K == model::CopyKind::HtoD;
  A.Src = Up ? model::MemoryKind::Pageable : model::MemoryKind::Device;
  A.Dst = Up ? model::MemoryKind::Device : model::MemoryKind::Pageable;
  A.Bytes = Bytes;
  return A;
}

/// No steps; five 3 ms iterations from T0 = 3k ms: a blocking cudaMemcpy
/// up [T0, T0 + 1.05) whose copy runs [T0 + 0.02, T0 + 1.0), the kernel
/// \p Kernel [T0 + 1.12, T0 + 1.32), and a blocking cudaMemcpy down
/// [T0 + 1.4, T0 + 2.45) whose copy runs [T0 + 1.42, T0 + 2.4); both 8 MB
/// (\p DownBytes for the download). The copies and the blocked calls cover
/// 2 x 1.05 = 2.1 ms per iteration, 10.5 ms of the 14.45 ms window.
model::Trace aroundEveryKernel(llvm::StringRef Kernel = "stencil",
                               int64_t DownBytes = 8'000'000) {
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  model::EventArgs Up = copyArgs(model::CopyKind::HtoD, 8'000'000);
  model::EventArgs Down = copyArgs(model::CopyKind::DtoH, DownBytes);
  for (int K = 0; K < 5; ++K) {
    int64_t T0 = K * 3 * Ms;
    M.launch(S, "Memcpy HtoD (Pageable -> Device)", T0, T0 + 1050 * Us,
             T0 + 20 * Us, T0 + 1000 * Us, "cudaMemcpy", EventKind::Memcpy,
             &Up);
    M.launch(S, Kernel, T0 + 1100 * Us, T0 + 1110 * Us, T0 + 1120 * Us,
             T0 + 1320 * Us);
    M.launch(S, "Memcpy DtoH (Device -> Pageable)", T0 + 1400 * Us,
             T0 + 2450 * Us, T0 + 1420 * Us, T0 + 2400 * Us, "cudaMemcpy",
             EventKind::Memcpy, &Down);
  }
  return M.finish();
}

TEST(RoundTripTransfers, FiresAroundEveryKernelAndClaimsBothDirections) {
  model::Trace T = aroundEveryKernel();
  TraceIndex Ctx(T);
  ASSERT_EQ(Ctx.roundTrips().Groups.size(), 1u);
  EXPECT_EQ(Ctx.roundTrips().Groups[0].HtoD.size(), 5u);
  EXPECT_EQ(Ctx.roundTrips().Groups[0].DtoH.size(), 5u);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("M008", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  const rules::Detection &D = Out.front();
  EXPECT_EQ(D.ImpactNs, 10'500 * Us);
  EXPECT_EQ(D.Values.at("up_count"), "5.0");
  EXPECT_EQ(D.Values.at("down_count"), "5.0");
  EXPECT_EQ(D.Values.at("up_bytes"), D.Values.at("down_bytes"));
  EXPECT_EQ(D.Values.at("kernels_between"), "stencil");
  EXPECT_EQ(D.Subject, "cudaMemcpy <-> cudaMemcpy");
  // Device busy: 0.98 + 0.2 + 0.98 ms per iteration, of which the copies
  // are 1.96 ms: 90.7 %.
  EXPECT_EQ(D.Values.at("copy_share"), "90.7 %");
}

TEST(RoundTripTransfers, OneUploadAndOneDownloadAreQuiet) {
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  model::EventArgs Up = copyArgs(model::CopyKind::HtoD, 8'000'000);
  model::EventArgs Down = copyArgs(model::CopyKind::DtoH, 8'000'000);
  M.launch(S, "Memcpy HtoD (Pageable -> Device)", 0, 1050 * Us, 20 * Us,
           1000 * Us, "cudaMemcpy", EventKind::Memcpy, &Up);
  for (int K = 0; K < 5; ++K)
    M.launch(S, "stencil", 1100 * Us + K * Ms, 1110 * Us + K * Ms,
             1120 * Us + K * Ms, 2000 * Us + K * Ms);
  M.launch(S, "Memcpy DtoH (Device -> Pageable)", 6100 * Us, 7150 * Us,
           6120 * Us, 7100 * Us, "cudaMemcpy", EventKind::Memcpy, &Down);
  model::Trace T = M.finish();
  TraceIndex Ctx(T);
  EXPECT_TRUE(Ctx.roundTrips().Groups.empty());
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("M008", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
}

TEST(RoundTripTransfers, DifferentSizesEachWayAreNotARoundTrip) {
  // An 8 MB input up and a 4-byte result down every iteration.
  model::Trace T = aroundEveryKernel("stencil", 4);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("M008", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
}

TEST(RoundTripTransfers, M003SaysTheUploadsAreRoundTrips) {
  model::Trace T = aroundEveryKernel();
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("M003", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  bool Said = llvm::any_of(Out.front().ExtraEvidence, [](const std::string &E) {
    return E.find("5 of these copies are the upload half of round trips "
                  "(M008)") != std::string::npos;
  });
  EXPECT_TRUE(Said);
}

/// The M008 finding of the full engine on \p T, rendered.
rules::Finding lintM008(const model::Trace &T) {
  TraceIndex Ctx(T);
  rules::Config Cfg;
  Cfg.Select = {"M008"};
  rules::LintResult R = rules::runRules(Ctx, builtinRules(), Cfg, "t.json");
  EXPECT_EQ(R.Findings.size(), 1u);
  return R.Findings.empty() ? rules::Finding() : R.Findings.front();
}

TEST(RoundTripTransfers, APyTorchStepGetsPyTorchAdvice) {
  // Four 10 ms steps (steps 2-4 measured): aten::to uploads a 4 MB tensor
  // [1, 2) ms, a kernel runs [2.1, 4) ms, aten::cpu brings it back [4, 5)
  // ms. One each way per step: a round trip every step.
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  model::EventArgs Up = copyArgs(model::CopyKind::HtoD, 4'000'000);
  model::EventArgs Down = copyArgs(model::CopyKind::DtoH, 4'000'000);
  for (int K = 0; K < 4; ++K) {
    int64_t T0 = K * 10 * Ms;
    M.step(K + 1, T0, T0 + 10 * Ms);
    M.op("aten::to", T0 + 900 * Us, T0 + 2050 * Us);
    M.launch(S, "Memcpy HtoD (Pageable -> Device)", T0 + 950 * Us,
             T0 + 2000 * Us, T0 + 1000 * Us, T0 + 2000 * Us, "cudaMemcpyAsync",
             EventKind::Memcpy, &Up);
    M.op("aten::mul", T0 + 2060 * Us, T0 + 2090 * Us);
    M.launch(S, "vectorized_elementwise_kernel", T0 + 2070 * Us, T0 + 2080 * Us,
             T0 + 2100 * Us, T0 + 4000 * Us);
    M.op("aten::cpu", T0 + 3900 * Us, T0 + 5050 * Us);
    M.launch(S, "Memcpy DtoH (Device -> Pageable)", T0 + 3950 * Us,
             T0 + 5000 * Us, T0 + 4000 * Us, T0 + 5000 * Us, "cudaMemcpyAsync",
             EventKind::Memcpy, &Down);
  }
  model::Trace T = M.finish();
  rules::Finding F = lintM008(T);
  EXPECT_NE(F.Next.Change.find(".cpu()"), std::string::npos) << F.Next.Change;
  EXPECT_NE(F.Next.Change.find("aten::to"), std::string::npos) << F.Next.Change;
  EXPECT_EQ(F.Next.Change.find("cudaMalloc"), std::string::npos);
}

TEST(RoundTripTransfers, AnNvhpcProgramGetsOpenMpAdvice) {
  model::Trace T = aroundEveryKernel("nvkernel_solve_F1L204_2");
  rules::Finding F = lintM008(T);
  EXPECT_NE(F.Next.Change.find("#pragma omp target data map("),
            std::string::npos)
      << F.Next.Change;
  EXPECT_NE(F.Next.Change.find("nvkernel_solve_F1L204_2"), std::string::npos);
  EXPECT_EQ(F.Next.Change.find("torch"), std::string::npos);
}

TEST(RoundTripTransfers, ACudaProgramGetsCudaAdvice) {
  model::Trace T = aroundEveryKernel();
  rules::Finding F = lintM008(T);
  EXPECT_NE(F.Next.Change.find("cudaMalloc"), std::string::npos)
      << F.Next.Change;
  EXPECT_EQ(F.Next.Change.find("torch"), std::string::npos);
  EXPECT_EQ(F.Next.Change.find(".cpu()"), std::string::npos);
}

} // namespace
