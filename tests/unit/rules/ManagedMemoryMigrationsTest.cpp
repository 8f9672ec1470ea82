//===- rules/ManagedMemoryMigrationsTest.cpp - M009 managed-memory-migrations
//===//
#include "../DetectorTestSupport.h"

#include "gtest/gtest.h"

using namespace tracelint;
using namespace tracelint::testing;
using analysis::TraceIndex;

namespace {

/// Five 1 ms steps. In each, a kernel is launched at [5, 10) us on
/// stream 7. With \p Fire it touches managed pages: four 2 MB
/// host-to-device migrations of 100 us each, [20, 420) us, the device idle
/// while they run, then the kernel [430, 830) us with a 100 us migration
/// [500, 600) beside it, and a 50 us device-to-host migration [900, 950)
/// as the host reads the result. Migration time per step (a union): 550 us,
/// 55 % of the step; with no device work beside it: 450 us. Without
/// \p Fire the kernel runs [30, 430) us and nothing migrates.
model::Trace steps(bool Fire) {
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  model::EventArgs Up, Down;
  Up.Copy = model::CopyKind::HtoD;
  Up.Bytes = 2 << 20;
  Down.Copy = model::CopyKind::DtoH;
  Down.Bytes = 1 << 20;
  for (int K = 0; K < 5; ++K) {
    int64_t T0 = K * Ms;
    M.step(K + 1, T0, T0 + Ms);
    if (!Fire) {
      M.launch(S, "stencil", T0 + 5 * Us, T0 + 10 * Us, T0 + 30 * Us,
               T0 + 430 * Us);
      continue;
    }
    for (int P = 0; P < 4; ++P)
      M.add(S, model::EventKind::Migration, "Memcpy Unified HtoD",
            T0 + (20 + 100 * P) * Us, T0 + (120 + 100 * P) * Us, 0, &Up);
    M.launch(S, "stencil", T0 + 5 * Us, T0 + 10 * Us, T0 + 430 * Us,
             T0 + 830 * Us);
    M.add(S, model::EventKind::Migration, "Memcpy Unified HtoD", T0 + 500 * Us,
          T0 + 600 * Us, 0, &Up);
    M.add(S, model::EventKind::Migration, "Memcpy Unified DtoH", T0 + 900 * Us,
          T0 + 950 * Us, 0, &Down);
  }
  return M.finish();
}

TEST(ManagedMemoryMigrations, FiresOnThePattern) {
  model::Trace T = steps(/*Fire=*/true);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("M009", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  const rules::Detection &D = Out[0];
  EXPECT_EQ(D.ImpactNs, 550 * Us);
  EXPECT_EQ(D.Values.at("exposed").text(), "450 us");
  EXPECT_EQ(D.Values.at("beside_kernels").text(), "100 us");
  // Over the steady steps 2-5 (the first is start-up).
  EXPECT_EQ(D.Values.at("count").text(), "24");
  EXPECT_EQ(D.Values.at("up_count").text(), "5.0");
  EXPECT_EQ(D.Values.at("down_count").text(), "1.0");
  EXPECT_EQ(D.Values.at("kernels").text(), "stencil");
  EXPECT_EQ(D.Subject, "managed memory around stencil");
}

TEST(ManagedMemoryMigrations, StallsBehindMigrationsAreNotUnrecorded) {
  // The kernel was ready at 10 us and started at 430 us on an idle device:
  // the migrations, not an unrecorded dependency, held it (S004 quiet).
  model::Trace T = steps(/*Fire=*/true);
  TraceIndex Ctx(T);
  EXPECT_TRUE(Ctx.unrecordedStalls({0, 5 * Ms}).empty());
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("S004", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
  EXPECT_EQ(Ctx.migrating(0).length(), 5 * 550 * Us);
}

TEST(ManagedMemoryMigrations, QuietWithoutIt) {
  model::Trace T = steps(/*Fire=*/false);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("M009", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
}

TEST(ManagedMemoryMigrations, MigrationsOnALaneOfNoDeviceBelongToTheOneDevice) {
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  uint32_t Elsewhere = M.host(99);
  model::EventArgs Up;
  Up.Copy = model::CopyKind::HtoD;
  Up.Bytes = 1 << 20;
  for (int K = 0; K < 4; ++K) {
    int64_t T0 = K * Ms;
    M.step(K + 1, T0, T0 + Ms);
    M.add(Elsewhere, model::EventKind::Migration, "Unified Host-to-Device",
          T0 + 20 * Us, T0 + 420 * Us, 0, &Up);
    M.launch(S, "stencil", T0 + 5 * Us, T0 + 10 * Us, T0 + 430 * Us,
             T0 + 830 * Us);
  }
  model::Trace T = M.finish();
  TraceIndex Ctx(T);
  EXPECT_EQ(Ctx.migrating(0).length(), 4 * 400 * Us);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("M009", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_EQ(Out[0].Values.at("device").text(), "device 0");
  EXPECT_EQ(Out[0].Values.at("exposed").text(), "400 us");
}

} // namespace
