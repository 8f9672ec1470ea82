//===- rules/M/HtodOnComputeStream.cpp - M003 HtoD copies not overlapped --===//
//
// A host-to-device copy costs step time only where no other device work
// runs beside it. Issued on the stream that runs the compute kernels, it
// queues between them and the kernels wait for it; issued on a side stream
// ahead of time (prefetching the next batch), it runs beside them.
//
// This detector takes the HtoD copies of the steady steps and measures the
// part of their time during which the device ran nothing else (the copies'
// union minus every other device work on that device). That exposed time is
// the bound on the gain from overlapping them: a perfectly overlapped copy
// adds nothing, so the step cannot shrink by more. It notes whether the
// copies share a stream with kernels (the compute stream).
//
//===----------------------------------------------------------------------===//
#include "rules/BuiltinDetectors.h"
#include "rules/detectors/DetectorSupport.h"

#include "support/Count.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <array>
#include <map>
#include <set>

using namespace tracelint;
using namespace tracelint::rules;
using namespace tracelint::rules::detect;
using analysis::TraceIndex;
using model::Event;
using model::EventKind;
using model::Interval;

namespace {

struct PathGroup {
  uint64_t Count = 0;
  int64_t Bytes = 0, DeviceNs = 0, ExposedNs = 0;
  uint32_t Longest = model::NoIndex;
};

/// One device's HtoD copies and what it runs beside them.
struct DeviceCopies {
  int32_t Device = -1;
  /// The device's copies other than uploads (otherWork()).
  model::IntervalSet OtherCopies;
  /// The copies of each window, cut at the window's end.
  std::vector<std::vector<Interval>> PerWindow;
};

/// The steady windows' HtoD copies, collected once.
struct HtoDCopies {
  std::vector<DeviceCopies> Devices;
  std::map<std::string, PathGroup> ByPath;
  // The ops that issued the copies: a synchronous copy_ keeps the host
  // inside the op while the copy runs, and the path may pass through that
  // host time instead of the device copy.
  std::set<std::string> IssuingOps;
  uint64_t Count = 0, OnCompute = 0;
  /// Copies that are the upload half of a round trip (M008's subject).
  uint64_t RoundTrip = 0;
};

/// Whether lane \p L runs kernels or collectives (remembered per lane).
bool runsKernels(const model::Trace &T, uint32_t L,
                 llvm::DenseMap<uint32_t, bool> &Known) {
  auto [It, New] = Known.try_emplace(L, false);
  if (New)
    It->second = llvm::any_of(T.events(T.Lanes[L]), [](const Event &E) {
      return E.Kind == EventKind::Kernel || E.Kind == EventKind::Collective;
    });
  return It->second;
}

/// Adds the HtoD copy \p I, \p ExposedNs of whose time in its window ran
/// beside no other device work.
void addCopy(const TraceIndex &Ctx, uint32_t I, int64_t ExposedNs,
             bool OnCompute, HtoDCopies &S) {
  const model::Trace &T = Ctx.trace();
  const Event &E = T.Events[I];
  ++S.Count;
  S.OnCompute += OnCompute;
  S.RoundTrip += Ctx.roundTrips().contains(I);
  uint32_t L = T.launchOf(E);
  std::string Path =
      L == model::NoIndex ? "(no host call recorded)" : Ctx.opPath(T.Events[L]);
  if (L != model::NoIndex)
    if (const Event *Op = enclosingOp(T, T.Events[L]))
      S.IssuingOps.insert(T.name(*Op).str());
  PathGroup &G = S.ByPath[Path];
  ++G.Count;
  G.Bytes += copyBytes(T, E);
  G.DeviceNs += E.Duration;
  G.ExposedNs += ExposedNs;
  keepLongest(T, G.Longest, I);
}

/// Every other work of the device: the index's unions of its kernels,
/// memsets and collectives, and its copies other than uploads.
std::array<const model::IntervalSet *, 4> otherWork(const TraceIndex &Ctx,
                                                    const DeviceCopies &DC) {
  return {&Ctx.deviceBusy(DC.Device, analysis::BusyKind::Compute),
          &Ctx.deviceBusy(DC.Device, analysis::BusyKind::Memset),
          &Ctx.deviceBusy(DC.Device, analysis::BusyKind::Communication),
          &DC.OtherCopies};
}

/// The device of copy \p E (as TraceIndex::devices() counts them).
int32_t deviceOf(const model::Trace &T, const Event &E) {
  const model::Lane &L = T.laneOf(E);
  return L.Kind == model::LaneKind::DeviceStream ? L.Device : -1;
}

DeviceCopies collectDevice(const TraceIndex &Ctx, int32_t D, HtoDCopies &S) {
  const model::Trace &T = Ctx.trace();
  const MeasureWindows &Win = Ctx.measureWindows();
  // The copies are few and the kernels many: the other work is the index's
  // unions of the device's kernels, memsets and collectives and a union of
  // its other copies, asked only within each upload.
  llvm::ArrayRef<uint32_t> Copies = Ctx.eventsOfKind(EventKind::Memcpy);
  std::vector<Interval> OtherCopies;
  for (uint32_t I : Copies)
    if (const Event &E = T.Events[I]; deviceOf(T, E) == D && !isHtoDCopy(T, E))
      OtherCopies.push_back({E.Start, E.end()});
  DeviceCopies DC;
  DC.Device = D;
  DC.OtherCopies = model::IntervalSet::unionOf(std::move(OtherCopies));
  const auto Other = otherWork(Ctx, DC);
  DC.PerWindow.resize(Win.Ranges.size());
  llvm::DenseMap<uint32_t, bool> KernelLanes;
  for (uint32_t I : Copies) {
    const Event &E = T.Events[I];
    if (deviceOf(T, E) != D || !isHtoDCopy(T, E))
      continue;
    size_t R = Ctx.windowOf(I);
    if (R == Win.Ranges.size())
      continue;
    Interval C{E.Start, std::min(E.end(), Win.Ranges[R].End)};
    DC.PerWindow[R].push_back(C);
    addCopy(Ctx, I, C.length() - model::IntervalSet::coveredWithin(Other, C),
            runsKernels(T, E.Lane, KernelLanes), S);
  }
  return DC;
}

HtoDCopies collectCopies(const TraceIndex &Ctx) {
  HtoDCopies S;
  for (int32_t D : Ctx.devices())
    if (D >= 0)
      S.Devices.push_back(collectDevice(Ctx, D, S));
  return S;
}

/// The copies' time per window with nothing else on the device: the bound
/// on the gain from overlapping them.
struct ExposureFigures {
  int64_t ExposedNs = 0; ///< per window, median
  int64_t CopyNs = 0;    ///< the copies' union per window, median
};

ExposureFigures measureExposure(const TraceIndex &Ctx, const HtoDCopies &S) {
  const size_t N = Ctx.measureWindows().Ranges.size();
  std::vector<int64_t> ExposedPer(N, 0), CopyPer(N, 0);
  for (const DeviceCopies &DC : S.Devices) {
    const auto Other = otherWork(Ctx, DC);
    for (size_t R = 0; R < N; ++R) {
      model::IntervalSet U = model::IntervalSet::unionOf(DC.PerWindow[R]);
      int64_t Exposed = U.length();
      for (const Interval &P : U.parts())
        Exposed -= model::IntervalSet::coveredWithin(Other, P);
      // Several devices: the step is bounded by the one with most exposed
      // copy time.
      ExposedPer[R] = std::max(ExposedPer[R], Exposed);
      CopyPer[R] = std::max(CopyPer[R], U.length());
    }
  }
  return {median(ExposedPer), median(CopyPer)};
}

std::string streamNote(const HtoDCopies &S) {
  if (S.OnCompute == S.Count)
    return "all of them on a stream that also runs the compute kernels";
  if (S.OnCompute == 0)
    return "on streams of their own, but with nothing to overlap";
  return llvm::formatv("{0} of them on a stream that also runs kernels",
                       S.OnCompute)
      .str();
}

/// The top three op paths, per window.
void addPathEvidence(
    const TraceIndex &Ctx,
    const std::vector<const std::pair<const std::string, PathGroup> *> &Ranked,
    Detection &Det) {
  PerWindowMean Mean(Ctx.measureWindows());
  addSiteEvidence(
      Det, Ranked, 0, 3, [&](const std::string &Path, const PathGroup &G) {
        return llvm::formatv("{0}: {1} {2}, {3} {2}, {4} of copy "
                             "time {2}, {5} of it with nothing else on the "
                             "device",
                             Path,
                             support::formatAverageCount(Mean.count(G.Count),
                                                         "copy", "copies"),
                             Mean.per(), Mean.size(G.Bytes),
                             Mean.time(G.DeviceNs), Mean.time(G.ExposedNs))
            .str();
      });
}

} // namespace

