//===- rules/NoDeviceActivityTest.cpp - T001 no device activity -----------===//
#include "../DetectorTestSupport.h"

#include "gtest/gtest.h"

using namespace tracelint;
using namespace tracelint::testing;
using analysis::TraceIndex;
using model::EventKind;

namespace {

TEST(NoDeviceActivity, FiresOnLaunchesWithoutDeviceWork) {
  TraceMaker M;
  M.step(1, 0, Ms);
  M.runtime("cudaLaunchKernel", 10 * Us, 15 * Us);
  M.runtime("cudaLaunchKernel", 20 * Us, 25 * Us);
  model::Trace T = M.finish();
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("T001", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_EQ(Out[0].ImpactNs, 0);
  EXPECT_EQ(Out[0].Values.at("value"), "2 launch calls");
  EXPECT_EQ(Out[0].Values.at("runtime_calls"), "2");
  EXPECT_EQ(Out[0].Values.at("launches"), "2");
}

TEST(NoDeviceActivity, RuntimeCallsOrDeclaredDevicesAreEvidenceToo) {
  TraceMaker M;
  M.runtime("cudaGetDeviceProperties", 10 * Us, 15 * Us);
  model::Trace T = M.finish();
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("T001", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_EQ(Out[0].Values.at("value"), "1 accelerator runtime calls");

  TraceMaker N;
  N.op("aten::add", 10 * Us, 20 * Us);
  N.B.devices().push_back({});
  model::Trace U = N.finish();
  TraceIndex UCtx(U);
  Out.clear();
  EXPECT_EQ(run("T001", UCtx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_EQ(Out[0].Values.at("value"), "metadata naming 1 device");
}

TEST(NoDeviceActivity, ACpuOnlyTraceIsNotMissingItsDevice) {
  TraceMaker M;
  M.step(1, 0, Ms);
  M.op("aten::add", 10 * Us, 20 * Us);
  model::Trace T = M.finish();
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("T001", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
}

TEST(NoDeviceActivity, QuietWithDeviceWork) {
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  M.launch(S, "k", 0, 5 * Us, 5 * Us, 2 * Ms);
  model::Trace T = M.finish();
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("T001", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
}

} // namespace
