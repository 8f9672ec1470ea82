//===- tests/unit/CriticalPathTest.cpp - Completion and its path ----------===//
//
// Timelines laid out by hand (times in the comments, in ms unless said):
// the path's length must equal the target interval, its attribution and
// the what-if bounds must follow from the layout.
//
//===----------------------------------------------------------------------===//
#include "DetectorTestSupport.h"

#include "analysis/PathAnalysis.h"

#include <gtest/gtest.h>

#include <atomic>
#include <random>

using namespace tracelint;
using namespace tracelint::analysis;
using namespace tracelint::testing;

namespace {

int64_t cat(const StepPath &P, PathCategory C) {
  return P.ByCategory[unsigned(C)];
}

WhatIfQuery category(PathCategory C) {
  WhatIfQuery Q;
  Q.Categories.set(unsigned(C));
  return Q;
}

WhatIfQuery named(std::string N) {
  WhatIfQuery Q;
  Q.Names.push_back(std::move(N));
  return Q;
}

/// Five 2 ms kernels, launches of LaunchMs back to back, optionally a
/// stream synchronize after each.
model::Trace toy(int64_t LaunchMs, bool Wait) {
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  int64_t C = 0, Free = 0;
  for (int I = 0; I < 5; ++I) {
    int64_t K0 = std::max(C + LaunchMs * Ms, Free);
    M.launch(S, "k", C, C + LaunchMs * Ms, K0, K0 + 2 * Ms);
    Free = K0 + 2 * Ms;
    C += LaunchMs * Ms;
    if (Wait) {
      M.runtime("cudaStreamSynchronize", C, Free);
      C = Free;
    }
  }
  M.step(1, 0, C);
  return M.finish();
}

struct PathRun {
  model::Trace T;
  TraceIndex C;
  PathModel M;
  PathAnalysis A;
  explicit PathRun(model::Trace Tr)
      : T(std::move(Tr)), C(T), M(C), A(M.analyze({})) {}
};

} // namespace

TEST(CriticalPathTest, LaunchOverheadToy) {
  PathRun Async(toy(1, false));
  ASSERT_TRUE(Async.A.Path.HasPath);
  EXPECT_EQ(Async.A.Path.LengthNs, 11 * Ms);
  EXPECT_EQ(cat(Async.A.Path, PathCategory::Compute), 10 * Ms);
  EXPECT_EQ(cat(Async.A.Path, PathCategory::Launch), 1 * Ms);
  EXPECT_EQ(Async.M.medianGain(category(PathCategory::Launch)), 1 * Ms);

  PathRun Wait(toy(1, true));
  EXPECT_EQ(Wait.A.Path.LengthNs, 15 * Ms);
  EXPECT_EQ(cat(Wait.A.Path, PathCategory::Launch), 5 * Ms);
  EXPECT_EQ(cat(Wait.A.Path, PathCategory::Compute), 10 * Ms);
  // Without the waits the host runs ahead: the asynchronous 11 ms.
  EXPECT_EQ(Wait.M.medianGain(category(PathCategory::Wait)), 4 * Ms);
  // Faster kernels shorten the waits too.
  EXPECT_EQ(Wait.M.medianGain(category(PathCategory::Compute)), 10 * Ms);

  PathRun Slow(toy(3, false));
  EXPECT_EQ(Slow.A.Path.LengthNs, 17 * Ms);
  EXPECT_EQ(cat(Slow.A.Path, PathCategory::Launch), 15 * Ms);
  EXPECT_EQ(cat(Slow.A.Path, PathCategory::Compute), 2 * Ms);
  ASSERT_EQ(Slow.A.Devices.size(), 1u);
  EXPECT_EQ(Slow.A.Devices[0].BusyNs, 10 * Ms);
  // The device table reads the shared idle split: all 7 ms of idle lie
  // inside the launch calls, as on the path.
  EXPECT_EQ(Slow.A.Devices[0].Split.IdleNs, 7 * Ms);
  EXPECT_EQ(Slow.A.Devices[0].Split.LaunchNs, 7 * Ms);
}

