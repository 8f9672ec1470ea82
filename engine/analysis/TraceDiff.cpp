//===- analysis/TraceDiff.cpp ---------------------------------------------===//
#include "analysis/TraceDiff.h"
#include "support/Statistics.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

using namespace tracelint;
using namespace tracelint::analysis;
using model::Event;
using model::EventKind;

MetricSummary analysis::summarizeMetric(const TraceIndex &Ctx) {
  MetricSummary M;
  M.Description = Ctx.describeTarget();
  std::vector<int64_t> D;
  for (const StepWindow &S : Ctx.steadySteps())
    D.push_back(S.Range.length());
  if (D.empty()) {
    M.MedianNs = Ctx.window().length();
    M.MinNs = M.MaxNs = M.MedianNs;
    return M;
  }
  std::sort(D.begin(), D.end());
  M.FromSteps = true;
  M.Steps = D.size();
  size_t N = D.size();
  // The one step time (TraceIndex::targetNs), which lint and stats print.
  M.MedianNs = Ctx.targetNs();
  M.MinNs = D.front();
  M.MaxNs = D.back();
  if (N >= 2) {
    // The interquartile range.
    M.SpreadNs = int64_t(std::llround(support::quantileOfSorted(D, 0.75) -
                                      support::quantileOfSorted(D, 0.25)));
  }
  return M;
}

