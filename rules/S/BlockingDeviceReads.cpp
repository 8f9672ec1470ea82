//===- rules/S/BlockingDeviceReads.cpp - S003 blocking device reads -------===//
//
// A value read from the device on the host (a scalar for a Python number, a
// size that decides the next tensor's shape, a tensor moved to the CPU) has
// to wait for every kernel queued before it, then for the copy: the host
// blocks, the device queue drains, and the device idles until the host
// submits again.
//
// This detector keeps the host waits of the steady steps that are such
// reads: a wait under a value-reading op (aten::item,
// aten::_local_scalar_dense, aten::nonzero, aten::is_nonzero,
// aten::masked_select, the unique ops, aten::equal...), a blocking copy
// whose device copy goes device-to-host (a synchronous cudaMemcpy DtoH, an
// async copy into pageable memory), or a wait inside an op that also copies
// device-to-host (.cpu(), .tolist(), aten::to / aten::copy_ to the host).
// It groups them by the op path that reads, and reports the reads per step,
// the blocked time and the bound on the gain (waitsGainBound: the smaller of
// the waits' time and the device idle time they were followed by).
//
//===----------------------------------------------------------------------===//
#include "rules/BuiltinDetectors.h"
#include "rules/detectors/DetectorSupport.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <map>
#include <optional>

using namespace tracelint;
using namespace tracelint::rules;
using namespace tracelint::rules::detect;
using analysis::HostWait;
using analysis::TraceIndex;
using model::Event;
using model::EventKind;
using model::Interval;

namespace {

/// True when host call \p E copies device memory to the host.
bool copiesToHost(const model::Trace &T, const Event &E) {
  for (uint32_t D : T.deviceWorkOf(E)) {
    const Event &W = T.Events[D];
    if (W.Kind != EventKind::Memcpy)
      continue;
    if (const model::EventArgs *A = T.args(W))
      if (A->Copy == model::CopyKind::DtoH)
        return true;
  }
  return false;
}

/// True when a host call nested in \p Op copies device memory to the host.
bool opCopiesToHost(const model::Trace &T, const Event &Op) {
  const model::Lane &L = T.laneOf(Op);
  llvm::ArrayRef<Event> Lane = T.events(L);
  uint32_t OpIdx = T.indexOf(Op);
  auto It = std::upper_bound(
      Lane.begin(), Lane.end(), Op.Start,
      [](int64_t Time, const Event &E) { return Time < E.Start; });
  // Events that start with the op may sort before it; step back over them.
  while (It != Lane.begin() && std::prev(It)->Start == Op.Start)
    --It;
  for (; It != Lane.end() && It->Start < Op.end(); ++It) {
    if (It->Kind != EventKind::Runtime && It->Kind != EventKind::Driver)
      continue;
    // Nested in Op: Op is on its parent chain.
    bool Inside = false;
    for (uint32_t P = It->Parent; P != model::NoIndex; P = T.Events[P].Parent)
      if (P == OpIdx) {
        Inside = true;
        break;
      }
    if (Inside && copiesToHost(T, *It))
      return true;
  }
  return false;
}

enum class ReadKind { ValueOp, CopyToHost };

/// Whether wait \p W reads a device value on the host, and through which
/// op: sets \p Reader to the event whose op path names the read.
std::optional<ReadKind> readOf(const TraceIndex &Ctx, const HostWait &W,
                               const Event *&Reader) {
  const model::Trace &T = Ctx.trace();
  const Event &E = T.Events[W.Event];
  const Event *Innermost = enclosingOp(T, E);
  Reader = Innermost ? Innermost : &E;
  for (const Event *Cur = Innermost; Cur;
       Cur = Cur->Parent == model::NoIndex ? nullptr : &T.Events[Cur->Parent])
    // Framework ops that return a host value computed from device data, so
    // they wait for the device before they return (the name class the
    // trace index's host waits use too).
    if (Cur->Kind == EventKind::Op &&
        Ctx.is(*Cur, model::NameClass::DeviceReadOp))
      return ReadKind::ValueOp;
  if (W.Kind == analysis::WaitKind::BlockingCopy && copiesToHost(T, E))
    return ReadKind::CopyToHost;
  if (Innermost && opCopiesToHost(T, *Innermost))
    return ReadKind::CopyToHost;
  return std::nullopt;
}

/// The reads at one op path.
struct ReadSite {
  WaitTally Waits;                   ///< the reads' waits
  uint64_t Reads = 0;                ///< distinct reading events
  ReadKind Kind = ReadKind::ValueOp; ///< of the last read
};

/// The steady steps' reads, collected once.
struct StepReads {
  std::vector<std::vector<HostWait>> PerWindow; ///< parallel to the windows
  std::vector<int64_t> ReadsPerWindow;          ///< parallel to the windows
  std::map<std::string, ReadSite> Sites;        ///< by op path
  uint64_t Values = 0, Copies = 0;              ///< reads by kind
};

StepReads collectReads(const TraceIndex &Ctx) {
  const model::Trace &T = Ctx.trace();
  const size_t N = Ctx.measureWindows().Ranges.size();
  StepReads S;
  S.PerWindow.resize(N);
  S.ReadsPerWindow.resize(N, 0);
  // A read's waits (the copy call, then the synchronize) share one reader:
  // count the reader once.
  uint32_t LastReader = model::NoIndex;
  forEachSteadyWait(Ctx, [&](const HostWait &W, size_t R) {
    const Event *Reader = nullptr;
    std::optional<ReadKind> Kind = readOf(Ctx, W, Reader);
    if (!Kind)
      return;
    S.PerWindow[R].push_back(W);
    ReadSite &Site = S.Sites[Ctx.opPath(*Reader)];
    uint32_t ReaderIdx = T.indexOf(*Reader);
    if (ReaderIdx != LastReader) {
      ++Site.Reads;
      ++S.ReadsPerWindow[R];
      ++(*Kind == ReadKind::ValueOp ? S.Values : S.Copies);
    }
    LastReader = ReaderIdx;
    Site.Kind = *Kind;
    Site.Waits.add(W);
  });
  return S;
}

/// The per-step figures of the reads: the time blocked (clipped to each
/// window) and the bound on the gain of removing them.
struct ReadFigures {
  int64_t WaitMedian = 0, Impact = 0, ReadsMedian = 0;
};

ReadFigures measureReads(const TraceIndex &Ctx, const StepReads &S) {
  const MeasureWindows &Win = Ctx.measureWindows();
  std::vector<int64_t> WaitPer(Win.Ranges.size(), 0),
      ImpactPer(Win.Ranges.size(), 0);
  for (size_t R = 0; R < Win.Ranges.size(); ++R) {
    for (const HostWait &W : S.PerWindow[R])
      WaitPer[R] += std::min(W.Range.End, Win.Ranges[R].End) - W.Range.Begin;
    ImpactPer[R] = Ctx.waitsGainBound(S.PerWindow[R], Win.Ranges[R]);
  }
  ReadFigures F;
  F.WaitMedian = median(WaitPer);
  F.Impact = std::min(median(ImpactPer), Ctx.targetNs());
  F.ReadsMedian = median(S.ReadsPerWindow);
  return F;
}

/// The finding: the figures, the op paths that read the most and the
/// longest wait of the subject.
Detection describeReads(const TraceIndex &Ctx, const StepReads &S,
                        const ReadFigures &F, double MinShare) {
  const model::Trace &T = Ctx.trace();
  const MeasureWindows &Win = Ctx.measureWindows();
  const double NumWindows = double(Win.Ranges.size());
  auto Ranked =
      rankByKey(S.Sites, [](const ReadSite &G) { return G.Waits.Total; });
  const auto &[TopPath, Top] = *Ranked.front();
  const Event &Longest = T.Events[Top.Waits.Longest];

  Detection Det;
  describeSiteImpact(Ctx, TopPath, F.Impact, Det);
  auto &V = Det.Values;
  V["value"] = dur(F.WaitMedian);
  V["share"] = pct(double(F.WaitMedian) / double(Ctx.targetNs()));
  V["threshold"] = pct(MinShare);
  V["count"] = count(F.ReadsMedian);
  V["reads"] = count(int64_t(S.Values + S.Copies));
  V["value_reads"] = count(int64_t(S.Values));
  V["copy_reads"] = count(int64_t(S.Copies));
  V["top_count"] = Value::number(double(Top.Reads) / NumWindows, 1);
  V["top_wait"] = dur(int64_t(double(Top.Waits.Total) / NumWindows));
  V["max"] = dur(Top.Waits.Max);
  V["example"] = eventAt(Ctx, Longest);
  V["how"] = Top.Kind == ReadKind::ValueOp
                 ? "an op that returns a host value from device data"
                 : "a device-to-host copy the host waits for";
  addSiteEvidence(
      Det, Ranked, 0, 3, [&](const std::string &Path, const ReadSite &G) {
        return llvm::formatv(
                   "{0}: {1:f1} reads {2}, {3} blocked {2}; the longest "
                   "wait {4} at {5}",
                   Path, double(G.Reads) / NumWindows,
                   Win.Steps ? "per step" : "in the window",
                   dur(int64_t(double(G.Waits.Total) / NumWindows)),
                   dur(G.Waits.Max),
                   support::formatOffset(
                       Ctx.traceOffsetNs(T.Events[G.Waits.Longest])))
            .str();
      });
  Det.Examples.push_back(example(Ctx, Longest));
  Det.Confidence = 0.7;
  return Det;
}

} // namespace