TEST(CriticalPathTest, TheLaunchPathIsTheIdleSplitsLaunchPath) {
  // The trace of IdleAttribution.ACpuOpBetweenSubmissionsIsOtherHostWork:
  // ops dispatching for 30 us around 8 us launch calls, 60 us between
  // them with a CPU op that submits nothing. The path runs op1 [0, 40)
  // (launch path), [40, 100) (other host work: Python and aten::clone),
  // op2 [100, 138) (launch path), 2 us of launch latency and k2: the same
  // definition as the idle split, which gives 80 us of launch path (with
  // the latency) and 55 us of other work.
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  M.step(1, 0, 145 * Us);
  M.add(M.Host, model::EventKind::Python, "forward", 0, 145 * Us);
  M.op("aten::linear", 0, 40 * Us);
  M.launch(S, "k1", 30 * Us, 38 * Us, 40 * Us, 45 * Us);
  M.op("aten::clone", 50 * Us, 90 * Us);
  M.op("aten::relu", 100 * Us, 140 * Us);
  M.launch(S, "k2", 130 * Us, 138 * Us, 140 * Us, 145 * Us);
  PathRun R(M.finish());
  ASSERT_TRUE(R.A.Path.HasPath);
  EXPECT_EQ(R.A.Path.LengthNs, 145 * Us);
  EXPECT_EQ(cat(R.A.Path, PathCategory::Launch), 78 * Us);
  EXPECT_EQ(cat(R.A.Path, PathCategory::LaunchLatency), 2 * Us);
  EXPECT_EQ(cat(R.A.Path, PathCategory::HostOther), 60 * Us);
  ASSERT_EQ(R.A.Devices.size(), 1u);
  EXPECT_EQ(R.A.Devices[0].Split.LaunchNs, 80 * Us);
  EXPECT_EQ(R.A.Devices[0].Split.HostOtherNs, 55 * Us);
}

TEST(CriticalPathTest, WorkStartingInsideItsCallKeepsTheInterval) {
  // The kernel starts 2 us into a 10 us call (it often does): the call's
  // start is the dependency, and the path still equals the interval.
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  M.step(1, 0, 20 * Us);
  M.launch(S, "k", 1 * Us, 11 * Us, 3 * Us, 50 * Us);
  PathRun R(M.finish());
  ASSERT_TRUE(R.A.Path.HasPath);
  EXPECT_EQ(R.A.Path.LengthNs, 50 * Us);
  EXPECT_EQ(cat(R.A.Path, PathCategory::Compute), 47 * Us);
  EXPECT_EQ(cat(R.A.Path, PathCategory::Launch), 2 * Us);
  EXPECT_EQ(cat(R.A.Path, PathCategory::HostUntraced), 1 * Us);
}

TEST(CriticalPathTest, UnexplainedDelaysStayOnThePath) {
  // A kernel that starts 30 us after its call returned with an idle stream:
  // launch latency. A kernel without a launch in the trace: its start is
  // unexplained, and nothing moves it in a what-if.
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  M.step(1, 0, 100 * Us);
  M.launch(S, "late", 0, 10 * Us, 40 * Us, 60 * Us);
  M.add(S, model::EventKind::Kernel, "orphan", 200 * Us, 300 * Us);
  PathRun R(M.finish());
  // The orphan has no launch: the step's last linked work is "late".
  EXPECT_EQ(R.A.Path.LengthNs, 60 * Us);
  EXPECT_EQ(cat(R.A.Path, PathCategory::LaunchLatency), 30 * Us);
  EXPECT_EQ(cat(R.A.Path, PathCategory::Launch), 10 * Us);
  EXPECT_EQ(cat(R.A.Path, PathCategory::Compute), 20 * Us);

  // Without steps the window ends with the orphan, which no recorded
  // dependency explains.
  TraceMaker W;
  uint32_t SW = W.stream(0, 7);
  W.launch(SW, "late", 0, 10 * Us, 40 * Us, 60 * Us);
  W.add(SW, model::EventKind::Kernel, "orphan", 200 * Us, 300 * Us);
  PathRun RW(W.finish());
  ASSERT_TRUE(RW.A.Path.HasPath);
  EXPECT_FALSE(RW.A.Targets[0].FromStep);
  EXPECT_EQ(RW.A.Path.LengthNs, 300 * Us);
  EXPECT_EQ(cat(RW.A.Path, PathCategory::Compute), 100 * Us + 20 * Us);
  // The orphan starts 140 us after "late" ends on an idle device: the
  // first 50 us are ordinary launch latency, the other 90 us an
  // unrecorded dependency.
  EXPECT_EQ(cat(RW.A.Path, PathCategory::LaunchLatency), 30 * Us + 50 * Us);
  EXPECT_EQ(cat(RW.A.Path, PathCategory::UnrecordedDependency), 90 * Us);
}