namespace {

struct Totals {
  int64_t Count = 0, Time = 0, Bytes = 0;
};

/// Whole-trace counts that the inventory compares, keyed by a label.
std::map<std::string, Totals> countsOf(const TraceIndex &Ctx,
                                       const TraceStats &S) {
  std::map<std::string, Totals> Out;
  Out["launch calls"].Count = int64_t(S.NumLaunchCalls);
  Out["kernels"].Count = int64_t(S.NumKernels);
  Out["distinct kernels"].Count = int64_t(S.NumDistinctKernels);
  for (const CopyStats &C : S.Copies) {
    Totals &T = Out["copies " + model::copyKindName(C.Kind).str()];
    T.Count += int64_t(C.Count);
    T.Time += C.DurationNs;
    T.Bytes += C.Bytes;
  }
  Totals &M = Out["memsets"];
  M.Count = int64_t(S.Memsets.Count);
  M.Time = S.Memsets.DurationNs;
  M.Bytes = S.Memsets.Bytes;
  for (const HostWait &W : Ctx.hostWaits()) {
    Totals &T = Out["host waits (" + waitKindName(W.Kind).str() + ")"];
    ++T.Count;
    T.Time += W.Range.length();
  }
  const model::Trace &Tr = Ctx.trace();
  for (const Event &E : Tr.Events) {
    llvm::StringRef Name = Tr.name(E);
    if (E.Kind == EventKind::Marker && Name == "[memory]") {
      const model::EventArgs *A = Tr.args(E);
      if (A && A->Bytes > 0) {
        Totals &T = Out["allocations (memory events)"];
        ++T.Count;
        T.Bytes += A->Bytes;
      }
    } else if ((E.Kind == EventKind::Runtime || E.Kind == EventKind::Driver) &&
               (Name.contains("Malloc") || Name.contains("MemAlloc"))) {
      Totals &T = Out["allocation calls"];
      ++T.Count;
      T.Time += E.Duration;
    }
  }
  return Out;
}

/// The distinct InputDims / InputTypes texts of each op name.
llvm::StringMap<std::set<std::string>> argsByOp(const model::Trace &T,
                                                bool Types) {
  llvm::StringMap<std::set<std::string>> Out;
  for (const Event &E : T.Events) {
    if (E.Kind != EventKind::Op)
      continue;
    const model::EventArgs *A = T.args(E);
    if (!A)
      continue;
    model::StringId Id = Types ? A->InputTypes : A->InputDims;
    if (Id == model::EmptyString)
      continue;
    Out[T.name(E)].insert(T.Strings.get(Id).str());
  }
  return Out;
}

void compareArgs(const model::Trace &B, const model::Trace &A, bool Types,
                 std::vector<std::string> &Warnings) {
  llvm::StringMap<std::set<std::string>> TB = argsByOp(B, Types),
                                         TA = argsByOp(A, Types);
  if (TB.empty() != TA.empty()) {
    Warnings.push_back(llvm::formatv("only the {0} trace records input {1} "
                                     "(record_shapes): they cannot be "
                                     "compared",
                                     TB.empty() ? "after" : "before",
                                     Types ? "dtypes" : "shapes")
                           .str());
    return;
  }
  std::vector<std::string> Differ;
  for (const auto &Op : TB) {
    auto It = TA.find(Op.first());
    if (It != TA.end() && It->second != Op.second)
      Differ.push_back(Op.first().str());
  }
  if (Differ.empty())
    return;
  std::sort(Differ.begin(), Differ.end());
  std::string List;
  for (size_t I = 0; I < Differ.size() && I < 3; ++I)
    List += (I ? ", " : "") + Differ[I];
  if (Differ.size() > 3)
    List += llvm::formatv(" and {0} more", Differ.size() - 3).str();
  Warnings.push_back(llvm::formatv("input {0} differ for {1}: the two runs "
                                   "may not do the same work",
                                   Types ? "dtypes" : "shapes", List)
                         .str());
}

/// "8 x NVIDIA H100 80GB HBM3": each device name once, with its count.
std::string deviceList(const model::Trace &T) {
  std::vector<std::pair<std::string, size_t>> Names;
  for (const model::DeviceInfo &D : T.Devices) {
    auto It =
        llvm::find_if(Names, [&](const auto &N) { return N.first == D.Name; });
    if (It == Names.end())
      Names.push_back({D.Name, 1});
    else
      ++It->second;
  }
  std::string Out;
  for (const auto &[Name, N] : Names)
    Out += (Out.empty() ? "" : ", ") +
           (N > 1 ? std::to_string(N) + " x " + Name : Name);
  return Out;
}

void compareSettings(const model::Trace &B, const model::Trace &A,
                     std::vector<std::string> &Warnings,
                     std::vector<std::string> &Unfair) {
  const model::Producer &PB = B.Source, &PA = A.Source;
  if (PB.Format != PA.Format)
    Warnings.push_back("the traces come from different producers (" +
                       PB.Format + " before, " + PA.Format + " after)");
  struct Flag {
    const char *Name;
    int8_t Before, After;
  } Flags[] = {{"record_shapes", PB.RecordShapes, PA.RecordShapes},
               {"profile_memory", PB.ProfileMemory, PA.ProfileMemory},
               {"with_stack", PB.WithStack, PA.WithStack},
               {"with_flops", PB.WithFlops, PA.WithFlops},
               {"with_modules", PB.WithModules, PA.WithModules}};
  for (const Flag &F : Flags)
    if (F.Before >= 0 && F.After >= 0 && F.Before != F.After)
      Warnings.push_back(llvm::formatv("profiler setting {0} differs ({1} "
                                       "before, {2} after): profiler "
                                       "overhead differs",
                                       F.Name, F.Before ? "on" : "off",
                                       F.After ? "on" : "off")
                             .str());
  if (PB.CudaRuntimeVersion != PA.CudaRuntimeVersion &&
      !PB.CudaRuntimeVersion.empty() && !PA.CudaRuntimeVersion.empty())
    Warnings.push_back("the CUDA runtime versions differ (" +
                       PB.CudaRuntimeVersion + " before, " +
                       PA.CudaRuntimeVersion + " after)");
  if (PB.WorldSize != PA.WorldSize && PB.WorldSize > 0 && PA.WorldSize > 0)
    Warnings.push_back(llvm::formatv("the distributed world sizes differ ({0} "
                                     "before, {1} after)",
                                     PB.WorldSize, PA.WorldSize)
                           .str());
  if (!Warnings.empty() && PB.WorldSize != PA.WorldSize && PB.WorldSize > 0 &&
      PA.WorldSize > 0)
    Unfair.push_back(Warnings.back());
}

} // namespace

