//===- ConfidencePenaltiesTest.cpp - Trace quality lowers confidence ------===//
//
// TraceIndex::confidencePenalties(): the facts about a trace's quality that
// the engine turns into lower confidence, with a note, for the rules that
// rely on them (T002, T003 and T004 report the same facts).
//
//===----------------------------------------------------------------------===//
#include "DetectorTestSupport.h"

#include "gtest/gtest.h"

using namespace tracelint;
using namespace tracelint::testing;
using analysis::TraceIndex;

namespace {

TEST(ConfidencePenalties, OneStepLowersConfidenceVisibly) {
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  M.step(1, 0, Ms);
  M.launch(S, "k", 10 * Us, 15 * Us, 15 * Us, 20 * Us);
  model::Trace T = M.finish();
  TraceIndex Ctx(T);
  std::vector<analysis::ConfidencePenalty> P = Ctx.confidencePenalties();
  ASSERT_EQ(P.size(), 1u);
  EXPECT_DOUBLE_EQ(P[0].Factor, 0.7);
  EXPECT_NE(P[0].Note.find("only 1 step"), std::string::npos);
  EXPECT_TRUE(P[0].Affects.empty());
}

} // namespace
