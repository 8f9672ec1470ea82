//===- HtmlTimelineTest.cpp - The cards' mini-timelines -------------------===//
//
// The time-to-x mapping and its ticks, and what a card draws: the flagged
// events, their launch links (also those nested in a flagged host range),
// the lanes involved (host threads, the streams of the device the finding
// is about), the device's idle time clipped to the step, and a bounded
// number of neighbours in the window, tiny ones merged, the longest first.
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

/// The first event named \p Name; a test failure (and event 0) when none is.
uint32_t firstEventNamed(const model::Trace &T, llvm::StringRef Name) {
  for (uint32_t I = 0; I < T.Events.size(); ++I)
    if (T.name(T.Events[I]) == Name)
      return I;
  ADD_FAILURE() << "no event named " << Name.str();
  return 0;
}

TimelineLimits neighbours(size_t N) {
  TimelineLimits L;
  L.MaxNeighbours = N;
  return L;
}

TEST(SelectTimelineTest, FlaggedEventsTheirLaunchAndTheirLanes) {
  Layout L;
  analysis::TraceIndex Ctx(L.T);
  uint32_t K = L.find("flagged_kernel");
  TimelineSelection S = selectTimeline(Ctx, {K}, neighbours(10));
  EXPECT_EQ(names(L.T, S, TimelineRole::Flagged),
            std::vector<std::string>{"flagged_kernel"});
  EXPECT_EQ(names(L.T, S, TimelineRole::Linked),
            std::vector<std::string>{"cudaLaunchKernel"});
  ASSERT_EQ(S.Links.size(), 1u);
  EXPECT_EQ(S.Links[0].Device, K);
  EXPECT_EQ(L.T.name(L.T.Events[S.Links[0].Launch]), "cudaLaunchKernel");
  // The host thread first, then stream 7, then stream 9: another stream of
  // the same device, busy in the window (the device's idle row counts it).
  // Not thread 2.
  ASSERT_EQ(S.Lanes.size(), 3u);
  EXPECT_EQ(L.T.Lanes[S.Lanes[0]].Kind, model::LaneKind::HostThread);
  EXPECT_EQ(L.T.Lanes[S.Lanes[1]].Stream, 7);
  EXPECT_EQ(L.T.Lanes[S.Lanes[2]].Stream, 9);
  EXPECT_EQ(S.Devices, std::vector<int32_t>{0});
  // The window: 100-300 us, padded by an eighth of 200 us on each side.
  EXPECT_EQ(S.Begin, 75 * Us);
  EXPECT_EQ(S.End, 325 * Us);
  // Every neighbour in the window, none outside it.
  EXPECT_EQ(
      names(L.T, S, TimelineRole::Neighbour),
      (std::vector<std::string>{"elsewhere", "n0", "n1", "n2", "n3", "n4"}));
  EXPECT_EQ(S.LeftOut, 0u);
  EXPECT_TRUE(S.Clusters.empty());
}

TEST(SelectTimelineTest, NeighboursAreCappedLongestFirstOnePerLaneFirst) {
  Layout L;
  analysis::TraceIndex Ctx(L.T);
  TimelineSelection S =
      selectTimeline(Ctx, {L.find("flagged_kernel")}, neighbours(2));
  // The longest of each lane first: elsewhere (50 us) on stream 9 and n4
  // (5 us) on stream 7; n0-n3 are left out.
  EXPECT_EQ(names(L.T, S, TimelineRole::Neighbour),
            (std::vector<std::string>{"elsewhere", "n4"}));
  EXPECT_EQ(S.LeftOut, 4u);
  // The flagged event and its link are always drawn.
  EXPECT_EQ(names(L.T, S, TimelineRole::Flagged).size(), 1u);
  EXPECT_EQ(names(L.T, S, TimelineRole::Linked).size(), 1u);
}

