//===- analysis/Attribution.cpp -------------------------------------------===//
#include "analysis/Attribution.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"

#include <algorithm>

using namespace tracelint;
using namespace tracelint::analysis;
using model::Interval;

llvm::StringRef tracelint::analysis::busyKindName(BusyKind K) {
  switch (K) {
  case BusyKind::Compute:
    return "compute";
  case BusyKind::Copy:
    return "copy";
  case BusyKind::Memset:
    return "memset";
  case BusyKind::Communication:
    return "communication";
  }
  return "";
}

static BusyKind busyKindOf(model::EventKind K) {
  switch (K) {
  case model::EventKind::Memcpy:
    return BusyKind::Copy;
  case model::EventKind::Memset:
    return BusyKind::Memset;
  case model::EventKind::Collective:
    return BusyKind::Communication;
  default:
    return BusyKind::Compute;
  }
}

BusyAttribution::BusyAttribution(const TraceIndex &Ctx, const DependencyGraph &Gr)
    : C(Ctx), G(Gr) {
  const model::Trace &T = C.trace();
  // The host lane that submitted the most work to each device.
  llvm::DenseMap<int32_t, llvm::DenseMap<uint32_t, uint64_t>> Feeders;
  for (uint32_t LI = 0; LI < T.Lanes.size(); ++LI) {
    if (T.Lanes[LI].Kind != model::LaneKind::HostThread)
      continue;
    for (uint32_t I : C.submissions(LI))
      for (uint32_t W : T.deviceWorkOf(T.Events[I])) {
        const model::Lane &DL = T.laneOf(T.Events[W]);
        if (DL.Kind == model::LaneKind::DeviceStream)
          ++Feeders[DL.Device][LI];
      }
  }
  for (int32_t D : C.devices()) {
    PerDevice P;
    P.Device = D;
    uint64_t Most = 0;
    for (auto &F : Feeders[D])
      if (F.second > Most || (F.second == Most && F.first < P.HostLane)) {
        Most = F.second;
        P.HostLane = F.first;
      }
    std::array<std::vector<Interval>, NumBusyKinds> Parts;
    for (uint32_t I : C.deviceWork(D)) {
      const model::Event &E = T.Events[I];
      Parts[unsigned(busyKindOf(E.Kind))].push_back({E.Start, E.end()});
    }
    P.All = C.deviceBusy(D);
    for (unsigned K = 0; K < NumBusyKinds; ++K)
      P.Kind[K] = model::IntervalSet::unionOf(std::move(Parts[K]));
    Devices.push_back(std::move(P));
  }
}

std::vector<DeviceAttribution>
BusyAttribution::attribute(Interval Range) const {
  std::vector<DeviceAttribution> Out;
  for (const PerDevice &P : Devices) {
    DeviceAttribution A;
    A.Device = P.Device;
    A.HostLane = P.HostLane;
    A.BusyNs = P.All.lengthWithin(Range);
    for (unsigned K = 0; K < NumBusyKinds; ++K)
      A.BusyByKind[K] = P.Kind[K].lengthWithin(Range);
    A.IdleNs = Range.length() - A.BusyNs;
    // Walk the idle gaps and the host stretches together.
    llvm::ArrayRef<Interval> Busy = P.All.parts();
    auto BI = std::upper_bound(
        Busy.begin(), Busy.end(), Range.Begin,
        [](int64_t V, const Interval &I) { return V < I.End; });
    size_t NumSegs = 0, SI = 0;
    if (P.HostLane != model::NoIndex) {
      NumSegs = G.numHostSegments(P.HostLane);
      SI = G.firstHostSegmentAfter(P.HostLane, Range.Begin);
    }
    llvm::DenseMap<model::StringId, int64_t> Other;
    int64_t Cursor = Range.Begin;
    auto Gap = [&](Interval Gp) {
      while (SI < NumSegs &&
             G.hostSegment(P.HostLane, SI).Range.End <= Gp.Begin)
        ++SI;
      int64_t At = Gp.Begin;
      for (size_t K = SI; At < Gp.End; ++K) {
        if (K >= NumSegs) {
          A.IdleByHost[unsigned(PathCategory::HostUntraced)] += Gp.End - At;
          break;
        }
        HostSegment S = G.hostSegment(P.HostLane, K);
        if (S.Range.Begin >= Gp.End) {
          A.IdleByHost[unsigned(PathCategory::HostUntraced)] += Gp.End - At;
          break;
        }
        if (S.Range.Begin > At) {
          A.IdleByHost[unsigned(PathCategory::HostUntraced)] +=
              S.Range.Begin - At;
          At = S.Range.Begin;
        }
        int64_t Ns = std::min(S.Range.End, Gp.End) - At;
        if (Ns <= 0)
          continue;
        A.IdleByHost[unsigned(S.Category)] += Ns;
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
