//===- rules/WindowCutTest.cpp - T006 window-cut ===//
#include "../DetectorTestSupport.h"

#include "gtest/gtest.h"

using namespace tracelint;
using namespace tracelint::testing;
using analysis::TraceIndex;

namespace {

/// A slice: the host launches ten 1 ms kernels in its first 100 us (a
/// launch every 10 us, 5 us each) and its record ends at 95 us; the device
/// runs them back to back from 2 ms to 12 ms. Outside the host record:
/// [95 us, 12 ms), 11.905 ms of the 12 ms window; the device idles
/// [95 us, 2 ms) there. With \p Fire false a final synchronize holds the
/// host record to the device's end.
model::Trace slice(bool Fire) {
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  for (int I = 0; I < 10; ++I)
    M.launch(S, "kernel", I * 10 * Us, I * 10 * Us + 5 * Us, 2 * Ms + I * Ms,
             3 * Ms + I * Ms);
  if (!Fire)
    M.runtime("cudaDeviceSynchronize", 100 * Us, 12 * Ms);
  return M.finish();
}

TEST(WindowCut, FiresOnThePattern) {
  model::Trace T = slice(/*Fire=*/true);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("T006", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_EQ(Out[0].ImpactNs, 0);
  EXPECT_EQ(Out[0].Values.at("after").text(), "11.905 ms");
  EXPECT_EQ(Out[0].Values.at("cut_idle").text(), "1.905 ms");
  EXPECT_EQ(Out[0].Values.at("share").text(), "99.2 %");
  // The idle split names that idle "outside the host record"; inside it
  // only [55, 95) us, after the first launch's 50 us of latency, is an
  // unrecorded dependency, too little for S004 to report.
  EXPECT_EQ(Ctx.targetIdle().CutNs, 1905 * Us);
  EXPECT_EQ(Ctx.targetIdle().UnrecordedNs, 40 * Us);
  std::vector<rules::Detection> Stalls;
  EXPECT_EQ(run("S004", Ctx, Stalls), "");
  EXPECT_TRUE(Stalls.empty());
}

TEST(WindowCut, QuietWithoutIt) {
  model::Trace T = slice(/*Fire=*/false);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("T006", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
}

} // namespace
