//===- report/HtmlTimelineSelect.cpp - What a card's timeline draws -------===//
//
// The selection half of HtmlTimeline.h. A finding's example events are
// usually on one side only: D001 flags a data-loader range on the host,
// K002 a softmax op, S001 a synchronize call, K001 a kernel. The seed's
// reading needs both sides on one axis (what the host asked for, what the
// device ran, and when the device had nothing to do), so the selection
// follows the launches from the flagged side to the other and adds the
// device's idle time, clipped to the steps the flagged events are in.
//
//===----------------------------------------------------------------------===//
#include "report/HtmlTimeline.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <map>
#include <tuple>

using namespace tracelint;
using namespace tracelint::report;
using model::Event;
using model::Interval;
using model::IntervalSet;
using model::NoIndex;

namespace {

/// Launches looked for inside one flagged host range before giving up (a
/// loader range may hold thousands of Python frames and no launch).
constexpr unsigned NestedScanLimit = 20000;
/// Device work drawn per launch (a graph launch has many).
constexpr size_t WorkPerLaunch = 4;
/// Idle stretches narrower than this many pixels are not drawn; at most
/// MaxIdlePerDevice are, the longest.
constexpr double MinIdlePx = 1;
constexpr size_t MaxIdlePerDevice = 100;
/// Step edges drawn at most (a window over many short steps).
constexpr size_t MaxStepEdges = 24;

bool drawable(const Event &E) {
  return E.Duration > 0 && E.Kind != model::EventKind::Counter &&
         E.Kind != model::EventKind::Marker;
}

bool isStream(const model::Trace &T, uint32_t Lane) {
  return T.Lanes[Lane].Kind == model::LaneKind::DeviceStream;
}

/// Host threads first, then device streams in (device, stream) order.
bool laneBefore(const model::Trace &T, uint32_t A, uint32_t B) {
  const model::Lane &X = T.Lanes[A], &Y = T.Lanes[B];
  bool DevX = X.Kind == model::LaneKind::DeviceStream;
  bool DevY = Y.Kind == model::LaneKind::DeviceStream;
  if (DevX != DevY)
    return !DevX;
  if (DevX && (X.Device != Y.Device || X.Stream != Y.Stream))
    return std::make_pair(X.Device, X.Stream) <
           std::make_pair(Y.Device, Y.Stream);
  return A < B;
}

/// The events of lane \p Lane that overlap [Begin, End). An event that
/// starts before Begin is found through the enclosing chain of the last one
/// that does.
void overlapping(const model::Trace &T, uint32_t Lane, int64_t Begin,
                 int64_t End, std::vector<uint32_t> &Out) {
  auto Events = T.events(T.Lanes[Lane]);
  auto First = llvm::partition_point(
      Events, [&](const Event &X) { return X.Start < Begin; });
  if (First != Events.begin())
    for (uint32_t P = T.indexOf(*std::prev(First)); P != NoIndex;
         P = T.Events[P].Parent)
      if (T.Events[P].end() > Begin)
        Out.push_back(P);
  for (auto I = First; I != Events.end() && I->Start < End; ++I)
    Out.push_back(T.indexOf(*I));
}

/// One box of neighbours: a single event, or a run of tiny ones.
struct Unit {
  int64_t Begin = 0, End = 0;
  std::vector<uint32_t> Members;
};

class Selector {
public:
  Selector(const analysis::TraceIndex &Ctx, const TimelineLimits &Limits)
      : Ctx(Ctx), T(Ctx.trace()), Limits(Limits) {}

  TimelineSelection run(llvm::ArrayRef<uint32_t> Flagged) {
    for (uint32_t I : Flagged)
      add(I, TimelineRole::Flagged);
    if (S.Events.empty())
      return std::move(S);
    for (uint32_t I : Flagged)
      addLinks(I);
    setWindow();
    chooseLanes(Flagged);
    addIdle(Flagged);
    addStepEdges();
    addNeighbours();
    return std::move(S);
  }

private:
  void add(uint32_t I, TimelineRole R) {
    if (I == NoIndex || !Drawn.insert(I).second)
      return;
    S.Events.push_back({I, R});
    Lanes.insert(T.Events[I].Lane);
  }

