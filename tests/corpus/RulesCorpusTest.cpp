//===- tests/corpus/RulesCorpusTest.cpp - The built-in rules on real traces
//===//
//
// Runs every built-in rule over every trace in ../shared/traces and checks
// the findings against what ../shared/traces/README.md documents or
// measured about each set (never against figures tuned to one file):
//
//  - ResNet-50 with DataLoader num_workers=4 keeps the device busy: no
//    launch-bound (L001) finding.
//  - Every PARAM DLRM rank is dominated by short kernels with the device
//    24-66 % busy: L001 fires.
//  - The activation-checkpointing ResNet has 78 % of its kernels under 10 us
//    yet a 97 % busy device: no L001.
//  - CPU-only, MTIA and counter-only traces (and the A100 trace whose
//    deviceProperties name a GPU without GPU events) have no device activity:
//    the device rules say they cannot judge and report nothing; MTIA and the
//    counter-only trace get T001.
//  - The vLLM graph-capture traces are start-up: U001 classifies them so.
//  - N (communication): collectives that no compute overlaps (N001) fire on
//    every multi-rank NCCL trace (DLRM ranks, hta-nccl-a100, the sampled
//    128-rank job, the 2-rank df-index trace); never on a trace without
//    communication kernels. N002 (long collectives with small payloads)
//    fires on DLRM ranks 1, 3, 4 and 5, whose long stream synchronizations
//    README.md lists, and not on ranks 2, 6 and 7 (the late arrivers); it
//    cannot judge the df-index trace (no sizes, no shapes). N003 notes every
//    trace whose distributedInfo gives (or implies) several ranks, at info
//    severity with no impact.
//
//  - D002 (a waited-for input copy at the step start) fires on no trace:
//    the ResNet-50 waits are inside pageable staging calls (M002's).
//  - L003 (per-parameter optimizer kernels) fires on the df-index trace
//    (404 add_ kernels per SGD step) and may on the DLRM ranks (Adagrad);
//    never on ResNet-50 (its loop hides under backward) nor on the foreach
//    optimizers; traces without optimizer ranges cannot be judged.
//
// On every trace: no rule crashes, impacts stay within the target, and no
// rendered text keeps a {placeholder} that the rule's detector did not fill.
// The test skips when the folder is absent; TRACELINT_TRACES overrides it.
//
//===----------------------------------------------------------------------===//
#include "CorpusCatalogue.h"
#include "CorpusFiles.h"
#include "analysis/TraceIndex.h"
#include "import/Import.h"
#include "rules/Catalogue.h"
#include "rules/Config.h"
#include "rules/Engine.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

using namespace tracelint;
using corpus::catalogue;
using corpus::corpusFiles;
using corpus::tracesDir;

