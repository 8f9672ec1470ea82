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

} // namespace