  void link(uint32_t Launch, uint32_t Device) {
    add(Launch, TimelineRole::Linked);
    add(Device, TimelineRole::Linked);
    S.Links.push_back({Launch, Device});
  }

  /// The other side of flagged event \p I: the launch of device work, the
  /// work of a launch, or the launches inside a host range and their work.
  void addLinks(uint32_t I) {
    const Event &E = T.Events[I];
    if (model::isDeviceWork(E.Kind)) {
      if (uint32_t L = T.launchOf(E); L != NoIndex)
        link(L, I);
      return;
    }
    if (isStream(T, E.Lane))
      return;
    if (auto Own = T.deviceWorkOf(E); !Own.empty()) {
      for (uint32_t D : Own.take_front(WorkPerLaunch))
        link(I, D);
      return;
    }
    const model::Lane &L = T.Lanes[E.Lane];
    size_t Launches = 0;
    unsigned Scanned = 0;
    for (uint32_t J = I + 1;
         J < L.End && T.Events[J].Start < E.end() &&
         Launches < Limits.MaxNestedLaunches && Scanned < NestedScanLimit;
         ++J, ++Scanned) {
      auto Work = T.deviceWorkOf(T.Events[J]);
      if (Work.empty())
        continue;
      ++Launches;
      for (uint32_t D : Work.take_front(WorkPerLaunch))
        link(J, D);
    }
  }

  /// The span of what is drawn so far, padded by an eighth on each side.
  void setWindow() {
    int64_t Lo = INT64_MAX, Hi = INT64_MIN;
    for (const TimelineEvent &D : S.Events) {
      Lo = std::min(Lo, T.Events[D.Event].Start);
      Hi = std::max(Hi, T.Events[D.Event].end());
    }
    int64_t Pad = std::max<int64_t>((Hi - Lo) / 8, 1000);
    S.Begin = std::max(T.WindowStart, Lo - Pad);
    S.End = std::min(std::max(T.WindowEnd, Hi), Hi + Pad);
  }

  /// Time the events of \p Lane take inside the window.
  int64_t busyInWindow(uint32_t Lane) const {
    std::vector<uint32_t> In;
    overlapping(T, Lane, S.Begin, S.End, In);
    int64_t Ns = 0;
    for (uint32_t I : In) {
      const Event &E = T.Events[I];
      Ns += std::max<int64_t>(0, std::min(E.end(), S.End) -
                                     std::max(E.Start, S.Begin));
    }
    return Ns;
  }

  /// The drawn events' lanes, then the streams of the devices they are
  /// about that are busy in the window.
  void chooseLanes(llvm::ArrayRef<uint32_t> Flagged) {
    std::vector<int32_t> Devices;
    size_t Streams = 0;
    for (uint32_t L : Lanes)
      if (isStream(T, L)) {
        Devices.push_back(T.Lanes[L].Device);
        ++Streams;
      }
    // Nothing linked (a loader range launches nothing): the devices the
    // flagged events' threads feed.
    if (Devices.empty())
      for (uint32_t I : Flagged)
        if (T.laneOf(T.Events[I]).Kind == model::LaneKind::HostThread)
          for (int32_t D : Ctx.devicesFedBy(T.Events[I].Lane))
            Devices.push_back(D);
    llvm::sort(Devices);
    Devices.erase(std::unique(Devices.begin(), Devices.end()), Devices.end());
    if (Devices.size() > Limits.MaxDevices)
      Devices.resize(Limits.MaxDevices);

    std::vector<std::pair<int64_t, uint32_t>> Busy; // (-busy, lane)
    for (uint32_t L = 0; L < T.Lanes.size(); ++L)
      if (isStream(T, L) && !Lanes.contains(L) &&
          llvm::is_contained(Devices, T.Lanes[L].Device))
        if (int64_t Ns = busyInWindow(L); Ns > 0)
          Busy.push_back({-Ns, L});
    llvm::sort(Busy);
    for (const auto &[NegNs, L] : Busy) {
      if (Streams >= Limits.MaxStreams) {
        ++S.StreamsLeftOut;
        continue;
      }
      Lanes.insert(L);
      ++Streams;
    }

    S.Lanes.assign(Lanes.begin(), Lanes.end());
    llvm::sort(S.Lanes,
               [&](uint32_t A, uint32_t B) { return laneBefore(T, A, B); });
    for (uint32_t L : S.Lanes)
      if (isStream(T, L) &&
          (S.Devices.empty() || S.Devices.back() != T.Lanes[L].Device))
        S.Devices.push_back(T.Lanes[L].Device);
  }