/// Case 1 of issue 17, scaled: kernel K is launched at [10, 15) us but
/// starts at 463 ms with nothing in front of it (the device idle); a
/// blocking cudaMemcpy [20 us, 464.5 ms) waits for its copy [464, 464.4),
/// which follows K on the stream; then a last kernel [464.62, 470) ms.
model::Trace stalledKernel() {
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  M.step(1, 0, 474 * Ms);
  M.launch(S, "stalled", 10 * Us, 15 * Us, 463 * Ms, 464 * Ms);
  model::EventArgs A;
  A.Copy = model::CopyKind::DtoH;
  M.launch(S, "Memcpy DtoH (Device -> Pageable)", 20 * Us, 464500 * Us,
           464 * Ms, 464400 * Us, "cudaMemcpy", model::EventKind::Memcpy, &A);
  M.launch(S, "last", 464600 * Us, 464610 * Us, 464620 * Us, 470 * Ms);
  return M.finish();
}

TEST(CriticalPathTest, AStallOnAnIdleDeviceIsAnUnrecordedDependency) {
  PathRun R(stalledKernel());
  ASSERT_TRUE(R.A.Path.HasPath);
  EXPECT_EQ(R.A.Path.LengthNs, 470 * Ms);
  // 463 ms - 15 us of delay: 50 us launch latency, the rest unrecorded.
  EXPECT_EQ(cat(R.A.Path, PathCategory::UnrecordedDependency),
            463 * Ms - 15 * Us - 50 * Us);
  EXPECT_EQ(cat(R.A.Path, PathCategory::Queued), 0);
  // The last kernel's 10 us delay is launch latency too.
  EXPECT_EQ(cat(R.A.Path, PathCategory::LaunchLatency), 60 * Us);
  // Removing the unrecorded dependency gains exactly its path time: one
  // fact, which S004 reports as its impact.
  EXPECT_EQ(R.M.medianGain(category(PathCategory::UnrecordedDependency)),
            463 * Ms - 65 * Us);
  // Removing the wait cannot move the stalled kernel: the copy and the
  // last kernel follow it on the stream. Only the 0.22 ms of host time
  // after the copy (0.1 ms wait past it, 0.1 ms untraced, the launch and
  // its latency, minus what runs anyway) can be saved.
  EXPECT_EQ(R.M.medianGain(category(PathCategory::Wait)), 220 * Us);
  // The where-the-path-shows split that lint's cap sentence reads.
  EXPECT_EQ(
      R.M.medianCategories()[unsigned(PathCategory::UnrecordedDependency)],
      463 * Ms - 65 * Us);
}

/// Case 2 of issue 17, scaled: five 10 ms kernels back to back on stream 7
/// keep the device busy from 1 us to 50.001 ms; kernel K on stream 8 is
/// launched at [20, 25) us and starts only at 50.003 ms, when they are
/// done.
model::Trace saturatedDevice() {
  TraceMaker M;
  uint32_t A = M.stream(0, 7), B = M.stream(0, 8);
  M.step(1, 0, 30 * Us);
  for (int I = 0; I < 5; ++I)
    M.launch(A, "gemm", 2 * I * Us, (2 * I + 1) * Us, 1 * Us + I * 10 * Ms,
             1 * Us + (I + 1) * 10 * Ms);
  M.launch(B, "embedding", 20 * Us, 25 * Us, 50003 * Us, 52003 * Us);
  return M.finish();
}

