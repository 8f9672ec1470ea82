//===- report/HtmlTimeline.h - A finding's evidence as an SVG timeline -*- C++
//-*-===//
//
// Each card of the HTML report draws the window around its example events:
// the host threads and device streams they are on, the flagged events
// highlighted, the launch -> device work links of the flagged events, and a
// time axis in the trace's relative time (+s from the first event, as the
// text report and Perfetto count). The selection of what to draw is bounded
// (the flagged events, their links, at most N neighbours) so that a card's
// size does not grow with the trace.
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
  Linked,    ///< the launch of a flagged device event, or its device work
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

struct TimelineSelection {
  int64_t Begin = 0, End = 0;  ///< the window, model time
  std::vector<uint32_t> Lanes; ///< rows: host threads, then device streams
  std::vector<TimelineEvent> Events;
  std::vector<TimelineLink> Links;
  /// Events in the window on these lanes that were not drawn (the cap).
  size_t LeftOut = 0;
};

/// What to draw for the flagged events \p Flagged: the window around them
/// (padded by an eighth of their span on each side), their lanes and the
/// lanes of their launch links, and at most \p MaxNeighbours other events
/// overlapping the window on those lanes, the longest first.
TimelineSelection selectTimeline(const analysis::TraceIndex &Ctx,
                                 llvm::ArrayRef<uint32_t> Flagged,
                                 size_t MaxNeighbours);

/// The selection as an inline <svg>: one row per lane (labelled with the
/// short lane name, the full one in its hover title), the events as
/// rectangles with hover titles (full name, lane, +s offset, duration), the
/// flagged ones highlighted, the links as arrows, and the time axis.
void writeTimelineSvg(HtmlBuilder &H, const analysis::TraceIndex &Ctx,
                      const TimelineSelection &S);

} // namespace tracelint::report

#endif