  /// Each drawn device's idle time in the window, within the steps of the
  /// flagged events: a gap that the next step ends is drawn to this step's
  /// end only.
  void addIdle(llvm::ArrayRef<uint32_t> Flagged) {
    int64_t Lo = INT64_MAX, Hi = INT64_MIN;
    std::vector<Interval> HostRanges;
    for (uint32_t I : Flagged) {
      const Event &E = T.Events[I];
      Lo = std::min(Lo, E.Start);
      Hi = std::max(Hi, E.end());
      if (!isStream(T, E.Lane))
        HostRanges.push_back({E.Start, E.end()});
    }
    Interval Clip{std::max(S.Begin, T.WindowStart),
                  std::min(S.End, T.WindowEnd)};
    int A = Ctx.stepAt(Lo), B = Ctx.stepAt(std::max(Lo, Hi - 1));
    if (A < 0)
      A = B;
    if (B < 0)
      B = A;
    if (A >= 0) {
      const auto Steps = Ctx.steps();
      Clip.Begin = std::max(Clip.Begin, Steps[A].Range.Begin);
      Clip.End = std::min(Clip.End, Steps[B].Range.End);
      S.FirstStep = Steps[A].Number;
      S.LastStep = Steps[B].Number;
    }
    S.IdleClip = Clip;
    if (Clip.length() <= 0)
      return;
    const IntervalSet During = IntervalSet::unionOf(HostRanges);
    const double NsPerPx = double(S.End - S.Begin) / TimelinePlotWidth;
    for (int32_t D : S.Devices) {
      std::vector<TimelineIdle> Pieces;
      auto Add = [&](Interval R, bool In) {
        if (double(R.length()) >= MinIdlePx * NsPerPx)
          Pieces.push_back({D, R, In});
      };
      for (const Interval &G : Ctx.deviceBusy(D).gapsWithin(Clip)) {
        // Split the gap where flagged host events start and end.
        int64_t At = G.Begin;
        for (const Interval &F : During.parts()) {
          if (F.End <= At || F.Begin >= G.End)
            continue;
          if (F.Begin > At)
            Add({At, F.Begin}, false);
          int64_t Until = std::min(F.End, G.End);
          Add({std::max(At, F.Begin), Until}, true);
          At = Until;
        }
        if (At < G.End)
          Add({At, G.End}, false);
      }
      if (Pieces.size() > MaxIdlePerDevice) {
        llvm::stable_sort(Pieces,
                          [](const TimelineIdle &X, const TimelineIdle &Y) {
                            return X.Range.length() > Y.Range.length();
                          });
        Pieces.resize(MaxIdlePerDevice);
        llvm::sort(Pieces, [](const TimelineIdle &X, const TimelineIdle &Y) {
          return X.Range.Begin < Y.Range.Begin;
        });
      }
      llvm::append_range(S.Idle, Pieces);
    }
  }

  void addStepEdges() {
    for (const analysis::StepWindow &W : Ctx.steps()) {
      if (S.StepEdges.size() >= MaxStepEdges)
        break;
      if (W.Range.Begin > S.Begin && W.Range.Begin < S.End)
        S.StepEdges.push_back({W.Range.Begin, W.Number, true});
      if (W.Range.End > S.Begin && W.Range.End < S.End)
        S.StepEdges.push_back({W.Range.End, W.Number, false});
    }
  }