namespace {

bool has(const rules::LintResult &R, llvm::StringRef Code) {
  return std::any_of(R.Findings.begin(), R.Findings.end(),
                     [&](const rules::Finding &F) { return F.Code == Code; });
}

const rules::Finding *find(const rules::LintResult &R, llvm::StringRef Code) {
  for (const rules::Finding &F : R.Findings)
    if (F.Code == Code)
      return &F;
  return nullptr;
}

/// The rule said why it did not run: it could not judge, or it does not
/// apply (an optimizer rule on an inference trace, a PyTorch rule on a
/// trace whose program is not PyTorch).
bool skipped(const rules::LintResult &R, llvm::StringRef Code) {
  return std::any_of(R.Skipped.begin(), R.Skipped.end(),
                     [&](const rules::Skipped &S) { return S.Code == Code; });
}

/// A "{name}" left in a rendered text: a placeholder nobody filled.
bool hasUnfilledPlaceholder(llvm::StringRef S) {
  for (size_t I = S.find('{'); I != llvm::StringRef::npos;
       I = S.find('{', I + 1)) {
    size_t J = I + 1;
    while (J < S.size() && (llvm::isAlnum(S[J]) || S[J] == '_'))
      ++J;
    if (J > I + 1 && J < S.size() && S[J] == '}')
      return true;
  }
  return false;
}

class RulesCorpus : public ::testing::TestWithParam<std::string> {};

/// Families S and M beyond S001/M001 (issue 4): what each trace is known to
/// show, from ../shared/traces/README.md and the traces' own events.
void expectSyncAndMemoryRules(const rules::LintResult &R, llvm::StringRef P,
                              bool NoDevice) {
  // S002: no trace in the set synchronizes after nearly every launch. The
  // Nsight saxpy run does (5 of 5 launches are followed by a blocking
  // cudaMemcpy) but only 5 times in the window: single waits, S001's; the
  // DLRM ranks wait after 9 % of their launches.
  EXPECT_FALSE(has(R, "S002")) << "no trace alternates launch and wait";
  if (NoDevice) {
    EXPECT_TRUE(skipped(R, "S002"));
  }

  // S003: the saxpy run reads its results back with synchronous cudaMemcpy
  // DtoH calls and the device idles after them (7 % of the window); DLRM
  // reads dozens of scalars per step, but with the device busy through
  // them (info); ResNet-50 only copies host-to-device.
  if (NoDevice) {
    EXPECT_TRUE(skipped(R, "S003"));
  }
  if (P.contains("nsys-saxpy-mpi-a100")) {
    const rules::Finding *F = find(R, "S003");
    ASSERT_NE(F, nullptr) << "blocking DtoH cudaMemcpy reads";
    EXPECT_EQ(F->Sev, rules::Severity::Warning);
    EXPECT_EQ(F->Subject, "cudaMemcpy");
  }
  if (P.contains("param-dlrm-8rank-v100")) {
    if (const rules::Finding *F = find(R, "S003")) {
      EXPECT_EQ(F->Sev, rules::Severity::Info) << "the device stays busy";
    }
  }
  if (P.contains("kineto-tb-resnet50")) {
    EXPECT_FALSE(has(R, "S003")) << "its blocking copies go host-to-device";
  }
  // M002: ResNet-50 copies its batches from pageable memory (no
  // pin_memory); ROCm traces cannot tell pageable from pinned.
  if (P.contains("resnet50_num_workers_4")) {
    EXPECT_TRUE(has(R, "M002")) << "19 MB pageable batch copies";
  }
  if (P.contains("nsys-saxpy-mpi-a100")) {
    EXPECT_TRUE(has(R, "M002")) << "Nsight records pageable cudaMemcpy";
  }
  if (P.contains("tracelens-hf-inference-mi300/google_owlv2") ||
      P.contains("xdit_sd_3.5")) {
    EXPECT_TRUE(skipped(R, "M002")) << "ROCm host memory kind";
  }
  if (NoDevice) {
    EXPECT_TRUE(skipped(R, "M002"));
  }

  // M003: ResNet-50 copies each batch on the compute stream in front of
  // the forward pass; the xDiT and vLLM replays keep their copies under
  // compute.
  if (P.contains("resnet50_num_workers_4")) {
    EXPECT_TRUE(has(R, "M003")) << "batch copies on the compute stream";
  }
  if (P.contains("tracelens-xdit-mi300") || P.contains("graph_execution")) {
    EXPECT_FALSE(has(R, "M003"));
  }
  if (NoDevice) {
    EXPECT_TRUE(skipped(R, "M003"));
  }
}

/// M004-M007 (rules-mem): allocator churn, memory near capacity, host-filled
/// tensors and growing KV caches, from what README.md and the events show.
void expectAllocatorAndCacheRules(const rules::LintResult &R,
                                  llvm::StringRef P) {
  // M004: no trace with steps calls the allocator after its first step.
  // ResNet-18 on MI300X spends 3.35 s of its window in hipFree, and the
  // PARAM benchmarks seconds in one cudaFree, but without step markers the
  // start-up cannot be told from the steady state: cannot judge.
  EXPECT_FALSE(has(R, "M004")) << "no steady-state allocator calls";
  if (P.contains("train_resnet18") ||
      P.contains("hta-critical-path-a100/alexnet") ||
      P.contains("simple_add/benchmark_result") || P.contains("nsys-")) {
    EXPECT_TRUE(skipped(R, "M004")) << "allocator calls, no steps";
  }
  if (P.contains("hta-cpu-only")) {
    EXPECT_TRUE(skipped(R, "M004")) << "no runtime calls";
  }
  if (P.contains("kineto-tb-resnet50") || P.contains("param-dlrm")) {
    EXPECT_FALSE(skipped(R, "M004")) << "steps, and no allocator calls";
  }

  // M005: only vLLM, which preallocates its KV cache, comes near capacity
  // (93.9 % reserved), with no retry: info, no impact. Old (2021) memory
  // events without totals, host-only memory events and traces without
  // memory events cannot be judged.
  if (const rules::Finding *F = find(R, "M005")) {
    EXPECT_TRUE(P.contains("tracelens-vllm-mi300")) << "near capacity";
    EXPECT_EQ(F->Sev, rules::Severity::Info);
    EXPECT_EQ(F->ImpactNs, 0);
  }
  if (P.contains("tracelens-vllm-mi300") && P.contains("graph_capture")) {
    EXPECT_TRUE(has(R, "M005")) << "KV cache preallocated to 93.9 %";
  }
  if (P.contains("kineto-tb-resnet50") || P.contains("train_resnet18") ||
      P.contains("param-dlrm") || P.contains("nsys-")) {
    EXPECT_TRUE(skipped(R, "M005")) << "no usable device memory events";
  }
  if (P.contains("hta-df-index-resolver")) {
    EXPECT_FALSE(has(R, "M005")) << "12.8 GB reserved of 34 GB";
    EXPECT_FALSE(skipped(R, "M005"));
  }

  // M006: only the MI250 toy run makes its input on the host every step
  // (torch.randn(5, 128), then aten::to), with matching shapes. ResNet-50's
  // one-element aten::zeros before the batch copy is not linked (shape [1]
  // against [32, 3, 224, 224], and the data loader in between); the xDiT
  // copies of torch.tensor results are far under 2 % of the call.
  if (const rules::Finding *F = find(R, "M006")) {
    EXPECT_TRUE(P.contains("hta-amd-mi250")) << "randn(5, 128).to(device)";
    EXPECT_EQ(F->Subject, "aten::randn then aten::to at the top level");
  }
  if (P.contains("hta-amd-mi250")) {
    EXPECT_TRUE(has(R, "M006")) << "randn(5, 128).to(device) every step";
  }
  if (P.contains("nsys-") || P.contains("gpu_only_trace")) {
    EXPECT_TRUE(skipped(R, "M006")) << "no framework ops";
  }
  if (P.contains("kineto-tb-resnet50") || P.contains("tracelens-xdit-mi300/")) {
    EXPECT_FALSE(has(R, "M006"));
  }

  // M007: no trace runs a generation loop. The MI300X Hugging Face models
  // record shapes but run one forward pass per step; their cats (Qwen's
  // rotary halves, the class token of timesformer and owlv2, owlv2's box
  // coordinates) keep one shape: judged and quiet. The PARAM DLRM ranks,
  // the sampled 2-rank job and the 2021 single-process ResNet-50 record
  // each cat's tensor list as [] (older profilers), and many traces have
  // no shapes at all: cannot judge.
  EXPECT_FALSE(has(R, "M007")) << "no growing concatenation";
  if (P.contains("tracelens-hf-inference-mi300") ||
      P.contains("resnet_act_checkpoint")) {
    EXPECT_FALSE(skipped(R, "M007")) << "cat shapes recorded";
  }
  if (P.contains("param-dlrm") || P.contains("hta-sampled-2rank") ||
      P.contains("resnet50_num_workers_0") || P.contains("hta-nccl-a100") ||
      P.contains("nsys-")) {
    EXPECT_TRUE(skipped(R, "M007")) << "no shapes for cat's tensor list";
  }
}

void checkKnownFindings(llvm::StringRef P, const model::Trace &,
                        const analysis::TraceIndex &Ctx,
                        const rules::LintResult &R) {

  for (const rules::Finding &F : R.Findings) {
    EXPECT_GE(F.ImpactNs, 0) << F.Code;
    EXPECT_LE(F.ImpactNs, std::max<int64_t>(Ctx.targetNs(), 0)) << F.Code;
    std::vector<std::string> Texts = {F.Hypothesis,        F.Next.Change,
                                      F.Next.PredictTrace, F.Next.PredictMetric,
                                      F.Next.Verify,       F.Next.RefutedIf};
    Texts.insert(Texts.end(), F.Evidence.begin(), F.Evidence.end());
    Texts.insert(Texts.end(), F.Alternatives.begin(), F.Alternatives.end());
    for (const std::string &T : Texts)
      EXPECT_FALSE(hasUnfilledPlaceholder(T)) << F.Code << ": " << T;
  }

  if (P.contains("resnet50_num_workers_4")) {
    EXPECT_FALSE(has(R, "L001")) << "the device is kept busy";
  }
  if (P.contains("param-dlrm-8rank-v100")) {
    EXPECT_TRUE(has(R, "L001")) << "DLRM ranks are launch-bound";
  }
  if (P.contains("resnet_act_checkpoint")) {
    EXPECT_FALSE(has(R, "L001")) << "78 % short kernels, but 97 % busy";
  }

  bool NoDevice = P.contains("hta-cpu-only") || P.contains("hta-mtia") ||
                  P.contains("hta-cupti-profiler-a100") ||
                  P.contains("distributed_info_not_found") ||
                  P.contains("rank_non_gpu");
  if (NoDevice) {
    for (const char *Code : {"L001", "S001", "M001"}) {
      EXPECT_FALSE(has(R, Code)) << Code << " on a trace without device work";
      EXPECT_TRUE(skipped(R, Code)) << Code << " should say cannot judge";
    }
  }
  if (P.contains("hta-mtia") || P.contains("hta-cupti-profiler-a100")) {
    EXPECT_TRUE(has(R, "T001"));
  }

  // D001 (rules-ld): the README's loader figures. num_workers 0 spends
  // 30-40 % of the step in the loader with the device waiting; num_workers 4
  // about 1 %. owlv2 spends 64 % of its step in the single-process loader.
  if (P.contains("resnet50_num_workers_0") || P.contains("owlv2")) {
    EXPECT_TRUE(has(R, "D001")) << "the training thread waits for batches";
  }
  if (P.contains("resnet50_num_workers_4")) {
    EXPECT_FALSE(has(R, "D001")) << "loader workers keep up";
  }
  // L002 (rules-ld): well-overlapped traces and the loader-bound ResNet
  // (its idle time lies in the loader, D001's) have no host-bound gaps.
  if (P.contains("kineto-tb-resnet50-v0.2") ||
      P.contains("resnet_act_checkpoint") ||
      P.contains("hta-ns-resolution-v100") ||
      (P.contains("tracelens-vllm-mi300") && P.contains("graph_execution"))) {
    EXPECT_FALSE(has(R, "L002")) << "the device is not waiting on host work";
  }
  if (NoDevice) {
    EXPECT_FALSE(has(R, "L002"));
    EXPECT_TRUE(skipped(R, "L002"));
  }
  if (NoDevice) {
    EXPECT_FALSE(has(R, "D001"));
    EXPECT_TRUE(skipped(R, "D001"));
  }

  // L004 (l004): no development trace holds an eager decode loop. The vLLM
  // replay slices already replay the decode as HIP graphs (99.8 % busy); the
  // Hugging Face models run one forward pass, whose stack of identical
  // layers (Falconsai's ViT) repeats but never reads back per layer, so
  // L001 keeps their launch idle.
  EXPECT_FALSE(has(R, "L004")) << "no launch-bound decode loop here";
  if (P.contains("Falconsai") || P.contains("bert-small")) {
    EXPECT_TRUE(has(R, "L001")) << "a forward pass, not a decode: L001's";
  }
  if (NoDevice) {
    EXPECT_TRUE(skipped(R, "L004"));
  }

  // K001 (rules-kc): FP32 training on V100s (ResNet-50, the DDP ResNet, the
  // df-index-resolver job) runs its products on SIMT kernels; the A100 NCCL
  // job already uses TF32 tensor-core kernels, the MI300X traces bf16 MFMA
  // tiles, and a Quadro GP100 has no tensor cores. The sampled ranks run
  // ampere_sgemm without device properties: cannot judge.
  if (P.contains("kineto-tb-resnet50") || P.contains("hta-ns-resolution") ||
      P.contains("hta-df-index-resolver")) {
    EXPECT_TRUE(has(R, "K001")) << "FP32 SIMT products on a V100";
  }
  if (P.contains("hta-nccl-a100") || P.contains("tracelens-") ||
      P.contains("hta-gpu-user-annotation") || P.contains("mi250")) {
    EXPECT_FALSE(has(R, "K001")) << "tensor cores in use, or none to use";
  }
  if (P.contains("hta-sampled-2rank")) {
    EXPECT_TRUE(skipped(R, "K001")) << "no device properties";
  }
  if (NoDevice) {
    EXPECT_FALSE(has(R, "K001"));
    EXPECT_TRUE(skipped(R, "K001"));
  }

  // K002 (rules-kc): timesformer and owlv2 run eager attention (matmul,
  // scale, softmax, matmul) on MI300X; bert-small, Falconsai and Qwen call
  // SDPA and get its flash backend; traces without framework ops cannot be
  // judged.
  if (P.contains("timesformer") || P.contains("owlv2")) {
    EXPECT_TRUE(has(R, "K002")) << "eager attention with score matrices";
  }
  if (P.contains("bert-small") || P.contains("Falconsai") ||
      P.contains("Qwen") || P.contains("kineto-tb-resnet50") ||
      P.contains("param-dlrm") || P.contains("hta-nccl-a100")) {
    EXPECT_FALSE(has(R, "K002")) << "fused attention, or no attention";
  }
  if (P.contains("gpu_only_trace") || P.endswith(".sqlite")) {
    EXPECT_TRUE(skipped(R, "K002")) << "no framework ops";
  }

  // L005 (l005): the df-index-resolver backward runs as unfused eager
  // elementwise chains; compiled and graph-replayed traces (Triton, vLLM,
  // xDiT) and the eager ResNet-50 (chains under 5 % of busy time) stay
  // quiet; device traces without framework ops cannot be judged.
  if (P.contains("hta-df-index-resolver")) {
    EXPECT_TRUE(has(R, "L005")) << "eager elementwise chains in backward";
  }
  if (P.contains("hta-triton-a100") || P.contains("tracelens-vllm-mi300") ||
      P.contains("tracelens-xdit-mi300") || P.contains("kineto-tb-resnet50") ||
      P.contains("tracelens-hf-inference-mi300") || P.contains("param-dlrm") ||
      P.contains("hta-nccl-a100")) {
    EXPECT_FALSE(has(R, "L005")) << "fused, compiled or small chains";
  }
  if (P.contains("gpu_only_trace") || P.contains("report2.sqlite")) {
    EXPECT_TRUE(skipped(R, "L005")) << "no framework ops";
  }
  if (NoDevice) {
    EXPECT_FALSE(has(R, "L005"));
    EXPECT_TRUE(skipped(R, "L005"));
  }

  // K003 (rules-kc): the eager attention of timesformer and owlv2 multiplies
  // by sequence lengths of 3137 and 5185 in bf16; the other MI300X models'
  // projections are aligned.
  if (P.contains("timesformer") || P.contains("owlv2")) {
    EXPECT_TRUE(has(R, "K003")) << "bf16 products with N = sequence length";
  }
  if (P.contains("bert-small") || P.contains("Falconsai") ||
      P.contains("Qwen")) {
    EXPECT_FALSE(has(R, "K003")) << "aligned projections";
  }

  // K004 (rules-kc2): the saxpy run's five 17.7 ms kernels have 2 blocks on
  // 108 SMs; the V100 ResNets' batch-norm kernels (64 blocks on 80 SMs)
  // and the MI300X/MI210 products and reductions leave few SMs idle for
  // little time; NCCL kernels are communication, not judged.
  if (P.contains("nsys-saxpy-mpi-a100")) {
    const rules::Finding *F = find(R, "K004");
    ASSERT_NE(F, nullptr) << "saxpy runs 2 blocks on 108 SMs";
    EXPECT_NE(F->Subject.find("saxpy"), std::string::npos) << F->Subject;
  }
  if (P.contains("kineto-tb-resnet50") || P.contains("hta-ns-resolution") ||
      P.contains("hta-nccl-a100") || P.contains("param-dlrm") ||
      P.contains("hta-df-index-resolver") || P.contains("tracelens-") ||
      P.contains("nsys-nvfuser-h200")) {
    EXPECT_FALSE(has(R, "K004")) << "small grids cost under 5 % of busy";
  }
  if (NoDevice || P.contains("train_resnet18")) {
    EXPECT_TRUE(skipped(R, "K004"))
        << "no device work, or start-up leaving under a tenth to judge";
  }
  if (P.contains("xdit_flux.1/capture_trace")) {
    // 44 % start-up: the rules judge the rest, and it has no small grids.
    EXPECT_FALSE(skipped(R, "K004"));
    EXPECT_FALSE(has(R, "K004"));
  }

  // C001 (rules-kc2): no trace compiles inside a later step. The traces
  // that run torch.compile code have one step or none: cannot judge.
  EXPECT_FALSE(has(R, "C001")) << "no compilation after the first step";
  if (P.contains("hta-triton-a100") || P.contains("tracelens-xdit-mi300") ||
      P.contains("tracelens-mi300-microbench/trace.json")) {
    EXPECT_TRUE(skipped(R, "C001")) << "compiled code, too few steps";
  }

  // C002 (rules-kc2): no trace nests a compiled region of one frame in
  // another's; the xDiT traces call one compiled function repeatedly.
  EXPECT_FALSE(has(R, "C002")) << "no graph breaks in the set";

  if (P.contains("tracelens-vllm-mi300") && P.contains("graph_capture")) {
    const rules::Finding *U = find(R, "U001");
    ASSERT_NE(U, nullptr) << "a graph-capture window is start-up";
    EXPECT_EQ(U->Subject, "start-up");
    // Capture takes about half of the window: the steady-state rules judge
    // the rest, where the launch path idles the device for well under its
    // floor.
    EXPECT_FALSE(skipped(R, "L001"));
    EXPECT_FALSE(has(R, "L001"));
  }

  expectSyncAndMemoryRules(R, P, NoDevice);
  expectAllocatorAndCacheRules(R, P);
}

// --- N rules (communication and ranks) -------------------------------------
void checkCommunicationRules(llvm::StringRef P, const model::Trace &Trace,
                             const analysis::TraceIndex &,
                             const rules::LintResult &R) {
  bool HasCollectives = Trace.countKind(model::EventKind::Collective) > 0;
  if (!HasCollectives) {
    EXPECT_FALSE(has(R, "N001")) << "no communication kernels to expose";
  }
  if (P.contains("param-dlrm-8rank-v100") || P.contains("hta-nccl-a100") ||
      P.contains("hta-sampled-2rank") || P.contains("hta-df-index-resolver")) {
    const rules::Finding *F = find(R, "N001");
    ASSERT_NE(F, nullptr) << "exposed NCCL kernels";
    EXPECT_NE(F->Subject.find("nccl"), std::string::npos) << F->Subject;
  }
  if (P.contains("param-dlrm-8rank-v100")) {
    bool Waits = P.contains("worker1_") || P.contains("worker3_") ||
                 P.contains("worker4_") || P.contains("worker5_");
    bool Late = P.contains("worker2_") || P.contains("worker6_") ||
                P.contains("worker7_");
    if (Waits) {
      EXPECT_TRUE(has(R, "N002")) << "a rank that waits in its all-to-alls";
    }
    if (Late) {
      EXPECT_FALSE(has(R, "N002")) << "a rank the others wait for";
    }
  }
  if (P.contains("hta-df-index-resolver")) {
    EXPECT_TRUE(skipped(R, "N002")) << "no message sizes, no shapes";
  }
  if (!HasCollectives) {
    EXPECT_FALSE(has(R, "N002"));
  }
  const model::Producer &Src = Trace.Source;
  bool SeveralRanks = Src.WorldSize > 1 || (Src.WorldSize < 0 && Src.Rank > 0);
  EXPECT_EQ(has(R, "N003"), SeveralRanks) << "world size " << Src.WorldSize;
  if (const rules::Finding *F = find(R, "N003")) {
    EXPECT_EQ(F->Sev, rules::Severity::Info);
    EXPECT_EQ(F->ImpactNs, 0);
  }
  if (P.contains("rank_non_gpu")) {
    EXPECT_TRUE(skipped(R, "N003")) << "rank 0 without a world size";
  }
}

// --- D002 and L003-L005 (input transfer, host and launch overhead) --------
void checkInputTransferAndLaunchRules(llvm::StringRef P,
                                      const model::Trace &Trace,
                                      const analysis::TraceIndex &Ctx,
                                      const rules::LintResult &R) {

  // D002: the ResNet-50 runs copy input and labels at the step start and
  // synchronize after each copy (.to() with non_blocking=False), but the
  // copies are pageable: the host waits inside the staging calls, which is
  // M002's time, and the synchronizations after them add microseconds. No
  // other trace waits for a step-start input copy.
  EXPECT_FALSE(has(R, "D002")) << "no pinned input copy is waited for";
  if (P.contains("resnet50_num_workers_4")) {
    EXPECT_TRUE(has(R, "M002")) << "the step-start wait is M002's";
  }
  if (!Ctx.hasSteps() || !Ctx.hasDeviceActivity()) {
    EXPECT_TRUE(skipped(R, "D002")) << "no steps or no device work";
  }

  // L003: the df-index trace's SGD updates 404 parameters one add_ at a
  // time with nothing else on the device; the DLRM ranks' Adagrad launches
  // 64 per-tensor kernels per step. ResNet-50's SGD loop (483 kernels per
  // step) runs while backward kernels are still queued, so only 1-2 % of
  // the step is left uncovered; the foreach optimizers (multi_tensor_apply)
  // of hta-ns-resolution and hta-nccl launch no per-tensor kernels.
  if (P.contains("hta-df-index-resolver")) {
    const rules::Finding *F = find(R, "L003");
    ASSERT_NE(F, nullptr) << "404 per-parameter add_ kernels per step";
    EXPECT_EQ(F->Subject, "Optimizer.step#SGD.step");
  }
  if (P.contains("param-dlrm-8rank-v100")) {
    if (const rules::Finding *F = find(R, "L003")) {
      EXPECT_EQ(F->Subject, "Optimizer.step#Adagrad.step");
    }
  }
  if (P.contains("kineto-tb-resnet50") || P.contains("hta-ns-resolution") ||
      P.contains("hta-nccl-a100")) {
    EXPECT_FALSE(has(R, "L003")) << "hidden under backward, or foreach";
  }
  bool HasOptimizer = false;
  for (const model::Event &E : Trace.Events)
    if (Trace.name(E).startswith("Optimizer.step#")) {
      HasOptimizer = true;
      break;
    }
  if (!HasOptimizer) {
    EXPECT_FALSE(has(R, "L003"));
    EXPECT_TRUE(skipped(R, "L003")) << "no optimizer ranges";
  }
}

// --- U rules (start-up and teardown) ---------------------------------------
// U003: the PARAM benchmarks (simple_add, AlexNet, the counter-only run) end
// with ten cudaFree calls after their last launch, and the saxpy run frees
// and unregisters its buffers; all are windows without steps. ResNet-18 on
// MI300 frees all through its window, between launches: allocator churn,
// not teardown. Traces without launch calls cannot be judged.
// U004: the Nsight reports record the profiler's overhead (initialization,
// resource management, the flush at exit) before the first and after the
// last submission: a note. No Kineto JSON trace of the set carries overhead
// records, and the PyTorch profiler's own frames lie outside the steady
// steps: quiet.
void checkStartupAndTeardownRules(llvm::StringRef P, const model::Trace &,
                                  const analysis::TraceIndex &,
                                  const rules::LintResult &R) {
  if (P.contains("hta-critical-path-a100/simple_add") ||
      P.contains("hta-critical-path-a100/alexnet") ||
      P.contains("hta-cupti-profiler-a100") ||
      P.contains("nsys-saxpy-mpi-a100")) {
    const rules::Finding *U = find(R, "U003");
    ASSERT_NE(U, nullptr) << "deallocation after the last launch";
    EXPECT_EQ(U->Subject, "window");
    EXPECT_GT(U->ImpactNs, 0);
  }
  if (P.contains("train_resnet18") || P.contains("kineto-tb-resnet50") ||
      P.contains("tracelens-xdit-mi300") || P.contains("param-dlrm")) {
    EXPECT_FALSE(has(R, "U003")) << "no teardown after the last submission";
  }
  if (P.contains("hta-cpu-only") || P.contains("hta-mtia")) {
    EXPECT_TRUE(skipped(R, "U003")) << "no launch calls";
  }
  // With steps, teardown after them changes no step.
  const rules::Finding *F = find(R, "U003");
  if (F && F->Subject == "after the steps") {
    EXPECT_EQ(F->ImpactNs, 0);
  }
  if (P.endswith(".sqlite")) {
    const rules::Finding *O = find(R, "U004");
    ASSERT_NE(O, nullptr) << "Nsight records the profiler's overhead";
    EXPECT_EQ(O->Sev, rules::Severity::Info) << "it lies at the edges";
  } else {
    EXPECT_FALSE(has(R, "U004")) << "no overhead inside the steady target";
  }
}

// One import and one lint per trace, then each group of checks above.
TEST_P(RulesCorpus, FindingsMatchWhatIsKnown) {
  const std::string &Path = GetParam();
  if (Path.empty())
    GTEST_SKIP() << "no traces under " << tracesDir();
  auto Trace = import::importTraceFile(Path);
  if (!Trace) {
    // CorpusTest checks which inputs must be rejected, and how.
    llvm::consumeError(Trace.takeError());
    GTEST_SKIP() << "not importable: " << Path;
  }
  analysis::TraceIndex Ctx(*Trace);
  rules::LintResult R =
      rules::runRules(Ctx, catalogue(), rules::Config(), Path);
  {
    SCOPED_TRACE("KnownFindings");
    checkKnownFindings(Path, *Trace, Ctx, R);
  }
  {
    SCOPED_TRACE("CommunicationRules");
    checkCommunicationRules(Path, *Trace, Ctx, R);
  }
  {
    SCOPED_TRACE("InputTransferAndLaunchRules");
    checkInputTransferAndLaunchRules(Path, *Trace, Ctx, R);
  }
  {
    SCOPED_TRACE("StartupAndTeardownRules");
    checkStartupAndTeardownRules(Path, *Trace, Ctx, R);
  }
}

INSTANTIATE_TEST_SUITE_P(
    SharedTraces, RulesCorpus,
    ::testing::ValuesIn(corpus::filesOrAbsent(corpus::corpusFiles())),
    corpus::caseName);

} // namespace
