//===- analysis/RoundTrips.cpp - Data copied to the device and back -------===//
#include "analysis/RoundTrips.h"
#include "analysis/TraceIndex.h"

#include "llvm/ADT/STLExtras.h"

#include <map>
#include <utility>

using namespace tracelint;
using namespace tracelint::analysis;
using model::CopyKind;

RoundTrips analysis::findRoundTrips(const TraceIndex &Ctx) {
  const model::Trace &T = Ctx.trace();
  const MeasureWindows &Win = Ctx.measureWindows();
  struct Counts {
    RoundTripGroup G;
    /// Per window: copies of each direction.
    std::vector<std::pair<uint32_t, uint32_t>> PerWindow;
  };
  std::map<std::pair<int32_t, int64_t>, Counts> BySize;
  for (uint32_t I : Ctx.eventsOfKind(model::EventKind::Memcpy)) {
    const model::Event &E = T.Events[I];
    const model::EventArgs *A = T.args(E);
    if (!A || A->Bytes <= 0 ||
        (A->Copy != CopyKind::HtoD && A->Copy != CopyKind::DtoH))
      continue;
    size_t R = Win.indexOf(E.Start);
    if (R == Win.Ranges.size())
      continue;
    const model::Lane &L = T.Lanes[E.Lane];
    Counts &C = BySize[{L.Device, A->Bytes}];
    if (C.PerWindow.empty()) {
      C.PerWindow.assign(Win.Ranges.size(), {0, 0});
      C.G.Device = L.Device;
      C.G.Bytes = A->Bytes;
    }
    bool Up = A->Copy == CopyKind::HtoD;
    (Up ? C.G.HtoD : C.G.DtoH).push_back(I);
    (Up ? C.PerWindow[R].first : C.PerWindow[R].second) += 1;
    C.G.DeviceNs += E.Duration;
  }
  RoundTrips Out;
  for (auto &[Key, C] : BySize) {
    bool Repeated = false;
    for (auto [Up, Down] : C.PerWindow) {
      C.G.WindowsWithBoth += Up && Down;
      Repeated |= Up >= 2 && Down >= 2;
    }
    // Every step: both directions in at least half the steady steps.
    if (Win.Steps && C.PerWindow.size() >= 2 &&
        2 * C.G.WindowsWithBoth >= C.PerWindow.size())
      Repeated = true;
    if (!Repeated)
      continue;
    for (uint32_t I : C.G.HtoD)
      Out.Copies.insert(I);
    for (uint32_t I : C.G.DtoH)
      Out.Copies.insert(I);
    Out.Groups.push_back(std::move(C.G));
  }
  llvm::stable_sort(Out.Groups,
                    [](const RoundTripGroup &A, const RoundTripGroup &B) {
                      return A.DeviceNs > B.DeviceNs;
                    });
  return Out;
}
