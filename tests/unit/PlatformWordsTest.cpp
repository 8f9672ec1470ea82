//===- PlatformWordsTest.cpp - Rule texts in ROCm's words -----------------===//
//
// Every built-in rule's texts, for every producer, rendered for a ROCm
// trace: none may send a HIP user to CUDA-only tools or names. Python names
// (torch.cuda.*, ProfilerActivity.CUDA) are PyTorch's on ROCm too and stay.
//
//===----------------------------------------------------------------------===//
#include "rules/PlatformWords.h"
#include "rules/Catalogue.h"

#include "llvm/Support/Regex.h"

#include "gtest/gtest.h"

using namespace tracelint;
using analysis::Platform;
using analysis::ProducerKind;

namespace {

TEST(PlatformWords, RenamesTheRuntimeApiAndTools) {
  EXPECT_EQ(rules::inRocmWords("wait on a CUDA event (cudaEventRecord, then "
                               "cudaStreamWaitEvent)"),
            "wait on a HIP event (hipEventRecord, then hipStreamWaitEvent)");
  EXPECT_EQ(rules::inRocmWords("pin it with cudaMallocHost"),
            "pin it with hipHostMalloc");
  EXPECT_EQ(rules::inRocmWords("capture with nsys --cuda-event-trace=true"),
            "capture with rocprofv3 --hip-trace");
  EXPECT_EQ(rules::inRocmWords("{sms} SMs, one block per SM, idle-SM time"),
            "{sms} CUs, one block per CU, idle-CU time");
  EXPECT_EQ(rules::inRocmWords("in an NVTX range (nvtxRangePush)"),
            "in a roctx range (roctxRangePush)");
  // Python attributes and option spellings keep their names; words that
  // merely contain a renamed one are left alone.
  EXPECT_EQ(rules::inRocmWords("torch.cuda.synchronize() with "
                               "ProfilerActivity.CUDA; SMEM, cudagraph"),
            "torch.cuda.synchronize() with ProfilerActivity.CUDA; SMEM, "
            "cudagraph");
  EXPECT_EQ(rules::inPlatformWords("cudaMemcpy", Platform::Cuda), "cudaMemcpy");
  EXPECT_EQ(rules::inPlatformWords("cudaMemcpy", Platform::Unknown),
            "cudaMemcpy");
}

/// CUDA-only words a ROCm report must not use: the runtime API (cudaX),
/// the CUDA name itself, NVIDIA's tools and marker API, SMs.
bool speaksCudaOnRocm(llvm::StringRef Text, std::string &Why) {
  static llvm::Regex Bad("(^|[^.A-Za-z_-])(cuda[A-Z][A-Za-z]*|CUDA|nsys|"
                         "Nsight|NVTX|nvtx[A-Z][A-Za-z]*|CUPTI|SMs?|"
                         "cuDNN|cuBLAS|NCCL)"
                         "($|[^A-Za-z_])");
  llvm::SmallVector<llvm::StringRef, 4> M;
  if (!Bad.match(Text, &M))
    return false;
  Why = M[2].str();
  return true;
}

TEST(PlatformWords, NoBuiltinRuleSpeaksCudaOnRocm) {
  auto Cat = rules::Catalogue::builtin();
  ASSERT_TRUE(bool(Cat)) << llvm::toString(Cat.takeError());
  for (const rules::RuleSpec &Spec : Cat->rules())
    for (ProducerKind K :
         {ProducerKind::Unknown, ProducerKind::PyTorch, ProducerKind::Cuda,
          ProducerKind::OpenMpOffload, ProducerKind::OpenAcc}) {
      rules::RuleTexts T =
          rules::inPlatformWords(Spec.textsFor(K), Platform::Rocm);
      std::vector<std::string> All = {T.Hypothesis,        T.Next.Change,
                                      T.Next.PredictTrace, T.Next.PredictMetric,
                                      T.Next.Verify,       T.Next.RefutedIf};
      All.insert(All.end(), T.Evidence.begin(), T.Evidence.end());
      All.insert(All.end(), T.Alternatives.begin(), T.Alternatives.end());
      for (const std::string &Text : All) {
        std::string Why;
        EXPECT_FALSE(speaksCudaOnRocm(Text, Why))
            << Spec.Code << " (" << analysis::producerName(K).str()
            << ") says '" << Why << "' on ROCm: " << Text;
      }
    }
}

} // namespace