TEST(CriticalPathTest, WorkWaitingOnABusyDeviceIsQueued) {
  PathRun R(saturatedDevice());
  ASSERT_TRUE(R.A.Path.HasPath);
  EXPECT_EQ(R.A.Path.LengthNs, 52003 * Us);
  // From K's ready time (25 us) to its start the path runs through the
  // work in front of it: queued, not launch latency.
  EXPECT_EQ(cat(R.A.Path, PathCategory::Queued), 50003 * Us - 25 * Us);
  EXPECT_EQ(cat(R.A.Path, PathCategory::LaunchLatency), 0);
  EXPECT_EQ(cat(R.A.Path, PathCategory::UnrecordedDependency), 0);
  EXPECT_EQ(cat(R.A.Path, PathCategory::Compute), 2 * Ms + 24 * Us);
  EXPECT_EQ(cat(R.A.Path, PathCategory::Launch), 1 * Us);
  // Removing all compute saves nearly everything: the queue was compute.
  // K then starts when its launch returns (25 us), the gemms end at 10 us.
  EXPECT_EQ(R.M.medianGain(category(PathCategory::Compute)),
            52003 * Us - 25 * Us);
  // Without the queue (a device with room for K) K ends at 2.025 ms, but
  // the gemms still end at 50.001 ms.
  EXPECT_EQ(R.M.medianGain(category(PathCategory::Queued)), 2002 * Us);
}

TEST(CriticalPathTest, SyncRevealingDeviceWorkPredictsNoGain) {
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  int64_t Free = 0;
  for (int I = 0; I < 5; ++I) {
    int64_t C = I * 100 * Us;
    int64_t K0 = std::max(C + 100 * Us, Free);
    M.launch(S, "mul", C, C + 100 * Us, K0, K0 + 4 * Ms);
    Free = K0 + 4 * Ms;
  }
  M.runtime("cudaDeviceSynchronize", 500 * Us, Free);
  M.step(1, 0, Free + 100 * Us);
  PathRun R(M.finish());
  EXPECT_EQ(R.A.Path.LengthNs, 20100 * Us);
  EXPECT_EQ(cat(R.A.Path, PathCategory::Wait), 0);
  EXPECT_EQ(R.M.medianGain(category(PathCategory::Wait)), 0);
  EXPECT_EQ(R.M.medianGain(named("cudaDeviceSynchronize")), 0);
  EXPECT_EQ(R.M.medianGain(named("mul")), 19600 * Us);
}

TEST(CriticalPathTest, WaitWithoutAwaitedWorkIsHostTime) {
  // A synchronize when nothing is queued still costs its own time.
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  M.launch(S, "a", 0, 10 * Us, 10 * Us, 20 * Us);
  M.runtime("cudaStreamSynchronize", 30 * Us, 80 * Us);
  M.launch(S, "b", 80 * Us, 90 * Us, 90 * Us, 100 * Us);
  M.step(1, 0, 100 * Us);
  PathRun R(M.finish());
  EXPECT_EQ(R.A.Path.LengthNs, 100 * Us);
  EXPECT_EQ(cat(R.A.Path, PathCategory::Wait), 50 * Us);
  EXPECT_EQ(R.M.medianGain(category(PathCategory::Wait)), 50 * Us);
}

TEST(CriticalPathTest, NamedOpRemovesItsHostTimeAndItsWork) {
  // aten::mm [0, 1) launches a 4 ms gemm; aten::relu [1, 2) launches a
  // 1 ms kernel queued behind it: completion 6 ms.
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  M.step(1, 0, 2 * Ms);
  M.op("aten::mm", 0, 1 * Ms);
  M.launch(S, "gemm", 100 * Us, 1 * Ms, 1 * Ms, 5 * Ms);
  M.op("aten::relu", 1 * Ms, 2 * Ms);
  M.launch(S, "relu", 1100 * Us, 2 * Ms, 5 * Ms, 6 * Ms);
  PathRun R(M.finish());
  EXPECT_EQ(R.A.Path.LengthNs, 6 * Ms);
  ASSERT_FALSE(R.A.Path.Chains.empty());
  EXPECT_EQ(R.T.Strings.get(R.A.Path.Chains[0].Op), "aten::mm");
  EXPECT_EQ(R.T.Strings.get(R.A.Path.Chains[0].Work), "gemm");
  // Without aten::mm (its host time and the gemm it launched) aten::relu
  // starts at once and keeps its own 1 ms: relu runs [1, 2): gain 4 ms.
  EXPECT_EQ(R.M.medianGain(named("aten::mm")), 4 * Ms);
  // Without the gemm kernel only: relu starts when its call returns (2 ms).
  EXPECT_EQ(R.M.medianGain(named("gemm")), 3 * Ms);
}

