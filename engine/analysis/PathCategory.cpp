//===- analysis/PathCategory.cpp ------------------------------------------===//
#include "analysis/PathCategory.h"

#include "llvm/Support/ErrorHandling.h"

using namespace tracelint::analysis;

llvm::StringRef tracelint::analysis::pathCategoryName(PathCategory C) {
  switch (C) {
  case PathCategory::Compute:
    return "compute";
  case PathCategory::Copy:
    return "copy";
  case PathCategory::Memset:
    return "memset";
  case PathCategory::Communication:
    return "communication";
  case PathCategory::Launch:
    return "launch";
  case PathCategory::Wait:
    return "wait";
  case PathCategory::DataLoading:
    return "data-loading";
  case PathCategory::HostOther:
    return "host-other";
  case PathCategory::HostUntraced:
    return "host-untraced";
  case PathCategory::Startup:
    return "startup";
  case PathCategory::Profiler:
    return "profiler";
  case PathCategory::LaunchLatency:
    return "launch-latency";
  case PathCategory::Queued:
    return "queued";
  case PathCategory::UnrecordedDependency:
    return "unrecorded-dependency";
  case PathCategory::Unlinked:
    return "unlinked";
  }
  llvm_unreachable("covered switch");
}

llvm::StringRef tracelint::analysis::pathCategoryTitle(PathCategory C) {
  switch (C) {
  case PathCategory::Compute:
    return "device: compute kernels";
  case PathCategory::Copy:
    return "device: copies";
  case PathCategory::Memset:
    return "device: memsets";
  case PathCategory::Communication:
    return "device: communication";
  case PathCategory::Launch:
    return "host: launch path (op dispatch, launch API)";
  case PathCategory::Wait:
    return "host: waiting beyond the awaited work";
  case PathCategory::DataLoading:
    return "host: loading data";
  case PathCategory::HostOther:
    return "host: other work";
  case PathCategory::HostUntraced:
    return "host: nothing recorded";
  case PathCategory::Startup:
    return "host: start-up (first calls, compilation, capture)";
  case PathCategory::Profiler:
    return "host: the profiler's own work";
  case PathCategory::LaunchLatency:
    return "launch latency (free device)";
  case PathCategory::Queued:
    return "device: queued behind other work";
  case PathCategory::UnrecordedDependency:
    return "device idle: unrecorded dependency";
  case PathCategory::Unlinked:
    return "before work without recorded dependencies";
  }
  llvm_unreachable("covered switch");
}

bool tracelint::analysis::parsePathCategory(llvm::StringRef Name,
                                            PathCategory &C) {
  for (unsigned I = 0; I < NumPathCategories; ++I)
    if (pathCategoryName(PathCategory(I)) == Name) {
      C = PathCategory(I);
      return true;
    }
  return false;
}
