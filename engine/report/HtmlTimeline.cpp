//===- report/HtmlTimeline.cpp - A finding's evidence as an SVG timeline --===//
#include "report/HtmlTimeline.h"
#include "report/ShortNames.h"
#include "support/Format.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>

using namespace tracelint;
using namespace tracelint::report;
using model::EventKind;
using model::NoIndex;

double TimeAxis::x(int64_t T) const {
  T = std::clamp(T, Begin, End);
  if (End <= Begin)
    return Left;
  return Left + Width * double(T - Begin) / double(End - Begin);
}

std::vector<int64_t> TimeAxis::ticks(unsigned MaxTicks) const {
  std::vector<int64_t> Out;
  if (End <= Begin || MaxTicks == 0)
    return Out;
  // The smallest 1-2-5 step (from 1 ns) that gives at most MaxTicks ticks.
  int64_t Step = 1;
  for (int64_t Decade = 1;; Decade *= 10) {
    bool Found = false;
    for (int64_t M : {1, 2, 5}) {
      Step = M * Decade;
      int64_t First = (Begin + Step - 1) / Step * Step;
      if (First > End || (End - First) / Step + 1 <= int64_t(MaxTicks)) {
        Found = true;
        break;
      }
    }
    if (Found)
      break;
  }
  for (int64_t T = (Begin + Step - 1) / Step * Step; T <= End; T += Step)
    Out.push_back(T);
  return Out;
}

ExampleLocator::ExampleLocator(const analysis::TraceIndex &Ctx) : Ctx(Ctx) {
  const model::Trace &T = Ctx.trace();
  for (uint32_t L = 0; L < T.Lanes.size(); ++L)
    LaneByName.try_emplace(Ctx.describeLane(T.Lanes[L]), L);
}

uint32_t ExampleLocator::find(const rules::ExampleEvent &E) const {
  auto It = LaneByName.find(E.Lane);
  if (It == LaneByName.end())
    return NoIndex;
  const model::Trace &T = Ctx.trace();
  const model::Lane &L = T.Lanes[It->second];
  int64_t Start = T.WindowStart + E.OffsetNs;
  auto Events = T.events(L);
  auto First = llvm::partition_point(
      Events, [&](const model::Event &X) { return X.Start < Start; });
  uint32_t Fallback = NoIndex;
  for (auto I = First; I != Events.end() && I->Start == Start; ++I) {
    if (T.name(*I) != E.Name)
      continue;
    if (I->Duration == E.DurationNs)
      return T.indexOf(*I);
    if (Fallback == NoIndex)
      Fallback = T.indexOf(*I);
  }
  return Fallback;
}

