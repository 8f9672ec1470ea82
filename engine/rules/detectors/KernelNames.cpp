//===- rules/detectors/KernelNames.cpp ------------------------------------===//
#include "rules/detectors/KernelNames.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <cctype>
#include <string>

using namespace tracelint::rules;
using namespace tracelint::rules::detect;

namespace {

bool containsAny(llvm::StringRef S, std::initializer_list<const char *> Parts) {
  return llvm::any_of(Parts, [&](const char *P) { return S.contains(P); });
}

/// An `MI16x16x1`-style token: a Tensile tile built on MFMA instructions.
bool isMfmaToken(llvm::StringRef Tok) {
  if (!Tok.consume_front("MI") || Tok.empty() ||
      !std::isdigit(static_cast<unsigned char>(Tok.front())))
    return false;
  return Tok.contains('x');
}

/// Tensile (rocBLAS, hipBLASLt) kernels: Cijk_<A index>_<B index>_<types>_...
/// The types token is the input, output and compute types plus flags (`SB`:
/// single with beta; `BBS`: bf16 in, bf16 out, FP32 compute).
MatmulKernel classifyTensile(llvm::StringRef Name) {
  MatmulKernel K;
  K.Vendor = KernelVendor::Amd;
  llvm::SmallVector<llvm::StringRef, 32> Tok;
  Name.split(Tok, '_');
  bool Mfma = llvm::any_of(Tok, isMfmaToken);
  llvm::StringRef Types = Tok.size() > 3 ? Tok[3] : llvm::StringRef();
  bool Fp32 = !Types.empty() && Types.front() == 'S' &&
              Types.find_first_not_of("SB") == llvm::StringRef::npos;
  if (Mfma)
    K.Engine = MatmulEngine::MatrixUnit;
  else
    K.Engine = Fp32 ? MatmulEngine::Fp32Simt : MatmulEngine::Other;
  return K;
}

} // namespace

MatmulKernel detect::classifyMatmulKernel(llvm::StringRef Name) {
  if (Name.startswith("Cijk_"))
    return classifyTensile(Name);
  MatmulKernel K;
  // "cublas" says nothing about precision and would make "cublasGemm..."
  // read as an sgemm.
  std::string Lower = Name.lower();
  for (size_t P; (P = Lower.find("cublas")) != std::string::npos;)
    Lower.erase(P, 6);
  llvm::StringRef L(Lower);

  K.Convolution = containsAny(L, {"conv", "fprop", "dgrad", "wgrad", "cudnn"});
  // Composable Kernel and MIOpen: XDL/MFMA tiles are matrix-unit work.
  if (L.contains("ck16tensor_operation") || L.startswith("ck::") ||
      L.startswith("igemm_")) {
    K.Vendor = KernelVendor::Amd;
    if (containsAny(L, {"xdl", "mfma", "gtcx", "wmma"}))
      K.Engine = MatmulEngine::MatrixUnit;
    else if (containsAny(L, {"gemm", "conv"}))
      K.Engine = MatmulEngine::Other;
    return K;
  }

  bool Product = containsAny(L, {"gemm", "conv", "fprop", "dgrad", "wgrad",
                                 "cudnn", "nvjet", "mma", "matmul"});
  if (!Product)
    return K;
  // Matrix-vector and k=1 products are bound by memory, not by the
  // arithmetic pipeline: no precision mode speeds them up much.
  if (containsAny(L, {"gemv", "gemmsn", "gemmk1", "gemvx"})) {
    K.Engine = MatmulEngine::Other;
    return K;
  }
  // Half-precision storage: never an FP32 product, even on SIMT.
  bool Half =
      containsAny(L, {"f16", "fp16", "bf16", "half", "hgemm", "h884", "h1688",
                      "h16816", "hcudnn", "fp8", "e4m3", "e5m2", "int8"});
  // FP32 on the scalar pipeline: cuBLAS/cuDNN SIMT kernels, CUTLASS simt,
  // and xmma kernels built on FFMA rather than MMA instructions.
  if (!Half && !containsAny(L, {"tensorop", "wmma", "tf32"}) &&
      (containsAny(L, {"sgemm", "scudnn", "ffma"}))) {
    K.Engine = MatmulEngine::Fp32Simt;
    return K;
  }
  if (containsAny(L, {"tensorop", "wmma", "xmma", "884", "1688", "16816",
                      "hmma", "imma", "tf32", "wgmma", "gmma", "tcgen05",
                      "nvjet", "sm90_", "sm100_", "sm120_"})) {
    K.Engine = MatmulEngine::MatrixUnit;
    K.Tf32 = containsAny(L, {"tf32", "s1688", "s16816"});
    return K;
  }
  K.Engine = MatmulEngine::Other;
  return K;
}

std::string detect::shortKernelName(llvm::StringRef Name) {
  Name = Name.trim();
  Name.consume_front("void ");
  // CUTLASS wraps the informative name in cutlass::Kernel<...>.
  for (llvm::StringRef Wrapper : {"cutlass::Kernel<", "cutlass::Kernel2<"})
    if (Name.consume_front(Wrapper))
      return Name.take_until([](char C) { return C == '>' || C == '('; }).str();
  return Name.take_until([](char C) { return C == '<' || C == '('; })
      .trim()
      .str();
}

bool detect::isElementwiseKernel(const model::NameClassifier &Names,
                                 llvm::StringRef Name) {
  if (Names.matches(Name, model::NameClass::MultiTensorKernel))
    return false;
  return Name.contains("elementwise_kernel") || Name.contains("triton_poi_");
}

bool detect::isEagerElementwiseKernel(const model::NameClassifier &Names,
                                      llvm::StringRef Name) {
  Name = Name.trim();
  Name.consume_front("void ");
  if (!Name.consume_front("at::native::") || !isElementwiseKernel(Names, Name))
    return false;
  llvm::StringRef Kind =
      Name.take_until([](char C) { return C == '<' || C == '('; });
  if (Kind != "vectorized_elementwise_kernel" &&
      Kind != "unrolled_elementwise_kernel" && Kind != "elementwise_kernel" &&
      Kind != "elementwise_kernel_manual_unroll")
    return false; // indexing and other kernels named after the helper
  // Copies and casts move data the rule does not count as computed (M001
  // reads them); fills read no input, so nothing before them can feed them.
  std::string Lower = Name.lower();
  return !containsAny(Lower, {"copy_kernel", "copy_device_to_device",
                              "fillfunctor", "fill_kernel"});
}
