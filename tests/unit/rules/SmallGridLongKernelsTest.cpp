//===- rules/SmallGridLongKernelsTest.cpp - K004 small-grid long kernels --===//
#include "../DetectorTestSupport.h"

#include "gtest/gtest.h"

using namespace tracelint;
using namespace tracelint::testing;
using analysis::TraceIndex;

namespace {

model::DeviceInfo device(int32_t Id, int32_t SMs, const char *Name) {
  model::DeviceInfo D;
  D.Id = Id;
  D.Name = Name;
  D.ComputeMajor = 8;
  D.ComputeMinor = 0;
  D.NumSMs = SMs;
  return D;
}

model::EventArgs grid(int32_t Grid, int32_t Block, float BlocksPerSM = -1) {
  model::EventArgs A;
  A.Grid[0] = Grid;
  A.Grid[1] = A.Grid[2] = 1;
  A.Block[0] = Block;
  A.Block[1] = A.Block[2] = 1;
  A.BlocksPerSM = BlocksPerSM;
  return A;
}

struct Layout {
  int32_t Grid = 54;      ///< blocks of the long kernel
  int64_t LongUs = 600;   ///< its duration
  bool Overlap = false;   ///< another stream runs beside it
  bool WithGrid = true;   ///< the trace records grids
  float BlocksPerSM = -1; ///< Kineto's own figure, if any
  int32_t Device = 0;
  const char *Call = "cudaLaunchKernel";
};

/// 4 steps of 2 ms. In each: a LongUs kernel with Grid blocks of 512
/// threads at [10, 10 + LongUs) us, then a 300 us kernel with 1728 blocks
/// queued behind it; with Overlap, a 700 us kernel of 1728 blocks on a
/// second stream covers [0, 700) us of the step.
model::Trace smallGridTrace(const Layout &L) {
  TraceMaker M;
  uint32_t S = M.stream(L.Device, 7), S2 = M.stream(L.Device, 8);
  model::EventArgs Small = grid(L.Grid, 512, L.BlocksPerSM);
  model::EventArgs Full = grid(1728, 128);
  model::EventArgs None;
  for (int K = 0; K < 4; ++K) {
    int64_t T0 = K * 2 * Ms;
    M.step(K + 1, T0, T0 + 2 * Ms);
    int64_t E = T0 + (10 + L.LongUs) * Us;
    M.launch(S, "bn_bw_kernel", T0 + 5 * Us, T0 + 10 * Us, T0 + 10 * Us, E,
             L.Call, model::EventKind::Kernel, L.WithGrid ? &Small : &None);
    M.launch(S, "elementwise_kernel", T0 + 30 * Us, T0 + 36 * Us, E,
             E + 300 * Us, L.Call, model::EventKind::Kernel,
             L.WithGrid ? &Full : &None);
    if (L.Overlap)
      M.launch(S2, "other_kernel", T0 + 40 * Us, T0 + 45 * Us, T0,
               T0 + 700 * Us, L.Call, model::EventKind::Kernel, &Full);
  }
  return M.finish();
}

TEST(SmallGridDetector, FiresOnAHalfEmptyGrid) {
  model::Trace T = smallGridTrace({});
  T.Devices.push_back(device(0, 108, "NVIDIA A100-SXM4-40GB"));
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("K004", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  const rules::Detection &D = Out.front();
  // 54 / 108 = 0.5 blocks per SM: 600 us exposed, half of it idle SMs:
  // 300 us per step; steps 2-4: 900 us of 2.7 ms busy.
  EXPECT_EQ(D.Values.at("top_bps"), "0.50");
  EXPECT_EQ(D.Values.at("kernels"), "3");
  EXPECT_EQ(D.Values.at("value"), "33.3 %");
  EXPECT_EQ(D.Values.at("exposed"), "1.8 ms");
  EXPECT_EQ(D.ImpactNs, 300 * Us);
  EXPECT_EQ(D.Values.at("occupancy"), "not recorded");
  EXPECT_EQ(D.Subject, "bn_bw_kernel");
  EXPECT_DOUBLE_EQ(D.Confidence, 0.5);
}

TEST(SmallGridDetector, QuietWhenTheGridFillsTheDevice) {
  Layout L;
  L.Grid = 216;
  model::Trace T = smallGridTrace(L);
  T.Devices.push_back(device(0, 108, "NVIDIA A100-SXM4-40GB"));
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("K004", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
}

TEST(SmallGridDetector, QuietWhenOtherWorkFillsTheIdleSMs) {
  // The second stream's kernel covers [0, 700) us, all of [10, 610).
  Layout L;
  L.Overlap = true;
  model::Trace T = smallGridTrace(L);
  T.Devices.push_back(device(0, 108, "NVIDIA A100-SXM4-40GB"));
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("K004", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
}

/// 4 steps of 2 ms with a 600 us kernel of 20 blocks on a 132-SM device
/// at [10, 610) us, and a GEMM of 1728 blocks on another stream from
/// \p GemmFrom to \p GemmTo us; \p Kind is the small kernel's kind.
model::Trace besideGemm(int64_t GemmFrom, int64_t GemmTo,
                        model::EventKind Kind = model::EventKind::Kernel,
                        llvm::StringRef Name = "dispatch_kernel") {
  TraceMaker M;
  uint32_t S = M.stream(0, 7), S2 = M.stream(0, 8);
  model::EventArgs Small = grid(20, 512), Full = grid(1728, 128);
  for (int K = 0; K < 4; ++K) {
    int64_t T0 = K * 2 * Ms;
    M.step(K + 1, T0, T0 + 2 * Ms);
    M.launch(S, Name, T0 + 5 * Us, T0 + 10 * Us, T0 + 10 * Us, T0 + 610 * Us,
             "cudaLaunchKernel", Kind, &Small);
    M.launch(S2, "sm90_gemm_kernel", T0 + 1 * Us, T0 + 4 * Us,
             T0 + GemmFrom * Us, T0 + GemmTo * Us, "cudaLaunchKernel",
             model::EventKind::Kernel, &Full);
  }
  model::Trace T = M.finish();
  T.Devices.push_back(device(0, 132, "NVIDIA H100 80GB HBM3"));
  return T;
}

TEST(SmallGridDetector, SkipsKernelsThatShareTheirSMsWithConcurrentWork) {
  // The GEMM overlaps [10, 210) us of the 600 us kernel: a third of it,
  // over the 10 % default. Before, the 400 us no other work covered
  // counted; now the kernel is left out as concurrent.
  model::Trace T = besideGemm(10, 210);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("K004", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
  // With a higher allowance the exposed part is judged again.
  EXPECT_EQ(run("K004", Ctx, Out, {{"max-concurrent-share", 0.5}}), "");
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_EQ(Out.front().Values.at("exposed"), "1.2 ms"); // 400 us x 3
}

TEST(SmallGridDetector, ASliverOfOverlapIsNotConcurrent) {
  // The GEMM ends 30 us into the kernel (5 %): the kernel is judged.
  model::Trace T = besideGemm(5, 40);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("K004", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_EQ(Out.front().Subject, "dispatch_kernel");
}

TEST(SmallGridDetector, LeavesCommunicationKernelsAlone) {
  // A DeepEP dispatch kernel on 20 SMs, alone on the device for 570 us
  // per step: communication (the importers' Collective kind), never judged.
  model::Trace T = besideGemm(5, 40, model::EventKind::Collective,
                              "void deep_ep::intranode::dispatch<8>(int4*)");
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("K004", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
}

TEST(SmallGridDetector, ShortKernelsAreNotJudged) {
  // 40 us is under the 50 us default: nothing to judge, nothing to say.
  Layout L;
  L.LongUs = 40;
  model::Trace T = smallGridTrace(L);
  T.Devices.push_back(device(0, 108, "NVIDIA A100-SXM4-40GB"));
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("K004", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
}

TEST(SmallGridDetector, UsesKinetoBlocksPerSMWithoutProperties) {
  Layout L;
  L.BlocksPerSM = 0.25f;
  model::Trace T = smallGridTrace(L);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("K004", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_EQ(Out[0].Values.at("top_bps"), "0.25");
  // 600 x 0.75 = 450 us of idle SMs per step.
  EXPECT_EQ(Out[0].ImpactNs, 450 * Us);
  EXPECT_EQ(Out[0].Values.at("sms"), "unknown");
}

TEST(SmallGridDetector, CannotJudgeWithoutSMCount) {
  model::Trace T = smallGridTrace({});
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  std::string Why = run("K004", Ctx, Out);
  EXPECT_TRUE(llvm::StringRef(Why).startswith(
      "cannot judge: 8 kernels of at least 50 us ran"))
      << Why;
  EXPECT_NE(Why.find("no SM count"), std::string::npos) << Why;
  EXPECT_TRUE(Out.empty());
}

TEST(SmallGridDetector, CannotJudgeWithoutGrids) {
  Layout L;
  L.WithGrid = false;
  model::Trace T = smallGridTrace(L);
  T.Devices.push_back(device(0, 108, "NVIDIA A100-SXM4-40GB"));
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  std::string Why = run("K004", Ctx, Out);
  EXPECT_NE(Why.find("records no launch grid"), std::string::npos) << Why;
  EXPECT_TRUE(Out.empty());
}

TEST(SmallGridDetector, HipGridsFollowTheLaunchApi) {
  // hipExtModuleLaunchKernel takes work-items: 65536 / 512 = 128 blocks on
  // 304 CUs, 0.42 per CU. The same figure through hipLaunchKernel is 65536
  // blocks and fills the device.
  Layout L;
  L.Grid = 65536;
  L.Call = "hipExtModuleLaunchKernel";
  model::Trace T = smallGridTrace(L);
  T.Devices.push_back(device(0, 304, "AMD Instinct MI300X"));
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("K004", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_EQ(Out[0].Values.at("top_bps"), "0.42");

  L.Call = "hipLaunchKernel";
  model::Trace T2 = smallGridTrace(L);
  T2.Devices.push_back(device(0, 304, "AMD Instinct MI300X"));
  TraceIndex Ctx2(T2);
  Out.clear();
  EXPECT_EQ(run("K004", Ctx2, Out), "");
  EXPECT_TRUE(Out.empty());
}

TEST(SmallGridDetector, DeviceNumberedUnlikeItsProperties) {
  // ROCm traces put kernels on the agent's number (2) and list the one
  // visible device as 0: the shared SM count applies.
  Layout L;
  L.Device = 2;
  model::Trace T = smallGridTrace(L);
  T.Devices.push_back(device(0, 108, "NVIDIA A100-SXM4-40GB"));
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("K004", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_EQ(Out[0].Values.at("sms"), "108");
}

} // namespace