  /// What else overlaps the window on the drawn lanes: runs of events too
  /// narrow to see merged into one box each, then the widest boxes.
  void addNeighbours() {
    std::vector<uint32_t> Candidates;
    for (uint32_t L : S.Lanes)
      overlapping(T, L, S.Begin, S.End, Candidates);
    llvm::erase_if(Candidates, [&](uint32_t I) {
      return Drawn.contains(I) || !drawable(T.Events[I]);
    });
    llvm::sort(Candidates);
    Candidates.erase(std::unique(Candidates.begin(), Candidates.end()),
                     Candidates.end());

    const int64_t Tiny = int64_t(Limits.MergeBelowPx * double(S.End - S.Begin) /
                                 TimelinePlotWidth);
    auto Clipped = [&](const Event &E) -> Interval {
      return {std::max(E.Start, S.Begin), std::min(E.end(), S.End)};
    };
    auto Row = [&](const Event &E) {
      return std::make_pair(
          E.Lane, std::min<unsigned>(E.Depth, TimelineMaxDepthRows - 1));
    };
    // Candidates are in index order, so each lane's events are in start
    // order; a run continues on its own row while its members are tiny and
    // close.
    std::vector<Unit> Units;
    std::map<std::pair<uint32_t, unsigned>, size_t> OpenRun;
    for (uint32_t I : Candidates) {
      const Event &E = T.Events[I];
      const Interval C = Clipped(E);
      if (C.length() >= Tiny) {
        Units.push_back({C.Begin, C.End, {I}});
        continue;
      }
      auto [It, New] = OpenRun.try_emplace(Row(E), Units.size());
      if (!New) {
        Unit &U = Units[It->second];
        if (C.Begin - U.End < Tiny) {
          U.End = std::max(U.End, C.End);
          U.Members.push_back(I);
          continue;
        }
        It->second = Units.size();
      }
      Units.push_back({C.Begin, C.End, {I}});
    }
    llvm::stable_sort(Units, [](const Unit &X, const Unit &Y) {
      return X.End - X.Begin > Y.End - Y.Begin;
    });
    // The widest box of each lane first, so that a busy host thread does
    // not crowd the device streams out; then the widest of the rest.
    std::vector<bool> Keep(Units.size());
    size_t Kept = 0;
    llvm::DenseSet<uint32_t> LaneHasOne;
    for (int Pass = 0; Pass < 2; ++Pass)
      for (size_t U = 0; U < Units.size() && Kept < Limits.MaxNeighbours; ++U)
        if (!Keep[U] &&
            (Pass == 1 ||
             LaneHasOne.insert(T.Events[Units[U].Members.front()].Lane)
                 .second)) {
          Keep[U] = true;
          ++Kept;
        }
    for (size_t U = 0; U < Units.size(); ++U) {
      const Unit &Box = Units[U];
      if (!Keep[U]) {
        S.LeftOut += Box.Members.size();
        continue;
      }
      if (Box.Members.size() == 1) {
        add(Box.Members.front(), TimelineRole::Neighbour);
        continue;
      }
      TimelineCluster C;
      const Event &First = T.Events[Box.Members.front()];
      C.Lane = First.Lane;
      C.Depth = Row(First).second;
      C.Begin = Box.Begin;
      C.End = Box.End;
      C.Count = uint32_t(Box.Members.size());
      C.First = Box.Members.front();
      for (uint32_t I : Box.Members) {
        C.BusyNs += T.Events[I].Duration;
        C.MixedKinds |= T.Events[I].Kind != First.Kind;
      }
      S.Merged += C.Count;
      S.Clusters.push_back(C);
    }
    llvm::sort(S.Clusters,
               [](const TimelineCluster &X, const TimelineCluster &Y) {
                 return std::tie(X.Lane, X.Begin) < std::tie(Y.Lane, Y.Begin);
               });
  }

  const analysis::TraceIndex &Ctx;
  const model::Trace &T;
  const TimelineLimits &Limits;
  TimelineSelection S;
  llvm::DenseSet<uint32_t> Drawn, Lanes;
};

} // namespace

TimelineSelection report::selectTimeline(const analysis::TraceIndex &Ctx,
                                         llvm::ArrayRef<uint32_t> Flagged,
                                         const TimelineLimits &Limits) {
  return Selector(Ctx, Limits).run(Flagged);
}
