//===- IntervalsTest.cpp - Interval algebra and exclusive time ------------===//
#include "model/Intervals.h"
#include "model/TraceBuilder.h"

#include "gtest/gtest.h"

#include <random>

#include "UnitTestTimes.h"

using namespace tracelint::model;

using tracelint::testing::Ms;

namespace {

const Event &byName(const Trace &T, llvm::StringRef Name) {
  for (const Event &E : T.Events)
    if (T.name(E) == Name)
      return E;
  ADD_FAILURE() << "no event named " << Name.str();
  return T.Events.front();
}

void addHost(TraceBuilder &B, uint32_t Lane, llvm::StringRef Name,
             int64_t Start, int64_t End) {
  Event E;
  E.Lane = Lane;
  E.Kind = EventKind::Op;
  E.Name = B.strings().intern(Name);
  E.Start = Start;
  E.Duration = End - Start;
  B.addEvent(E);
}

TEST(IntervalsTest, ExclusiveTimeSubtractsImmediateChildrenOnly) {
  TraceBuilder B;
  uint32_t L = B.lane(1, 1);
  addHost(B, L, "parent", 0, 10);
  addHost(B, L, "child1", 2, 6);
  addHost(B, L, "child2", 7, 9);
  Trace T = B.finish();
  std::vector<int64_t> Self = exclusiveTimes(T);
  // 10 - (6 - 2) - (9 - 7) = 4.
  EXPECT_EQ(Self[T.indexOf(byName(T, "parent"))], 4);
  EXPECT_EQ(Self[T.indexOf(byName(T, "child1"))], 4);
  EXPECT_EQ(Self[T.indexOf(byName(T, "child2"))], 2);
}

TEST(IntervalsTest, GrandchildDoesNotChangeGrandparent) {
  TraceBuilder B;
  uint32_t L = B.lane(1, 1);
  addHost(B, L, "parent", 0, 10);
  addHost(B, L, "child1", 2, 6);
  addHost(B, L, "child2", 7, 9);
  addHost(B, L, "grandchild", 3, 4);
  Trace T = B.finish();
  std::vector<int64_t> Self = exclusiveTimes(T);
  EXPECT_EQ(Self[T.indexOf(byName(T, "parent"))], 4);
  // The grandchild is subtracted from its own parent only: 4 - 1 = 3.
  EXPECT_EQ(Self[T.indexOf(byName(T, "child1"))], 3);
  EXPECT_EQ(Self[T.indexOf(byName(T, "grandchild"))], 1);
}

TEST(IntervalsTest, OverlapIsCountedOnce) {
  IntervalSet S = IntervalSet::unionOf({{0, 4}, {2, 6}});
  EXPECT_EQ(S.length(), 6); // not 4 + 4
  ASSERT_EQ(S.parts().size(), 1u);
  EXPECT_EQ(S.parts()[0], (Interval{0, 6}));
}

TEST(IntervalsTest, BusyAndIdleInFixedWindow) {
  // [0, 4] and [4, 8] ms touch: busy 8 ms, idle 4 ms of a 12 ms window.
  IntervalSet S = IntervalSet::unionOf({{0, 4 * Ms}, {4 * Ms, 8 * Ms}});
  Interval Window{0, 12 * Ms};
  EXPECT_EQ(S.length(), 8 * Ms);
  EXPECT_EQ(S.lengthWithin(Window), 8 * Ms);
  EXPECT_EQ(S.idleWithin(Window), 4 * Ms);
  // Adjacent parts merge: the set stays disjoint and non-adjacent.
  EXPECT_EQ(S.parts().size(), 1u);
}

TEST(IntervalsTest, UnsortedInputAndPartialWindow) {
  IntervalSet S = IntervalSet::unionOf({{20, 30}, {0, 5}, {3, 8}});
  EXPECT_EQ(S.length(), 8 + 10);
  // [4, 25): covers [4, 8) and [20, 25).
  EXPECT_EQ(S.lengthWithin({4, 25}), 4 + 5);
  EXPECT_EQ(S.idleWithin({4, 25}), 21 - 9);
}

TEST(IntervalsTest, GapsWithin) {
  IntervalSet S = IntervalSet::unionOf({{2, 4}, {6, 8}});
  std::vector<Interval> Gaps = S.gapsWithin({0, 10});
  std::vector<Interval> Want = {{0, 2}, {4, 6}, {8, 10}};
  EXPECT_EQ(Gaps, Want);
  // A window that starts and ends inside parts.
  Want = {{4, 6}};
  EXPECT_EQ(S.gapsWithin({3, 7}), Want);
  // A window entirely inside one part has no gap.
  EXPECT_TRUE(S.gapsWithin({6, 8}).empty());
}

TEST(IntervalsTest, Intersect) {
  IntervalSet A = IntervalSet::unionOf({{0, 5}, {10, 15}});
  IntervalSet B = IntervalSet::unionOf({{3, 12}});
  IntervalSet C = A.intersect(B);
  std::vector<Interval> Want = {{3, 5}, {10, 12}};
  EXPECT_EQ(std::vector<Interval>(C.parts().begin(), C.parts().end()), Want);
  EXPECT_EQ(C.length(), 4);
  EXPECT_EQ(B.intersect(A).length(), 4);
  // Touching is not overlapping.
  EXPECT_TRUE(IntervalSet::unionOf({{0, 5}})
                  .intersect(IntervalSet::unionOf({{5, 9}}))
                  .empty());
}

TEST(IntervalsTest, EmptyCases) {
  IntervalSet None = IntervalSet::unionOf({});
  EXPECT_TRUE(None.empty());
  EXPECT_EQ(None.length(), 0);
  EXPECT_EQ(None.idleWithin({0, 10}), 10);
  std::vector<Interval> Whole = {{0, 10}};
  EXPECT_EQ(None.gapsWithin({0, 10}), Whole);
  // Empty and inverted intervals are ignored.
  EXPECT_TRUE(IntervalSet::unionOf({{5, 5}, {7, 3}}).empty());
  // An empty window has no length, no idle time and no gaps.
  IntervalSet S = IntervalSet::unionOf({{0, 10}});
  EXPECT_EQ(S.lengthWithin({4, 4}), 0);
  EXPECT_EQ(S.idleWithin({4, 4}), 0);
  EXPECT_TRUE(None.gapsWithin({4, 4}).empty());
  EXPECT_TRUE(S.intersect(None).empty());
  EXPECT_TRUE(None.intersect(S).empty());
}

TEST(IntervalsTest, ExclusiveTimesOfEmptyTrace) {
  Trace T = TraceBuilder().finish();
  EXPECT_TRUE(exclusiveTimes(T).empty());
}

TEST(IntervalsTest, UnionOfRunsIsTheUnionOfTheSortedParts) {
  // unionOf merges runs that are already in order and sorts past 64 runs:
  // either way the union must be the brute-force one, a point-by-point
  // cover, for inputs of one run, a few, many, and with empty parts.
  std::mt19937 Rng(11);
  auto Pick = [&](int64_t Lo, int64_t Hi) {
    return std::uniform_int_distribution<int64_t>(Lo, Hi)(Rng);
  };
  for (int Trial = 0; Trial < 300; ++Trial) {
    const int Runs = Trial % 3 == 0   ? 1
                     : Trial % 3 == 1 ? int(Pick(2, 8))
                                      : int(Pick(60, 90));
    std::vector<Interval> In;
    for (int R = 0; R < Runs; ++R) {
      int64_t At = Pick(0, 50);
      for (int K = int(Pick(0, 12)); K > 0; --K) {
        At += Pick(0, 6);
        In.push_back({At, At + Pick(-2, 9)}); // some empty or reversed
      }
    }
    std::vector<bool> Covered(200, false);
    for (const Interval &I : In)
      for (int64_t T = I.Begin; T < I.End; ++T)
        Covered[size_t(T)] = true;
    IntervalSet U = IntervalSet::unionOf(In);
    std::vector<bool> Got(200, false);
    int64_t LastEnd = -1;
    for (const Interval &P : U.parts()) {
      EXPECT_LT(P.Begin, P.End);
      EXPECT_GT(P.Begin, LastEnd) << "parts overlap or touch";
      LastEnd = P.End;
      for (int64_t T = P.Begin; T < P.End; ++T)
        Got[size_t(T)] = true;
    }
    EXPECT_EQ(Got, Covered) << "trial " << Trial;
  }
}

TEST(IntervalsTest, CoveredWithinIsTheUnionsLengthInTheWindow) {
  // coveredWithin reads each set only inside the window: it must give the
  // length, inside the window, of the union of all the sets, counting time
  // that two sets cover once.
  std::mt19937 Rng(5);
  auto Pick = [&](int64_t Lo, int64_t Hi) {
    return std::uniform_int_distribution<int64_t>(Lo, Hi)(Rng);
  };
  for (int Trial = 0; Trial < 200; ++Trial) {
    std::vector<IntervalSet> Sets;
    std::vector<Interval> All;
    for (int S = int(Pick(0, 4)); S > 0; --S) {
      std::vector<Interval> Parts;
      for (int K = int(Pick(0, 10)); K > 0; --K) {
        const int64_t At = Pick(0, 150);
        Parts.push_back({At, At + Pick(0, 30)});
      }
      All.insert(All.end(), Parts.begin(), Parts.end());
      Sets.push_back(IntervalSet::unionOf(Parts));
    }
    std::vector<const IntervalSet *> Ptrs;
    for (const IntervalSet &S : Sets)
      Ptrs.push_back(&S);
    const int64_t A = Pick(0, 150);
    const Interval W{A, A + Pick(0, 60)};
    EXPECT_EQ(IntervalSet::coveredWithin(Ptrs, W),
              IntervalSet::unionOf(All).lengthWithin(W))
        << "trial " << Trial;
  }
}

} // namespace
