//===- rules/StartupInWindowTest.cpp - U001 start-up in the window --------===//
#include "../DetectorTestSupport.h"
#include "analysis/Startup.h"

#include "gtest/gtest.h"

using namespace tracelint;
using namespace tracelint::testing;
using analysis::TraceIndex;
using model::EventKind;

namespace {

/// 5 steps of 1 ms, each with one 500 us kernel; step 1 is 4 ms long and
/// holds cuModuleLoadData (1 ms) and cudaMalloc (1.5 ms).
model::Trace firstStepTrace() {
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  M.step(1, 0, 4 * Ms);
  M.add(M.Host, EventKind::Driver, "cuModuleLoadData", 100 * Us, 1100 * Us);
  M.runtime("cudaMalloc", 1200 * Us, 2700 * Us);
  M.launch(S, "k", 3 * Ms, 3005 * Us, 3005 * Us, 3505 * Us);
  for (int K = 1; K < 5; ++K) {
    int64_t T0 = 3 * Ms + K * Ms;
    M.step(K + 1, T0, T0 + Ms);
    M.launch(S, "k", T0, T0 + 5 * Us, T0 + 5 * Us, T0 + 505 * Us);
  }
  return M.finish();
}

TEST(StartupArtifactsDetector, AFirstStepOutlierIsStartupOfASteadyTarget) {
  model::Trace T = firstStepTrace();
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("U001", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  const rules::Detection &D = Out.front();
  EXPECT_EQ(D.Values.at("metric_kind"), "steady state");
  EXPECT_EQ(D.Values.at("ratio"), "4.0");
  EXPECT_EQ(D.Values.at("startup_time"), "2.5 ms");
  EXPECT_EQ(D.Values.at("warmup"), "1 more step");
  EXPECT_NE(
      D.Values.at("categories").text().find("context and module loading 1 ms"),
      std::string::npos);
  EXPECT_NE(D.Values.at("categories").text().find("allocator calls 1.5 ms"),
            std::string::npos);
  // The median step leaves the first step out: nothing to gain there.
  EXPECT_EQ(D.ImpactNs, 0);
  ASSERT_TRUE(D.SeverityOverride.has_value());
  EXPECT_EQ(*D.SeverityOverride, rules::Severity::Info);
  EXPECT_DOUBLE_EQ(D.Confidence, 0.8);
}

TEST(StartupArtifactsDetector, AGraphCaptureWindowIsStartup) {
  // No steps: the host captures a graph ([1, 3) ms between Begin and End
  // capture) and instantiates it; the device does almost nothing.
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  M.launch(S, "k", 0, 5 * Us, 5 * Us, 15 * Us);
  M.runtime("cudaStreamBeginCapture", 1 * Ms, 1010 * Us);
  M.runtime("cudaLaunchKernel", 1500 * Us, 1505 * Us);
  M.runtime("cudaStreamEndCapture", 2990 * Us, 3 * Ms);
  M.runtime("cudaGraphInstantiate", 3 * Ms, 4 * Ms);
  M.runtime("cudaDeviceSynchronize", 4 * Ms, 10 * Ms);
  model::Trace T = M.finish();
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("U001", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_EQ(Out[0].Values.at("metric_kind"), "start-up");
  EXPECT_EQ(*Out[0].SeverityOverride, rules::Severity::Warning);
  // The capture span and the instantiation: [1, 4) ms.
  EXPECT_EQ(Out[0].ImpactNs, 3 * Ms);
  // The steady-state rules cannot judge this window.
  Out.clear();
  EXPECT_NE(run("S001", Ctx, Out).find("window is start-up"),
            std::string::npos);
  EXPECT_NE(run("L001", Ctx, Out).find("window is start-up"),
            std::string::npos);
  EXPECT_TRUE(Out.empty());
}

TEST(StartupArtifactsDetector, RecurringCallsAreNotStartup) {
  // cudaMalloc in every step is allocator churn, not start-up; the steps
  // are equal, so nothing fires.
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  for (int K = 0; K < 5; ++K) {
    int64_t T0 = K * Ms;
    M.step(K + 1, T0, T0 + Ms);
    M.runtime("cudaMalloc", T0 + 10 * Us, T0 + 200 * Us);
    M.launch(S, "k", T0 + 300 * Us, T0 + 305 * Us, T0 + 305 * Us,
             T0 + 805 * Us);
  }
  model::Trace T = M.finish();
  TraceIndex Ctx(T);
  EXPECT_TRUE(Ctx.startup().Found.empty());
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("U001", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
}

TEST(StartupArtifactsDetector, CompiledCallsAreNotCompilation) {
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

TEST(StartupArtifactsDetector, QuietOnASteadyWindow) {
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  for (int K = 0; K < 5; ++K) {
    int64_t T0 = K * Ms;
    M.step(K + 1, T0, T0 + Ms);
    M.launch(S, "k", T0 + 5 * Us, T0 + 10 * Us, T0 + 10 * Us, T0 + 900 * Us);
  }
  model::Trace T = M.finish();
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("U001", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
}

TEST(StartupArtifactsDetector, ASlowFirstLaunchLoadsItsModule) {
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

} // namespace
