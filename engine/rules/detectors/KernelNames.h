//===- rules/detectors/KernelNames.h - What kernel names reveal -*- C++ -*-===//
//
// The kernel-choice rules (K family) read what a device kernel's name says
// about how it computes: whether a matrix product runs on the FP32 SIMT
// pipeline or on matrix units (NVIDIA tensor cores, AMD MFMA), across the
// naming schemes of cuBLAS, cuDNN, CUTLASS, cuBLASLt (nvjet), Tensile
// (rocBLAS/hipBLASLt) and Composable Kernel; the launch rules (L003, L005)
// read whether it is one elementwise operation. The lists are kept here, in
// one place, so that a new library generation is taught to every rule at
// once.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_RULES_DETECTORS_KERNELNAMES_H
#define TRACELINT_RULES_DETECTORS_KERNELNAMES_H

#include "model/NameClasses.h"

#include "llvm/ADT/StringRef.h"

#include <string>

namespace tracelint::rules::detect {

/// How a matrix-product kernel computes, as far as its name tells.
enum class MatmulEngine {
  NotMatmul,  ///< the name does not say it is a matrix product
  Fp32Simt,   ///< FP32 on the scalar (SIMT/FFMA) pipeline
  MatrixUnit, ///< tensor cores (HMMA, IMMA, TF32, wgmma, tcgen05) or MFMA
  Other,      ///< a matrix product of another kind (SIMT fp16, fp64, gemv)
};

/// Which vendor's naming scheme a kernel name follows.
enum class KernelVendor { Nvidia, Amd };

struct MatmulKernel {
  MatmulEngine Engine = MatmulEngine::NotMatmul;
  KernelVendor Vendor = KernelVendor::Nvidia;
  /// An implicit-GEMM convolution (cuDNN convolve_sgemm, xmma fprop/dgrad/
  /// wgrad, CK grouped conv) rather than a plain matrix product.
  bool Convolution = false;
  /// A TF32 tensor-core kernel (FP32 inputs rounded to TF32).
  bool Tf32 = false;
};

/// Classifies a device kernel by its name. Plain FP32 SIMT products are
/// cuBLAS `*_sgemm_*`, cuDNN `implicit/explicit_convolve_sgemm`, CUTLASS
/// `simt_sgemm`, cuBLAS xmma kernels built on FFMA, and Tensile `Cijk_*_S*`
/// kernels without an `MI<m>x<n>` (MFMA) tile. Matrix-unit products are
/// named after their instruction shapes (`884`, `1688`, `16816`), TF32,
/// CUTLASS `tensorop`/`wmma`, xmma, Hopper/Blackwell `wgmma`, `sm90_`,
/// `sm100_`, cuBLASLt `nvjet`, Tensile `MI` tiles and CK `xdl`/`mfma`.
MatmulKernel classifyMatmulKernel(llvm::StringRef Name);

/// A kernel name short enough for an evidence line: without a leading
/// "void ", template arguments and parameters
/// ("implicit_convolve_sgemm<float, ...>(int, ...)" becomes
/// "implicit_convolve_sgemm"); a CUTLASS `cutlass::Kernel<X>` wrapper is
/// named by X.
std::string shortKernelName(llvm::StringRef Name);

/// True for a kernel that applies one elementwise operation to one tensor
/// (or a few of the same shape): PyTorch's `elementwise_kernel`,
/// `vectorized_elementwise_kernel`, `unrolled_elementwise_kernel` (the same
/// names on ROCm), and Triton pointwise kernels (`triton_poi_`). Kernels
/// that process a list of tensors (the name class multi-tensor-kernel) are
/// not.
bool isElementwiseKernel(const model::NameClassifier &Names,
                         llvm::StringRef Name);

/// True for a PyTorch eager elementwise kernel that computes (CUDA and
/// HIP builds name them alike): the at::native elementwise kernels of
/// isElementwiseKernel (including `elementwise_kernel_manual_unroll`),
/// unless the functor only copies, casts or fills (those read nothing
/// computed, or belong to the copy rules). Kernels that a compiler already
/// fused (Triton `triton_poi_*`, nvFuser, XLA fusions) do not count.
bool isEagerElementwiseKernel(const model::NameClassifier &Names,
                              llvm::StringRef Name);

} // namespace tracelint::rules::detect

#endif