TraceDiff analysis::diffTraces(const TraceIndex &Before, const TraceStats &SB,
                               const TraceIndex &After, const TraceStats &SA) {
  TraceDiff D;
  D.Before = summarizeMetric(Before);
  D.After = summarizeMetric(After);
  if (D.Before.FromSteps && D.After.FromSteps && D.Before.MedianNs > 0)
    D.Ratio = double(D.After.MedianNs) / double(D.Before.MedianNs);

  // Kernel inventory.
  const model::Trace &TB = Before.trace(), &TA = After.trace();
  std::map<std::string, KernelChange> ByName;
  for (const NameStats &K : SB.TopKernels) {
    KernelChange &C = ByName[TB.Strings.get(K.Name).str()];
    C.CountBefore += K.Count;
    C.TimeBefore += K.TotalNs;
  }
  for (const NameStats &K : SA.TopKernels) {
    KernelChange &C = ByName[TA.Strings.get(K.Name).str()];
    C.CountAfter += K.Count;
    C.TimeAfter += K.TotalNs;
  }
  for (auto &[Name, C] : ByName) {
    C.Name = Name;
    if (!C.CountBefore)
      C.Change = KernelChange::Kind::Added;
    else if (!C.CountAfter)
      C.Change = KernelChange::Kind::Removed;
    else if (C.CountBefore != C.CountAfter ||
             std::llabs(C.TimeAfter - C.TimeBefore) * 10 >
                 std::max(C.TimeBefore, C.TimeAfter))
      C.Change = KernelChange::Kind::Changed;
    else {
      ++D.KernelsUnchanged;
      continue;
    }
    D.Kernels.push_back(C);
  }
  std::stable_sort(D.Kernels.begin(), D.Kernels.end(),
                   [](const KernelChange &X, const KernelChange &Y) {
                     int64_t DX = std::llabs(X.TimeAfter - X.TimeBefore);
                     int64_t DY = std::llabs(Y.TimeAfter - Y.TimeBefore);
                     if (DX != DY)
                       return DX > DY;
                     return X.Name < Y.Name;
                   });

  // Counts.
  std::map<std::string, Totals> CB = countsOf(Before, SB),
                                CA = countsOf(After, SA);
  std::map<std::string, std::pair<Totals, Totals>> Both;
  for (auto &[K, V] : CB)
    Both[K].first = V;
  for (auto &[K, V] : CA)
    Both[K].second = V;
  for (auto &[K, V] : Both) {
    D.Counts.push_back({K + ": count", V.first.Count, V.second.Count});
    if (V.first.Time || V.second.Time)
      D.Counts.push_back({K + ": time", V.first.Time, V.second.Time, true});
    if (V.first.Bytes || V.second.Bytes)
      D.Counts.push_back(
          {K + ": bytes", V.first.Bytes, V.second.Bytes, false, true});
  }

  // Fairness warnings.
  std::string DB = deviceList(TB), DA = deviceList(TA);
  if (DB != DA && !DB.empty() && !DA.empty()) {
    D.Warnings.push_back("the devices differ (" + DB + " before, " + DA +
                         " after): times are not comparable");
    D.NotComparable.push_back(D.Warnings.back());
  } else if (SB.Devices.size() != SA.Devices.size() && SB.hasDeviceActivity() &&
             SA.hasDeviceActivity())
    D.Warnings.push_back(llvm::formatv("the traces use {0} and {1} devices",
                                       SB.Devices.size(), SA.Devices.size())
                             .str());
  if (Before.hasSteps() != After.hasSteps()) {
    D.Warnings.push_back(
        llvm::formatv("only the {0} trace has steps: the metric cannot be "
                      "compared step for step",
                      Before.hasSteps() ? "before" : "after")
            .str());
  } else if (Before.hasSteps() && TB.StepsFrom != TA.StepsFrom) {
    // Steps cut at other markers measure another interval.
    D.Warnings.push_back(llvm::formatv("the steps are defined differently "
                                       "({0} before, {1} after)",
                                       model::stepSourceName(TB.StepsFrom),
                                       model::stepSourceName(TA.StepsFrom))
                             .str());
    D.NotComparable.push_back(D.Warnings.back());
  } else if (Before.steps().size() != After.steps().size())
    D.Warnings.push_back(
        llvm::formatv("the traces hold {0} and {1} steps: whole-trace counts "
                      "below are not per step",
                      Before.steps().size(), After.steps().size())
            .str());
  compareArgs(TB, TA, /*Types=*/false, D.Warnings);
  compareArgs(TB, TA, /*Types=*/true, D.Warnings);
  compareSettings(TB, TA, D.Warnings, D.NotComparable);
  if (Before.hasDeviceActivity() != After.hasDeviceActivity())
    D.Warnings.push_back(
        llvm::formatv("only the {0} trace recorded device "
                      "activity",
                      Before.hasDeviceActivity() ? "before" : "after")
            .str());
  if (Before.hasCorrelation() != After.hasCorrelation())
    D.Warnings.push_back(
        llvm::formatv("only the {0} trace links host calls "
                      "to device work (correlation ids)",
                      Before.hasCorrelation() ? "before" : "after")
            .str());
  if (Before.truncated() || After.truncated())
    D.Warnings.push_back(llvm::formatv("the {0} trace is truncated",
                                       Before.truncated() ? "before" : "after")
                             .str());
  return D;
}
