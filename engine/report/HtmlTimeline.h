//===- report/HtmlTimeline.h - A finding's evidence as an SVG timeline -*- C++
//-*-===//
//
// Each card of the HTML report draws the window around its example events,
// host and device on one time axis, to be read together: the host threads
// the events are on, under them the device streams the finding is about
// (the work the flagged events launched, or the devices their thread feeds)
// and each device's idle time, the flagged events highlighted, the launch
// -> device work links, and a time axis in the trace's relative time (+s
// from the first event, as the text report and Perfetto count). The
// selection (HtmlTimelineSelect.cpp) is bounded: lanes, neighbours and idle
// stretches are capped and tiny events merged, so that a card's size does
// not grow with the trace.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_REPORT_HTMLTIMELINE_H
#define TRACELINT_REPORT_HTMLTIMELINE_H

#include "analysis/TraceIndex.h"
#include "report/HtmlBuilder.h"
#include "rules/Finding.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringMap.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tracelint::report {

/// Maps model time [Begin, End] onto [Left, Left + Width] pixels.
struct TimeAxis {
  int64_t Begin = 0, End = 1;
  double Left = 0, Width = 1;
  /// The x of \p T, clamped to the axis (an event that starts before the
  /// window is drawn from its left edge).
  double x(int64_t T) const;
  /// Tick times at a 1-2-5 step (1 us, 2 us, 5 us, 10 us, ...), the largest
  /// number of them that is at most \p MaxTicks, all within [Begin, End].
  std::vector<int64_t> ticks(unsigned MaxTicks) const;
};

/// The axis of a picture: a grid line and a label at each of at most 6
/// ticks, the labels \p Label of the tick's time, above \p AxisHeight; the
/// lines reach down to \p Height.
void writeTimeAxis(HtmlBuilder &H, const TimeAxis &Axis, double AxisHeight,
                   double Height,
                   llvm::function_ref<std::string(int64_t)> Label);

/// Finds a finding's example events in the trace: by lane (as
/// TraceIndex::describeLane names it), start offset and name.
class ExampleLocator {
public:
  explicit ExampleLocator(const analysis::TraceIndex &Ctx);
  /// The event \p E describes, or model::NoIndex.
  uint32_t find(const rules::ExampleEvent &E) const;

private:
  const analysis::TraceIndex &Ctx;
  llvm::StringMap<uint32_t> LaneByName;
};

enum class TimelineRole : uint8_t {
  Flagged,   ///< one of the finding's example events
  Linked,    ///< a launch of a flagged event, or the device work it launched
  Neighbour, ///< other work in the window, for context
};

struct TimelineEvent {
  uint32_t Event = model::NoIndex;
  TimelineRole Role = TimelineRole::Neighbour;
};

/// A launch -> device work link between two drawn events.
struct TimelineLink {
  uint32_t Launch = model::NoIndex, Device = model::NoIndex;
};

/// Neighbours too narrow to see one by one, drawn as one box: consecutive
/// events on one row of one lane, each narrower than
/// TimelineLimits::MergeBelowPx and no further apart than that.
struct TimelineCluster {
  uint32_t Lane = model::NoIndex;
  unsigned Depth = 0; ///< the row within the lane (capped like events)
  int64_t Begin = 0, End = 0;
  uint32_t Count = 0;
  int64_t BusyNs = 0; ///< the members' durations, summed
  uint32_t First = 0; ///< the first member: its kind colours the box
  bool MixedKinds = false;
};

/// One stretch of a device's idle time inside the window.
struct TimelineIdle {
  int32_t Device = -1;
  model::Interval Range;
  /// While a flagged host event runs: the idle the finding is about.
  bool During = false;
};

/// A step's start or end inside the window.
struct TimelineStepEdge {
  int64_t At = 0;
  int64_t Number = -1;
  bool Start = true;
};

struct TimelineSelection {
  int64_t Begin = 0, End = 0; ///< the window, model time
  /// Rows: host threads, then each device's streams (device, stream order);
  /// each device of Devices gets an idle row under its last stream.
  std::vector<uint32_t> Lanes;
  std::vector<TimelineEvent> Events;
  std::vector<TimelineCluster> Clusters;
  std::vector<TimelineLink> Links;
  /// The devices with an idle row, ascending.
  std::vector<int32_t> Devices;
  /// Their idle time inside IdleClip, in order; stretches too narrow to
  /// see are left out (their time is in the row's total).
  std::vector<TimelineIdle> Idle;
  /// What the idle rows are clipped to: the window within the steps that
  /// hold the flagged events (the trace's span without steps), so that a
  /// gap that runs on into the next step is drawn only to the step's end.
  model::Interval IdleClip;
  /// The steps IdleClip covers, first and last; -1 without steps.
  int64_t FirstStep = -1, LastStep = -1;
  std::vector<TimelineStepEdge> StepEdges;
  /// Events in the window on these lanes that were not drawn (the cap).
  size_t LeftOut = 0;
  /// Events drawn inside clusters.
  size_t Merged = 0;
  /// Streams of the drawn devices busy in the window but not drawn.
  size_t StreamsLeftOut = 0;
};

/// How much a card draws, so that its size does not grow with the trace.
struct TimelineLimits {
  /// Boxes (events or clusters) besides the flagged events and their links.
  size_t MaxNeighbours = 60;
  /// Device streams per card, and devices.
  size_t MaxStreams = 4, MaxDevices = 2;
  /// Launches drawn inside one flagged host range (an op, a loader call).
  size_t MaxNestedLaunches = 8;
  /// Neighbours narrower than this on the plot are merged into clusters.
  double MergeBelowPx = 2;
};

/// The width of the plot (the axis) in a card's SVG, in pixels.
constexpr double TimelinePlotWidth = 810;
/// Rows a lane's nested events are drawn on at most; deeper ones share the
/// last.
constexpr unsigned TimelineMaxDepthRows = 4;

/// What to draw for the flagged events \p Flagged:
///  - the window around them and their links (padded by an eighth of their
///    span on each side);
///  - their links: the launch of a flagged device event, the device work of
///    a flagged launch, and the launches nested in a flagged host range with
///    their device work;
///  - the lanes: the host threads of those events, the streams of their
///    device work, and then the other streams of those devices (of the
///    devices the flagged threads feed, when nothing is linked) that are
///    busy in the window, busiest first, up to \p Limits.MaxStreams;
///  - each drawn device's idle time, clipped to the steps of the flagged
///    events;
///  - other events on those lanes overlapping the window, tiny ones merged,
///    the longest boxes first, at most \p Limits.MaxNeighbours.
TimelineSelection selectTimeline(const analysis::TraceIndex &Ctx,
                                 llvm::ArrayRef<uint32_t> Flagged,
                                 const TimelineLimits &Limits = {});

/// The selection as an inline <svg>: one row per lane (labelled with the
/// short lane name, the full one in its hover title) and one idle row per
/// device under its streams, the events and clusters as rectangles with
/// hover titles (full name, lane, +s offset, duration), the flagged ones
/// highlighted, the links as arrows, the step edges as dashed lines, and
/// the time axis.
void writeTimelineSvg(HtmlBuilder &H, const analysis::TraceIndex &Ctx,
                      const TimelineSelection &S);

/// "step 3 (+0.030000 s to +0.040000 s)": what the idle rows of \p S are
/// clipped to, in offsets from \p WindowStart.
std::string describeIdleClip(const TimelineSelection &S, int64_t WindowStart);

} // namespace tracelint::report

#endif
