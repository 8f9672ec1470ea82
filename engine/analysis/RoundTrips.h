//===- analysis/RoundTrips.h - Copies to the device and back ----*- C++ -*-===//
//
// Host-to-device and device-to-host copies of the same size on the same
// device, repeated in the measured windows: the data does not stay on the
// device between the kernels that use it. M008 reports the pattern and M003
// reads it so that its card does not call the upload half merely
// "not overlapped". Computed once in the trace index.
//
// The trace gives no buffer addresses for copies, so "the same data" is
// judged by size: a group is every copy of one size on one device. A group
// is a round trip when both directions occur in the same measured window
// and repeat: at least twice each in one window (around every kernel), or,
// with steps, in at least half of the steady steps (every step).
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_ANALYSIS_ROUNDTRIPS_H
#define TRACELINT_ANALYSIS_ROUNDTRIPS_H

#include "model/Trace.h"

#include "llvm/ADT/DenseSet.h"

#include <cstdint>
#include <vector>

namespace tracelint::analysis {

class TraceIndex;

struct RoundTripGroup {
  int32_t Device = -1;
  int64_t Bytes = 0; ///< the size of every copy in the group
  /// The group's copies inside the measured windows, by start.
  std::vector<uint32_t> HtoD, DtoH;
  /// Measured windows holding copies of both directions.
  uint64_t WindowsWithBoth = 0;
  int64_t DeviceNs = 0; ///< the summed device time of the copies
};

struct RoundTrips {
  /// The groups that are round trips, the most device time first.
  std::vector<RoundTripGroup> Groups;
  /// Every copy of those groups.
  llvm::DenseSet<uint32_t> Copies;
  bool contains(uint32_t Copy) const { return Copies.count(Copy) > 0; }
};

/// Finds the round trips of \p Ctx's measured windows (measureWindows()).
RoundTrips findRoundTrips(const TraceIndex &Ctx);

} // namespace tracelint::analysis

#endif
