//===- rules/PlatformWords.cpp - Rule texts in the platform's vocabulary --===//
#include "rules/PlatformWords.h"

#include "llvm/ADT/StringExtras.h"

#include <utility>

using namespace tracelint;
using namespace tracelint::rules;

namespace {

/// Phrases whose ROCm form is not a word-for-word rename, longest first
/// where one contains another.
constexpr std::pair<llvm::StringRef, llvm::StringRef> RocmPhrases[] = {
    {"cudaProfilerStart/cudaProfilerStop with nsys "
     "--capture-range=cudaProfilerApi",
     "roctxProfilerResume/roctxProfilerPause, which rocprofv3 honours"},
    {"nsys --capture-range=cudaProfilerApi",
     "rocprofv3 with roctxProfilerPause/roctxProfilerResume"},
    {"with Nsight Systems add CPU sampling",
     "add CPU sampling with Linux perf"},
    {"nsys profile --sample=cpu --backtrace=dwarf",
     "perf record --call-graph dwarf -p PID"},
    {"nsys --cuda-event-trace=true", "rocprofv3 --hip-trace"},
    {"nsys --trace=cuda", "rocprofv3 --kernel-trace --hip-trace"},
    {"--cudabacktrace", "--hip-trace only where needed"},
    {"Nsight Systems", "rocprofv3"},
    {"tensor cores", "matrix cores"},
    {"tensor-core", "matrix-core"},
    {"Tensor cores", "Matrix cores"},
    // Texts that already name the HIP call beside the CUDA one.
    {"cudaMalloc/cudaFree (hipMalloc/hipFree)", "hipMalloc/hipFree"},
    {"nvtxRangePush/nvtxRangePop from nvToolsExt, or "
     "roctxRangePush/roctxRangePop on ROCm",
     "roctxRangePush/roctxRangePop"},
    {"cudaFree/hipFree", "hipFree"},
    {"cudaMallocHost (hipHostMalloc on ROCm)", "hipHostMalloc"},
    {"an NVTX", "a roctx"},
    {"CUDA/HIP", "HIP"},
};

/// Identifiers whose HIP name is not the CUDA name with "hip" for "cuda".
constexpr std::pair<llvm::StringRef, llvm::StringRef> RocmWords[] = {
    {"cudaMallocHost", "hipHostMalloc"},
    {"cudaFreeHost", "hipHostFree"},
    {"CUDA", "HIP"},
    {"CUPTI", "rocprofiler-sdk"},
    {"NVTX", "roctx"},
    {"nvToolsExt", "roctx"},
    {"cuDNN", "MIOpen"},
    {"cuBLAS", "rocBLAS"},
    {"cuBLASLt", "hipBLASLt"},
    {"NCCL", "RCCL"},
    {"nvtxRangePush", "roctxRangePush"},
    {"nvtxRangePop", "roctxRangePop"},
    {"nsys", "rocprofv3"},
    {"SM", "CU"},
    {"SMs", "CUs"},
};

bool isWordChar(char C) { return llvm::isAlnum(C) || C == '_'; }

std::string renameWord(llvm::StringRef W) {
  for (const auto &[From, To] : RocmWords)
    if (W == From)
      return To.str();
  // The runtime API: cudaStreamWaitEvent is hipStreamWaitEvent.
  if (W.size() > 4 && W.startswith("cuda") && W[4] >= 'A' && W[4] <= 'Z')
    return ("hip" + W.drop_front(4)).str();
  return W.str();
}

} // namespace

std::string rules::inRocmWords(llvm::StringRef Text) {
  std::string S = Text.str();
  for (const auto &[From, To] : RocmPhrases)
    for (size_t At = S.find(From.data(), 0, From.size());
         At != std::string::npos;
         At = S.find(From.data(), At + To.size(), From.size()))
      S.replace(At, From.size(), To.data(), To.size());
  std::string Out;
  Out.reserve(S.size());
  for (size_t I = 0; I < S.size();) {
    if (!isWordChar(S[I])) {
      Out += S[I++];
      continue;
    }
    size_t End = I;
    while (End < S.size() && isWordChar(S[End]))
      ++End;
    llvm::StringRef W(S.data() + I, End - I);
    // torch.cuda.*, ProfilerActivity.CUDA, --cuda-event-trace: Python
    // attributes and option spellings keep their names (idle-SM is prose).
    const bool Qualified =
        I > 0 &&
        (S[I - 1] == '.' || (S[I - 1] == '-' && S[I] >= 'a' && S[I] <= 'z'));
    Out += Qualified ? W.str() : renameWord(W);
    I = End;
  }
  return Out;
}

std::string rules::inPlatformWords(llvm::StringRef Text, analysis::Platform P) {
  return P == analysis::Platform::Rocm ? inRocmWords(Text) : Text.str();
}

RuleTexts rules::inPlatformWords(RuleTexts Texts, analysis::Platform P) {
  if (P != analysis::Platform::Rocm)
    return Texts;
  auto Tr = [](std::string &S) { S = inRocmWords(S); };
  Tr(Texts.Hypothesis);
  for (std::string &E : Texts.Evidence)
    Tr(E);
  for (std::string &A : Texts.Alternatives)
    Tr(A);
  Tr(Texts.Next.Change);
  Tr(Texts.Next.PredictTrace);
  Tr(Texts.Next.PredictMetric);
  Tr(Texts.Next.Verify);
  Tr(Texts.Next.RefutedIf);
  return Texts;
}
