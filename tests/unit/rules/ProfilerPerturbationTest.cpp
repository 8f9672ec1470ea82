//===- rules/ProfilerPerturbationTest.cpp - U004 profiler overhead --------===//
#include "../DetectorTestSupport.h"
#include "analysis/TraceFeatures.h"

#include "gtest/gtest.h"

using namespace tracelint;
using namespace tracelint::testing;
using analysis::TraceIndex;
using model::EventKind;

namespace {

/// Five 1 ms steps, each a launch and a 900 us kernel; \p Extra adds events
/// per step (step index, step start).
template <typename F> model::Trace steps(F Extra) {
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  for (int K = 0; K < 5; ++K) {
    int64_t T0 = K * Ms;
    M.step(K + 1, T0, T0 + Ms);
    M.launch(S, "k", T0 + 5 * Us, T0 + 10 * Us, T0 + 10 * Us, T0 + 910 * Us);
    Extra(M, K, T0);
  }
  return M.finish();
}

TEST(ProfilerPerturbation, OverheadInsideStepsIsAWarning) {
  // Steps 2-5 hold 40 us of buffer requests; step 3 also a 200 us flush
  // that overlaps the request by 20 us: unions 40, 220, 40, 40 us.
  model::Trace T = steps([](TraceMaker &M, int K, int64_t T0) {
    M.add(M.Host, EventKind::Overhead, "Activity Buffer Request", T0 + 900 * Us,
          T0 + 940 * Us);
    if (K == 2)
      M.add(M.Host, EventKind::Overhead, "CUPTI Buffer flush", T0 + 720 * Us,
            T0 + 920 * Us);
  });
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("U004", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  const rules::Detection &D = Out.front();
  EXPECT_EQ(D.ImpactNs, 220 * Us);
  EXPECT_EQ(D.Subject, "steps");
  EXPECT_EQ(D.Values.at("share"), "22.0 %");
  EXPECT_EQ(D.Values.at("count"), "5");
  ASSERT_TRUE(D.SeverityOverride.has_value());
  EXPECT_EQ(*D.SeverityOverride, rules::Severity::Warning);
  // The diff feature: the median of the steady steps' unions.
  analysis::FeatureValue F =
      analysis::measureFeature(Ctx, analysis::Feature::ProfilerOverhead, "");
  ASSERT_TRUE(F.Value.has_value());
  EXPECT_DOUBLE_EQ(*F.Value, double(40 * Us));
}

TEST(ProfilerPerturbation, ProfilerFramesCountOtherFramesDoNot) {
  model::Trace T = steps([](TraceMaker &M, int, int64_t T0) {
    M.add(M.Host, EventKind::Python, "torch/profiler/profiler.py(832): step",
          T0 + 920 * Us, T0 + 970 * Us);
    M.add(M.Host, EventKind::Python, "train.py(10): forward", T0 + 20 * Us,
          T0 + 900 * Us);
  });
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("U004", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_EQ(Out[0].ImpactNs, 50 * Us);
  EXPECT_NE(
      Out[0].Values.at("kinds").text().find("the profiler's own Python calls"),
      std::string::npos);
}

TEST(ProfilerPerturbation, SmallOrOutsideOverheadIsQuiet) {
  // 10 us per step (1 %) is under the 2 % default; a long flush after the
  // last step is outside every steady step.
  model::Trace T = steps([](TraceMaker &M, int K, int64_t T0) {
    M.add(M.Host, EventKind::Overhead, "Activity Buffer Request", T0 + 900 * Us,
          T0 + 910 * Us);
    if (K == 4)
      M.add(M.Host, EventKind::Overhead, "CUPTI Buffer flush", 5100 * Us,
            6 * Ms);
  });
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("U004", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
  EXPECT_EQ(run("U004", Ctx, Out, {{"min-share", 0.005}}), "");
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_EQ(Out[0].ImpactNs, 10 * Us);
}

TEST(ProfilerPerturbation, EdgeOverheadOfAWindowIsANote) {
  // No steps: profiler initialization [0, 2) ms before the first launch and
  // a flush at exit [6, 7) ms after the last; the work is [2, 5) ms.
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  M.add(M.Host, EventKind::Overhead, "CUDA profiling initialization", 0,
        2 * Ms);
  for (int K = 0; K < 3; ++K) {
    int64_t T0 = 2 * Ms + K * Ms;
    M.launch(S, "k", T0, T0 + 5 * Us, T0 + 5 * Us, T0 + 905 * Us);
  }
  M.add(M.Host, EventKind::Overhead, "CUDA profiling data flush", 6 * Ms,
        7 * Ms);
  model::Trace T = M.finish();
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("U004", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_EQ(Out[0].Subject, "window edges");
  EXPECT_EQ(Out[0].ImpactNs, 3 * Ms);
  EXPECT_EQ(*Out[0].SeverityOverride, rules::Severity::Info);
}

TEST(ProfilerPerturbation, OverheadAmongTheWorkOfAWindowIsAWarning) {
  // No steps: launches at 2, 3 and 4 ms and a 200 us buffer flush at
  // [3.5, 3.7) ms between them, 4.1 % of the 4.905 ms window.
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  for (int K = 0; K < 3; ++K) {
    int64_t T0 = 2 * Ms + K * Ms;
    M.launch(S, "k", T0, T0 + 5 * Us, T0 + 5 * Us, T0 + 905 * Us);
  }
  M.add(M.Host, EventKind::Overhead, "CUPTI Buffer flush", 3500 * Us,
        3700 * Us);
  model::Trace T = M.finish();
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("U004", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_EQ(Out[0].Subject, "among the work");
  EXPECT_EQ(Out[0].ImpactNs, 200 * Us);
  EXPECT_EQ(*Out[0].SeverityOverride, rules::Severity::Warning);
  EXPECT_EQ(Out[0].Values.at("example"),
            "CUPTI Buffer flush at +0.003500 s (200 us)");
}

} // namespace
