//===- rules/detectors/Collectives.h - Collectives per device ---*- C++ -*-===//
//
// What the N rules share: each device's collective kernels beside its
// compute, and the name of a collective's kernel family.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_RULES_DETECTORS_COLLECTIVES_H
#define TRACELINT_RULES_DETECTORS_COLLECTIVES_H

#include "analysis/TraceIndex.h"

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
  model::IntervalSet Compute;
};

/// One entry per device of TraceIndex::devices(), in that order.
std::vector<DeviceComm> splitDeviceWork(const analysis::TraceIndex &Ctx);

} // namespace tracelint::rules::detect

#endif
