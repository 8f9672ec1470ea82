//===- DecodeLoopTest.cpp - The decode-loop finder of L001 and L004 -------===//
//
// rules/detectors/DecodeLoop.h finds a repeated static decode loop; L004
// reports it and L001 leaves its launch idle out, so that the same time is
// claimed once. The layouts are those of DecodeLoopTraces.h.
//
//===----------------------------------------------------------------------===//
#include "rules/detectors/DecodeLoop.h"
#include "DecodeLoopTraces.h"
#include "DetectorTestSupport.h"

#include "gtest/gtest.h"

using namespace tracelint;
using namespace tracelint::testing;
using analysis::TraceIndex;
using rules::detect::DecodeLoop;
using rules::detect::DecodeLoopOptions;
using rules::detect::findDecodeLoop;

namespace {

TEST(DecodeLoop, DefaultsAreL004sOptions) {
  // L001 finds the loop it leaves to L004 with DecodeLoopOptions{}: unless
  // those defaults are L004's rule file, the two rules would disagree on
  // which loop L004 reports.
  const rules::RuleSpec *Spec = builtinRules().find("L004");
  ASSERT_NE(Spec, nullptr);
  const DecodeLoopOptions FromRule =
      rules::detect::decodeLoopOptions(rules::RuleOptions(*Spec));
  const DecodeLoopOptions Defaults;
  EXPECT_EQ(FromRule.MinKernels, Defaults.MinKernels);
  EXPECT_EQ(FromRule.MinRepeats, Defaults.MinRepeats);
  EXPECT_DOUBLE_EQ(FromRule.MinLaunchShare, Defaults.MinLaunchShare);
  EXPECT_DOUBLE_EQ(FromRule.MinLaunchOfIdle, Defaults.MinLaunchOfIdle);
  EXPECT_DOUBLE_EQ(FromRule.MinLoopShare, Defaults.MinLoopShare);
  EXPECT_DOUBLE_EQ(FromRule.MinTokenReads, Defaults.MinTokenReads);
  EXPECT_EQ(FromRule.Idle.MaxLaunchIntervalNs,
            Defaults.Idle.MaxLaunchIntervalNs);
  EXPECT_EQ(FromRule.Idle.MaxLaunchLatencyNs, Defaults.Idle.MaxLaunchLatencyNs);
  EXPECT_EQ(FromRule.Idle.KeepGaps, Defaults.Idle.KeepGaps);
}

TEST(DecodeLoop, PrefillIsNotPartOfTheLoop) {
  // 4 prefill kernels fill [5, 405) us; the decode starts at 500 us. The
  // loop begins with the first token's first kernel (510 us), and the
  // prefill's distinct names never repeat.
  model::Trace T = decodeTrace(12, 4, 4, 500 * Us);
  TraceIndex Ctx(T);
  std::optional<DecodeLoop> L = findDecodeLoop(Ctx, 0, DecodeLoopOptions{});
  ASSERT_TRUE(L.has_value());
  EXPECT_EQ(L->Range.Begin, 510 * Us);
  EXPECT_EQ(L->Repeats, 12u);
}

TEST(DecodeLoop, CutsALoopOutOfAWindow) {
  using rules::detect::intervalMinus;
  using V = std::vector<model::Interval>;
  EXPECT_EQ(intervalMinus({0, 100}, {20, 50}), (V{{0, 20}, {50, 100}}));
  EXPECT_EQ(intervalMinus({0, 100}, {0, 50}), (V{{50, 100}}));
  EXPECT_EQ(intervalMinus({0, 100}, {-10, 200}), V{});
  EXPECT_EQ(intervalMinus({0, 100}, {100, 200}), (V{{0, 100}}));
}

TEST(DecodeLoop, TheLoopIsClaimedByL004AndNotByL001) {
  // The same launch idle would make L001 fire (1520 us, 79 % of the
  // window); L001 leaves the reported loop out and finds only the 10 us
  // before it, so exactly one of the two rules claims the time.
  model::Trace T = decodeTrace(12, 4);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> L001, L004;
  EXPECT_EQ(run("L001", Ctx, L001), "");
  EXPECT_EQ(run("L004", Ctx, L004), "");
  EXPECT_TRUE(L001.empty());
  EXPECT_EQ(L004.size(), 1u);
  // Below min-tokens L004 stays quiet, and L001 keeps the time.
  model::Trace Short = decodeTrace(7, 4);
  TraceIndex ShortCtx(Short);
  L001.clear();
  L004.clear();
  EXPECT_EQ(run("L001", ShortCtx, L001), "");
  EXPECT_EQ(run("L004", ShortCtx, L004), "");
  EXPECT_EQ(L001.size(), 1u);
  EXPECT_TRUE(L004.empty());
}

} // namespace
