//===- rules/detectors/StartupScan.cpp ------------------------------------===//
#include "rules/detectors/StartupScan.h"

#include "analysis/Teardown.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <climits>
#include <map>
#include <optional>

using namespace tracelint;
using namespace tracelint::rules;
using namespace tracelint::rules::detect;
using analysis::TraceIndex;
using model::Event;
using model::EventKind;
using model::Interval;

const char *detect::startupCategoryName(unsigned C) {
  static const char *const Names[] = {
      "context and module loading", "allocator calls",
      "stream/event/handle creation", "compilation or autotuning",
      "graph capture"};
  return C < NumStartupCategories ? Names[C] : "";
}

namespace {

/// Runtime API name without its cuda/cu/hip prefix ("" if none).
llvm::StringRef stem(llvm::StringRef Name) {
  if (Name.consume_front("cuda") || Name.consume_front("hip") ||
      Name.consume_front("cu"))
    return Name;
  return "";
}

/// Device queries are cheap once the context exists; only a slow one (the
/// first call, which creates the context) is start-up evidence.
constexpr int64_t SlowQueryNs = 1'000'000;

std::optional<StartupCategory> runtimeCategory(llvm::StringRef Name,
                                               int64_t Duration) {
  llvm::StringRef S = stem(Name);
  if (S.empty())
    return std::nullopt;
  if (S == "Init" || S.startswith("DevicePrimaryCtx") ||
      S.startswith("CtxCreate") || S.startswith("ModuleLoad") ||
      S.startswith("ModuleGetLoadingMode") || S.startswith("LibraryLoad"))
    return ContextAndModules;
  if ((S.startswith("GetDeviceProperties") ||
       S.startswith("DeviceGetAttribute") || S == "GetDeviceCount" ||
       S == "DriverGetVersion" || S == "RuntimeGetVersion" ||
       S.startswith("FuncGetAttributes") || S == "SetDevice") &&
      Duration >= SlowQueryNs)
    return ContextAndModules;
  // Stream-ordered allocation (MallocAsync) is a steady-state design.
  if (!S.contains("Async") &&
      (S == "Malloc" || S == "Free" || S.startswith("MallocHost") ||
       S.startswith("HostAlloc") || S.startswith("HostMalloc") ||
       S.startswith("FreeHost") || S.startswith("HostFree") ||
       S.startswith("HostRegister") || S.startswith("HostUnregister") ||
       S.startswith("MallocManaged") || S.startswith("MallocPitch") ||
       S.startswith("MemAlloc") || S.startswith("MemFree")))
    return Allocation;
  // A launch that takes milliseconds loads its kernel's module on first use
  // (CUDA lazy loading, HIP code objects); a normal launch takes microseconds.
  if (model::isLaunchCallName(Name) && Duration >= SlowQueryNs)
    return ContextAndModules;
  if (S.startswith("StreamCreate") || S.startswith("EventCreate") ||
      S.startswith("StreamDestroy") || S.startswith("EventDestroy"))
    return Handles;
  if (S.startswith("StreamBeginCapture") || S.startswith("StreamEndCapture") ||
      S.startswith("GraphInstantiate") || S.startswith("GraphGetNodes") ||
      S.startswith("GraphDestroy") || S.startswith("GraphExecDestroy") ||
      S.startswith("GraphUpload") ||
      S.startswith("ThreadExchangeStreamCaptureMode"))
    return GraphCapture;
  return std::nullopt;
}

/// Host events (ops, annotations, python frames) of compilation and
/// autotuning. Generated-kernel launchers ("triton_poi_fused_..."), the
/// compiled-region wrappers ("Torch-Compiled Region", "## Call
/// CompiledFxGraph ... ##", "CompiledFunction") and Dynamo's guard check
/// ("TorchDynamo Cache Lookup") run on every call in steady state, so a
/// bare "triton", "compile" or "dynamo" in a name is not enough.
bool isCompilationEvent(const Event &E, llvm::StringRef Name) {
  if (Name.contains("(dynamo_timed)"))
    return true;
  if (E.Kind == EventKind::Python) {
    // Only modules that run when compiling: compile_fx.py and
    // convert_frame.py also hold the wrappers that every compiled call
    // passes through.
    static const char *const Files[] = {
        "_inductor/codecache.py", "_inductor/async_compile.py",
        "_inductor/select_algorithm.py", "triton/compiler/"};
    for (const char *F : Files)
      if (Name.contains(F))
        return true;
    return false;
  }
  if (E.Kind != EventKind::Op && E.Kind != EventKind::Annotation)
    return false;
  if (Name.startswith("triton_") || Name.contains("Compiled") ||
      Name.contains("Cache Lookup"))
    return false;
  return Name.contains_insensitive("compile") ||
         Name.contains_insensitive("autotun") ||
         Name.contains_insensitive("inductor") ||
         Name.contains_insensitive("torchdynamo");
}

} // namespace

