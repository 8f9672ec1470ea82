//===- rules/detectors/DeviceReads.cpp - S003 blocking device reads -------===//
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

struct PathGroup {
  uint64_t Count = 0; ///< reads (distinct reading events)
  int64_t Total = 0;  ///< blocked time
  int64_t Max = 0;
  uint32_t Longest = model::NoIndex;
  ReadKind Kind = ReadKind::ValueOp;
};

} // namespace

Outcome rules::runBlockingDeviceReads(const TraceIndex &Ctx,
                                      const RuleOptions &Opts,
                                      std::vector<Detection> &Out) {
  const model::Trace &T = Ctx.trace();
  const double MinShare = Opts.number("min-share-of-step");
  const double MinGain = Opts.number("min-gain-share");
  const int64_t Target = Ctx.targetNs();
  if (Target <= 0)
    return Outcome::ran();
  const MeasureWindows &Win = Ctx.measureWindows();
  const size_t N = Win.Ranges.size();

  std::vector<std::vector<HostWait>> WaitsIn(N);
  std::vector<int64_t> ReadsPer(N, 0);
  std::map<std::string, PathGroup> ByPath;
  uint64_t Values = 0, Copies = 0;
  // A read's waits (the copy call, then the synchronize) share one reader:
  // count the reader once.
  uint32_t LastReader = model::NoIndex;
  for (const HostWait &W : Ctx.hostWaits()) {
    if (Ctx.isFlushWait(W))
      continue;
    // The window holding the instant (a binary search).
    auto It = Win.Ranges.begin() + Win.indexOf(W.Range.Begin);
    if (It == Win.Ranges.end())
      continue;
    const Event *Reader = nullptr;
    std::optional<ReadKind> Kind = readOf(Ctx, W, Reader);
    if (!Kind)
      continue;
    size_t R = It - Win.Ranges.begin();
    WaitsIn[R].push_back(W);
    PathGroup &G = ByPath[Ctx.opPath(*Reader)];
    uint32_t ReaderIdx = T.indexOf(*Reader);
    if (ReaderIdx != LastReader) {
      ++G.Count;
      ++ReadsPer[R];
      ++(*Kind == ReadKind::ValueOp ? Values : Copies);
    }
    LastReader = ReaderIdx;
    G.Kind = *Kind;
    int64_t Len = W.Range.length();
    G.Total += Len;
    if (Len > G.Max) {
      G.Max = Len;
      G.Longest = W.Event;
    }
  }
  if (ByPath.empty())
    return Outcome::ran();

  std::vector<int64_t> WaitPer(N, 0), ImpactPer(N, 0);
  for (size_t R = 0; R < N; ++R) {
    for (const HostWait &W : WaitsIn[R])
      WaitPer[R] += std::min(W.Range.End, Win.Ranges[R].End) - W.Range.Begin;
    ImpactPer[R] = Ctx.waitsGainBound(WaitsIn[R], Win.Ranges[R]);
  }
  int64_t WaitMedian = median(WaitPer);
  if (double(WaitMedian) < MinShare * double(Target))
    return Outcome::ran();
  int64_t Impact = std::min(median(ImpactPer), Target);

  auto Ranked = rankByKey(ByPath, [](const PathGroup &G) { return G.Total; });
  const auto *Top = Ranked.front();
  double NumWindows = double(N);

  Detection Det;
  auto &V = Det.Values;
  V["value"] = dur(WaitMedian);
  V["share"] = pct(double(WaitMedian) / double(Target));
  V["threshold"] = pct(MinShare);
  V["count"] = std::to_string(median(ReadsPer));
  V["reads"] = std::to_string(Values + Copies);
  V["value_reads"] = std::to_string(Values);
  V["copy_reads"] = std::to_string(Copies);
  V["impact"] = dur(Impact);
  V["impact_share"] = pct(double(Impact) / double(Target));
  V["top_op_path"] = Top->first;
  V["subject"] = Top->first;
  V["top_count"] =
      llvm::formatv("{0:f1}", double(Top->second.Count) / NumWindows).str();
  V["top_wait"] = dur(int64_t(double(Top->second.Total) / NumWindows));
  V["target"] = Ctx.describeTarget();
  describeWindows(Win, V);
  const Event &Longest = T.Events[Top->second.Longest];
  V["max"] = dur(Top->second.Max);
  V["example"] = llvm::formatv("{0} at {1:f3} us", T.name(Longest),
                               Ctx.traceTimestampUs(Longest))
                     .str();
  V["how"] = Top->second.Kind == ReadKind::ValueOp
                 ? "an op that returns a host value from device data"
                 : "a device-to-host copy the host waits for";
  for (size_t I = 0; I < Ranked.size() && I < 3; ++I) {
    const PathGroup &G = Ranked[I]->second;
    Det.ExtraEvidence.push_back(
        llvm::formatv("{0}: {1:f1} reads {2}, {3} blocked {2}; the longest "
                      "wait {4} at {5:f3} us",
                      Ranked[I]->first, double(G.Count) / NumWindows,
                      Win.Steps ? "per step" : "in the window",
                      dur(int64_t(double(G.Total) / NumWindows)), dur(G.Max),
                      Ctx.traceTimestampUs(T.Events[G.Longest]))
            .str());
  }
  Det.Examples.push_back(example(Ctx, Longest));
  Det.ImpactNs = Impact;
  Det.Window = Win.describe();
  Det.Subject = Top->first;
  // The host waits are certain; that removing them helps is not when the
  // device was busy through them (then the bound says so, at info).
  if (double(Impact) < MinGain * double(Target)) {
    Det.SeverityOverride = Severity::Info;
    V["verdict"] = "the device stayed busy through the reads, so removing "
                   "them is not predicted to help by more than {impact}";
  } else {
    V["verdict"] = "the device idled after them: removing them can save up "
                   "to {impact} " +
                   V["per"].text();
  }
  Det.Confidence = 0.7;
  Out.push_back(std::move(Det));
  return Outcome::ran();
}