Outcome rules::runHtodOnComputeStream(const TraceIndex &Ctx,
                                      const RuleOptions &Opts,
                                      std::vector<Detection> &Out) {
  const model::Trace &T = Ctx.trace();
  const double MinShare = Opts.number("min-share-of-step");
  const double MinInfo = Opts.number("min-info-share");
  const int64_t Target = Ctx.targetNs();
  if (Target <= 0)
    return Outcome::ran();

  HtoDCopies S = collectCopies(Ctx);
  if (S.ByPath.empty())
    return Outcome::ran();
  ExposureFigures F = measureExposure(Ctx, S);
  // Exposed copy time under the floor is still reported, at info, while it
  // reaches min-info-share: moving a copy off the compute stream is a small
  // change, and a reader looking at copies wants it.
  const bool UnderFloor = double(F.ExposedNs) < MinShare * double(Target);
  const int64_t Impact = std::min(F.ExposedNs, Target);
  if (Impact <= 0 || (UnderFloor && double(Impact) < MinInfo * double(Target)))
    return Outcome::ran();

  auto Ranked =
      rankByKey(S.ByPath, [](const PathGroup &G) { return G.ExposedNs; });
  const auto &[TopPath, Top] = *Ranked.front();
  const Event &Longest = T.Events[Top.Longest];
  Detection Det;
  auto &V = Det.Values;
  describeCostPerWindow(Ctx, F.ExposedNs, MinShare, Impact, V);
  V["copy_time"] = dur(F.CopyNs);
  V["count"] = count(int64_t(S.Count));
  V["on_compute"] = count(int64_t(S.OnCompute));
  V["stream_note"] = streamNote(S);
  V["top_op_path"] = TopPath;
  V["subject"] = TopPath;
  V["example"] = eventAt(Ctx, Longest,
                         llvm::formatv(" ({0})", dur(Longest.Duration)).str());
  addPathEvidence(Ctx, Ranked, Det);
  // Where the data comes back and goes up again, M008 names the round
  // trip; this card only says that overlapping is the second change.
  if (S.RoundTrip)
    Det.ExtraEvidence.push_back(
        llvm::formatv("{0} of these copies are the upload half of round "
                      "trips (M008): the same data comes back to the host "
                      "and goes up again, so keeping it on the device "
                      "removes the copies, which comes before overlapping "
                      "them",
                      S.RoundTrip)
            .str());
  Det.Examples.push_back(example(Ctx, Longest));
  Det.ImpactNs = Impact;
  // On the critical path: every copy, and the ops that issued these, taking
  // no time (a side stream hides the copy rather than removing it: loose but
  // safe).
  Det.PathQuery.Categories.set(unsigned(analysis::PathCategory::Copy));
  Det.PathQuery.Names.assign(S.IssuingOps.begin(), S.IssuingOps.end());
  Det.Window = Ctx.measureWindows().describe();
  Det.Subject = TopPath;
  // Exposure is measured; whether the data could be copied earlier (is it
  // known before the step needs it?) is not in the trace.
  Det.Confidence = S.OnCompute ? 0.65 : 0.5;
  if (UnderFloor)
    keepUnderFloor(Det, "min-share-of-step", MinShare, F.ExposedNs, Target);
  Out.push_back(std::move(Det));
  return Outcome::ran();
}