TEST(SelectTimelineTest, AHostRangeDrawsTheWorkItLaunched) {
  // An op (K002's softmax, say) that launches three kernels, which run
  // after it on stream 7.
  TraceMaker M;
  uint32_t S7 = M.stream(0, 7);
  M.op("aten::softmax", 100 * Us, 200 * Us);
  for (int I = 0; I < 3; ++I)
    M.launch(S7, "k" + std::to_string(I), (110 + 20 * I) * Us,
             (115 + 20 * I) * Us, (300 + 50 * I) * Us, (340 + 50 * I) * Us);
  model::Trace T = M.finish();
  analysis::TraceIndex Ctx(T);
  const uint32_t Op = firstEventNamed(T, "aten::softmax");
  TimelineSelection S = selectTimeline(Ctx, {Op});
  EXPECT_EQ(names(T, S, TimelineRole::Linked),
            (std::vector<std::string>{"cudaLaunchKernel", "cudaLaunchKernel",
                                      "cudaLaunchKernel", "k0", "k1", "k2"}));
  EXPECT_EQ(S.Links.size(), 3u);
  ASSERT_EQ(S.Lanes.size(), 2u);
  EXPECT_EQ(T.Lanes[S.Lanes[1]].Stream, 7);
  // The window reaches the last kernel's end, where the trace ends.
  EXPECT_EQ(S.End, 440 * Us);
  // Fewer when capped.
  TimelineLimits Two;
  Two.MaxNestedLaunches = 2;
  EXPECT_EQ(selectTimeline(Ctx, {Op}, Two).Links.size(), 2u);
}

/// D001's layout, twice over: steps of 10 ms; each launches a 500 us gemm
/// on stream 7, then waits in a data loader [2, 10) ms into the step that
/// launches nothing. The first step's gemm runs [0.15, 0.65) ms; the second
/// step's host launches late, and its gemm runs [10.6, 11.1) ms, so the
/// device is idle from 0.65 ms to 10.6 ms: a gap that crosses the first
/// step's end.
struct LoaderLayout {
  TraceMaker M;
  model::Trace T;
  uint32_t Loader = model::NoIndex;
  LoaderLayout() {
    uint32_t S7 = M.stream(0, 7);
    for (int K = 0; K < 2; ++K) {
      int64_t T0 = K * 10 * Ms;
      M.step(K + 1, T0, T0 + 10 * Ms);
      int64_t Call = T0 + (K ? 500 : 50) * Us;
      M.launch(S7, "gemm", Call, Call + 20 * Us, Call + 100 * Us,
               Call + 600 * Us);
      M.add(M.Host, EventKind::Annotation, "enumerate(DataLoader)", T0 + 2 * Ms,
            T0 + 10 * Ms);
    }
    T = M.finish();
    for (uint32_t I = 0; I < T.Events.size(); ++I)
      if (T.name(T.Events[I]) == "enumerate(DataLoader)") {
        Loader = I; // the first step's
        break;
      }
  }
};

TEST(SelectTimelineTest,
     ARangeThatLaunchesNothingDrawsTheDeviceItsThreadFeeds) {
  LoaderLayout L;
  analysis::TraceIndex Ctx(L.T);
  TimelineSelection S = selectTimeline(Ctx, {L.Loader});
  EXPECT_TRUE(S.Links.empty());
  ASSERT_EQ(S.Lanes.size(), 2u);
  EXPECT_EQ(L.T.Lanes[S.Lanes[1]].Stream, 7);
  EXPECT_EQ(S.Devices, std::vector<int32_t>{0});
  // The device is idle through the loader: that stretch is marked.
  std::vector<model::Interval> During;
  for (const TimelineIdle &I : S.Idle)
    if (I.During)
      During.push_back(I.Range);
  EXPECT_EQ(During, (std::vector<model::Interval>{{2 * Ms, 10 * Ms}}));
}

