//===- report/HtmlTimeline.cpp - A finding's evidence as an SVG timeline --===//
#include "report/HtmlTimeline.h"
#include "report/ShortNames.h"
#include "support/Format.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>
#include <map>

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

constexpr double SvgWidth = 1000, LabelWidth = 170, AxisHeight = 22,
                 SubRow = 14, RowGap = 6;
static_assert(SvgWidth - LabelWidth - 20 == TimelinePlotWidth,
              "the selection merges events by the plot's width");

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

/// What a cluster's members are, for its hover title.
llvm::StringLiteral membersNoun(const model::Trace &T,
                                const TimelineCluster &C) {
  if (C.MixedKinds)
    return "events";
  switch (T.Events[C.First].Kind) {
  case EventKind::Kernel:
    return "kernels";
  case EventKind::Memcpy:
    return "copies";
  case EventKind::Memset:
    return "memsets";
  case EventKind::Runtime:
  case EventKind::Driver:
    return "runtime calls";
  case EventKind::Op:
    return "ops";
  case EventKind::Python:
    return "Python frames";
  case EventKind::Annotation:
    return "ranges";
  case EventKind::Collective:
    return "collectives";
  default:
    return "events";
  }
}

/// Where each row is: the lanes (each as deep as its deepest drawn event,
/// capped) and, under each device's last stream, its idle row.
struct RowLayout {
  llvm::DenseMap<uint32_t, double> LaneY;
  std::vector<std::pair<int32_t, double>> IdleY;
  double DeviceTop = -1; ///< the first device row, or -1 without one
  double Height = 0;

  RowLayout(const model::Trace &T, const TimelineSelection &S) {
    llvm::DenseMap<uint32_t, unsigned> Depths;
    auto Deepen = [&](uint32_t Lane, unsigned Depth) {
      unsigned &D = Depths[Lane];
      D = std::max(D, std::min(Depth, TimelineMaxDepthRows - 1));
    };
    for (const TimelineEvent &D : S.Events)
      Deepen(T.Events[D.Event].Lane, T.Events[D.Event].Depth);
    for (const TimelineCluster &C : S.Clusters)
      Deepen(C.Lane, C.Depth);
    double Y = AxisHeight + 4;
    for (size_t I = 0; I < S.Lanes.size(); ++I) {
      const model::Lane &L = T.Lanes[S.Lanes[I]];
      const bool Stream = L.Kind == model::LaneKind::DeviceStream;
      if (Stream && DeviceTop < 0) {
        if (I)
          Y += RowGap; // apart from the host rows, under a rule
        DeviceTop = Y;
      }
      LaneY[S.Lanes[I]] = Y;
      Y += SubRow * (Depths[S.Lanes[I]] + 1) + RowGap;
      const bool LastOfDevice =
          Stream && (I + 1 == S.Lanes.size() ||
                     T.Lanes[S.Lanes[I + 1]].Device != L.Device);
      if (LastOfDevice && llvm::is_contained(S.Devices, L.Device)) {
        IdleY.push_back({L.Device, Y});
        Y += SubRow + RowGap;
      }
    }
    Height = Y + 2;
  }

  double idleY(int32_t Device) const {
    for (const auto &[D, Y] : IdleY)
      if (D == Device)
        return Y;
    return 0;
  }
};

