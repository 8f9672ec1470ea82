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
  std::vector<DeviceComm> Out;
  for (int32_t D : Ctx.devices()) {
    DeviceComm DC;
    std::vector<Interval> Compute;
    for (uint32_t I : Ctx.deviceWork(D)) {
      const Event &E = T.Events[I];
      if (E.Kind == EventKind::Collective)
        DC.Collectives.push_back(I);
      else if (E.Kind == EventKind::Kernel)
        Compute.push_back({E.Start, E.end()});
    }
    DC.Compute = IntervalSet::unionOf(std::move(Compute));
    Out.push_back(std::move(DC));
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
