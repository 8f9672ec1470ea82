//===- StartupTest.cpp - Start-up and teardown work in the trace index ----===//
//
// What TraceIndex::startup() and teardown() find (analysis/Startup.h),
// which U001, U003, the steady-state rules' "cannot judge" and `tracelint
// diff` all read: which calls are start-up or teardown, and when a window
// is start-up rather than steady state.
//
//===----------------------------------------------------------------------===//
#include "analysis/Startup.h"
#include "CaptureTraces.h"
#include "DetectorTestSupport.h"
#include "model/NameClasses.h"

#include "gtest/gtest.h"

using namespace tracelint;
using namespace tracelint::testing;
using analysis::TraceIndex;
using model::EventKind;

namespace {

TEST(Startup, CompiledCallsAreNotCompilation) {
  // Names that run on every call of compiled code are not compilation;
  // Dynamo's dynamo_timed ranges are.
  TraceMaker M;
  M.op("Torch-Compiled Region: 0/0", 0, 1 * Ms);
  M.op("TorchDynamo Cache Lookup", 10 * Us, 20 * Us);
  M.op("triton_poi_fused_add_0", 30 * Us, 40 * Us);
  M.add(M.Host, EventKind::Annotation, "## Call CompiledFxGraph fxyz ##",
        50 * Us, 900 * Us);
  M.add(M.Host, EventKind::Annotation, "_compile.compile_inner (dynamo_timed)",
        2 * Ms, 9 * Ms);
  model::Trace T = M.finish();
  TraceIndex Ctx(T);
  const analysis::StartupWork &Scan = Ctx.startup();
  ASSERT_EQ(Scan.Found.size(), 1u);
  EXPECT_EQ(T.name(T.Events[Scan.Found[0].Index]),
            "_compile.compile_inner (dynamo_timed)");
  EXPECT_EQ(Scan.Found[0].Cat, analysis::Compilation);
  EXPECT_TRUE(Scan.windowIsStartup()); // 7 of 9 ms
}

TEST(Startup, ASlowFirstLaunchLoadsItsModule) {
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  M.launch(S, "k", 0, 300 * Ms, 300 * Ms, 301 * Ms);
  M.launch(S, "k", 302 * Ms, 302 * Ms + 5 * Us, 302 * Ms + 5 * Us, 303 * Ms);
  model::Trace T = M.finish();
  TraceIndex Ctx(T);
  const analysis::StartupWork &Scan = Ctx.startup();
  ASSERT_EQ(Scan.Found.size(), 1u);
  EXPECT_EQ(Scan.Found[0].Cat, analysis::ContextAndModules);
  EXPECT_EQ(Scan.StartupNs, 300 * Ms);
}

TEST(Startup, TheFirstCallOfAProcessCreatesItsContextWhateverItsName) {
  // HTA's AlexNet trace opens with a 29.9 s cudaDeviceGetStreamPriorityRange:
  // a query that takes microseconds later on. Scaled: 30 ms, then 5 us
  // calls of the same API.
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  M.runtime("cudaDeviceGetStreamPriorityRange", 0, 30 * Ms);
  M.runtime("cudaDeviceGetStreamPriorityRange", 31 * Ms, 31 * Ms + 5 * Us);
  M.runtime("cudaDeviceGetStreamPriorityRange", 32 * Ms, 32 * Ms + 5 * Us);
  M.launch(S, "k", 33 * Ms, 33 * Ms + 5 * Us, 33 * Ms + 5 * Us, 34 * Ms);
  model::Trace T = M.finish();
  TraceIndex Ctx(T);
  const analysis::StartupWork &Scan = Ctx.startup();
  ASSERT_EQ(Scan.Found.size(), 1u);
  EXPECT_EQ(T.name(T.Events[Scan.Found[0].Index]),
            "cudaDeviceGetStreamPriorityRange");
  EXPECT_EQ(Scan.Found[0].Cat, analysis::ContextAndModules);
  EXPECT_EQ(Scan.StartupNs, 30 * Ms);
  // The idle split and the path call it start-up, not host work: host work
  // is only the two later 5 us queries.
  EXPECT_EQ(Ctx.targetIdle().HostOtherNs, 10 * Us);
  EXPECT_GE(Ctx.targetIdle().StartupNs, 30 * Ms);
}

TEST(Startup, AFirstCallLongForItsOwnReasonsIsNotContextCreation) {
  // A first blocking copy as long as its copy, and a first call as slow as
  // the same API's later ones, are steady work.
  for (bool Copy : {true, false}) {
    TraceMaker M;
    uint32_t S = M.stream(0, 7);
    if (Copy) {
      M.launch(S, "Memcpy HtoD (Pageable -> Device)", 0, 3 * Ms, 100 * Us,
               3 * Ms, "cudaMemcpy", EventKind::Memcpy);
      M.runtime("cudaMemcpy", 4 * Ms, 4 * Ms + 10 * Us);
    } else {
      M.runtime("cudaStreamQuery", 0, 3 * Ms);
      M.runtime("cudaStreamQuery", 4 * Ms, 7 * Ms);
    }
    M.launch(S, "k", 8 * Ms, 8 * Ms + 5 * Us, 8 * Ms + 5 * Us, 9 * Ms);
    model::Trace T = M.finish();
    TraceIndex Ctx(T);
    EXPECT_TRUE(Ctx.startup().Found.empty()) << (Copy ? "copy" : "query");
  }
}

TEST(Startup, AGraphReplayWindowIsNotCapture) {
  // A vLLM-like serving window: graph replays, and capture-mode exchanges
  // that the HIP runtime makes around allocations and replays. Nothing is
  // captured, so the window is steady state and the rules judge it.
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  for (int I = 0; I < 20; ++I) {
    const int64_t C = I * Ms;
    M.runtime("hipThreadExchangeStreamCaptureMode", C, C + 2 * Us);
    M.launch(S, "graph_kernel", C + 10 * Us, C + 20 * Us, C + 20 * Us,
             C + 500 * Us, "hipGraphLaunch");
  }
  model::Trace T = M.finish();
  TraceIndex Ctx(T);
  EXPECT_FALSE(Ctx.startup().HasCapture);
  EXPECT_FALSE(Ctx.startup().windowIsStartup());
  EXPECT_EQ(Ctx.startupWindowReason(), "");
}

TEST(Startup, AFirstRunFarSlowerThanItsLaterRunsIsStartUpEveryStep) {
  // A 68 ms first cuDNN convolution (handle creation, lazy loading) in the
  // first of five steps, 5 ms later: start-up, even though the name runs in
  // every later step (which drops steady-state names from start-up).
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  for (int K = 0; K < 5; ++K) {
    const int64_t T0 = K * 100 * Ms;
    M.step(K + 1, T0, T0 + 100 * Ms);
    const int64_t Len = K == 0 ? 68 * Ms : 5 * Ms;
    M.op("aten::cudnn_convolution", T0, T0 + Len);
    M.launch(S, "conv_kernel", T0 + Len - 10 * Us, T0 + Len - 5 * Us, T0 + Len,
             T0 + Len + 1 * Ms);
  }
  model::Trace T = M.finish();
  TraceIndex Ctx(T);
  const analysis::StartupWork &Scan = Ctx.startup();
  ASSERT_EQ(Scan.Found.size(), 1u);
  EXPECT_EQ(Scan.Found[0].Cat, analysis::FirstCall);
  EXPECT_EQ(Scan.Found[0].Range.length(), 68 * Ms);
  EXPECT_EQ(Scan.StepStartupNs.front(), 68 * Ms);
}

/// No steps: the host captures a graph [1, 3) ms and instantiates it
/// [3, 4) ms, then runs \p SteadyMs of steady work (a synchronize).
model::Trace captureWindow(int64_t SteadyMs) {
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  M.launch(S, "k", 0, 5 * Us, 5 * Us, 15 * Us);
  M.runtime("cudaStreamBeginCapture", 1 * Ms, 1010 * Us);
  M.runtime("cudaLaunchKernel", 1500 * Us, 1505 * Us);
  M.runtime("cudaStreamEndCapture", 2990 * Us, 3 * Ms);
  M.runtime("cudaGraphInstantiate", 3 * Ms, 4 * Ms);
  M.runtime("cudaDeviceSynchronize", 4 * Ms, 4 * Ms + SteadyMs * Ms);
  return M.finish();
}

TEST(Startup, SteadyStateRulesCannotJudgeAStartupWindow) {
  // 3 ms of start-up in a 5 ms window leaves 40 % (over 10 %): U001 still
  // calls the window start-up, and the rules judge the rest. A capture
  // from 10 us to 3 ms and its instantiation take 94 % of a 3.1 ms window
  // and leave too little to judge.
  {
    model::Trace T = captureWindow(/*SteadyMs=*/1);
    TraceIndex Ctx(T);
    EXPECT_TRUE(Ctx.startup().HasCapture);
    EXPECT_TRUE(Ctx.startup().windowIsStartup()); // U001's verdict
    EXPECT_EQ(Ctx.startupWindowReason(), "");
  }
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  M.launch(S, "k", 0, 5 * Us, 5 * Us, 15 * Us);
  M.runtime("cudaStreamBeginCapture", 10 * Us, 20 * Us);
  M.runtime("cudaLaunchKernel", 500 * Us, 505 * Us);
  M.runtime("cudaStreamEndCapture", 2990 * Us, 3 * Ms);
  M.runtime("cudaGraphInstantiate", 3 * Ms, 3100 * Us);
  model::Trace T = M.finish();
  TraceIndex Ctx(T);
  EXPECT_TRUE(Ctx.startup().tooLittleSteadyTime());
  EXPECT_NE(Ctx.startupWindowReason().find("window is start-up"),
            std::string::npos);
  EXPECT_NE(Ctx.startupWindowReason().find("leaving under 10.0 % to judge"),
            std::string::npos)
      << Ctx.startupWindowReason();
  std::vector<rules::Detection> Out;
  EXPECT_NE(run("S001", Ctx, Out).find("window is start-up"),
            std::string::npos);
  EXPECT_NE(run("L001", Ctx, Out).find("window is start-up"),
            std::string::npos);
  EXPECT_TRUE(Out.empty());
}

TEST(Startup, AStepThatIsMostlyCaptureIsStartup) {
  model::Trace T = hipCaptureStep();
  TraceIndex Ctx(T);
  const analysis::StartupWork &Scan = Ctx.startup();
  ASSERT_EQ(Scan.Captures.size(), 1u);
  EXPECT_EQ(Scan.Captures[0].Range.Begin, 1 * Ms);
  EXPECT_EQ(Scan.Captures[0].Range.End, 32 * Ms);
  // The 100 captured launches ran nothing; the graph launch did.
  EXPECT_EQ(Scan.CapturedLaunches, 100u);
  ASSERT_EQ(Scan.StepStartupNs.size(), 1u);
  EXPECT_EQ(Scan.StepStartupNs[0], 32 * Ms);
  EXPECT_EQ(Scan.TargetStartupNs, 32 * Ms);
  EXPECT_FALSE(Scan.windowIsStartup()); // it has steps
  EXPECT_TRUE(Scan.stepsAreStartup());
  EXPECT_NE(Ctx.startupWindowReason().find("the steps are start-up"),
            std::string::npos);
  std::vector<rules::Detection> Out;
  EXPECT_NE(run("L001", Ctx, Out).find("steps are start-up"),
            std::string::npos);
}

TEST(Startup, TorchGraphCaptureFramesBoundTheCapture) {
  // torch.cuda.graph recorded with with_stack=True: capture_begin and
  // capture_end frames around the runtime calls; the capture runs from the
  // first frame's start to the end frame's end.
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  M.launch(S, "k", 0, 5 * Us, 5 * Us, 15 * Us);
  M.add(M.Host, EventKind::Python, "torch/cuda/graphs.py(84): capture_begin",
        1 * Ms, 1100 * Us);
  M.runtime("cudaStreamBeginCapture", 1050 * Us, 1060 * Us);
  M.runtime("cudaLaunchKernel", 1500 * Us, 1505 * Us);
  M.add(M.Host, EventKind::Python, "torch/cuda/graphs.py(92): capture_end",
        2900 * Us, 3 * Ms);
  M.runtime("cudaStreamEndCapture", 2950 * Us, 2990 * Us);
  model::Trace T = M.finish();
  TraceIndex Ctx(T);
  const analysis::StartupWork &Scan = Ctx.startup();
  ASSERT_EQ(Scan.Captures.size(), 1u);
  EXPECT_EQ(Scan.Captures[0].Range.Begin, 1 * Ms);
  EXPECT_EQ(Scan.Captures[0].Range.End, 3 * Ms);
  EXPECT_EQ(Scan.CapturedLaunches, 1u);
  EXPECT_TRUE(Scan.HasCapture);
}

TEST(Startup, NamesTeardownCallsByCategory) {
  using model::NameClass;
  auto Is = [](llvm::StringRef Name, NameClass C) {
    return model::NameClassifier::builtin()->matches(Name, C);
  };
  EXPECT_TRUE(Is("cudaFree", NameClass::Deallocation));
  EXPECT_TRUE(Is("hipFree", NameClass::Deallocation));
  EXPECT_TRUE(Is("cuMemFree_v2", NameClass::Deallocation));
  EXPECT_TRUE(Is("cudaFreeHost", NameClass::Deallocation));
  EXPECT_TRUE(Is("cuModuleUnload", NameClass::ModuleUnload));
  EXPECT_TRUE(
      Is("cuDevicePrimaryCtxRelease_v2", NameClass::ContextDestruction));
  EXPECT_TRUE(Is("hipStreamDestroy", NameClass::HandleDestruction));
  // Stream-ordered frees and allocations are not teardown.
  for (NameClass C :
       {NameClass::ModuleUnload, NameClass::Deallocation,
        NameClass::ContextDestruction, NameClass::HandleDestruction})
    for (llvm::StringRef N : {"cudaFreeAsync", "cudaMalloc", "aten::free"})
      EXPECT_FALSE(Is(N, C)) << N.str();
}

} // namespace