TEST(CriticalPathTest, BusyIsAUnionPerKind) {
  TraceMaker M;
  uint32_t A = M.stream(0, 7), B = M.stream(0, 8);
  M.launch(A, "conv", 0, 1 * Ms, 1 * Ms, 6 * Ms);
  model::EventArgs Copy;
  Copy.Bytes = 1 << 20;
  M.launch(B, "Memcpy HtoD", 1 * Ms, 2 * Ms, 2 * Ms, 4 * Ms, "cudaMemcpyAsync",
           model::EventKind::Memcpy, &Copy);
  PathRun R(M.finish());
  ASSERT_EQ(R.A.Devices.size(), 1u);
  const DeviceAttribution &D = R.A.Devices[0];
  EXPECT_EQ(D.BusyNs, 5 * Ms);
  EXPECT_EQ(D.BusyByKind[unsigned(BusyKind::Compute)], 5 * Ms);
  EXPECT_EQ(D.BusyByKind[unsigned(BusyKind::Copy)], 2 * Ms);
  EXPECT_EQ(D.IdleNs, 1 * Ms);
  EXPECT_EQ(R.M.medianGain(category(PathCategory::Copy)), 0);
}

TEST(CriticalPathTest, AHelperThreadWaitsForTheStepThread) {
  // The step [10, 30) on the main thread loads data [10, 18) and launches
  // the forward kernel [19, 21) from a call at [18, 19). The autograd
  // thread, idle since its last op at [1, 2), launches the backward kernel
  // [22, 26) from a call at [21, 22). Its idle stretch is not work: it
  // waited for the main thread, so without the data loading the backward
  // kernel moves 8 ms earlier too.
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  uint32_t Autograd = M.host(2);
  M.add(Autograd, model::EventKind::Op,
        "autograd::engine::evaluate_function: AddBackward0", 1 * Ms, 2 * Ms);
  M.step(1, 10 * Ms, 30 * Ms);
  M.add(M.Host, model::EventKind::Op,
        "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 10 * Ms,
        18 * Ms);
  M.launch(S, "forward", 18 * Ms, 19 * Ms, 19 * Ms, 21 * Ms);
  M.launch(S, "backward", 21 * Ms, 22 * Ms, 22 * Ms, 26 * Ms,
           "cudaLaunchKernel", model::EventKind::Kernel, nullptr, Autograd);
  PathRun R(M.finish());
  ASSERT_TRUE(R.A.Path.HasPath);
  EXPECT_EQ(R.A.Path.LengthNs, 16 * Ms);
  EXPECT_EQ(cat(R.A.Path, PathCategory::DataLoading), 8 * Ms);
  // 19 -> 21: the wake-up edge from the main thread's last instant.
  EXPECT_EQ(cat(R.A.Path, PathCategory::HostUntraced), 2 * Ms);
  EXPECT_EQ(cat(R.A.Path, PathCategory::Launch), 2 * Ms);
  EXPECT_EQ(cat(R.A.Path, PathCategory::Compute), 4 * Ms);
  EXPECT_EQ(R.M.medianGain(category(PathCategory::DataLoading)), 8 * Ms);
}

