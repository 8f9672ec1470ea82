//===- rules/M/MaterializedCopies.cpp - M001 materialized copies ----------===//
//
// A view is free; materializing it is not. When a reshape, contiguous(),
// clone(), copy_() or to() cannot return a view, the device runs a copy
// kernel (PyTorch's direct_copy_kernel, elementwise copy kernels) or a
// device-to-device memcpy. This detector finds that device work, follows
// the correlation id back to the runtime call and up its op ancestors to
// the op that requested it, and reports the copies' share of device busy
// time (a union: concurrent copies are not counted twice) with the op paths
// that caused them. The impact is the copies' union per steady step (the
// median), which must also reach a share of the target: a large share of a
// nearly idle device can still be nothing next to the step.
//
//===----------------------------------------------------------------------===//
#include "rules/BuiltinDetectors.h"
#include "rules/detectors/DetectorSupport.h"

#include "support/Count.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <map>
#include <optional>

using namespace tracelint;
using namespace tracelint::rules;
using namespace tracelint::rules::detect;
using analysis::TraceIndex;
using model::Event;
using model::EventKind;
using model::Interval;

namespace {

/// Ops that materialize a tensor (a view that could not stay a view, a
/// dtype/device conversion, an explicit copy).
bool isCopyOpName(llvm::StringRef Name) {
  return Name == "aten::contiguous" || Name == "aten::clone" ||
         Name == "aten::copy_" || Name == "aten::to" ||
         Name == "aten::_to_copy" || Name == "aten::reshape" ||
         Name == "aten::flatten" || Name == "aten::_reshape_alias" ||
         Name == "aten::type_as";
}

/// Ops that make the copy a layout materialization rather than a value
/// conversion: the strongest evidence of an avoidable copy.
bool isMaterializingOpName(llvm::StringRef Name) {
  return Name == "aten::contiguous" || Name == "aten::reshape" ||
         Name == "aten::flatten" || Name == "aten::clone";
}

/// Who asked for a device copy.
struct Requester {
  std::string Path = "(no op recorded)";
  bool Materializing = false;
};

/// The op that requested the copy launched by \p Launch, if it is one that
/// materializes a tensor: a copy op on the op path above the launch. A copy
/// kernel under, say, aten::cat or a collective is that op's own work, not a
/// materialized view; without any op in the trace the copy is counted, with
/// no path.
std::optional<Requester> requesterOf(const TraceIndex &Ctx, const Event &Launch,
                                     bool HasOps) {
  const model::Trace &T = Ctx.trace();
  const Event *Op = enclosingOp(T, Launch);
  if (!Op) {
    // The trace records ops, yet none encloses this launch: the copy came
    // from outside the framework (a library, a custom extension) and
    // nothing says it materializes a view.
    if (HasOps)
      return std::nullopt;
    return Requester();
  }
  auto IsCopy = [&](const Event &E) {
    return E.Kind == EventKind::Op && isCopyOpName(T.name(E));
  };
  auto IsMaterializing = [&](const Event &E) {
    return E.Kind == EventKind::Op && isMaterializingOpName(T.name(E));
  };
  if (!IsCopy(*Op) && !anyEnclosing(T, *Op, IsCopy))
    return std::nullopt;
  Requester R;
  R.Path = Ctx.opPath(*Op);
  R.Materializing =
      IsMaterializing(*Op) || anyEnclosing(T, *Op, IsMaterializing);
  return R;
}

struct PathGroup {
  uint64_t Count = 0;
  int64_t DeviceNs = 0; ///< summed durations (shown; the share uses unions)
  uint32_t Longest = model::NoIndex;
  bool Materializing = false;
};

/// The steady windows' device copies that copy ops requested, collected
/// once.
struct Copies {
  std::vector<std::vector<Interval>> PerWindow; ///< parallel to the windows
  std::vector<Interval> All;
  std::map<std::string, PathGroup> ByPath;
  std::vector<uint32_t> Kernels; ///< the copy kernels (not DtoD memcpys)
  uint64_t Count = 0, DtoD = 0;
  uint64_t Unattributed = 0; ///< copies without a host call
  bool HasOps = false;       ///< the trace records framework ops
};

void addCopy(const model::Trace &T, uint32_t I, size_t Window,
             const Requester &R, Copies &C) {
  const Event &E = T.Events[I];
  ++C.Count;
  C.DtoD += E.Kind == EventKind::Memcpy;
  if (E.Kind == EventKind::Kernel)
    C.Kernels.push_back(I);
  Interval Range{E.Start, E.end()};
  C.PerWindow[Window].push_back(Range);
  C.All.push_back(Range);
  PathGroup &G = C.ByPath[R.Path];
  ++G.Count;
  G.DeviceNs += E.Duration;
  G.Materializing |= R.Materializing;
  keepLongest(T, G.Longest, I);
}

Copies collectCopies(const TraceIndex &Ctx) {
  const model::Trace &T = Ctx.trace();
  const MeasureWindows &Win = Ctx.measureWindows();
  Copies C;
  C.PerWindow.resize(Win.Ranges.size());
  C.HasOps = T.countKind(EventKind::Op) > 0;
  for (int32_t D : Ctx.devices()) {
    if (D < 0)
      continue;
    for (uint32_t I : Ctx.deviceWork(D)) {
      const Event &E = T.Events[I];
      if (!Ctx.isDeviceCopy(E))
        continue;
      size_t Window = Ctx.windowOf(I);
      if (Window == Win.Ranges.size())
        continue;
      uint32_t L = T.launchOf(E);
      if (L == model::NoIndex) {
        ++C.Unattributed; // no host call: nothing says who asked for it
        continue;
      }
      if (std::optional<Requester> R = requesterOf(Ctx, T.Events[L], C.HasOps))
        addCopy(T, I, Window, *R, C);
    }
  }
  return C;
}

/// The copies measured against device busy time and the target.
struct CopyFigures {
  int64_t BusyNs = 0;             ///< device busy time in the windows (a union)
  int64_t CopyNs = 0;             ///< the copies' union in the windows
  double Share = 0;               ///< of busy time
  int64_t PerStep = 0;            ///< the copies' union per window, median
  std::vector<int64_t> PerWindow; ///< the union in each window
  int64_t ImpactNs = 0;           ///< PerStep, at most the target
};

CopyFigures measureCopies(const TraceIndex &Ctx, Copies &C) {
  const MeasureWindows &Win = Ctx.measureWindows();
  CopyFigures F;
  model::IntervalSet CopyUnion = model::IntervalSet::unionOf(C.All);
  for (const Interval &R : Win.Ranges) {
    F.BusyNs += Ctx.deviceBusy().lengthWithin(R);
    F.CopyNs += CopyUnion.lengthWithin(R);
  }
  F.Share = F.BusyNs > 0 ? double(F.CopyNs) / double(F.BusyNs) : 0;
  std::vector<int64_t> PerStep;
  for (size_t W = 0; W < Win.Ranges.size(); ++W)
    PerStep.push_back(model::IntervalSet::unionOf(std::move(C.PerWindow[W]))
                          .lengthWithin(Win.Ranges[W]));
  F.PerStep = median(PerStep);
  F.PerWindow = PerStep;
  F.ImpactNs = std::min(F.PerStep, Ctx.targetNs());
  return F;
}

/// The placeholders of the texts: the figures and the top op path.
void describeCopies(const TraceIndex &Ctx, const Copies &C,
                    const CopyFigures &F, const std::string &TopPath,
                    const PathGroup &Top, double MinShare, Detection &Det) {
  const model::Trace &T = Ctx.trace();
  auto &V = Det.Values;
  V["value"] = pct(F.Share);
  V["share"] = pct(F.Share);
  V["threshold"] = pct(MinShare);
  V["copy_time"] = dur(F.CopyNs);
  V["busy"] = dur(F.BusyNs);
  V["count"] = count(int64_t(C.Count));
  V["dtod"] = count(int64_t(C.DtoD));
  V["impact"] = dur(F.ImpactNs);
  V["per_step"] = dur(F.PerStep);
  V["top_op_path"] = TopPath;
  V["subject"] = TopPath;
  V["top_count"] = count(int64_t(Top.Count));
  V["top_time"] = dur(Top.DeviceNs);
  V["top_share"] = pct(double(Top.DeviceNs) / double(F.BusyNs));
  V["target"] = Ctx.describeTarget();
  describeWindows(Ctx.measureWindows(), V);
  std::vector<std::string> KernelList = namesByCount(T, C.Kernels);
  if (C.DtoD)
    KernelList.push_back("Memcpy DtoD");
  V["top_names"] = joinNames(KernelList, 2);
  V["example"] = eventAt(Ctx, T.Events[Top.Longest]);
}

/// The other op paths, after the top one that the texts name, and the
/// copies left uncounted.
void addCopyEvidence(
    const Copies &C, const CopyFigures &F,
    const std::vector<const std::pair<const std::string, PathGroup> *> &Ranked,
    Detection &Det) {
  addSiteEvidence(
      Det, Ranked, 1, 5, [&](const std::string &Path, const PathGroup &G) {
        return llvm::formatv(
                   "also {0}: {1}, {2} of device time ({3} "
                   "of busy)",
                   Path, support::formatCount(G.Count, "copy", "copies"),
                   dur(G.DeviceNs), pct(double(G.DeviceNs) / double(F.BusyNs)))
            .str();
      });
  if (C.Unattributed)
    Det.ExtraEvidence.push_back(
        llvm::formatv("{0} more device copies have no host call in the trace "
                      "and are not counted",
                      C.Unattributed)
            .str());
}

} // namespace

