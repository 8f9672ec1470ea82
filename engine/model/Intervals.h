//===- model/Intervals.h - Interval algebra ---------------------*- C++ -*-===//
//
// Sums lie under overlap: busy time is the length of a union of intervals,
// idle time is a window minus that union, and exclusive (self) time subtracts
// immediate children only. Every analysis goes through these helpers.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_MODEL_INTERVALS_H
#define TRACELINT_MODEL_INTERVALS_H

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <vector>

namespace tracelint::model {

class Trace;

/// A half-open time interval [Begin, End) in ns.
struct Interval {
  int64_t Begin = 0, End = 0;
  int64_t length() const { return End > Begin ? End - Begin : 0; }
  bool operator==(const Interval &O) const {
    return Begin == O.Begin && End == O.End;
  }
};

/// A sorted set of disjoint, non-adjacent, non-empty intervals.
class IntervalSet {
public:
  IntervalSet() = default;
  /// Builds the union of arbitrary (possibly overlapping, unsorted)
  /// intervals; empty intervals are ignored.
  static IntervalSet unionOf(std::vector<Interval> Parts);

  llvm::ArrayRef<Interval> parts() const { return Parts; }
  bool empty() const { return Parts.empty(); }
  /// Total covered length.
  int64_t length() const;
  /// Covered length inside [Window.Begin, Window.End).
  int64_t lengthWithin(Interval Window) const;
  /// Uncovered length inside the window: the window minus the union.
  int64_t idleWithin(Interval Window) const {
    return Window.length() - lengthWithin(Window);
  }
  /// The uncovered gaps inside the window, in order.
  std::vector<Interval> gapsWithin(Interval Window) const;
  IntervalSet intersect(const IntervalSet &Other) const;
  /// The length of \p Window that any of \p Sets covers: the length within
  /// it of their union, without building the union of the whole sets (a
  /// device's work per kind has a part per kernel).
  static int64_t coveredWithin(llvm::ArrayRef<const IntervalSet *> Sets,
                               Interval Window);

private:
  std::vector<Interval> Parts;
};

/// Exclusive (self) time of every event: its duration minus the durations of
/// its immediate children, each child clipped to its parent. Grandchildren
/// are not subtracted again (they are inside their own parent's duration).
std::vector<int64_t> exclusiveTimes(const Trace &T);

} // namespace tracelint::model

#endif