TEST(CriticalPathTest, TheStepThreadWaitsForAHelperThread) {
  // The step [0, 30): the main thread launches the forward kernel [2, 4),
  // then sits in "## backward ##" [3, 20) with nothing of its own, while the
  // autograd thread launches the backward kernel [5, 15) and synchronizes
  // on it until 15. The main thread then launches the optimizer kernel
  // [21, 22). Its annotated stretch is a wait for the autograd thread: the
  // join edge keeps 20 - 15 = 5 ms of it, so without the backward kernel
  // the optimizer moves 10 ms earlier.
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  uint32_t Autograd = M.host(2);
  M.step(1, 0, 30 * Ms);
  M.launch(S, "forward", 1 * Ms, 2 * Ms, 2 * Ms, 4 * Ms);
  M.add(M.Host, model::EventKind::Annotation, "## backward ##", 3 * Ms,
        20 * Ms);
  M.launch(S, "backward", 4 * Ms, 5 * Ms, 5 * Ms, 15 * Ms, "cudaLaunchKernel",
           model::EventKind::Kernel, nullptr, Autograd);
  M.runtime("cudaStreamSynchronize", 5 * Ms, 15 * Ms, Autograd);
  M.launch(S, "optimizer", 20 * Ms, 21 * Ms, 21 * Ms, 22 * Ms);
  PathRun R(M.finish());
  ASSERT_TRUE(R.A.Path.HasPath);
  EXPECT_EQ(R.A.Path.LengthNs, 22 * Ms);
  EXPECT_EQ(R.M.medianGain(named("backward")), 10 * Ms);
}

TEST(CriticalPathTest, QueryParsing) {
  WhatIfQuery Q;
  std::string Err;
  EXPECT_TRUE(WhatIfQuery::parse("category:launch, name:aten::mm", Q, Err));
  EXPECT_TRUE(Q.Categories.test(unsigned(PathCategory::Launch)));
  ASSERT_EQ(Q.Names.size(), 1u);
  EXPECT_EQ(Q.Names[0], "aten::mm");
  EXPECT_EQ(Q.describe(), "launch + aten::mm");
  WhatIfQuery Bad;
  EXPECT_FALSE(WhatIfQuery::parse("category:gpu", Bad, Err));
  EXPECT_NE(Err.find("unknown path category 'gpu'"), std::string::npos);
  // Rule files need the prefix: a misspelt one would match nothing.
  EXPECT_FALSE(WhatIfQuery::parse("aten::mm", Bad, Err));
  // The command line takes a bare op or kernel name, unless it is also a
  // category.
  WhatIfQuery Bare;
  EXPECT_TRUE(WhatIfQuery::parse("aten::cudnn_convolution, category:wait", Bare,
                                 Err, WhatIfQuery::BareTerms::AsNames));
  ASSERT_EQ(Bare.Names.size(), 1u);
  EXPECT_EQ(Bare.Names[0], "aten::cudnn_convolution");
  EXPECT_TRUE(Bare.Categories.test(unsigned(PathCategory::Wait)));
  EXPECT_FALSE(
      WhatIfQuery::parse("launch", Bad, Err, WhatIfQuery::BareTerms::AsNames));
  EXPECT_NE(Err.find("'category:launch' or 'name:launch'"), std::string::npos);
  EXPECT_FALSE(
      WhatIfQuery::parse("name:", Bad, Err, WhatIfQuery::BareTerms::AsNames));
}

/// 3000 launches of 1 ms each feeding 2 ms kernels, with no step markers:
/// one target over the whole window, whose path reaches more instants than
/// one page of the path's scratch holds (PathMemo.h).
TEST(CriticalPathTest, AWindowWithoutStepsIsOneLongPath) {
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  int64_t C = 0, Free = 0;
  constexpr int N = 3000;
  for (int I = 0; I < N; ++I) {
    int64_t K0 = std::max(C + 1 * Ms, Free);
    M.launch(S, "k", C, C + 1 * Ms, K0, K0 + 2 * Ms);
    Free = K0 + 2 * Ms;
    C += 1 * Ms;
  }
  PathRun R(M.finish());
  ASSERT_TRUE(R.A.Path.HasPath);
  ASSERT_EQ(R.A.Targets.size(), 1u);
  EXPECT_EQ(R.A.Targets[0].StepNumber, -1);
  // The device is the bottleneck: the first launch, then the kernels back
  // to back.
  EXPECT_EQ(R.A.Path.LengthNs, 1 * Ms + N * 2 * Ms);
  EXPECT_EQ(cat(R.A.Path, PathCategory::Compute), N * 2 * Ms);
  EXPECT_EQ(cat(R.A.Path, PathCategory::Launch), 1 * Ms);
  // Removing compute leaves the launches, 3000 ms; removing the launch
  // calls gains only the first, the device being full. Each run reuses
  // the scratch of the one before.
  EXPECT_EQ(R.M.medianGain(category(PathCategory::Compute)),
            R.A.Path.LengthNs - N * Ms);
  EXPECT_EQ(R.M.medianGain(category(PathCategory::Launch)), 1 * Ms);
  PathAnalysis Again = R.M.analyze({});
  EXPECT_EQ(Again.Path.LengthNs, R.A.Path.LengthNs);
}

