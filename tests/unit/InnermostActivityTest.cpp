//===- InnermostActivityTest.cpp - detect::forInnermostActivity -----------===//
//
// How a stretch of host time is split by the innermost host activity that
// covers each instant (rules/detectors/DetectorSupport.h), as L002 names
// the op that held the host.
//
//===----------------------------------------------------------------------===//
#include "DetectorTestSupport.h"
#include "rules/detectors/DetectorSupport.h"

#include "gtest/gtest.h"

#include <map>

using namespace tracelint;
using namespace tracelint::testing;

namespace {

TEST(InnermostActivity, SplitsAPieceByTheDeepestEvent) {
  // outer [0, 100) > inner [20, 50) > runtime [30, 40); a step marker
  // [0, 200) is not host activity. Piece [10, 150).
  TraceMaker M;
  M.step(1, 0, 200);
  M.op("outer", 0, 100);
  M.op("inner", 20, 50);
  M.runtime("cudaMalloc", 30, 40);
  model::Trace T = M.finish();
  std::map<std::string, int64_t> By;
  rules::detect::forInnermostActivity(
      T, 0, {10, 150}, [&](uint32_t I, int64_t Ns) {
        By[I == model::NoIndex ? "-" : T.name(T.Events[I]).str()] += Ns;
      });
  // outer: [10, 20) + [50, 100) = 60; inner: [20, 30) + [40, 50) = 20;
  // cudaMalloc 10; nothing: [100, 150) = 50.
  EXPECT_EQ(By["outer"], 60);
  EXPECT_EQ(By["inner"], 20);
  EXPECT_EQ(By["cudaMalloc"], 10);
  EXPECT_EQ(By["-"], 50);
}

} // namespace
