//===- HtmlTimelineTest.cpp - The cards' mini-timelines -------------------===//
//
// The time-to-x mapping and its ticks, and what a card draws: the flagged
// events, their launch links, the lanes involved, and a bounded number of
// neighbours in the window, the longest first.
//
//===----------------------------------------------------------------------===//
#include "DetectorTestSupport.h"

#include "report/HtmlBuilder.h"
#include "report/HtmlTimeline.h"

#include "llvm/ADT/STLExtras.h"

#include "gtest/gtest.h"

using namespace tracelint;
using namespace tracelint::report;
using namespace tracelint::testing;
using model::EventKind;

namespace {

TEST(TimeAxisTest, MapsTheWindowOntoThePlot) {
  TimeAxis A{1000, 3000, 100, 800};
  EXPECT_DOUBLE_EQ(A.x(1000), 100);
  EXPECT_DOUBLE_EQ(A.x(3000), 900);
  EXPECT_DOUBLE_EQ(A.x(2000), 500);
  EXPECT_DOUBLE_EQ(A.x(1500), 300);
  // Outside the window: clamped to the edges.
  EXPECT_DOUBLE_EQ(A.x(0), 100);
  EXPECT_DOUBLE_EQ(A.x(5000), 900);
  // An empty window maps everything to its left edge.
  TimeAxis Empty{10, 10, 5, 100};
  EXPECT_DOUBLE_EQ(Empty.x(10), 5);
}

TEST(TimeAxisTest, TicksStepOneTwoFive) {
  // 0..10 us with at most 6 ticks: every 2 us.
  TimeAxis A{0, 10 * Us, 0, 100};
  EXPECT_EQ(A.ticks(6),
            (std::vector<int64_t>{0, 2 * Us, 4 * Us, 6 * Us, 8 * Us, 10 * Us}));
  // 3..47 us: 10 us steps, on round times inside the window.
  TimeAxis B{3 * Us, 47 * Us, 0, 100};
  EXPECT_EQ(B.ticks(6),
            (std::vector<int64_t>{10 * Us, 20 * Us, 30 * Us, 40 * Us}));
  // 0..1 s with at most 3: every 500 ms.
  TimeAxis C{0, 1000 * Ms, 0, 100};
  EXPECT_EQ(C.ticks(3), (std::vector<int64_t>{0, 500 * Ms, 1000 * Ms}));
  EXPECT_TRUE(C.ticks(0).empty());
}

/// A host thread launching kernels on one stream, plus a second thread and
/// stream that have nothing to do with the flagged launch.
struct Layout {
  TraceMaker M;
  uint32_t S7 = 0, S9 = 0, Other = 0;
  model::Trace T;
  Layout() {
    S7 = M.stream(0, 7);
    S9 = M.stream(0, 9);
    Other = M.host(2);
    // The flagged kernel: launched at 100-110 us, runs 200-300 us.
    M.launch(S7, "flagged_kernel", 100 * Us, 110 * Us, 200 * Us, 300 * Us);
    // Neighbours on stream 7 inside the window, of different lengths.
    for (int I = 0; I < 5; ++I)
      M.add(S7, EventKind::Kernel, "n" + std::to_string(I), (150 + 8 * I) * Us,
            (150 + 8 * I + 1 + I) * Us);
    // Far outside the window.
    M.add(S7, EventKind::Kernel, "late", 900 * Us, 950 * Us);
    // Lanes not involved.
    M.add(S9, EventKind::Kernel, "elsewhere", 200 * Us, 250 * Us);
    M.add(Other, EventKind::Op, "other_thread", 200 * Us, 250 * Us);
    T = M.finish();
  }
  uint32_t find(llvm::StringRef Name) const {
    for (uint32_t I = 0; I < T.Events.size(); ++I)
      if (T.name(T.Events[I]) == Name)
        return I;
    return model::NoIndex;
  }
};

std::vector<std::string> names(const model::Trace &T,
                               const TimelineSelection &S, TimelineRole R) {
  std::vector<std::string> Out;
  for (const TimelineEvent &E : S.Events)
    if (E.Role == R)
      Out.push_back(T.name(T.Events[E.Event]).str());
  llvm::sort(Out);
  return Out;
}

TEST(SelectTimelineTest, FlaggedEventsTheirLaunchAndTheirLanes) {
  Layout L;
  analysis::TraceIndex Ctx(L.T);
  uint32_t K = L.find("flagged_kernel");
  TimelineSelection S = selectTimeline(Ctx, {K}, 10);
  EXPECT_EQ(names(L.T, S, TimelineRole::Flagged),
            std::vector<std::string>{"flagged_kernel"});
  EXPECT_EQ(names(L.T, S, TimelineRole::Linked),
            std::vector<std::string>{"cudaLaunchKernel"});
  ASSERT_EQ(S.Links.size(), 1u);
  EXPECT_EQ(S.Links[0].Device, K);
  EXPECT_EQ(L.T.name(L.T.Events[S.Links[0].Launch]), "cudaLaunchKernel");
  // The host thread first, then stream 7; not stream 9 nor thread 2.
  ASSERT_EQ(S.Lanes.size(), 2u);
  EXPECT_EQ(L.T.Lanes[S.Lanes[0]].Kind, model::LaneKind::HostThread);
  EXPECT_EQ(L.T.Lanes[S.Lanes[1]].Stream, 7);
  // The window: 100-300 us, padded by an eighth of 200 us on each side.
  EXPECT_EQ(S.Begin, 75 * Us);
  EXPECT_EQ(S.End, 325 * Us);
  // Every neighbour in the window, none outside it.
  EXPECT_EQ(names(L.T, S, TimelineRole::Neighbour),
            (std::vector<std::string>{"n0", "n1", "n2", "n3", "n4"}));
  EXPECT_EQ(S.LeftOut, 0u);
}

TEST(SelectTimelineTest, NeighboursAreCappedLongestFirst) {
  Layout L;
  analysis::TraceIndex Ctx(L.T);
  TimelineSelection S = selectTimeline(Ctx, {L.find("flagged_kernel")}, 2);
  // n4 (5 us) and n3 (4 us) are the longest; three are left out.
  EXPECT_EQ(names(L.T, S, TimelineRole::Neighbour),
            (std::vector<std::string>{"n3", "n4"}));
  EXPECT_EQ(S.LeftOut, 3u);
  // The flagged event and its link are always drawn.
  EXPECT_EQ(names(L.T, S, TimelineRole::Flagged).size(), 1u);
  EXPECT_EQ(names(L.T, S, TimelineRole::Linked).size(), 1u);
}

TEST(SelectTimelineTest, NothingFlaggedDrawsNothing) {
  Layout L;
  analysis::TraceIndex Ctx(L.T);
  TimelineSelection S = selectTimeline(Ctx, {}, 10);
  EXPECT_TRUE(S.Events.empty());
  EXPECT_TRUE(S.Lanes.empty());
}

TEST(ExampleLocatorTest, FindsTheExampleByLaneOffsetAndName) {
  Layout L;
  analysis::TraceIndex Ctx(L.T);
  ExampleLocator Locate(Ctx);
  uint32_t K = L.find("flagged_kernel");
  rules::ExampleEvent E;
  E.Name = "flagged_kernel";
  E.Lane = Ctx.describeLane(L.T.laneOf(L.T.Events[K]));
  E.OffsetNs = Ctx.traceOffsetNs(L.T.Events[K]);
  E.DurationNs = L.T.Events[K].Duration;
  EXPECT_EQ(Locate.find(E), K);
  E.Name = "another_kernel";
  EXPECT_EQ(Locate.find(E), model::NoIndex);
  E.Name = "flagged_kernel";
  E.Lane = "device 3 stream 1";
  EXPECT_EQ(Locate.find(E), model::NoIndex);
}

TEST(HtmlBuilderTest, EscapesTextAndAttributes) {
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  {
    HtmlBuilder H(OS);
    H.open("p", {{"title", "a\"><script>x</script>"}});
    H.text("<img src=x onerror=alert(1)>");
    H.close();
  }
  OS.flush();
  EXPECT_EQ(Out.find("<script>"), std::string::npos);
  EXPECT_EQ(Out.find("<img"), std::string::npos);
  EXPECT_NE(Out.find("&lt;img src=x onerror=alert(1)&gt;"), std::string::npos);
  EXPECT_NE(Out.find("title=\"a&quot;&gt;&lt;script&gt;"), std::string::npos);
  EXPECT_EQ(svgNumber(1.5), "1.5");
  EXPECT_EQ(svgNumber(2.0), "2");
  EXPECT_EQ(svgNumber(0.333), "0.33");
}

} // namespace