TEST(CriticalPathTest, AModuleLoadingLaunchIsStartUp) {
  // k's only launch takes 20 ms [0, 20) (lazy loading of its module), k
  // runs [20, 21): the path is 20 ms of start-up and 1 ms of compute, and
  // the launch path has nothing to give.
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  M.launch(S, "k", 0, 20 * Ms, 20 * Ms, 21 * Ms);
  M.step(1, 0, 20 * Ms);
  PathRun R(M.finish());
  ASSERT_TRUE(R.A.Path.HasPath);
  EXPECT_EQ(R.A.Path.LengthNs, 21 * Ms);
  EXPECT_EQ(cat(R.A.Path, PathCategory::Startup), 20 * Ms);
  EXPECT_EQ(cat(R.A.Path, PathCategory::Launch), 0);
  ASSERT_EQ(R.A.Devices.size(), 1u);
  EXPECT_EQ(R.A.Devices[0].Split.StartupNs, 20 * Ms);
}

TEST(CriticalPathTest, TheProfilersOwnWorkIsProfiler) {
  // A [5, 100) us; a buffer flush holds the host [10, 1010) us before B is
  // launched [1010, 1015) and runs [1020, 1100): 1 ms of the path is the
  // profiler's, as in the device's idle split.
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  M.launch(S, "A", 0, 5 * Us, 5 * Us, 100 * Us);
  M.add(M.Host, model::EventKind::Overhead, "CUPTI Buffer Flush", 10 * Us,
        1010 * Us);
  M.launch(S, "B", 1010 * Us, 1015 * Us, 1020 * Us, 1100 * Us);
  M.step(1, 0, 1015 * Us);
  PathRun R(M.finish());
  ASSERT_TRUE(R.A.Path.HasPath);
  EXPECT_EQ(R.A.Path.LengthNs, 1100 * Us);
  EXPECT_EQ(cat(R.A.Path, PathCategory::Profiler), 1000 * Us);
  ASSERT_EQ(R.A.Devices.size(), 1u);
  EXPECT_EQ(R.A.Devices[0].Split.ProfilerNs, 910 * Us);
}

namespace {

/// \p Steps steps of random launches, kernels and waits.
model::Trace randomSteps(unsigned Seed, int Steps) {
  std::mt19937 Rng(Seed);
  auto Pick = [&](int64_t Lo, int64_t Hi) {
    return std::uniform_int_distribution<int64_t>(Lo, Hi)(Rng);
  };
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  int64_t C = 0, Free = 0;
  for (int Step = 0; Step < Steps; ++Step) {
    const int64_t Begin = C;
    for (int K = Pick(1, 6); K > 0; --K) {
      C += Pick(0, 300) * Us;
      const int64_t CallEnd = C + Pick(5, 400) * Us;
      const int64_t K0 = std::max(CallEnd + Pick(0, 100) * Us, Free);
      Free = K0 + Pick(10, 2000) * Us;
      M.launch(S, K % 2 ? "gemm" : "relu", C, CallEnd, K0, Free);
      C = CallEnd;
      if (Pick(0, 3) == 0) {
        M.runtime("cudaStreamSynchronize", C, std::max(C + Us, Free));
        C = std::max(C + Us, Free);
      }
    }
    C += Pick(1, 500) * Us;
    M.step(Step + 1, Begin, C);
  }
  return M.finish();
}

} // namespace

