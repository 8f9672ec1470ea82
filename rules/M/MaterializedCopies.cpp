//===- rules/detectors/DeviceCopies.cpp - M001 materialized copies --------===//
//
// A view is free; materializing it is not. When a reshape, contiguous(),
// clone(), copy_() or to() cannot return a view, the device runs a copy
// kernel (PyTorch's direct_copy_kernel, elementwise copy kernels) or a
// device-to-device memcpy. This detector finds that device work, follows
// the correlation id back to the runtime call and up its op ancestors to
// the op that requested it, and reports the copies' share of device busy
// time (a union: concurrent copies are not counted twice) with the op paths
// that caused them.
//
//===----------------------------------------------------------------------===//
#include "rules/BuiltinDetectors.h"
#include "rules/detectors/DetectorSupport.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <map>

using namespace tracelint;
using namespace tracelint::rules;
using namespace tracelint::rules::detect;
using analysis::TraceIndex;
using model::Event;
using model::EventKind;
using model::Interval;

namespace {

/// Device work that copies memory on the device: a DtoD memcpy, or a kernel
/// whose name says it copies (direct_copy_kernel, copy_kernel, elementwise
/// copy instantiations, batched copies).
bool isDeviceCopy(const model::Trace &T, const Event &E) {
  if (E.Kind == EventKind::Memcpy) {
    const model::EventArgs *A = T.args(E);
    return A && A->Copy == model::CopyKind::DtoD;
  }
  if (E.Kind != EventKind::Kernel)
    return false;
  return T.name(E).contains_insensitive("copy");
}

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

struct PathGroup {
  uint64_t Count = 0;
  int64_t DeviceNs = 0; ///< summed durations (shown; the share uses unions)
  uint32_t Longest = model::NoIndex;
  bool Materializing = false;
};

} // namespace