TEST(SelectTimelineTest, IdleStopsAtTheEndOfTheStep) {
  LoaderLayout L;
  analysis::TraceIndex Ctx(L.T);
  TimelineSelection S = selectTimeline(Ctx, {L.Loader});
  // The window: [2, 10) ms padded by 1 ms, so it shows 0.6 ms of the next
  // step's idle time too; the idle rows stop at the step's end.
  EXPECT_EQ(S.Begin, 1 * Ms);
  EXPECT_EQ(S.End, 11 * Ms);
  EXPECT_EQ(S.IdleClip, (model::Interval{1 * Ms, 10 * Ms}));
  EXPECT_EQ(S.FirstStep, 1);
  EXPECT_EQ(S.LastStep, 1);
  ASSERT_FALSE(S.Idle.empty());
  for (const TimelineIdle &I : S.Idle)
    EXPECT_LE(I.Range.End, 10 * Ms);
  EXPECT_EQ(S.Idle.back().Range.End, 10 * Ms);
  // The step edge is drawn: step 1 ends where step 2 starts.
  ASSERT_EQ(S.StepEdges.size(), 2u);
  EXPECT_EQ(S.StepEdges[0].At, 10 * Ms);
  EXPECT_EQ(S.StepEdges[1].At, 10 * Ms);
}

TEST(SelectTimelineTest, TinyNeighboursAreMergedIntoOneBox) {
  // A flagged 1 ms kernel, and 100 kernels of 100 ns, 200 ns apart, on
  // another stream of the device: at 810 px for 1.25 ms each is a tenth of
  // a pixel, so they are drawn as one box.
  TraceMaker M;
  uint32_t S7 = M.stream(0, 7), S9 = M.stream(0, 9);
  M.launch(S7, "flagged", 0, 10 * Us, 20 * Us, 1020 * Us);
  for (int I = 0; I < 100; ++I)
    M.add(S9, EventKind::Kernel, "tiny", 100 * Us + 200 * I,
          100 * Us + 200 * I + 100);
  model::Trace T = M.finish();
  analysis::TraceIndex Ctx(T);
  const uint32_t K = firstEventNamed(T, "flagged");
  TimelineSelection S = selectTimeline(Ctx, {K});
  ASSERT_EQ(S.Clusters.size(), 1u);
  EXPECT_EQ(S.Clusters[0].Count, 100u);
  EXPECT_EQ(S.Clusters[0].Begin, 100 * Us);
  EXPECT_EQ(S.Clusters[0].End, 100 * Us + 99 * 200 + 100);
  EXPECT_EQ(S.Clusters[0].BusyNs, 100 * 100);
  EXPECT_EQ(S.Merged, 100u);
  EXPECT_EQ(S.LeftOut, 0u);
  EXPECT_TRUE(names(T, S, TimelineRole::Neighbour).empty());
}

TEST(SelectTimelineTest, StreamsAreCappedBusiestFirst) {
  // The flagged kernel on stream 1 and five more streams of device 0 busy
  // in its window, stream 2 least, stream 6 most.
  TraceMaker M;
  uint32_t S1 = M.stream(0, 1);
  M.launch(S1, "flagged", 0, 10 * Us, 100 * Us, 200 * Us);
  for (int I = 2; I <= 6; ++I)
    M.add(M.stream(0, I), EventKind::Kernel, "k", 100 * Us,
          (100 + 10 * I) * Us);
  model::Trace T = M.finish();
  analysis::TraceIndex Ctx(T);
  const uint32_t K = firstEventNamed(T, "flagged");
  TimelineSelection S = selectTimeline(Ctx, {K});
  std::vector<int64_t> Streams;
  for (uint32_t L : S.Lanes)
    if (T.Lanes[L].Kind == model::LaneKind::DeviceStream)
      Streams.push_back(T.Lanes[L].Stream);
  EXPECT_EQ(Streams, (std::vector<int64_t>{1, 4, 5, 6}));
  EXPECT_EQ(S.StreamsLeftOut, 2u);
}

TEST(SelectTimelineTest, NothingFlaggedDrawsNothing) {
  Layout L;
  analysis::TraceIndex Ctx(L.T);
  TimelineSelection S = selectTimeline(Ctx, {});
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