TeardownScan detect::scanTeardown(const TraceIndex &Ctx) {
  const model::Trace &T = Ctx.trace();
  TeardownScan Scan;
  Scan.Begin = analysis::lastSubmissionEnd(Ctx);
  std::vector<Interval> AllParts;
  for (uint32_t I : analysis::teardownCalls(Ctx)) {
    const Event &E = T.Events[I];
    analysis::TeardownCategory Cat = *analysis::teardownCategory(T.name(E));
    Scan.Found.push_back({I, Cat, {E.Start, E.end()}});
    Scan.ByCategory[Cat].push_back({E.Start, E.end()});
    AllParts.push_back({E.Start, E.end()});
  }
  Scan.TeardownNs =
      model::IntervalSet::unionOf(AllParts).lengthWithin(Ctx.window());
  return Scan;
}

StartupScan detect::scanStartup(const TraceIndex &Ctx, double MinShare,
                                double WindowShare) {
  const model::Trace &T = Ctx.trace();
  StartupScan Scan;
  // Deallocation and destruction after the last submission is teardown
  // (U003), not start-up.
  const int64_t TeardownBegin = analysis::lastSubmissionEnd(Ctx);
  std::vector<StartupEvent> &Found = Scan.Found;
  // 1. Start-up events anywhere in the window, and graph-capture spans
  //    (everything a thread submits between BeginCapture and EndCapture is
  //    recorded into a graph, not run).
  for (uint32_t LI = 0; LI < T.Lanes.size(); ++LI) {
    const model::Lane &L = T.Lanes[LI];
    if (L.Kind != model::LaneKind::HostThread)
      continue;
    int64_t CaptureBegin = -1;
    for (uint32_t I = L.Begin; I < L.End; ++I) {
      const Event &E = T.Events[I];
      llvm::StringRef Name = T.name(E);
      std::optional<StartupCategory> Cat;
      if (E.Kind == EventKind::Runtime || E.Kind == EventKind::Driver) {
        if (E.Start >= TeardownBegin && analysis::teardownCategory(Name))
          continue;
        Cat = runtimeCategory(Name, E.Duration);
        llvm::StringRef S = stem(Name);
        if (S.startswith("StreamBeginCapture"))
          CaptureBegin = E.Start;
        else if (S.startswith("StreamEndCapture") && CaptureBegin >= 0) {
          Found.push_back({I, GraphCapture, {CaptureBegin, E.end()}});
          CaptureBegin = -1;
          continue;
        }
      } else if (isCompilationEvent(E, Name)) {
        Cat = Compilation;
      }
      if (Cat && E.Duration > 0)
        Found.push_back({I, *Cat, {E.Start, E.end()}});
    }
  }

  // 2. Drop names that recur in most of the later steps: steady-state work.
  llvm::ArrayRef<analysis::StepWindow> Steps = Ctx.steps();
  if (Steps.size() >= 3) {
    llvm::ArrayRef<analysis::StepWindow> Later = Steps.drop_front();
    std::map<model::StringId, std::vector<bool>> Seen;
    for (const StartupEvent &S : Found) {
      int Step = Ctx.stepAt(S.Range.Begin);
      if (Step <= 0)
        continue;
      auto &V = Seen[T.Events[S.Index].Name];
      V.resize(Later.size(), false);
      V[size_t(Step - 1)] = true;
    }
    llvm::erase_if(Found, [&](const StartupEvent &S) {
      auto It = Seen.find(T.Events[S.Index].Name);
      if (It == Seen.end())
        return false;
      return 2 * size_t(llvm::count(It->second, true)) > It->second.size();
    });
  }

  // 3. How much host time the start-up work takes, as a union.
  std::vector<Interval> AllParts;
  for (const StartupEvent &S : Found) {
    AllParts.push_back(S.Range);
    Scan.ByCategory[S.Cat].push_back(S.Range);
  }
  int64_t StartupNs =
      model::IntervalSet::unionOf(AllParts).lengthWithin(Ctx.window());
  bool HasCapture = !Scan.ByCategory[GraphCapture].empty();

  Scan.StartupNs = StartupNs;
  Scan.HasCapture = HasCapture;
  double Window = double(Ctx.window().length());
  Scan.WindowMixed = !Ctx.hasSteps() && double(StartupNs) >= MinShare * Window;
  Scan.WindowIsStartup =
      !Ctx.hasSteps() &&
      (HasCapture || double(StartupNs) >= WindowShare * Window);
  return Scan;
}

std::string detect::startupWindowReason(const TraceIndex &Ctx) {
  StartupScan Scan = scanStartup(Ctx);
  if (!Scan.WindowIsStartup)
    return "";
  return llvm::formatv("cannot judge: the window is start-up, not steady "
                       "state ({0}; see U001)",
                       Scan.HasCapture
                           ? "it captures graphs"
                           : llvm::formatv("start-up calls take {0:F1} % of "
                                           "it",
                                           100.0 * double(Scan.StartupNs) /
                                               double(Ctx.window().length()))
                                 .str())
      .str();
}
