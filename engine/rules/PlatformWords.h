//===- rules/PlatformWords.h - Rule texts in the platform's vocabulary ----===//
//
// The rule texts are written once, in CUDA's words. A trace recorded on
// ROCm gets them in HIP's: HIP's runtime API is CUDA's renamed one for one
// (cudaMemcpyAsync is hipMemcpyAsync), its graphs and events are HIP graphs
// and HIP events, its ranges are roctx ranges, its devices have compute
// units (CUs) and matrix cores, and its system profiler is rocprofv3. The
// texts are translated before their placeholders are filled, so that event
// names quoted in a finding are never rewritten.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_RULES_PLATFORMWORDS_H
#define TRACELINT_RULES_PLATFORMWORDS_H

#include "analysis/Producer.h"
#include "rules/RuleSpec.h"

#include "llvm/ADT/StringRef.h"

#include <string>

namespace tracelint::rules {

/// \p Text in ROCm's words (docs/import.md, "CUDA and ROCm"): the profiler
/// options first (nsys options become rocprofv3's, or perf's for CPU
/// sampling, which rocprofv3 does not do), then identifiers: cudaX becomes
/// hipX (cudaMallocHost hipHostMalloc), CUDA HIP, NVTX roctx, SM CU,
/// CUPTI rocprofiler-sdk, cuDNN MIOpen, cuBLAS rocBLAS, NCCL RCCL, tensor
/// cores matrix cores. A name after a dot is
/// Python's and stays (torch.cuda.synchronize() and ProfilerActivity.CUDA
/// are how PyTorch on ROCm spells them too).
std::string inRocmWords(llvm::StringRef Text);

/// \p Text in \p P's words: unchanged except on ROCm.
std::string inPlatformWords(llvm::StringRef Text, analysis::Platform P);

/// Every template of \p Texts in \p P's words.
RuleTexts inPlatformWords(RuleTexts Texts, analysis::Platform P);

} // namespace tracelint::rules

#endif
