//===- TraceBuilderTest.cpp - The invariants finish() establishes ---------===//
#include "model/TraceBuilder.h"

#include "llvm/ADT/bit.h"

#include "gtest/gtest.h"

#include <limits>
#include <random>
#include <set>
#include <string>

using namespace tracelint::model;

namespace {

class TraceBuilderTest : public ::testing::Test {
protected:
  Event make(uint32_t Lane, EventKind Kind, llvm::StringRef Name, int64_t Start,
             int64_t Duration, uint32_t Correlation = 0) {
    Event E;
    E.Lane = Lane;
    E.Kind = Kind;
    E.Name = B.strings().intern(Name);
    E.Start = Start;
    E.Duration = Duration;
    E.Correlation = Correlation;
    return E;
  }
  void add(uint32_t Lane, EventKind Kind, llvm::StringRef Name, int64_t Start,
           int64_t Duration, uint32_t Correlation = 0) {
    B.addEvent(make(Lane, Kind, Name, Start, Duration, Correlation));
  }
  static const Event &byName(const Trace &T, llvm::StringRef Name) {
    for (const Event &E : T.Events)
      if (T.name(E) == Name)
        return E;
    ADD_FAILURE() << "no event named " << Name.str();
    return T.Events.front();
  }

  TraceBuilder B;
};

TEST_F(TraceBuilderTest, NestingGivesDepthAndParent) {
  uint32_t L = B.lane(1, 1);
  // Out of order on purpose: finish() sorts by start.
  add(L, EventKind::Op, "D", 60, 30);
  add(L, EventKind::Op, "C", 20, 10);
  add(L, EventKind::Op, "A", 0, 100);
  add(L, EventKind::Op, "B", 10, 40);
  Trace T = B.finish();
  const Event &A = byName(T, "A"), &Bv = byName(T, "B"), &C = byName(T, "C"),
              &D = byName(T, "D");
  EXPECT_EQ(A.Depth, 0);
  EXPECT_EQ(A.Parent, NoIndex);
  EXPECT_EQ(Bv.Depth, 1);
  EXPECT_EQ(Bv.Parent, T.indexOf(A));
  EXPECT_EQ(C.Depth, 2);
  EXPECT_EQ(C.Parent, T.indexOf(Bv));
  EXPECT_EQ(D.Depth, 1);
  EXPECT_EQ(D.Parent, T.indexOf(A));
  // Sorted by start within the lane.
  ASSERT_EQ(T.Lanes.size(), 1u);
  EXPECT_EQ(T.name(T.Events[0]), "A");
  EXPECT_EQ(T.name(T.Events[3]), "D");
  EXPECT_EQ(T.Stats.get(ImportStat::NestingConflict), 0u);
}

TEST_F(TraceBuilderTest, BeginEndPairsMatchInnermostFirst) {
  uint32_t L = B.lane(1, 1);
  B.beginEvent(make(L, EventKind::Annotation, "outer", 10, 0));
  B.beginEvent(make(L, EventKind::Annotation, "inner", 20, 0));
  B.endEvent(L, 30);
  B.endEvent(L, 50);
  Trace T = B.finish();
  // Rebased to the earliest event (10).
  const Event &Outer = byName(T, "outer"), &Inner = byName(T, "inner");
  EXPECT_EQ(Outer.Start, 0);
  EXPECT_EQ(Outer.Duration, 40);
  EXPECT_EQ(Inner.Start, 10);
  EXPECT_EQ(Inner.Duration, 10);
  EXPECT_TRUE(Outer.hasFlag(FlagFromBeginEnd));
  EXPECT_EQ(Inner.Parent, T.indexOf(Outer));
  EXPECT_EQ(T.Stats.get(ImportStat::UnmatchedEnd), 0u);
  EXPECT_EQ(T.Stats.get(ImportStat::UnclosedBegin), 0u);
}

TEST_F(TraceBuilderTest, UnmatchedEndIsCounted) {
  uint32_t L = B.lane(1, 1);
  add(L, EventKind::Op, "op", 0, 5);
  B.endEvent(L, 7);
  Trace T = B.finish();
  EXPECT_EQ(T.Stats.get(ImportStat::UnmatchedEnd), 1u);
  EXPECT_EQ(T.Events.size(), 1u);
}

TEST_F(TraceBuilderTest, UnclosedBeginEndsAtWindowEnd) {
  uint32_t L = B.lane(1, 1), Other = B.lane(1, 2);
  B.beginEvent(make(L, EventKind::Annotation, "open", 10, 0));
  add(Other, EventKind::Op, "long", 0, 100);
  Trace T = B.finish();
  const Event &Open = byName(T, "open");
  EXPECT_EQ(Open.Duration, 90);
  EXPECT_TRUE(Open.hasFlag(FlagUnclosed));
  EXPECT_EQ(T.Stats.get(ImportStat::UnclosedBegin), 1u);
  EXPECT_EQ(T.WindowEnd, 100);
}

TEST_F(TraceBuilderTest, NegativeDurationIsClampedAndCounted) {
  uint32_t L = B.lane(1, 1);
  add(L, EventKind::Op, "neg", 10, -5);
  B.beginEvent(make(L, EventKind::Op, "backwards", 20, 0));
  B.endEvent(L, 15);
  Trace T = B.finish();
  EXPECT_EQ(byName(T, "neg").Duration, 0);
  EXPECT_TRUE(byName(T, "neg").hasFlag(FlagDurationFixed));
  EXPECT_EQ(byName(T, "backwards").Duration, 0);
  EXPECT_EQ(T.Stats.get(ImportStat::NegativeDuration), 2u);
}

TEST_F(TraceBuilderTest, AbsurdDurationIsClampedToOtherEvents) {
  uint32_t L = B.lane(1, 1), M = B.lane(1, 2);
  add(L, EventKind::Op, "a", 0, 500);
  add(M, EventKind::Op, "c", 200, 2000);
  add(L, EventKind::Op, "huge", 1000, std::numeric_limits<int64_t>::max() / 2);
  Trace T = B.finish();
  // The sane events end at 2200; the absurd one is cut there.
  const Event &Huge = byName(T, "huge");
  EXPECT_EQ(Huge.Duration, 1200);
  EXPECT_TRUE(Huge.hasFlag(FlagDurationFixed));
  EXPECT_EQ(T.Stats.get(ImportStat::AbsurdDuration), 1u);
  EXPECT_EQ(T.WindowEnd, 2200);
}

TEST_F(TraceBuilderTest, CorrelationLinksAnswerForCopiesAndOtherKinds) {
  // Links are found through an event's index in Trace::Events; a copy of an
  // event (not an element) and a correlated event of another kind (an op
  // that records the id) are answered by the key, the same as the element.
  uint32_t Host = B.lane(1, 1), Dev = B.lane(0, 7), Dev2 = B.lane(0, 8);
  B.setDeviceLane(Dev, 0, 7);
  B.setDeviceLane(Dev2, 0, 8);
  add(Host, EventKind::Op, "aten::copy_", 90, 40, 5);
  add(Host, EventKind::Runtime, "cudaMemcpyAsync", 100, 10, 5);
  add(Dev2, EventKind::Memcpy, "copy second", 150, 5, 5);
  add(Dev, EventKind::Kernel, "copy first", 120, 5, 5);
  Trace T = B.finish();
  const Event &First = byName(T, "copy first");
  const Event &Second = byName(T, "copy second");
  const uint32_t Call = T.launchOf(First);
  ASSERT_NE(Call, NoIndex);
  EXPECT_EQ(T.name(T.Events[Call]), "cudaMemcpyAsync");
  // The call's work in event order, whatever the lanes.
  llvm::ArrayRef<uint32_t> Work = T.deviceWorkOf(T.Events[Call]);
  ASSERT_EQ(Work.size(), 2u);
  EXPECT_LT(Work[0], Work[1]);
  EXPECT_TRUE(llvm::is_contained(Work, T.indexOf(First)));
  EXPECT_TRUE(llvm::is_contained(Work, T.indexOf(Second)));
  const Event Copy = First;
  EXPECT_EQ(T.launchOf(Copy), Call);
  const Event CallCopy = T.Events[Call];
  EXPECT_EQ(T.deviceWorkOf(CallCopy).size(), 2u);
  const Event &Op = byName(T, "aten::copy_");
  EXPECT_EQ(T.launchOf(Op), Call);
  EXPECT_EQ(T.deviceWorkOf(Op).size(), 2u);
  Event Unlinked = First;
  Unlinked.Correlation = 99;
  EXPECT_EQ(T.launchOf(Unlinked), NoIndex);
  EXPECT_TRUE(T.deviceWorkOf(Unlinked).empty());
}

TEST_F(TraceBuilderTest, CorrelationLinksHostCallsAndDeviceWork) {
  uint32_t Host = B.lane(1, 1), Dev = B.lane(0, 7);
  B.setDeviceLane(Dev, 0, 7);
  add(Host, EventKind::Runtime, "cudaLaunchKernel", 100, 10, 7);
  add(Dev, EventKind::Kernel, "k7", 120, 30, 7);
  add(Host, EventKind::Runtime, "cudaLaunchKernel", 200, 10, 8); // no kernel
  add(Dev, EventKind::Kernel, "k9", 300, 10, 9);                 // no launch
  add(Host, EventKind::Runtime, "cudaMemcpyAsync", 400, 10, 11); // not a launch
  Trace T = B.finish();
  const Event &K7 = byName(T, "k7");
  uint32_t Launch = T.launchOf(K7);
  ASSERT_NE(Launch, NoIndex);
  EXPECT_EQ(T.Events[Launch].Start, 0); // the call at raw 100
  EXPECT_EQ(T.Events[Launch].Correlation, 7u);
  llvm::ArrayRef<uint32_t> Work = T.deviceWorkOf(T.Events[Launch]);
  ASSERT_EQ(Work.size(), 1u);
  EXPECT_EQ(Work[0], T.indexOf(K7));
  EXPECT_EQ(T.launchOf(byName(T, "k9")), NoIndex);
  EXPECT_EQ(T.Stats.get(ImportStat::LaunchWithoutDevice), 1u);
  EXPECT_EQ(T.Stats.get(ImportStat::DeviceWithoutLaunch), 1u);
  EXPECT_EQ(T.Stats.get(ImportStat::DeviceBeforeLaunch), 0u);
  EXPECT_FALSE(K7.hasFlag(FlagBeforeLaunch));
  EXPECT_TRUE(T.hasDeviceLanes());
}

TEST_F(TraceBuilderTest, DeviceBeforeLaunchIsFlagged) {
  uint32_t Host = B.lane(1, 1), Dev = B.lane(0, 7);
  B.setDeviceLane(Dev, 0, 7);
  add(Host, EventKind::Runtime, "cudaLaunchKernel", 100, 10, 10);
  add(Dev, EventKind::Kernel, "early", 90, 30, 10);
  Trace T = B.finish();
  EXPECT_TRUE(byName(T, "early").hasFlag(FlagBeforeLaunch));
  EXPECT_EQ(T.Stats.get(ImportStat::DeviceBeforeLaunch), 1u);
}

TEST_F(TraceBuilderTest, StepsFromProfilerStepAnnotations) {
  uint32_t L = B.lane(1, 1);
  add(L, EventKind::Annotation, "ProfilerStep#4", 10, 20);
  add(L, EventKind::Annotation, "ProfilerStep#3", 0, 10);
  add(L, EventKind::Annotation, "ProfilerStep#x", 40, 5); // not a number
  add(L, EventKind::Op, "ProfilerStep#5", 50, 5);         // not an annotation
  Trace T = B.finish();
  EXPECT_EQ(T.StepsFrom, StepSource::ProfilerStep);
  ASSERT_EQ(T.Steps.size(), 2u);
  EXPECT_EQ(T.Steps[0].Number, 3);
  EXPECT_EQ(T.Steps[0].Start, 0);
  EXPECT_EQ(T.Steps[0].End, 10);
  EXPECT_EQ(T.Steps[1].Number, 4);
  EXPECT_EQ(T.Steps[1].duration(), 20);
  EXPECT_EQ(T.name(T.Events[T.Steps[1].Event]), "ProfilerStep#4");
}

TEST_F(TraceBuilderTest, NoStepsWithoutMarkers) {
  uint32_t L = B.lane(1, 1);
  add(L, EventKind::Op, "op", 0, 5);
  Trace T = B.finish();
  EXPECT_EQ(T.StepsFrom, StepSource::None);
  EXPECT_TRUE(T.Steps.empty());
}

TEST_F(TraceBuilderTest, RebaseToEarliestEvent) {
  uint32_t L = B.lane(1, 1), M = B.lane(1, 2);
  B.setBaseTimeNs(5000);
  add(L, EventKind::Op, "late", 1'000'300, 50);
  add(M, EventKind::Op, "first", 1'000'000, 100);
  Trace T = B.finish();
  EXPECT_EQ(T.OriginNs, 5000 + 1'000'000);
  EXPECT_EQ(byName(T, "first").Start, 0);
  EXPECT_EQ(byName(T, "late").Start, 300);
  EXPECT_EQ(T.WindowStart, 0);
  EXPECT_EQ(T.WindowEnd, 350);
}

TEST_F(TraceBuilderTest, BuilderIsEmptyAfterFinish) {
  uint32_t L = B.lane(1, 1);
  add(L, EventKind::Op, "op", 0, 5);
  Trace First = B.finish();
  EXPECT_EQ(B.numEvents(), 0u);
  Trace Second = B.finish();
  EXPECT_TRUE(Second.Events.empty());
  EXPECT_TRUE(Second.Lanes.empty());
  EXPECT_EQ(Second.WindowEnd, 0);
}

TEST_F(TraceBuilderTest, EqualArgumentsAreStoredOnce) {
  // Events draw their arguments from a few variants (0 and -0 occupancy
  // among them): each event reads back exactly what it was given, and the
  // model holds one entry per distinct set (equal to the bit).
  std::mt19937 Rng(7);
  auto Pick = [&](int Hi) {
    return std::uniform_int_distribution<int>(0, Hi)(Rng);
  };
  uint32_t L = B.lane(1, 1);
  std::vector<EventArgs> Given;
  for (int I = 0; I < 2000; ++I) {
    EventArgs A;
    A.Bytes = Pick(2) ? -1 : 4096 * Pick(3);
    A.Grid[1] = Pick(2);
    A.InputDims = B.strings().intern(Pick(1) ? "[[2, 3]]" : "[[3, 2]]");
    A.Occupancy = Pick(2) == 0 ? 0.0f : Pick(1) ? -0.0f : 50.0f;
    A.Copy = Pick(3) ? CopyKind::Unknown : CopyKind::HtoD;
    Given.push_back(A);
    B.addEvent(make(L, EventKind::Op, "op" + std::to_string(I), 10 * I, 5), &A);
  }
  Trace T = B.finish();
  auto Bytes = [](const EventArgs &A) {
    // The fields one by one (the struct's padding is not a field).
    return std::to_string(A.Bytes) + "," + std::to_string(A.Grid[1]) + "," +
           std::to_string(A.InputDims) + "," +
           std::to_string(llvm::bit_cast<uint32_t>(A.Occupancy)) + "," +
           std::to_string(int(A.Copy));
  };
  std::set<std::string> Distinct;
  for (const EventArgs &A : Given)
    Distinct.insert(Bytes(A));
  EXPECT_EQ(T.Args.size(), Distinct.size());
  EXPECT_LT(T.Args.size(), 200u);
  for (int I = 0; I < 2000; ++I) {
    const EventArgs *A = T.args(byName(T, "op" + std::to_string(I)));
    ASSERT_NE(A, nullptr);
    EXPECT_EQ(Bytes(*A), Bytes(Given[I])) << I;
    EXPECT_TRUE(*A == Given[I]) << I;
  }
}

TEST_F(TraceBuilderTest, ALargeTraceLinksAndNestsAsASmallOneDoes) {
  // From 65,536 events on, finish() builds the correlation map on a second
  // thread beside the nesting, flows and steps: the links, the nesting, the
  // flags and the counts must be what each event's layout says. 30,000 ops
  // each hold a launch; every seventh kernel starts before its launch,
  // every eleventh launch has no kernel, and a flow joins each fifth pair.
  uint32_t Host = B.lane(1, 1), Dev = B.lane(0, 7);
  B.setDeviceLane(Dev, 0, 7);
  constexpr int N = 30000;
  for (int I = 0; I < N; ++I) {
    const int64_t At = 1000 * int64_t(I);
    add(Host, EventKind::Op, "aten::op", At, 100);
    add(Host, EventKind::Runtime, "cudaLaunchKernel", At + 10, 20, I + 1);
    if (I % 11 != 10)
      add(Dev, EventKind::Kernel, "k", I % 7 == 6 ? At + 5 : At + 50, 30,
          I + 1);
    if (I % 5 == 0) {
      B.addFlowPoint(FlowKind::Launch, uint64_t(I + 1), true, Host, At + 15,
                     false);
      B.addFlowPoint(FlowKind::Launch, uint64_t(I + 1), false, Dev,
                     I % 7 == 6 ? At + 5 : At + 50, true);
    }
  }
  ASSERT_GE(B.numEvents(), size_t(1) << 16);
  Trace T = B.finish();
  uint64_t Early = 0, Linked = 0;
  for (uint32_t I = 0; I < T.Events.size(); ++I) {
    const Event &E = T.Events[I];
    if (E.Kind == EventKind::Runtime) {
      ASSERT_NE(E.Parent, NoIndex);
      EXPECT_EQ(T.name(T.Events[E.Parent]), "aten::op");
      EXPECT_EQ(T.deviceWorkOf(E).size(), E.Correlation % 11 == 0 ? 0u : 1u);
    }
    if (E.Kind != EventKind::Kernel)
      continue;
    const uint32_t L = T.launchOf(E);
    ASSERT_NE(L, NoIndex);
    EXPECT_EQ(T.Events[L].Correlation, E.Correlation);
    ++Linked;
    const bool Before = E.Correlation % 7 == 0;
    EXPECT_EQ(E.hasFlag(FlagBeforeLaunch), Before) << E.Correlation;
    Early += Before;
  }
  EXPECT_EQ(Linked, uint64_t(N - N / 11));
  EXPECT_EQ(T.Stats.get(ImportStat::DeviceBeforeLaunch), Early);
  EXPECT_EQ(T.Stats.get(ImportStat::LaunchWithoutDevice), uint64_t(N / 11));
  EXPECT_EQ(T.Stats.get(ImportStat::DeviceWithoutLaunch), 0u);
  EXPECT_EQ(T.Stats.get(ImportStat::NestingConflict), 0u);
  EXPECT_EQ(T.Flows.size(), size_t(N / 5));
}

} // namespace
