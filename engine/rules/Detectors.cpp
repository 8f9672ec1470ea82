//===- rules/Detectors.cpp - The detector registry ------------------------===//
//
// One table of every C++ detector, by the name that rule files give in
// `[signature] detector = "NAME"`. Registration is explicit (no static
// constructors). To add a detector:
//   1. write `std::string runNAME(const analysis::TraceIndex &,
//      const RuleSpec &, const RuleOptions &, std::vector<Detection> &)` in
//      engine/rules/detectors/<Name>.cpp and add that file to
//      TRACELINT_DETECTOR_SOURCES in engine/rules/CMakeLists.txt;
//   2. declare it below and add one line to the table.
// Both lists: keep sorted by name.
//
//===----------------------------------------------------------------------===//
#include "rules/Detector.h"
#include "rules/detectors/BuiltinDetectors.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>

using namespace tracelint;
using namespace tracelint::rules;

namespace tracelint::rules {
// Detector functions (DetectorFn), defined in engine/rules/detectors/*.cpp,
// e.g. std::string runLaunchBound(const analysis::TraceIndex &Ctx,
//   const RuleSpec &Spec, const RuleOptions &Opts,
//   std::vector<Detection> &Out);
// Keep sorted by name.
} // namespace tracelint::rules

namespace {
// Keep sorted by name.
const DetectorEntry Table[] = {
    {"allocator-churn", runAllocatorChurn},
    {"dataloader-stall", runDataLoaderStall},
    {"device-copies", runDeviceCopies},
    {"device-reads", runDeviceReads},
    {"elementwise-chain", runElementwiseChain},
    {"exposed-communication", runExposedCommunication},
    {"exposed-htod-copies", runExposedCopies},
    {"fp32-simt-matmul", runFp32SimtMatmul},
    {"graph-breaks", runGraphBreaks},
    {"growing-cat", runGrowingCat},
    {"host-bound-gaps", runHostBoundGaps},
    {"host-filled-tensor", runHostFilledTensor},
    {"launch-bound", runLaunchBound},
    {"long-small-collective", runLongSmallCollective},
    {"memory-near-capacity", runMemoryNearCapacity},
    {"misaligned-matmul", runMisalignedMatmul},
    {"naive-attention", runNaiveAttention},
    {"pageable-copies", runPageableCopies},
    {"profiler-perturbation", runProfilerPerturbation},
    {"recompilation", runRecompilation},
    {"single-rank", runSingleRank},
    {"single-tensor-optimizer", runSingleTensorOptimizer},
    {"small-grid", runSmallGrid},
    {"startup-artifacts", runStartupArtifacts},
    {"static-decode", runStaticDecode},
    {"sync-after-launch", runSyncAfterLaunch},
    {"sync-input-transfer", runSyncInputTransfer},
    {"sync-wait", runSyncWait},
    {"teardown-artifacts", runTeardownArtifacts},
    {"teardown-flush", runTeardownFlush},
    {"trace-damage", runTraceDamage},
    {"trace-no-device", runTraceNoDevice},
    {"trace-no-steps", runTraceNoSteps},
    {"trace-short-window", runTraceShortWindow},
    {"", nullptr}, // end marker; not a detector (see detectors())
};
} // namespace

llvm::ArrayRef<DetectorEntry> rules::detectors() {
  // The end marker keeps the array non-empty while no detector exists.
  return llvm::ArrayRef<DetectorEntry>(Table).drop_back();
}

DetectorFn rules::findDetector(llvm::StringRef Name) {
  llvm::ArrayRef<DetectorEntry> All = detectors();
  assert(std::is_sorted(All.begin(), All.end(),
                        [](const DetectorEntry &A, const DetectorEntry &B) {
                          return A.Name < B.Name;
                        }) &&
         "Detectors.cpp: keep the table sorted by name");
  auto It = llvm::partition_point(
      All, [&](const DetectorEntry &E) { return E.Name < Name; });
  if (It == All.end() || It->Name != Name)
    return nullptr;
  return It->Run;
}
