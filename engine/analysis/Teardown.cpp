//===- analysis/Teardown.cpp ----------------------------------------------===//
#include "analysis/Teardown.h"

#include <algorithm>
#include <climits>

using namespace tracelint;
using namespace tracelint::analysis;
using model::Event;
using model::EventKind;

const char *analysis::teardownCategoryName(unsigned C) {
  static const char *const Names[] = {"module unloading", "deallocation",
                                      "context destruction",
                                      "stream/event/graph destruction"};
  return C < NumTeardownCategories ? Names[C] : "";
}

std::optional<TeardownCategory>
analysis::teardownCategory(llvm::StringRef Name) {
  llvm::StringRef S = Name;
  if (!S.consume_front("cuda") && !S.consume_front("hip") &&
      !S.consume_front("cu"))
    return std::nullopt;
  // Stream-ordered deallocation (FreeAsync) is a steady-state design.
  if (S.contains("Async"))
    return std::nullopt;
  if (S.startswith("ModuleUnload") || S.startswith("LibraryUnload"))
    return ModuleUnload;
  if (S == "Free" || S.startswith("FreeHost") || S.startswith("HostFree") ||
      S.startswith("FreeArray") || S.startswith("FreeMipmappedArray") ||
      S.startswith("HostUnregister") || S.startswith("MemFree") ||
      S.startswith("MemHostUnregister") || S.startswith("MemRelease") ||
      S.startswith("MemUnmap"))
    return Deallocation;
  if (S.startswith("CtxDestroy") || S.startswith("DevicePrimaryCtxRelease") ||
      S.startswith("DevicePrimaryCtxReset") || S == "DeviceReset" ||
      S == "ThreadExit")
    return ContextDestruction;
  if (S.startswith("StreamDestroy") || S.startswith("EventDestroy") ||
      S.startswith("GraphDestroy") || S.startswith("GraphExecDestroy"))
    return HandleDestruction;
  return std::nullopt;
}

int64_t analysis::lastSubmissionEnd(const TraceIndex &Ctx) {
  const model::Trace &T = Ctx.trace();
  int64_t End = INT64_MIN;
  for (uint32_t LI = 0; LI < T.Lanes.size(); ++LI)
    for (uint32_t I : Ctx.submissions(LI))
      End = std::max(End, T.Events[I].end());
  return End == INT64_MIN ? INT64_MAX : End;
}

std::vector<uint32_t> analysis::teardownCalls(const TraceIndex &Ctx) {
  const model::Trace &T = Ctx.trace();
  std::vector<uint32_t> Out;
  const int64_t Begin = lastSubmissionEnd(Ctx);
  if (Begin == INT64_MAX)
    return Out;
  for (uint32_t LI = 0; LI < T.Lanes.size(); ++LI) {
    const model::Lane &L = T.Lanes[LI];
    if (L.Kind != model::LaneKind::HostThread)
      continue;
    for (uint32_t I = L.Begin; I < L.End; ++I) {
      const Event &E = T.Events[I];
      if ((E.Kind == EventKind::Runtime || E.Kind == EventKind::Driver) &&
          E.Start >= Begin && E.Duration > 0 && teardownCategory(T.name(E)))
        Out.push_back(I);
    }
  }
  return Out;
}
