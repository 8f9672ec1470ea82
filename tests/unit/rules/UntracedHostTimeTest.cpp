//===- rules/UntracedHostTimeTest.cpp - T005 untraced host time -----------===//
#include "../DetectorTestSupport.h"

#include "gtest/gtest.h"

using namespace tracelint;
using namespace tracelint::testing;
using analysis::TraceIndex;
using model::EventKind;

namespace {

/// What covers the host's 800 us between the two launches of each step.
enum class Cover { Nothing, PythonFrame, HalfAnnotated };

/// Five 1 ms steps. In each, an op launches a 100 us kernel at 15 us; the
/// host then spends 40-840 us between submissions before another op
/// launches the next kernel at [855, 860) us. The device idles from 115 to
/// 860 us: 745 us, of which 5 us are inside the second launch call and
/// 740 us are host-other. The second op covers [850, 855) of that, so with
/// nothing recorded in between 735 us are untraced (73.5 % of the step).
model::Trace steps(Cover C) {
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  for (int K = 0; K < 5; ++K) {
    int64_t T0 = K * Ms;
    M.step(K + 1, T0, T0 + Ms);
    M.op("aten::mm", T0 + 5 * Us, T0 + 30 * Us);
    M.launch(S, "gemm", T0 + 10 * Us, T0 + 15 * Us, T0 + 15 * Us,
             T0 + 115 * Us);
    if (C == Cover::PythonFrame)
      M.add(M.Host, EventKind::Python, "model.py(42): preprocess", T0 + 40 * Us,
            T0 + 840 * Us);
    if (C == Cover::HalfAnnotated)
      M.add(M.Host, EventKind::Annotation, "preprocess", T0 + 40 * Us,
            T0 + 440 * Us);
    M.op("aten::add", T0 + 850 * Us, T0 + 870 * Us);
    M.launch(S, "add", T0 + 855 * Us, T0 + 860 * Us, T0 + 860 * Us,
             T0 + 960 * Us);
  }
  return M.finish();
}

TEST(UntracedHostTime, FiresWhenTheHostRunsUnrecordedCode) {
  model::Trace T = steps(Cover::Nothing);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("T005", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  const rules::Detection &D = Out.front();
  EXPECT_EQ(D.ImpactNs, 735 * Us);
  EXPECT_EQ(D.Values.at("value"), "735 us");
  EXPECT_EQ(D.Values.at("share"), "73.5 %");
  EXPECT_EQ(D.Values.at("longest"), "735 us");
  EXPECT_EQ(D.Values.at("recorded"), "framework ops and runtime API calls");
  EXPECT_EQ(D.Values.at("missing"),
            "Python frames, NVTX or annotation ranges and CPU samples");
  EXPECT_EQ(D.Subject, "untraced host time");
  EXPECT_EQ(D.Window, "steps 2-5");
}

TEST(UntracedHostTime, QuietWhenPythonFramesCoverTheHostWork) {
  // The frame covers [40, 840): 10 us stay untraced, 1 % of the step.
  model::Trace T = steps(Cover::PythonFrame);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("T005", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
}

TEST(UntracedHostTime, CountsOnlyTheUnannotatedPart) {
  // An annotation covers [40, 440): untraced [440, 850) = 410 us.
  model::Trace T = steps(Cover::HalfAnnotated);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("T005", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_EQ(Out.front().ImpactNs, 410 * Us);
  EXPECT_EQ(Out.front().Values.at("missing"), "Python frames and CPU samples");
}

TEST(UntracedHostTime, StepRangesAreNotRecordedWork) {
  // The host timeline leaves the step markers out of recorded work: in
  // step 1, [0, 5) and [30, 850) us lie inside no op or call, only the
  // step range, and are untraced; [870, 1000) is glue to the next step's
  // first op, on the launch path.
  model::Trace T = steps(Cover::Nothing);
  TraceIndex Ctx(T);
  EXPECT_EQ(Ctx.hostTimeIn(Ctx.mainFeeder(0), analysis::HostCause::Untraced,
                           {0, Ms}),
            5 * Us + 820 * Us);
}

TEST(UntracedHostTime, QuietUnderTheThreshold) {
  model::Trace T = steps(Cover::Nothing);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("T005", Ctx, Out, {{"min-share-of-step", 0.8}}), "");
  EXPECT_TRUE(Out.empty());
}

} // namespace
