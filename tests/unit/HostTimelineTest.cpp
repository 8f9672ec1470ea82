//===- HostTimelineTest.cpp - TraceIndex::forEachHostStretch --------------===//
//
// The host timeline: each instant of a host thread gets one cause, in one
// order, and its innermost recorded event (analysis/HostTimeline.h). The
// idle split, the critical path and L002/T005 read it; these tests pin the
// order and the innermost event.
//
//===----------------------------------------------------------------------===//
#include "DetectorTestSupport.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <vector>

using namespace tracelint;
using namespace tracelint::testing;
using analysis::HostCause;
using analysis::HostStretch;
using analysis::TraceIndex;
using model::EventKind;

namespace {

std::vector<HostStretch> stretches(const TraceIndex &Ctx, uint32_t Lane,
                                   model::Interval Range) {
  std::vector<HostStretch> Out;
  Ctx.forEachHostStretch(Lane, Range,
                         [&](const HostStretch &S) { Out.push_back(S); });
  return Out;
}

TEST(HostTimeline, SplitsAPieceByTheDeepestRecordedEvent) {
  // outer [0, 100) > inner [20, 50) > runtime [30, 40); the step marker
  // [0, 200) is not recorded work. Piece [10, 150).
  TraceMaker M;
  M.step(1, 0, 200);
  M.op("outer", 0, 100);
  M.op("inner", 20, 50);
  M.runtime("cudaMalloc", 30, 40);
  model::Trace T = M.finish();
  TraceIndex Ctx(T);
  std::map<std::string, int64_t> By;
  std::map<HostCause, int64_t> ByCause;
  for (const HostStretch &S : stretches(Ctx, M.Host, {10, 150})) {
    By[S.Innermost == model::NoIndex ? "-"
                                     : T.name(T.Events[S.Innermost]).str()] +=
        S.Range.length();
    ByCause[S.Cause] += S.Range.length();
  }
  // outer: [10, 20) + [50, 100) = 60; inner: [20, 30) + [40, 50) = 20;
  // cudaMalloc 10; nothing: [100, 150) = 50.
  EXPECT_EQ(By["outer"], 60);
  EXPECT_EQ(By["inner"], 20);
  EXPECT_EQ(By["cudaMalloc"], 10);
  EXPECT_EQ(By["-"], 50);
  // Nothing submits: recorded work is host work (the allocation is
  // start-up work, U001's), the rest untraced.
  EXPECT_EQ(ByCause[HostCause::Other], 80);
  EXPECT_EQ(ByCause[HostCause::Startup], 10);
  EXPECT_EQ(ByCause[HostCause::Untraced], 50);
}

TEST(HostTimeline, CoversTheRangeWithoutGapsOrOverlap) {
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  M.step(1, 0, 1000);
  M.op("aten::mm", 100, 300);
  M.launch(S, "gemm", 150, 200, 200, 400);
  M.runtime("cudaStreamSynchronize", 500, 700);
  model::Trace T = M.finish();
  TraceIndex Ctx(T);
  int64_t At = 50;
  for (const HostStretch &St : stretches(Ctx, M.Host, {50, 950})) {
    EXPECT_EQ(St.Range.Begin, At);
    EXPECT_GT(St.Range.length(), 0);
    At = St.Range.End;
  }
  EXPECT_EQ(At, 950);
}

TEST(HostTimeline, OneOrderOfCauses) {
  // A loader range [0, 1000) holds an op that submits [100, 300) with its
  // launch call [150, 200), a wait [400, 500), and other work [600, 700).
  // A second op submits at [1100, 1200) after 50 us of glue.
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  M.step(1, 0, 2000);
  M.add(M.Host, EventKind::Python,
        "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 0, 1000);
  M.op("aten::to", 100, 300);
  M.launch(S, "Memcpy HtoD", 150, 200, 200, 250, "cudaMemcpyAsync",
           EventKind::Memcpy);
  M.runtime("cudaStreamSynchronize", 400, 500);
  M.op("aten::cpu_work", 600, 700);
  M.op("aten::relu", 1050, 1250);
  M.launch(S, "relu", 1100, 1200, 1200, 1300);
  model::Trace T = M.finish();
  TraceIndex Ctx(T);
  auto CauseAt = [&](int64_t At) {
    HostCause C = HostCause::Untraced;
    for (const HostStretch &St : stretches(Ctx, M.Host, {0, 2000}))
      if (St.Range.Begin <= At && At < St.Range.End)
        C = St.Cause;
    return C;
  };
  // A submission call wins over the loader range around it.
  EXPECT_EQ(CauseAt(160), HostCause::Submission);
  // The submitting op's dispatch inside the loader is data loading.
  EXPECT_EQ(CauseAt(110), HostCause::DataLoading);
  // A wait wins over everything.
  EXPECT_EQ(CauseAt(450), HostCause::Wait);
  EXPECT_EQ(CauseAt(650), HostCause::DataLoading);
  // Outside the loader: the dispatch of a submitting op is launch path,
  // the time after the last op untraced.
  EXPECT_EQ(CauseAt(1060), HostCause::LaunchPath);
  EXPECT_EQ(CauseAt(1500), HostCause::Untraced);
  EXPECT_EQ(Ctx.hostTimeIn(M.Host, HostCause::Wait, {0, 2000}), 100);
}

TEST(HostTimeline, ARangeThatStartsInsideEventsKnowsThem) {
  // Starting the walk inside two open events gives the same causes as
  // walking from the start of the thread.
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  M.op("aten::linear", 0, 400);
  M.op("aten::addmm", 100, 300);
  M.launch(S, "gemm", 150, 250, 250, 500);
  model::Trace T = M.finish();
  TraceIndex Ctx(T);
  std::vector<HostStretch> Whole = stretches(Ctx, M.Host, {0, 400});
  std::vector<HostStretch> Part = stretches(Ctx, M.Host, {120, 400});
  ASSERT_FALSE(Part.empty());
  for (const HostStretch &P : Part)
    for (const HostStretch &W : Whole)
      if (W.Range.Begin <= P.Range.Begin && P.Range.Begin < W.Range.End) {
        EXPECT_EQ(W.Cause, P.Cause) << P.Range.Begin;
        EXPECT_EQ(W.Innermost, P.Innermost) << P.Range.Begin;
      }
}

/// A host thread of \p Blocks random blocks, each an op that submits work
/// (its launch path), a wait, a profiler record, an allocation (start-up)
/// or nothing, with untraced glue between them: the sets the sweep walks
/// (waits, launch path, profiler and start-up ranges) have parts all along
/// the thread.
model::Trace randomHostThread(std::mt19937 &Rng, int Blocks, TraceMaker &M,
                              int64_t &End) {
  uint32_t S = M.stream(0, 7);
  auto Pick = [&](int64_t Lo, int64_t Hi) {
    return std::uniform_int_distribution<int64_t>(Lo, Hi)(Rng);
  };
  int64_t At = 0, DeviceFree = 0;
  for (int K = 0; K < Blocks; ++K) {
    At += Pick(0, 3) == 0 ? 0 : Pick(1, 300'000); // glue, sometimes none
    switch (Pick(0, 4)) {
    case 0: { // an op that launches one or two kernels
      const int64_t OpEnd = At + Pick(40, 400);
      M.op("aten::mm", At, OpEnd);
      int64_t Call = At + Pick(1, 10);
      for (int L = Pick(1, 2); L > 0 && Call + 10 < OpEnd; --L) {
        const int64_t CallEnd = Call + Pick(1, 9);
        const int64_t KStart = std::max(CallEnd + Pick(0, 50), DeviceFree);
        DeviceFree = KStart + Pick(1, 500);
        M.launch(S, "gemm", Call, CallEnd, KStart, DeviceFree);
        Call = CallEnd + Pick(0, 10);
      }
      At = OpEnd;
      break;
    }
    case 1: // a wait
      M.runtime("cudaStreamSynchronize", At, At + Pick(1, 800));
      At += Pick(1, 800) + 800;
      break;
    case 2: // the profiler's own record
      M.add(M.Host, EventKind::Overhead, "Buffer Flush", At, At + Pick(1, 200));
      At += 200;
      break;
    case 3: // an allocation: start-up work
      M.runtime("cudaMalloc", At, At + Pick(1, 300));
      At += 300;
      break;
    default: // other host work
      M.op("aten::cpu_work", At, At + Pick(1, 300));
      At += 300;
      break;
    }
  }
  End = At + 1000;
  return M.finish();
}

TEST(HostTimeline, AnyRangeSweepsAsTheWholeThreadDoes) {
  // The sweep of a range starts its cursors over the thread's sets with a
  // binary search; the brute-force definition walks the whole thread from
  // its start. Every range's stretches must be the whole thread's, clipped
  // to the range: the same pieces, causes, innermost events and waits.
  for (unsigned Seed = 1; Seed <= 12; ++Seed) {
    std::mt19937 Rng(Seed);
    TraceMaker M;
    int64_t End = 0;
    model::Trace T = randomHostThread(Rng, 120, M, End);
    TraceIndex Ctx(T);
    const std::vector<HostStretch> Whole = stretches(Ctx, M.Host, {0, End});
    for (int Q = 0; Q < 60; ++Q) {
      const int64_t A = std::uniform_int_distribution<int64_t>(0, End - 1)(Rng);
      const int64_t B = std::uniform_int_distribution<int64_t>(A + 1, End)(Rng);
      std::vector<HostStretch> Want;
      for (HostStretch W : Whole) {
        if (W.Range.End <= A || W.Range.Begin >= B)
          continue;
        W.Range = {std::max(W.Range.Begin, A), std::min(W.Range.End, B)};
        Want.push_back(W);
      }
      const std::vector<HostStretch> Got = stretches(Ctx, M.Host, {A, B});
      ASSERT_EQ(Got.size(), Want.size())
          << "seed " << Seed << " [" << A << ", " << B << ")";
      for (size_t I = 0; I < Got.size(); ++I) {
        EXPECT_EQ(Got[I].Range, Want[I].Range) << Seed << " " << I;
        EXPECT_EQ(Got[I].Cause, Want[I].Cause) << Seed << " " << I;
        EXPECT_EQ(Got[I].Innermost, Want[I].Innermost) << Seed << " " << I;
        EXPECT_EQ(Got[I].Wait, Want[I].Wait) << Seed << " " << I;
      }
    }
  }
}

TEST(HostTimeline, CutsAtEveryBoundaryWhenEventsDoNotNest) {
  // The sweep gathers the events' ends from a stack of open events, in
  // order only where they nest. Events that overlap without nesting (a
  // damaged or merged trace) must still cut the thread at every start and
  // end inside the range, each once.
  for (unsigned Seed = 1; Seed <= 30; ++Seed) {
    std::mt19937 Rng(Seed);
    TraceMaker M;
    int64_t Start = 0, End = 0;
    for (int K = 0; K < 40; ++K) {
      Start += std::uniform_int_distribution<int64_t>(0, 30)(Rng);
      const int64_t Length =
          std::uniform_int_distribution<int64_t>(0, 120)(Rng);
      M.op("op" + std::to_string(K), Start, Start + Length);
      End = std::max(End, Start + Length);
    }
    model::Trace T = M.finish();
    TraceIndex Ctx(T);
    // From before the first event: an event open at a range's start is
    // found through its nesting, which events that do not nest lack.
    const int64_t A = -1;
    const int64_t B =
        std::uniform_int_distribution<int64_t>(End / 2, End + 1)(Rng);
    std::vector<int64_t> Want = {A, B};
    for (const model::Event &E : T.events(T.Lanes[M.Host]))
      for (int64_t Edge : {E.Start, E.end()})
        if (Edge > A && Edge < B)
          Want.push_back(Edge);
    std::sort(Want.begin(), Want.end());
    Want.erase(std::unique(Want.begin(), Want.end()), Want.end());
    std::vector<int64_t> Got = {A};
    for (const HostStretch &S : stretches(Ctx, M.Host, {A, B})) {
      EXPECT_EQ(S.Range.Begin, Got.back()) << "seed " << Seed;
      Got.push_back(S.Range.End);
    }
    EXPECT_EQ(Got, Want) << "seed " << Seed;
  }
}

} // namespace
