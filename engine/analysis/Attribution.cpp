//===- analysis/Attribution.cpp -------------------------------------------===//
#include "analysis/Attribution.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"

#include <algorithm>

using namespace tracelint;
using namespace tracelint::analysis;
using model::Interval;

BusyAttribution::BusyAttribution(const TraceIndex &Ctx,
                                 const DependencyGraph &Gr)
    : C(Ctx), G(Gr) {}

std::vector<DeviceAttribution>
BusyAttribution::attribute(Interval Range) const {
  std::vector<DeviceAttribution> Out;
  for (int32_t D : C.devices()) {
    const uint32_t HostLane = C.mainFeeder(D);
    const model::IntervalSet &All = C.deviceBusy(D);
    DeviceAttribution A;
    A.Device = D;
    A.HostLane = HostLane;
    A.BusyNs = All.lengthWithin(Range);
    for (unsigned K = 0; K < NumBusyKinds; ++K)
      A.BusyByKind[K] = C.deviceBusy(D, BusyKind(K)).lengthWithin(Range);
    A.IdleNs = Range.length() - A.BusyNs;
    A.Split = C.idleSplit(D, Range);
    // Walk the idle gaps and the host stretches together.
    llvm::ArrayRef<Interval> Busy = All.parts();
    auto BI = std::upper_bound(
        Busy.begin(), Busy.end(), Range.Begin,
        [](int64_t V, const Interval &I) { return V < I.End; });
    size_t NumSegs = 0, SI = 0;
    if (HostLane != model::NoIndex) {
      NumSegs = G.numHostSegments(HostLane);
      SI = G.firstHostSegmentAfter(HostLane, Range.Begin);
    }
    llvm::DenseMap<model::StringId, int64_t> Other;
    int64_t Cursor = Range.Begin;
    auto Gap = [&](Interval Gp) {
      while (SI < NumSegs && G.hostSegment(HostLane, SI).Range.End <= Gp.Begin)
        ++SI;
      int64_t At = Gp.Begin;
      for (size_t K = SI; At < Gp.End; ++K) {
        if (K >= NumSegs)
          break;
        HostSegment S = G.hostSegment(HostLane, K);
        if (S.Range.Begin >= Gp.End)
          break;
        At = std::max(At, S.Range.Begin);
        int64_t Ns = std::min(S.Range.End, Gp.End) - At;
        if (Ns <= 0)
          continue;
        if (S.Category == PathCategory::HostOther &&
            S.Subject != model::NoIndex)
          Other[C.trace().Events[S.Subject].Name] += Ns;
        At += Ns;
      }
    };
    for (; BI != Busy.end() && BI->Begin < Range.End; ++BI) {
      if (BI->Begin > Cursor)
        Gap({Cursor, BI->Begin});
      Cursor = std::max(Cursor, BI->End);
    }
    if (Cursor < Range.End)
      Gap({Cursor, Range.End});
    for (auto &O : Other)
      A.IdleOtherWork.push_back({O.first, O.second});
    llvm::sort(A.IdleOtherWork, [](const auto &X, const auto &Y) {
      return X.second != Y.second ? X.second > Y.second : X.first < Y.first;
    });
    if (A.IdleOtherWork.size() > 5)
      A.IdleOtherWork.resize(5);
    Out.push_back(std::move(A));
  }
  return Out;
}