namespace {

bool drawable(const model::Event &E) {
  return E.Duration > 0 && E.Kind != EventKind::Counter &&
         E.Kind != EventKind::Marker;
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

} // namespace

TimelineSelection report::selectTimeline(const analysis::TraceIndex &Ctx,
                                         llvm::ArrayRef<uint32_t> Flagged,
                                         size_t MaxNeighbours) {
  const model::Trace &T = Ctx.trace();
  TimelineSelection S;
  llvm::DenseSet<uint32_t> Drawn, Lanes;
  auto Add = [&](uint32_t I, TimelineRole R) {
    if (I == NoIndex || !Drawn.insert(I).second)
      return;
    S.Events.push_back({I, R});
    Lanes.insert(T.Events[I].Lane);
  };
  for (uint32_t I : Flagged)
    Add(I, TimelineRole::Flagged);
  if (S.Events.empty())
    return S;
  // The launch links of the flagged events, both ways.
  for (uint32_t I : Flagged) {
    const model::Event &E = T.Events[I];
    if (model::isDeviceWork(E.Kind)) {
      uint32_t L = T.launchOf(E);
      if (L != NoIndex) {
        Add(L, TimelineRole::Linked);
        S.Links.push_back({L, I});
      }
      continue;
    }
    // At most a few device events per host call (a graph launch has many).
    for (uint32_t D : T.deviceWorkOf(E).take_front(4)) {
      Add(D, TimelineRole::Linked);
      S.Links.push_back({I, D});
    }
  }
  int64_t Lo = INT64_MAX, Hi = INT64_MIN;
  for (const TimelineEvent &D : S.Events) {
    Lo = std::min(Lo, T.Events[D.Event].Start);
    Hi = std::max(Hi, T.Events[D.Event].end());
  }
  int64_t Pad = std::max<int64_t>((Hi - Lo) / 8, 1000);
  S.Begin = std::max(T.WindowStart, Lo - Pad);
  S.End = std::min(std::max(T.WindowEnd, Hi), Hi + Pad);

  S.Lanes.assign(Lanes.begin(), Lanes.end());
  llvm::sort(S.Lanes,
             [&](uint32_t A, uint32_t B) { return laneBefore(T, A, B); });

  // Neighbours: what else overlaps the window on these lanes. An event that
  // starts before the window is found through the enclosing chain of the
  // last one that does.
  std::vector<uint32_t> Candidates;
  for (uint32_t L : S.Lanes) {
    auto Events = T.events(T.Lanes[L]);
    auto First = llvm::partition_point(
        Events, [&](const model::Event &X) { return X.Start < S.Begin; });
    if (First != Events.begin()) {
      for (uint32_t P = T.indexOf(*std::prev(First)); P != NoIndex;
           P = T.Events[P].Parent)
        if (T.Events[P].end() > S.Begin)
          Candidates.push_back(P);
    }
    for (auto I = First; I != Events.end() && I->Start < S.End; ++I)
      Candidates.push_back(T.indexOf(*I));
  }
  llvm::erase_if(Candidates, [&](uint32_t I) {
    return Drawn.contains(I) || !drawable(T.Events[I]);
  });
  llvm::sort(Candidates);
  Candidates.erase(std::unique(Candidates.begin(), Candidates.end()),
                   Candidates.end());
  llvm::sort(Candidates, [&](uint32_t A, uint32_t B) {
    if (T.Events[A].Duration != T.Events[B].Duration)
      return T.Events[A].Duration > T.Events[B].Duration;
    return A < B;
  });
  size_t Keep = std::min(Candidates.size(), MaxNeighbours);
  S.LeftOut = Candidates.size() - Keep;
  for (size_t I = 0; I < Keep; ++I)
    Add(Candidates[I], TimelineRole::Neighbour);
  return S;
}

namespace {

constexpr double SvgWidth = 1000, LabelWidth = 170, AxisHeight = 22,
                 SubRow = 14, RowGap = 6;
constexpr unsigned MaxDepthRows = 4;

llvm::StringLiteral kindClass(EventKind K) {
  switch (K) {
  case EventKind::Op:
  case EventKind::Python:
  case EventKind::Annotation:
    return "k-host";
  case EventKind::Runtime:
  case EventKind::Driver:
  case EventKind::OsRuntime:
    return "k-api";
  case EventKind::Kernel:
    return "k-kernel";
  case EventKind::Memcpy:
  case EventKind::Memset:
    return "k-copy";
  case EventKind::Sync:
    return "k-sync";
  case EventKind::Collective:
    return "k-coll";
  default:
    return "k-other";
  }
}

llvm::StringLiteral roleClass(TimelineRole R) {
  switch (R) {
  case TimelineRole::Flagged:
    return "flag";
  case TimelineRole::Linked:
    return "linked";
  case TimelineRole::Neighbour:
    return "ctx";
  }
  return "ctx";
}

} // namespace

void report::writeTimeAxis(HtmlBuilder &H, const TimeAxis &Axis,
                           double AxisHeight, double Height,
                           llvm::function_ref<std::string(int64_t)> Label) {
  H.open("g", {{"class", "axis"}});
  for (int64_t Tick : Axis.ticks(6)) {
    double X = Axis.x(Tick);
    H.empty("line", {{"x1", svgNumber(X)},
                     {"x2", svgNumber(X)},
                     {"y1", svgNumber(AxisHeight - 4)},
                     {"y2", svgNumber(Height)}});
    H.element("text", Label(Tick),
              {{"x", svgNumber(X)},
               {"y", svgNumber(AxisHeight - 8)},
               {"text-anchor", "middle"}});
  }
  H.close();
}

void report::writeTimelineSvg(HtmlBuilder &H, const analysis::TraceIndex &Ctx,
                              const TimelineSelection &S) {
  const model::Trace &T = Ctx.trace();
  if (S.Events.empty())
    return;
  // Row layout: each lane is as deep as its deepest drawn event (capped).
  llvm::DenseMap<uint32_t, unsigned> Depths;
  for (const TimelineEvent &D : S.Events) {
    const model::Event &E = T.Events[D.Event];
    unsigned &Depth = Depths[E.Lane];
    Depth = std::max(Depth, std::min<unsigned>(E.Depth, MaxDepthRows - 1));
  }
  llvm::DenseMap<uint32_t, double> RowY;
  double Y = AxisHeight + 4;
  for (uint32_t L : S.Lanes) {
    RowY[L] = Y;
    Y += SubRow * (Depths[L] + 1) + RowGap;
  }
  double Height = Y + 2;
  TimeAxis Axis{S.Begin, S.End, LabelWidth + 10, SvgWidth - LabelWidth - 20};
  auto EventY = [&](const model::Event &E) {
    return RowY[E.Lane] +
           SubRow * std::min<unsigned>(E.Depth, MaxDepthRows - 1);
  };

  H.open("svg",
         {{"class", "timeline"},
          {"viewBox", "0 0 " + svgNumber(SvgWidth) + " " + svgNumber(Height)},
          {"width", svgNumber(SvgWidth)},
          {"height", svgNumber(Height)},
          {"role", "img"}});
  // The time axis: +s offsets from the trace's first event.
  writeTimeAxis(H, Axis, AxisHeight, Height, [&](int64_t Tick) {
    return support::formatOffset(Tick - T.WindowStart);
  });
  // Lane labels.
  H.open("g", {{"class", "lanes"}});
  for (uint32_t L : S.Lanes) {
    std::string Full = Ctx.describeLane(T.Lanes[L]);
    H.open("text", {{"x", "4"}, {"y", svgNumber(RowY[L] + SubRow - 3)}});
    H.element("title", Full);
    H.text(support::sanitize(Full, 26));
    H.close();
  }
  H.close();
  // Events: neighbours first so that the flagged ones are drawn on top.
  std::vector<TimelineEvent> Order(S.Events);
  std::stable_sort(Order.begin(), Order.end(),
                   [](const TimelineEvent &A, const TimelineEvent &B) {
                     return A.Role > B.Role;
                   });
  H.open("g", {{"class", "events"}});
  for (const TimelineEvent &D : Order) {
    const model::Event &E = T.Events[D.Event];
    double X0 = Axis.x(E.Start), X1 = Axis.x(E.end());
    double W = std::max(X1 - X0, D.Role == TimelineRole::Neighbour ? 0.5 : 2.0);
    llvm::StringRef Name = T.name(E);
    std::string Title =
        llvm::formatv("{0} on {1} at {2}, {3}", support::sanitize(Name),
                      Ctx.describeLane(T.laneOf(E)),
                      support::formatOffset(E.Start - T.WindowStart),
                      support::formatDuration(E.Duration))
            .str();
    H.open("g",
           {{"class", (kindClass(E.Kind) + " " + roleClass(D.Role)).str()}});
    H.element("title", Title);
    double EY = EventY(E);
    H.empty("rect", {{"x", svgNumber(X0)},
                     {"y", svgNumber(EY)},
                     {"width", svgNumber(W)},
                     {"height", svgNumber(SubRow - 2)}});
    // A label where the box is wide enough to hold some of it.
    if (W >= 40) {
      size_t Chars = size_t((W - 4) / 6.5);
      H.element("text", support::sanitize(shortName(Name), Chars),
                {{"x", svgNumber(X0 + 2)}, {"y", svgNumber(EY + SubRow - 5)}});
    }
    H.close();
  }
  H.close();
  // Launch -> device work links.
  H.open("g", {{"class", "links"}});
  for (const TimelineLink &K : S.Links) {
    const model::Event &A = T.Events[K.Launch], &B = T.Events[K.Device];
    H.empty("line", {{"x1", svgNumber(Axis.x(A.Start + A.Duration / 2))},
                     {"y1", svgNumber(EventY(A) + SubRow - 2)},
                     {"x2", svgNumber(Axis.x(B.Start))},
                     {"y2", svgNumber(EventY(B))},
                     {"marker-end", "url(#tl-arrow)"}});
  }
  H.close();
  H.close(); // svg
}
