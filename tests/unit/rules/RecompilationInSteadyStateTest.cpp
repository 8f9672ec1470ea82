//===- rules/RecompilationInSteadyStateTest.cpp - C001 compiling in -------===//
#include "../DetectorTestSupport.h"

#include "gtest/gtest.h"

using namespace tracelint;
using namespace tracelint::testing;
using analysis::TraceIndex;

namespace {

/// One step's compiled call (t0 = step start, us): a cache lookup [10, 20),
/// then, when \p CompileUs > 0, a compile range \p Compile [30, 30 +
/// CompileUs), then region \p Region for 1 ms from 10 us after the compile
/// (or from 30 us), holding a kernel launch.
struct StepPlan {
  const char *Region = "Torch-Compiled Region: 0/0";
  int64_t CompileUs = 0;
  const char *Compile = "_compile.compile_inner (dynamo_timed)";
  model::EventKind CompileKind = model::EventKind::Annotation;
};

model::Trace trace(const std::vector<StepPlan> &Plan, bool Steps = true) {
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  for (size_t K = 0; K < Plan.size(); ++K) {
    int64_t T0 = int64_t(K) * 10 * Ms;
    if (Steps)
      M.step(int64_t(K) + 1, T0, T0 + 10 * Ms);
    M.op("TorchDynamo Cache Lookup", T0 + 10 * Us, T0 + 20 * Us);
    int64_t RS = T0 + 30 * Us;
    if (Plan[K].CompileUs > 0) {
      M.add(M.Host, Plan[K].CompileKind, Plan[K].Compile, T0 + 30 * Us,
            T0 + (30 + Plan[K].CompileUs) * Us);
      RS = T0 + (40 + Plan[K].CompileUs) * Us;
    }
    M.op(Plan[K].Region, RS, RS + Ms);
    M.launch(S, "triton_poi_fused_add_0", RS + 10 * Us, RS + 20 * Us,
             RS + 20 * Us, RS + 520 * Us);
  }
  return M.finish();
}

StepPlan compiling(const char *Region, int64_t Us = 6000) {
  StepPlan P;
  P.Region = Region;
  P.CompileUs = Us;
  return P;
}

TEST(RecompilationDetector, FiresOnCompilationInLaterSteps) {
  model::Trace T = trace({compiling("Torch-Compiled Region: 0/0"),
                          compiling("Torch-Compiled Region: 0/1"),
                          StepPlan{"Torch-Compiled Region: 0/1"},
                          compiling("Torch-Compiled Region: 0/2")});
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("C001", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  const rules::Detection &D = Out.front();
  // Steps 2 and 4 compile [20, 6040) us: 6.02 ms each; step 3 hits the
  // cache. Median over steps 2-4 of {6.02, 0, 6.02} ms.
  EXPECT_EQ(D.Values.at("compile_steps"), "2");
  EXPECT_EQ(D.Values.at("compile_total"), "12.04 ms");
  EXPECT_EQ(D.ImpactNs, 6020 * Us);
  EXPECT_EQ(D.Values.at("worst_step"), "2");
  EXPECT_EQ(D.Subject, "recompilation");
  EXPECT_DOUBLE_EQ(D.Confidence, 0.8);
  EXPECT_NE(D.Values.at("variants").text().find("0/2 (first run in step 4)"),
            std::string::npos)
      << D.Values.at("variants");
}

TEST(RecompilationDetector, OneRecompileDoesNotMoveTheMedian) {
  model::Trace T = trace({compiling("Torch-Compiled Region: 0/0"), StepPlan{},
                          compiling("Torch-Compiled Region: 0/1"),
                          StepPlan{"Torch-Compiled Region: 0/1"},
                          StepPlan{"Torch-Compiled Region: 0/1"}});
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("C001", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_EQ(Out[0].ImpactNs, 0);
  EXPECT_EQ(Out[0].Values.at("worst"), "6.02 ms");
}

TEST(RecompilationDetector, QuietWhenOnlyTheFirstStepCompiles) {
  model::Trace T =
      trace({compiling("Torch-Compiled Region: 0/0"), StepPlan{}, StepPlan{}});
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("C001", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
}

TEST(RecompilationDetector, LateRecompiledVariantWithoutCompileTime) {
  // 0/1 first runs in step 3 straight after its lookup: compiled before the
  // window, or not recorded. Reported, with less confidence.
  model::Trace T = trace({StepPlan{}, StepPlan{},
                          StepPlan{"Torch-Compiled Region: 0/1"}, StepPlan{}});
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("C001", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_DOUBLE_EQ(Out[0].Confidence, 0.4);
  EXPECT_EQ(Out[0].Values.at("compile_steps"), "0");
  EXPECT_FALSE(Out[0].ConfidenceNotes.empty());
}

TEST(RecompilationDetector, NewFrameFirstRunLateIsQuiet) {
  // Frame 1's first variant in step 3 without compile time: code the first
  // step did not reach, compiled earlier.
  model::Trace T = trace({StepPlan{}, StepPlan{},
                          StepPlan{"Torch-Compiled Region: 1/0"}, StepPlan{}});
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("C001", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
}

TEST(RecompilationDetector, PythonFramesOfTheCompilerCount) {
  StepPlan P = compiling("Torch-Compiled Region: 0/1", 3000);
  P.Compile = "torch/_dynamo/convert_frame.py(1002): _compile";
  P.CompileKind = model::EventKind::Python;
  model::Trace T = trace({compiling("Torch-Compiled Region: 0/0"), P,
                          StepPlan{"Torch-Compiled Region: 0/1"}});
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("C001", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  // [20, 3040) us in step 2.
  EXPECT_EQ(Out[0].Values.at("compile_total"), "3.02 ms");
}

TEST(RecompilationDetector, RuntimeFramesOfTheCompilerDoNotCount) {
  // Inductor's runtime helpers live in compile_fx.py too.
  StepPlan P;
  P.CompileUs = 3000;
  P.Compile = "torch/_inductor/compile_fx.py(1777): static_input";
  P.CompileKind = model::EventKind::Python;
  model::Trace T = trace({compiling("Torch-Compiled Region: 0/0"), P, P});
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("C001", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
}

TEST(RecompilationDetector, CannotJudgeWithoutSteps) {
  model::Trace T = trace({compiling("Torch-Compiled Region: 0/0"),
                          compiling("Torch-Compiled Region: 0/1")},
                         /*Steps=*/false);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  std::string Why = run("C001", Ctx, Out);
  EXPECT_NE(Why.find("cannot judge"), std::string::npos) << Why;
  // Without steps, warm-up compilation cannot be told from steady state.
  EXPECT_NE(Why.find("no step markers"), std::string::npos) << Why;
  EXPECT_TRUE(Out.empty());
}

TEST(RecompilationDetector, CannotJudgeOneStep) {
  // One step leaves no step after the warm-up to look at. Its compilation
  // takes most of it (start-up, U001), but more than a tenth is left, so
  // the rule judges it and says why it cannot.
  model::Trace T = trace({compiling("Torch-Compiled Region: 0/0")});
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  std::string Why = run("C001", Ctx, Out);
  EXPECT_NE(Why.find("has only one step"), std::string::npos) << Why;
  EXPECT_TRUE(Out.empty());
  EXPECT_TRUE(Ctx.startup().stepsAreStartup());
  EXPECT_FALSE(Ctx.startup().stepsAreStartup(0.99));
}

TEST(RecompilationDetector, QuietWithoutCompiledCode) {
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  M.op("aten::add", 0, 10 * Us);
  M.launch(S, "add_kernel", 2 * Us, 5 * Us, 5 * Us, 15 * Us);
  model::Trace T = M.finish();
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("C001", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
}

} // namespace
