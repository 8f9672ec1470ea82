//===- StepsTest.cpp - Steps from named ranges (--step NAME) --------------===//
#include "model/Steps.h"
#include "model/TraceBuilder.h"

#include "gtest/gtest.h"

using namespace tracelint::model;

namespace {

void add(TraceBuilder &B, uint32_t Lane, EventKind Kind, llvm::StringRef Name,
         int64_t Start, int64_t End) {
  Event E;
  E.Lane = Lane;
  E.Kind = Kind;
  E.Name = B.strings().intern(Name);
  E.Start = Start;
  E.Duration = End - Start;
  B.addEvent(E);
}

TEST(StepsTest, NamedRangesOnTheBusiestThreadBecomeSteps) {
  TraceBuilder B;
  uint32_t Main = B.lane(1, 1), Loader = B.lane(1, 2), Dev = B.lane(0, 7);
  B.setDeviceLane(Dev, 0, 7);
  add(B, Main, EventKind::Annotation, "ProfilerStep#3", 0, 400);
  add(B, Main, EventKind::Annotation, "iter", 0, 100);
  add(B, Main, EventKind::Annotation, "iter", 100, 250);
  // Nested in the previous iter: part of it, not a step of its own.
  add(B, Main, EventKind::Annotation, "iter", 120, 130);
  add(B, Main, EventKind::Annotation, "iter", 250, 300);
  // Another thread with fewer such ranges, a device lane with more, an op
  // and an instant of the same name: none of them count.
  add(B, Loader, EventKind::Annotation, "iter", 0, 400);
  for (int I = 0; I < 5; ++I)
    add(B, Dev, EventKind::Annotation, "iter", I * 10, I * 10 + 5);
  add(B, Main, EventKind::Op, "iter", 300, 310);
  Trace T = B.finish();
  ASSERT_EQ(T.StepsFrom, StepSource::ProfilerStep);

  EXPECT_EQ(defineStepsFromRanges(T, "iter"), 3u);
  EXPECT_EQ(T.StepsFrom, StepSource::Named);
  ASSERT_EQ(T.Steps.size(), 3u);
  EXPECT_EQ(T.Steps[0].Number, 0);
  EXPECT_EQ(T.Steps[0].Start, 0);
  EXPECT_EQ(T.Steps[0].End, 100);
  EXPECT_EQ(T.Steps[1].Start, 100);
  EXPECT_EQ(T.Steps[1].End, 250);
  EXPECT_EQ(T.Steps[2].Number, 2);
  EXPECT_EQ(T.Steps[2].Start, 250);
  EXPECT_EQ(T.Events[T.Steps[2].Event].Lane, Main);
}

TEST(StepsTest, UnknownNameLeavesStepsAlone) {
  TraceBuilder B;
  uint32_t Main = B.lane(1, 1);
  add(B, Main, EventKind::Annotation, "ProfilerStep#1", 0, 10);
  add(B, Main, EventKind::Annotation, "fwd", 0, 5);
  add(B, Main, EventKind::Annotation, "fwd", 5, 8);
  add(B, Main, EventKind::Annotation, "bwd", 8, 10);
  Trace T = B.finish();
  EXPECT_EQ(defineStepsFromRanges(T, "train"), 0u);
  EXPECT_EQ(T.StepsFrom, StepSource::ProfilerStep);
  EXPECT_EQ(T.Steps.size(), 1u);

  auto Names = frequentRangeNames(T, 2);
  ASSERT_EQ(Names.size(), 2u);
  EXPECT_EQ(Names[0].first, "fwd");
  EXPECT_EQ(Names[0].second, 2u);
  EXPECT_EQ(Names[1].first, "ProfilerStep#1"); // ties by name: 'P' < 'b'
}

TEST(StepsTest, RepeatedIterationRangesAreChosenAsSteps) {
  // Six 100-unit "iteration" ranges covering the window, each holding a
  // 30-unit "solve" phase, and a short "launch" range repeated 50 times:
  // "iteration" covers the most time and wins; the others are phases.
  TraceBuilder B;
  uint32_t Main = B.lane(1, 1);
  for (int I = 0; I < 6; ++I) {
    add(B, Main, EventKind::Annotation, "iteration", I * 100, I * 100 + 100);
    add(B, Main, EventKind::Annotation, "solve", I * 100 + 10, I * 100 + 40);
  }
  for (int I = 0; I < 50; ++I)
    add(B, Main, EventKind::Annotation, "launch", I * 12, I * 12 + 1);
  Trace T = B.finish();
  ASSERT_EQ(T.StepsFrom, StepSource::None);
  EXPECT_EQ(iterationRanges(T), "iteration");
  EXPECT_TRUE(T.Steps.empty()) << "the caller defines the steps";
  EXPECT_EQ(defineStepsFromRanges(T, "iteration"), 6u);
  EXPECT_EQ(T.StepRangeName, "iteration");
  // A trace with steps keeps them.
  EXPECT_EQ(iterationRanges(T), "");
}

TEST(StepsTest, RangesThatDoNotLookLikeIterationsAreNotChosen) {
  {
    // Lengths all over the place: 10, 400, 20, 300 (under three in four
    // within half and twice the median).
    TraceBuilder B;
    uint32_t Main = B.lane(1, 1);
    int64_t At = 0;
    for (int64_t D : {10, 400, 20, 300}) {
      add(B, Main, EventKind::Annotation, "phase", At, At + D);
      At += D;
    }
    Trace T = B.finish();
    EXPECT_EQ(iterationRanges(T), "");
    EXPECT_TRUE(T.Steps.empty());
  }
  {
    // Similar ranges covering under a quarter of the window.
    TraceBuilder B;
    uint32_t Main = B.lane(1, 1);
    for (int I = 0; I < 4; ++I)
      add(B, Main, EventKind::Annotation, "tick", I * 100, I * 100 + 5);
    add(B, Main, EventKind::Annotation, "setup", 0, 1000);
    Trace T = B.finish();
    EXPECT_EQ(iterationRanges(T), "");
  }
  {
    // Two ranges are not a loop.
    TraceBuilder B;
    uint32_t Main = B.lane(1, 1);
    add(B, Main, EventKind::Annotation, "iteration", 0, 100);
    add(B, Main, EventKind::Annotation, "iteration", 100, 200);
    Trace T = B.finish();
    EXPECT_EQ(iterationRanges(T), "");
  }
}

} // namespace