/// "step 3", "steps 3-4", or "the trace's span" when no step holds them.
std::string stepsText(const TimelineSelection &S) {
  if (S.FirstStep < 0)
    return "the trace's span";
  if (S.FirstStep == S.LastStep)
    return "step " + std::to_string(S.FirstStep);
  return "steps " + std::to_string(S.FirstStep) + "-" +
         std::to_string(S.LastStep);
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

std::string report::describeIdleClip(const TimelineSelection &S,
                                     int64_t WindowStart) {
  return llvm::formatv("{0} ({1} to {2})", stepsText(S),
                       support::formatOffset(S.IdleClip.Begin - WindowStart),
                       support::formatOffset(S.IdleClip.End - WindowStart))
      .str();
}

namespace {

/// Writes one card's picture; the rows are laid out first.
class TimelineWriter {
public:
  TimelineWriter(HtmlBuilder &H, const analysis::TraceIndex &Ctx,
                 const TimelineSelection &S)
      : H(H), Ctx(Ctx), T(Ctx.trace()), S(S),
        Rows(T, S), Axis{S.Begin, S.End, LabelWidth + 10, TimelinePlotWidth} {}

  void write() {
    H.open("svg", {{"class", "timeline"},
                   {"viewBox", "0 0 " + svgNumber(SvgWidth) + " " +
                                   svgNumber(Rows.Height)},
                   {"width", svgNumber(SvgWidth)},
                   {"height", svgNumber(Rows.Height)},
                   {"role", "img"}});
    // The time axis: +s offsets from the trace's first event.
    writeTimeAxis(H, Axis, AxisHeight, Rows.Height, [&](int64_t Tick) {
      return support::formatOffset(Tick - T.WindowStart);
    });
    if (Rows.DeviceTop > AxisHeight + 4) {
      double Y = Rows.DeviceTop - RowGap;
      H.empty("line", {{"class", "split"},
                       {"x1", "0"},
                       {"x2", svgNumber(SvgWidth)},
                       {"y1", svgNumber(Y)},
                       {"y2", svgNumber(Y)}});
    }
    writeLabels();
    writeStepEdges();
    writeIdle();
    writeEvents();
    writeLinks();
    H.close(); // svg
  }

private:
  double eventY(const model::Event &E) const {
    return Rows.LaneY.lookup(E.Lane) +
           SubRow * std::min<unsigned>(E.Depth, TimelineMaxDepthRows - 1);
  }

  std::string offset(int64_t At) const {
    return support::formatOffset(At - T.WindowStart);
  }

  void label(double Y, const std::string &Shown, const std::string &Full) {
    H.open("text", {{"x", "4"}, {"y", svgNumber(Y + SubRow - 3)}});
    H.element("title", Full);
    H.text(support::sanitize(Shown, 26));
    H.close();
  }

  void writeLabels() {
    H.open("g", {{"class", "lanes"}});
    for (uint32_t L : S.Lanes) {
      std::string Full = Ctx.describeLane(T.Lanes[L]);
      label(Rows.LaneY.lookup(L), Full, Full);
    }
    for (const auto &[D, Y] : Rows.IdleY) {
      int64_t Idle = Ctx.deviceBusy(D).idleWithin(S.IdleClip);
      label(Y, llvm::formatv("device {0} idle", D).str(),
            llvm::formatv("device {0} idle {1} of the {2} drawn within {3}", D,
                          support::formatDuration(Idle),
                          support::formatDuration(S.IdleClip.length()),
                          describeIdleClip(S, T.WindowStart))
                .str());
    }
    H.close();
  }

  /// One dashed line per instant where steps start or end.
  void writeStepEdges() {
    if (S.StepEdges.empty())
      return;
    std::map<int64_t, std::vector<std::string>> At;
    for (const TimelineStepEdge &E : S.StepEdges)
      At[E.At].push_back(
          llvm::formatv("step {0} {1}", E.Number, E.Start ? "starts" : "ends"));
    H.open("g", {{"class", "steps"}});
    for (const auto &[Time, What] : At) {
      double X = Axis.x(Time);
      H.open("g");
      H.element("title", llvm::join(What, ", ") + " at " + offset(Time));
      H.empty("line", {{"x1", svgNumber(X)},
                       {"x2", svgNumber(X)},
                       {"y1", svgNumber(AxisHeight - 2)},
                       {"y2", svgNumber(Rows.Height)}});
      H.close();
    }
    H.close();
  }

  /// What the idle stretches inside a flagged host event are idle during.
  std::string flaggedHostName() const {
    std::string Name;
    for (const TimelineEvent &D : S.Events) {
      const model::Event &E = T.Events[D.Event];
      if (D.Role != TimelineRole::Flagged ||
          T.laneOf(E).Kind == model::LaneKind::DeviceStream)
        continue;
      if (!Name.empty())
        return "the flagged events run";
      Name = support::sanitize(T.name(E), 120) + " runs";
    }
    return Name;
  }

  void writeIdle() {
    if (S.Idle.empty())
      return;
    const std::string During = flaggedHostName();
    H.open("g", {{"class", "idle-rows"}});
    for (const TimelineIdle &I : S.Idle) {
      double X0 = Axis.x(I.Range.Begin), X1 = Axis.x(I.Range.End);
      H.open("g", {{"class", I.During ? "idle during" : "idle"}});
      std::string Title =
          llvm::formatv("device {0} idle {1}, {2} to {3}", I.Device,
                        support::formatDuration(I.Range.length()),
                        offset(I.Range.Begin), offset(I.Range.End))
              .str();
      if (I.During && !During.empty())
        Title += ", while " + During;
      H.element("title", Title);
      H.empty("rect", {{"x", svgNumber(X0)},
                       {"y", svgNumber(Rows.idleY(I.Device))},
                       {"width", svgNumber(std::max(X1 - X0, 1.0))},
                       {"height", svgNumber(SubRow - 2)}});
      H.close();
    }
    H.close();
  }

  void box(llvm::StringRef Class, const std::string &Title, double X0, double W,
           double Y, llvm::StringRef Name) {
    H.open("g", {{"class", Class.str()}});
    H.element("title", Title);
    H.empty("rect", {{"x", svgNumber(X0)},
                     {"y", svgNumber(Y)},
                     {"width", svgNumber(W)},
                     {"height", svgNumber(SubRow - 2)}});
    // A label where the box is wide enough to hold some of it.
    if (W >= 40 && !Name.empty()) {
      size_t Chars = size_t((W - 4) / 6.5);
      H.element("text", support::sanitize(shortName(Name), Chars),
                {{"x", svgNumber(X0 + 2)}, {"y", svgNumber(Y + SubRow - 5)}});
    }
    H.close();
  }

  void writeEvents() {
    H.open("g", {{"class", "events"}});
    // Merged neighbours first, then single ones, then the flagged ones on
    // top.
    for (const TimelineCluster &C : S.Clusters) {
      const model::Event &First = T.Events[C.First];
      double X0 = Axis.x(C.Begin), X1 = Axis.x(C.End);
      std::string Title =
          llvm::formatv("{0} {1} on {2}, merged (each too short to draw "
                        "here): {3} to {4}, {5} of work",
                        C.Count, membersNoun(T, C),
                        Ctx.describeLane(T.Lanes[C.Lane]), offset(C.Begin),
                        offset(C.End), support::formatDuration(C.BusyNs))
              .str();
      llvm::StringRef Kind =
          C.MixedKinds ? llvm::StringRef("k-other") : kindClass(First.Kind);
      box((Kind + " ctx merged").str(), Title, X0, std::max(X1 - X0, 1.0),
          Rows.LaneY.lookup(C.Lane) + SubRow * C.Depth, "");
    }
    std::vector<TimelineEvent> Order(S.Events);
    std::stable_sort(Order.begin(), Order.end(),
                     [](const TimelineEvent &A, const TimelineEvent &B) {
                       return A.Role > B.Role;
                     });
    for (const TimelineEvent &D : Order) {
      const model::Event &E = T.Events[D.Event];
      double X0 = Axis.x(E.Start), X1 = Axis.x(E.end());
      double W =
          std::max(X1 - X0, D.Role == TimelineRole::Neighbour ? 0.5 : 2.0);
      llvm::StringRef Name = T.name(E);
      std::string Title =
          llvm::formatv("{0} on {1} at {2}, {3}", support::sanitize(Name),
                        Ctx.describeLane(T.laneOf(E)), offset(E.Start),
                        support::formatDuration(E.Duration))
              .str();
      box((kindClass(E.Kind) + " " + roleClass(D.Role)).str(), Title, X0, W,
          eventY(E), Name);
    }
    H.close();
  }

  /// Launch -> device work links.
  void writeLinks() {
    if (S.Links.empty())
      return;
    H.open("g", {{"class", "links"}});
    for (const TimelineLink &K : S.Links) {
      const model::Event &A = T.Events[K.Launch], &B = T.Events[K.Device];
      H.empty("line", {{"x1", svgNumber(Axis.x(A.Start + A.Duration / 2))},
                       {"y1", svgNumber(eventY(A) + SubRow - 2)},
                       {"x2", svgNumber(Axis.x(B.Start))},
                       {"y2", svgNumber(eventY(B))},
                       {"marker-end", "url(#tl-arrow)"}});
    }
    H.close();
  }

  HtmlBuilder &H;
  const analysis::TraceIndex &Ctx;
  const model::Trace &T;
  const TimelineSelection &S;
  RowLayout Rows;
  TimeAxis Axis;
};

} // namespace

void report::writeTimelineSvg(HtmlBuilder &H, const analysis::TraceIndex &Ctx,
                              const TimelineSelection &S) {
  if (S.Events.empty())
    return;
  TimelineWriter(H, Ctx, S).write();
}