Outcome rules::runBlockingDeviceReads(const TraceIndex &Ctx,
                                      const RuleOptions &Opts,
                                      std::vector<Detection> &Out) {
  const double MinShare = Opts.number("min-share-of-step");
  const double MinGain = Opts.number("min-gain-share");
  const double MinInfo = Opts.number("min-info-share");
  const int64_t Target = Ctx.targetNs();
  if (Target <= 0)
    return Outcome::ran();

  StepReads S = collectReads(Ctx);
  if (S.Sites.empty())
    return Outcome::ran();
  ReadFigures F = measureReads(Ctx, S);
  // Under the floor, reads whose waits still left the device idle for a
  // measurable share of the target are kept at info.
  const bool UnderFloor = double(F.WaitMedian) < MinShare * double(Target);
  if (UnderFloor && double(F.Impact) < MinInfo * double(Target))
    return Outcome::ran();

  Detection Det = describeReads(Ctx, S, F, MinShare);
  if (UnderFloor)
    keepUnderFloor(Det, "min-share-of-step", MinShare, F.WaitMedian, Target);
  // The host waits are certain; that removing them helps is not when the
  // device was busy through them (then the bound says so, at info).
  // Under the floor the reads are kept only when they left the device
  // idle, so the idle verdict applies.
  if (!UnderFloor && double(F.Impact) < MinGain * double(Target)) {
    Det.SeverityOverride = Severity::Info;
    Det.Values["verdict"] = "the device stayed busy through the reads, so "
                            "removing them is not predicted to help by more "
                            "than {impact}";
  } else {
    Det.Values["verdict"] = "the device idled after them: removing them can "
                            "save up to {impact} " +
                            Det.Values["per"].text();
  }
  Out.push_back(std::move(Det));
  return Outcome::ran();
}
