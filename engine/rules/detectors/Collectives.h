//===- rules/detectors/Collectives.h - Collectives per device ---*- C++ -*-===//
//
// What the N rules share: each device's collective kernels beside its
// compute, the window a collective belongs to, and the name of a
// collective's kernel family.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_RULES_DETECTORS_COLLECTIVES_H
#define TRACELINT_RULES_DETECTORS_COLLECTIVES_H

#include "analysis/TraceIndex.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace tracelint::rules::detect {

/// "ncclKernel_AllReduce_RING_LL_Sum_float" from the full kernel name: the
/// parameter list says nothing about the collective.
std::string collectiveFamily(llvm::StringRef Name);

/// The parts of \p Part that \p Cover leaves uncovered, appended to \p Out.
void uncovered(const model::IntervalSet &Cover, model::Interval Part,
               std::vector<model::Interval> &Out);

/// Collectives and compute kernels of one device.
struct DeviceComm {
  std::vector<uint32_t> Collectives;
  /// The device's compute busy time (TraceIndex::deviceBusy): never null.
  const model::IntervalSet *Compute = nullptr;
};

/// One entry per device of TraceIndex::devices(), in that order.
std::vector<DeviceComm> splitDeviceWork(const analysis::TraceIndex &Ctx);

/// The collectives of all \p Devices.
size_t countCollectives(llvm::ArrayRef<DeviceComm> Devices);

/// The measure window (an index into Ctx.measureWindows().Ranges) that
/// collective \p E belongs to: the step whose host range holds its launch
/// call (its own start without correlation), because a device that lags
/// the host runs a step's collectives after the host step has ended, and
/// clipping them to the host range would measure the wrong work. Without
/// steps, the whole window. Ranges.size() when no window holds the launch
/// (the first step, left to U001).
size_t collectiveWindow(const analysis::TraceIndex &Ctx, const model::Event &E);

} // namespace tracelint::rules::detect

#endif