Outcome rules::runMaterializedCopies(const TraceIndex &Ctx,
                                     const RuleOptions &Opts,
                                     std::vector<Detection> &Out) {
  const model::Trace &T = Ctx.trace();
  const double MinShare = Opts.number("min-share-of-busy");
  const double MinTargetShare = Opts.number("min-share-of-step");
  const MeasureWindows &Win = Ctx.measureWindows();
  const int64_t Target = Ctx.targetNs();

  bool HasOps = T.countKind(EventKind::Op) > 0;
  std::vector<std::vector<Interval>> PerWindow(Win.Ranges.size());
  std::vector<Interval> All;
  std::map<std::string, PathGroup> ByPath;
  std::vector<uint32_t> CopyKernels;
  uint64_t DtoD = 0, Count = 0, Unattributed = 0;
  for (int32_t D : Ctx.devices()) {
    if (D < 0)
      continue;
    for (uint32_t I : Ctx.deviceWork(D)) {
      const Event &E = T.Events[I];
      if (!isDeviceCopy(T, E))
        continue;
      // The window holding the instant (a binary search).
      auto It = Win.Ranges.begin() + Win.indexOf(E.Start);
      if (It == Win.Ranges.end())
        continue;
      // Who asked for it: the op above the runtime call, by correlation.
      std::string Path = "(no op recorded)";
      bool Materializing = false;
      uint32_t L = T.launchOf(E);
      if (L == model::NoIndex) {
        ++Unattributed; // no host call: nothing says who asked for it
        continue;
      }
      const Event *Op = enclosingOp(T, T.Events[L]);
      if (Op) {
        bool CopyOp = false;
        for (const Event *Cur = Op; Cur; Cur = Cur->Parent == model::NoIndex
                                                   ? nullptr
                                                   : &T.Events[Cur->Parent]) {
          if (Cur->Kind != EventKind::Op)
            continue;
          CopyOp |= isCopyOpName(T.name(*Cur));
          Materializing |= isMaterializingOpName(T.name(*Cur));
        }
        // A copy kernel under, say, aten::cat or a collective is that op's
        // own work, not a materialized view.
        if (!CopyOp)
          continue;
        Path = Ctx.opPath(*Op);
      } else if (HasOps) {
        // The trace records ops, yet none encloses this launch: the copy
        // came from outside the framework (a library, a custom extension)
        // and nothing says it materializes a view.
        continue;
      }
      ++Count;
      DtoD += E.Kind == EventKind::Memcpy;
      if (E.Kind == EventKind::Kernel)
        CopyKernels.push_back(I);
      Interval R{E.Start, E.end()};
      PerWindow[It - Win.Ranges.begin()].push_back(R);
      All.push_back(R);
      PathGroup &G = ByPath[Path];
      ++G.Count;
      G.DeviceNs += E.Duration;
      G.Materializing |= Materializing;
      if (G.Longest == model::NoIndex ||
          E.Duration > T.Events[G.Longest].Duration)
        G.Longest = I;
    }
  }
  if (Count == 0)
    return Outcome::ran();

  // Share of device busy time inside the measured windows, as unions.
  int64_t Busy = 0;
  for (const Interval &R : Win.Ranges)
    Busy += Ctx.deviceBusy().lengthWithin(R);
  model::IntervalSet CopyUnion = model::IntervalSet::unionOf(All);
  int64_t CopyNs = 0;
  for (const Interval &R : Win.Ranges)
    CopyNs += CopyUnion.lengthWithin(R);
  if (Busy <= 0)
    return Outcome::ran();
  double Share = double(CopyNs) / double(Busy);
  if (Share < MinShare)
    return Outcome::ran();

  std::vector<int64_t> PerStep;
  for (size_t W = 0; W < Win.Ranges.size(); ++W)
    PerStep.push_back(model::IntervalSet::unionOf(std::move(PerWindow[W]))
                          .lengthWithin(Win.Ranges[W]));
  int64_t Impact = std::min(median(PerStep), Target);
  // A material share of a nearly idle device can still be nothing next to
  // the step.
  if (double(Impact) < MinTargetShare * double(Target))
    return Outcome::ran();

  std::vector<std::pair<const std::string *, const PathGroup *>> Groups;
  for (const auto &Entry : ByPath)
    Groups.push_back({&Entry.first, &Entry.second});
  llvm::sort(Groups, [](const auto &A, const auto &B) {
    return A.second->DeviceNs > B.second->DeviceNs ||
           (A.second->DeviceNs == B.second->DeviceNs && *A.first < *B.first);
  });
  const PathGroup &Top = *Groups.front().second;
  const std::string &TopPath = *Groups.front().first;

  Detection Det;
  auto &V = Det.Values;
  V["value"] = pct(Share);
  V["share"] = pct(Share);
  V["threshold"] = pct(MinShare);
  V["copy_time"] = dur(CopyNs);
  V["busy"] = dur(Busy);
  V["count"] = std::to_string(Count);
  V["dtod"] = std::to_string(DtoD);
  V["impact"] = dur(Impact);
  V["per_step"] = dur(median(PerStep));
  V["top_op_path"] = TopPath;
  V["subject"] = TopPath;
  V["top_count"] = std::to_string(Top.Count);
  V["top_time"] = dur(Top.DeviceNs);
  V["top_share"] = pct(double(Top.DeviceNs) / double(Busy));
  V["target"] = Ctx.describeTarget();
  describeWindows(Win, V);
  const std::vector<std::string> Kernels = namesByCount(T, CopyKernels);
  std::vector<std::string> KernelList = Kernels;
  if (DtoD)
    KernelList.push_back("Memcpy DtoD");
  V["top_names"] = joinNames(KernelList, 2);
  const Event &Longest = T.Events[Top.Longest];
  V["example"] = llvm::formatv("{0} at {1:f3} us", T.name(Longest),
                               Ctx.traceTimestampUs(Longest))
                     .str();
  Det.Examples.push_back(example(Ctx, Longest));
  uint32_t L = T.launchOf(Longest);
  if (L != model::NoIndex)
    Det.Examples.push_back(example(Ctx, T.Events[L]));
  // The other op paths, after the top one that the texts name.
  for (size_t G = 1; G < Groups.size() && G < 5; ++G)
    Det.ExtraEvidence.push_back(
        llvm::formatv("also {0}: {1} copies, {2} of device time ({3} of "
                      "busy)",
                      *Groups[G].first, Groups[G].second->Count,
                      dur(Groups[G].second->DeviceNs),
                      pct(double(Groups[G].second->DeviceNs) / double(Busy)))
            .str());
  if (Unattributed)
    Det.ExtraEvidence.push_back(
        llvm::formatv("{0} more device copies have no host call in the trace "
                      "and are not counted",
                      Unattributed)
            .str());
  Det.ImpactNs = Impact;
  // On the critical path: the same copies taking no time (DtoD copies by
  // category, which also holds other copies: a looser bound).
  Det.PathQuery.Names = Kernels;
  if (DtoD)
    Det.PathQuery.Categories.set(unsigned(analysis::PathCategory::Copy));
  Det.Window = Win.describe();
  Det.Subject = TopPath;
  // A layout materialization (contiguous/reshape/clone) is the clearest
  // case; a bare copy_ or to() may be a conversion the program needs.
  Det.Confidence = Top.Materializing ? 0.7 : HasOps ? 0.5 : 0.4;
  if (!Top.Materializing)
    Det.ConfidenceNotes.push_back(
        "the top copies come from copy_/to without a reshape or contiguous "
        "above them: they may be conversions the program needs");
  Out.push_back(std::move(Det));
  return Outcome::ran();
}
