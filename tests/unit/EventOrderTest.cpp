//===- EventOrderTest.cpp - Lists of events ordered by start --------------===//
//
// The trace index keeps lists of events ordered by start, then index
// (eventsOfKind, deviceWork), built by merging each lane's run
// (analysis::mergeLaneRuns). These tests compare them with the brute-force
// definition, a sort of every matching event, on random traces.
//
//===----------------------------------------------------------------------===//
#include "DetectorTestSupport.h"

#include "gtest/gtest.h"

#include <random>

using namespace tracelint;
using namespace tracelint::testing;
using analysis::TraceIndex;
using model::EventKind;

namespace {

/// A few host threads and streams with random events, many starting at the
/// same instant as another (ties are broken by index).
model::Trace randomLanes(unsigned Seed) {
  std::mt19937 Rng(Seed);
  auto Pick = [&](int64_t Lo, int64_t Hi) {
    return std::uniform_int_distribution<int64_t>(Lo, Hi)(Rng);
  };
  TraceMaker M;
  std::vector<uint32_t> Hosts = {M.Host, M.host(2), M.host(3)};
  std::vector<uint32_t> Streams = {M.stream(0, 7), M.stream(0, 8),
                                   M.stream(1, 7)};
  for (int I = 0; I < 600; ++I) {
    const int64_t At = Pick(0, 50) * 10; // coarse: many equal starts
    if (Pick(0, 1)) {
      const EventKind K = Pick(0, 2) == 0   ? EventKind::Op
                          : Pick(0, 1) == 0 ? EventKind::Runtime
                                            : EventKind::Python;
      M.add(Hosts[Pick(0, 2)], K, "h", At, At + Pick(0, 30));
    } else {
      const EventKind K =
          Pick(0, 3) == 0 ? EventKind::Memcpy : EventKind::Kernel;
      M.add(Streams[Pick(0, 2)], K, "d", At, At + Pick(1, 30));
    }
  }
  return M.finish();
}

/// The brute-force order: every index that \p Keep accepts, by start, then
/// index.
template <typename Pred>
std::vector<uint32_t> sortedBy(const model::Trace &T, Pred Keep) {
  std::vector<uint32_t> Out;
  for (uint32_t I = 0; I < T.Events.size(); ++I)
    if (Keep(T.Events[I], I))
      Out.push_back(I);
  std::sort(Out.begin(), Out.end(), [&](uint32_t A, uint32_t B) {
    return T.Events[A].Start < T.Events[B].Start ||
           (T.Events[A].Start == T.Events[B].Start && A < B);
  });
  return Out;
}

TEST(EventOrder, EventsOfKindAreEveryEventOfTheKindByStartThenIndex) {
  for (unsigned Seed = 1; Seed <= 8; ++Seed) {
    model::Trace T = randomLanes(Seed);
    TraceIndex Ctx(T);
    for (EventKind K :
         {EventKind::Op, EventKind::Runtime, EventKind::Python,
          EventKind::Kernel, EventKind::Memcpy, EventKind::Collective}) {
      std::vector<uint32_t> Want = sortedBy(
          T, [&](const model::Event &E, uint32_t) { return E.Kind == K; });
      llvm::ArrayRef<uint32_t> Got = Ctx.eventsOfKind(K);
      EXPECT_EQ(std::vector<uint32_t>(Got.begin(), Got.end()), Want)
          << "seed " << Seed << " kind " << unsigned(K);
    }
  }
}

TEST(EventOrder, DeviceWorkIsEveryStreamsWorkByStartThenIndex) {
  for (unsigned Seed = 1; Seed <= 8; ++Seed) {
    model::Trace T = randomLanes(Seed);
    TraceIndex Ctx(T);
    for (int32_t D : Ctx.devices()) {
      std::vector<uint32_t> Want =
          sortedBy(T, [&](const model::Event &E, uint32_t) {
            const model::Lane &L = T.laneOf(E);
            return model::isDeviceWork(E.Kind) &&
                   L.Kind == model::LaneKind::DeviceStream && L.Device == D;
          });
      llvm::ArrayRef<uint32_t> Got = Ctx.deviceWork(D);
      EXPECT_EQ(std::vector<uint32_t>(Got.begin(), Got.end()), Want)
          << "seed " << Seed << " device " << D;
    }
  }
}

TEST(EventOrder, MergingRunsOfAnyCountAndLength) {
  // Runs of random lengths (some empty) cut from one lane-ordered list.
  model::Trace T = randomLanes(99);
  std::mt19937 Rng(5);
  for (int Trial = 0; Trial < 50; ++Trial) {
    std::vector<uint32_t> All, Idx;
    std::vector<size_t> Ends;
    const size_t Runs = std::uniform_int_distribution<size_t>(1, 9)(Rng);
    for (size_t R = 0; R < Runs; ++R) {
      // A run: indices ordered by start, then index.
      std::vector<uint32_t> Run;
      for (int K = std::uniform_int_distribution<int>(0, 40)(Rng); K > 0; --K)
        Run.push_back(std::uniform_int_distribution<uint32_t>(
            0, uint32_t(T.Events.size() - 1))(Rng));
      std::sort(Run.begin(), Run.end());
      Run.erase(std::unique(Run.begin(), Run.end()), Run.end());
      std::sort(Run.begin(), Run.end(), [&](uint32_t A, uint32_t B) {
        return T.Events[A].Start < T.Events[B].Start ||
               (T.Events[A].Start == T.Events[B].Start && A < B);
      });
      Idx.insert(Idx.end(), Run.begin(), Run.end());
      if (!Run.empty())
        Ends.push_back(Idx.size());
    }
    std::vector<uint32_t> Want = Idx;
    std::sort(Want.begin(), Want.end(), [&](uint32_t A, uint32_t B) {
      return T.Events[A].Start < T.Events[B].Start ||
             (T.Events[A].Start == T.Events[B].Start && A < B);
    });
    EXPECT_EQ(analysis::mergeLaneRuns(T, Idx, Ends), Want) << Trial;
  }
}

} // namespace
