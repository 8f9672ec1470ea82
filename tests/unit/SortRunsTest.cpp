//===- SortRunsTest.cpp - support::sortRuns
//--------------------------------===//
//
// sortRuns merges the ordered runs it finds instead of sorting; with more
// runs than it merges it sorts. Either way the result is the sort's.
//
//===----------------------------------------------------------------------===//
#include "support/SortRuns.h"

#include "gtest/gtest.h"

#include <functional>
#include <random>
#include <vector>

namespace {

std::vector<int> randomRuns(std::mt19937 &Rng, int Runs, int MaxLength) {
  std::vector<int> Out;
  for (int R = 0; R < Runs; ++R) {
    int Value = std::uniform_int_distribution<int>(-50, 50)(Rng);
    const int Length = std::uniform_int_distribution<int>(0, MaxLength)(Rng);
    for (int K = 0; K < Length; ++K) {
      Out.push_back(Value);
      Value += std::uniform_int_distribution<int>(0, 3)(Rng); // ties too
    }
  }
  return Out;
}

TEST(SortRuns, GivesTheSortOfAnyNumberOfRuns) {
  for (unsigned Seed = 1; Seed <= 200; ++Seed) {
    std::mt19937 Rng(Seed);
    // Up to twice MaxRuns: both the merge and the fallback sort.
    const int Runs = std::uniform_int_distribution<int>(0, 20)(Rng);
    std::vector<int> Got = randomRuns(Rng, Runs, 12), Want = Got;
    std::sort(Want.begin(), Want.end());
    tracelint::support::sortRuns(Got, std::less<int>(), /*MaxRuns=*/10);
    EXPECT_EQ(Got, Want) << "seed " << Seed << ", " << Runs << " runs";
  }
}

TEST(SortRuns, LeavesOneRunAsItIs) {
  std::vector<int> V = {1, 2, 2, 5, 9};
  tracelint::support::sortRuns(V, std::less<int>());
  EXPECT_EQ(V, (std::vector<int>{1, 2, 2, 5, 9}));
  std::vector<int> Empty;
  tracelint::support::sortRuns(Empty, std::less<int>());
  EXPECT_TRUE(Empty.empty());
}

} // namespace
