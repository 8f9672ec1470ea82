//===- rules/detectors/BuiltinDetectors.h - The built-in detectors -*- C++ -*-//
//
// The C++ detectors behind the built-in rules, one per rule file that names
// it in `[signature] detector = "..."`. The registry (rules/Detectors.cpp)
// maps the names to these functions; unit tests call them directly.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_RULES_DETECTORS_BUILTINDETECTORS_H
#define TRACELINT_RULES_DETECTORS_BUILTINDETECTORS_H

#include "rules/Detector.h"

namespace tracelint::rules {

#define TRACELINT_DETECTOR(Fn)                                                 \
  std::string Fn(const analysis::TraceIndex &Ctx, const RuleSpec &Spec,           \
                 const RuleOptions &Opts, std::vector<Detection> &Out)

/// "allocator-churn" (M004): allocator calls and empty_cache in the steady
/// steps.
TRACELINT_DETECTOR(runAllocatorChurn);
/// "dataloader-stall" (D001): device idle while the host waits for a batch
/// from the data loader.
TRACELINT_DETECTOR(runDataLoaderStall);
/// "device-copies" (M001): device copy kernels and DtoD copies launched by
/// copy/materialization ops.
TRACELINT_DETECTOR(runDeviceCopies);
/// "device-reads" (S003): host waits that read device values.
TRACELINT_DETECTOR(runDeviceReads);
/// "elementwise-chain" (L005): consecutive eager elementwise kernels on a
/// stream, each fed by the one before.
TRACELINT_DETECTOR(runElementwiseChain);
/// "exposed-communication" (N001): collectives that no compute on the same
/// device overlaps.
TRACELINT_DETECTOR(runExposedCommunication);
/// "exposed-htod-copies" (M003): HtoD copies that no other device work
/// overlaps.
TRACELINT_DETECTOR(runExposedCopies);
/// "fp32-simt-matmul" (K001): FP32 matrix products on the SIMT pipeline of a
/// device with matrix units.
TRACELINT_DETECTOR(runFp32SimtMatmul);
/// "graph-breaks" (C002): compiled calls split by graph breaks, with eager
/// work between their graphs.
TRACELINT_DETECTOR(runGraphBreaks);
/// "growing-cat" (M007): a concatenated cache whose size grows by a constant
/// step across consecutive calls (torch.cat in a decode loop).
TRACELINT_DETECTOR(runGrowingCat);
/// "host-bound-gaps" (L002): device idle while the host does other work
/// between submissions.
TRACELINT_DETECTOR(runHostBoundGaps);
/// "host-filled-tensor" (M006): tensors created on the host, then copied to
/// the device.
TRACELINT_DETECTOR(runHostFilledTensor);
/// "launch-bound" (L001): device idle inside steps that the host's launch
/// path explains.
TRACELINT_DETECTOR(runLaunchBound);
/// "long-small-collective" (N002): long collectives with small payloads.
TRACELINT_DETECTOR(runLongSmallCollective);
/// "pageable-copies" (M002): host-device copies from or to pageable memory.
TRACELINT_DETECTOR(runPageableCopies);
/// "profiler-perturbation" (U004): the profiler's own overhead inside the
/// target.
TRACELINT_DETECTOR(runProfilerPerturbation);
/// "recompilation" (C001): torch.compile compiling inside steps after the
/// first.
TRACELINT_DETECTOR(runRecompilation);
/// "single-rank" (N003): one rank's trace of a multi-rank job.
TRACELINT_DETECTOR(runSingleRank);
/// "single-tensor-optimizer" (L003): per-parameter elementwise kernel storms
/// inside optimizer steps.
TRACELINT_DETECTOR(runSingleTensorOptimizer);
/// "small-grid" (K004): long kernels with fewer blocks than the device has
/// SMs.
TRACELINT_DETECTOR(runSmallGrid);
/// "memory-near-capacity" (M005): device memory near its capacity, and
/// allocator retries.
TRACELINT_DETECTOR(runMemoryNearCapacity);
/// "misaligned-matmul" (K003): fp16/bf16 products with K or N not a multiple
/// of 8.
TRACELINT_DETECTOR(runMisalignedMatmul);
/// "naive-attention" (K002): attention as separate products and a softmax,
/// or on SDPA's math backend.
TRACELINT_DETECTOR(runNaiveAttention);
/// "startup-artifacts" (U001): start-up work and first-step outliers.
TRACELINT_DETECTOR(runStartupArtifacts);
/// "static-decode" (L004): a repeated static decode loop whose device idles
/// on the launch path.
TRACELINT_DETECTOR(runStaticDecode);
/// "sync-after-launch" (S002): host waits after nearly every kernel launch.
TRACELINT_DETECTOR(runSyncAfterLaunch);
/// "sync-input-transfer" (D002): host waits for the step's input copy before
/// its first compute kernel.
TRACELINT_DETECTOR(runSyncInputTransfer);
/// "sync-wait" (S001): host waits on the device inside steps.
TRACELINT_DETECTOR(runSyncWait);
/// "teardown-artifacts" (U003): deallocation, unloading and destruction
/// after the last submission.
TRACELINT_DETECTOR(runTeardownArtifacts);
/// "teardown-flush" (U002): the final synchronization of the window.
TRACELINT_DETECTOR(runTeardownFlush);
/// "trace-damage" (T003): truncation, dropped events, bad links.
TRACELINT_DETECTOR(runTraceDamage);
/// "trace-no-device" (T001): host submits work but no device activity.
TRACELINT_DETECTOR(runTraceNoDevice);
/// "trace-no-steps" (T002): no step markers.
TRACELINT_DETECTOR(runTraceNoSteps);
/// "trace-short-window" (T004): too few steps for a steady-state claim.
TRACELINT_DETECTOR(runTraceShortWindow);

#undef TRACELINT_DETECTOR

} // namespace tracelint::rules

#endif