TEST(CriticalPathTest, StepRunsOnSeveralThreadsGiveTheFiguresOfOne) {
  // The per-step runs of lengths, gains and categories are shared among
  // threads, each with its own scratch: the figures must be those of one
  // thread walking every step in order.
  for (unsigned Seed = 1; Seed <= 4; ++Seed) {
    model::Trace T = randomSteps(Seed, 150);
    TraceIndex C(T);
    PathModel One(C, 1), Many(C, 4);
    EXPECT_EQ(One.analyze({}).Lengths, Many.analyze({}).Lengths);
    EXPECT_EQ(One.medianLength(), Many.medianLength());
    EXPECT_EQ(One.medianCategories(), Many.medianCategories());
    for (const WhatIfQuery &Q :
         {category(PathCategory::Launch), category(PathCategory::Wait),
          category(PathCategory::Compute), named("gemm"), named("relu")}) {
      PathModel::GainSpread A = One.gainSpread(Q), B = Many.gainSpread(Q);
      EXPECT_GT(A.Steps, 100u);
      EXPECT_EQ(A.Median, B.Median) << Q.describe();
      EXPECT_EQ(A.Q1, B.Q1) << Q.describe();
      EXPECT_EQ(A.Q3, B.Q3) << Q.describe();
      EXPECT_EQ(A.Steps, B.Steps) << Q.describe();
    }
  }
}

TEST(CriticalPathTest, OneWalkGivesEachQuerysLength) {
  // lengthsWithout() walks a step once and weighs the edges per query; it
  // must give what one run per query gives, and the spreads prepared from
  // it those computed query by query.
  std::vector<WhatIfQuery> Qs = {WhatIfQuery(),
                                 category(PathCategory::Launch),
                                 category(PathCategory::Wait),
                                 category(PathCategory::Compute),
                                 category(PathCategory::LaunchLatency),
                                 named("gemm"),
                                 named("relu"),
                                 named("cudaStreamSynchronize")};
  WhatIfQuery Both = category(PathCategory::Wait);
  Both.Names.push_back("gemm");
  Qs.push_back(Both);
  for (unsigned Seed = 5; Seed <= 8; ++Seed) {
    model::Trace T = randomSteps(Seed, 60);
    TraceIndex C(T);
    PathModel Once(C, 1), ByQuery(C, 1);
    DependencyGraph G(C);
    CriticalPath P(C, G);
    for (const TargetInterval &X : Once.targets()) {
      std::vector<int64_t> All = P.lengthsWithout(X, Qs);
      ASSERT_EQ(All.size(), Qs.size());
      for (size_t Q = 0; Q < Qs.size(); ++Q)
        EXPECT_EQ(All[Q], P.lengthWithout(X, Qs[Q]))
            << "seed " << Seed << " query " << Qs[Q].describe();
    }
    Once.prepareGains(llvm::ArrayRef<WhatIfQuery>(Qs).drop_front());
    for (const WhatIfQuery &Q : llvm::ArrayRef<WhatIfQuery>(Qs).drop_front()) {
      PathModel::GainSpread A = Once.gainSpread(Q), B = ByQuery.gainSpread(Q);
      EXPECT_EQ(A.Median, B.Median) << Q.describe();
      EXPECT_EQ(A.Q1, B.Q1) << Q.describe();
      EXPECT_EQ(A.Q3, B.Q3) << Q.describe();
      EXPECT_EQ(A.Steps, B.Steps) << Q.describe();
    }
    EXPECT_EQ(Once.analyze({}).Lengths, ByQuery.analyze({}).Lengths);
  }
}

TEST(CriticalPathTest, DependencyGraphStops) {
  // lint stops a graph that no finding needs: a stop requested before the
  // first host thread leaves it empty and says so; without one the graph is
  // complete, and a model over it answers.
  model::Trace T = randomSteps(3, 10);
  TraceIndex C(T);
  std::atomic<bool> Stop{true};
  DependencyGraph Stopped(C, &Stop);
  EXPECT_TRUE(Stopped.stopped());
  EXPECT_EQ(Stopped.numNodes(), 0u);
  std::atomic<bool> Go{false};
  DependencyGraph Whole(C, &Go);
  EXPECT_FALSE(Whole.stopped());
  EXPECT_GT(Whole.numNodes(), 0u);
  PathModel M(C, 1, &Go);
  EXPECT_FALSE(M.stopped());
  EXPECT_GT(M.medianLength(), 0);
}