Outcome rules::runMaterializedCopies(const TraceIndex &Ctx,
                                     const RuleOptions &Opts,
                                     std::vector<Detection> &Out) {
  const model::Trace &T = Ctx.trace();
  const double MinShare = Opts.number("min-share-of-busy");
  const double MinTargetShare = Opts.number("min-share-of-step");
  const int64_t Target = Ctx.targetNs();

  Copies C = collectCopies(Ctx);
  if (C.Count == 0)
    return Outcome::ran();
  CopyFigures F = measureCopies(Ctx, C);
  if (F.BusyNs <= 0 || F.Share < MinShare)
    return Outcome::ran();
  // A material share of a nearly idle device can still be nothing next to
  // the step.
  if (double(F.ImpactNs) < MinTargetShare * double(Target))
    return Outcome::ran();

  auto Ranked =
      rankByKey(C.ByPath, [](const PathGroup &G) { return G.DeviceNs; });
  const auto &[TopPath, Top] = *Ranked.front();
  Detection Det;
  describeCopies(Ctx, C, F, TopPath, Top, MinShare, Det);
  const Event &Longest = T.Events[Top.Longest];
  Det.Examples.push_back(example(Ctx, Longest));
  uint32_t L = T.launchOf(Longest);
  if (L != model::NoIndex)
    Det.Examples.push_back(example(Ctx, T.Events[L]));
  addCopyEvidence(C, F, Ranked, Det);
  Det.ImpactNs = F.ImpactNs;
  Det.PerWindowNs = F.PerWindow;
  // On the critical path: the same copies taking no time (DtoD copies by
  // category, which also holds other copies: a looser bound).
  Det.PathQuery.Names = namesByCount(T, C.Kernels);
  if (C.DtoD)
    Det.PathQuery.Categories.set(unsigned(analysis::PathCategory::Copy));
  Det.Window = Ctx.measureWindows().describe();
  Det.Subject = TopPath;
  // A layout materialization (contiguous/reshape/clone) is the clearest
  // case; a bare copy_ or to() may be a conversion the program needs.
  Det.Confidence = Top.Materializing ? 0.7 : C.HasOps ? 0.5 : 0.4;
  if (!Top.Materializing)
    Det.ConfidenceNotes.emplace_back(
        "the top copies come from copy_/to without a reshape or contiguous "
        "above them: they may be conversions the program needs");
  Out.push_back(std::move(Det));
  return Outcome::ran();
}
