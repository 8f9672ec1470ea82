//===- rules/detectors/Collectives.cpp ------------------------------------===//
#include "rules/detectors/Collectives.h"

using namespace tracelint;
using namespace tracelint::rules;
using model::Event;
using model::EventKind;
using model::Interval;
using model::IntervalSet;

std::string detect::collectiveFamily(llvm::StringRef Name) {
  return Name.substr(0, Name.find('(')).trim().str();
}

void detect::uncovered(const IntervalSet &Cover, Interval Part,
                       std::vector<Interval> &Out) {
  for (const Interval &G : Cover.gapsWithin(Part))
    Out.push_back(G);
}

std::vector<detect::DeviceComm>
detect::splitDeviceWork(const analysis::TraceIndex &Ctx) {
  const model::Trace &T = Ctx.trace();
  // The index already has each device's kernels as a union and the
  // collectives in order: two rules ask, and neither walks all the work.
  llvm::ArrayRef<int32_t> Devices = Ctx.devices();
  std::vector<DeviceComm> Out(Devices.size());
  for (size_t K = 0; K < Devices.size(); ++K)
    Out[K].Compute = &Ctx.deviceBusy(Devices[K], analysis::BusyKind::Compute);
  for (uint32_t I : Ctx.eventsOfKind(EventKind::Collective)) {
    const model::Lane &L = T.laneOf(T.Events[I]);
    const int32_t Dev = L.Kind == model::LaneKind::DeviceStream ? L.Device : -1;
    const auto *It = llvm::lower_bound(Devices, Dev);
    if (It != Devices.end() && *It == Dev)
      Out[size_t(It - Devices.begin())].Collectives.push_back(I);
  }
  return Out;
}

size_t detect::countCollectives(llvm::ArrayRef<DeviceComm> Devices) {
  size_t N = 0;
  for (const DeviceComm &DC : Devices)
    N += DC.Collectives.size();
  return N;
}

size_t detect::collectiveWindow(const analysis::TraceIndex &Ctx,
                                const Event &E) {
  const analysis::MeasureWindows &Win = Ctx.measureWindows();
  if (!Win.Steps)
    return 0;
  return Ctx.windowOf(Ctx.trace().indexOf(E));
}
