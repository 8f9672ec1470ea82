//===- rules/detectors/OpRoofs.cpp - Each op against its device's roofs ---===//
#include "rules/detectors/OpRoofs.h"
#include "rules/detectors/DetectorSupport.h"

#include "llvm/Support/FormatVariadic.h"

#include <map>

using namespace tracelint;
using namespace tracelint::rules;
using namespace tracelint::rules::detect;

std::vector<uint32_t> detect::kernelsOf(const model::Trace &T,
                                        const OpRate &R) {
  std::vector<uint32_t> Out;
  for (uint32_t Op : R.CallOps)
    for (uint32_t W : workLaunchedWithin(T, Op))
      if (T.Events[W].Kind == model::EventKind::Kernel)
        Out.push_back(W);
  return Out;
}

/// The device that ran most of the kernel time of \p Rates, or -1. The
/// first ops (most kernel time first) decide: a handful of ops on another
/// device cannot change the answer, and reading all would cost a pass over
/// every call's launches.
static int32_t busiestDevice(const model::Trace &T,
                             llvm::ArrayRef<OpRate> Rates) {
  constexpr size_t Deciding = 20;
  std::map<int32_t, int64_t> ByDevice;
  for (const OpRate &R : Rates.take_front(Deciding))
    for (uint32_t K : kernelsOf(T, R))
      ByDevice[T.Lanes[T.Events[K].Lane].Device] += T.Events[K].Duration;
  int32_t Best = -1;
  int64_t BestNs = -1;
  for (auto [D, Ns] : ByDevice)
    if (Ns > BestNs) {
      Best = D;
      BestNs = Ns;
    }
  return Best;
}

OpRoofs detect::opRoofs(const model::Trace &T, llvm::ArrayRef<OpRate> Rates,
                        llvm::ArrayRef<DevicePeaks> Overrides) {
  OpRoofs Out;
  Out.Positions.resize(Rates.size());
  Out.Device = busiestDevice(T, Rates);
  if (Out.Device < 0)
    return Out;
  Out.Info = deviceDescription(T, Out.Device);
  if (!Out.Info) {
    Out.Unknown = "the trace does not describe the device the ops ran on";
    return Out;
  }
  Out.Peaks = peaksFor(*Out.Info, Overrides);
  if (!Out.Peaks) {
    Out.Unknown = unknownPeaksReason(*Out.Info);
    return Out;
  }
  for (size_t I = 0; I < Rates.size(); ++I) {
    const OpRate &R = Rates[I];
    Out.Positions[I] =
        roofPosition(*Out.Peaks, R.Flops, R.Bytes, R.KernelNsMedian, R.Dtype,
                     R.MatrixUnits ? ComputeUnit::Matrix : ComputeUnit::Vector);
  }
  return Out;
}

std::string detect::roofWords(const OpRate &R, const RoofPosition &P) {
  if (P.MemoryBound || R.Flops <= 0)
    return "memory bandwidth";
  llvm::StringRef Class = dtypeClass(R.Dtype);
  return llvm::formatv("the {0} {1} peak", Class.empty() ? "fp32" : Class,
                       R.MatrixUnits ? "matrix" : "vector");
}
