//===- analysis/Producer.h - What program produced a trace ------*- C++ -*-===//
//
// The kind of program behind a trace, told from its events: a PyTorch
// program, a CUDA or HIP C/C++ program, or an OpenMP or OpenACC offload
// program. Rule texts speak the producer's vocabulary (a PyTorch user is
// told about pin_memory, a CUDA programmer about cudaMallocHost), so this is
// decided once, in the trace index, and read by the rule engine and `stats`.
// The signals are documented in docs/import.md.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_ANALYSIS_PRODUCER_H
#define TRACELINT_ANALYSIS_PRODUCER_H

#include "model/Trace.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>

namespace tracelint::analysis {

enum class ProducerKind : uint8_t {
  Unknown,       ///< no framework, runtime or device events to tell by
  PyTorch,       ///< ATen ops, Python frames, ProfilerStep#, torch metadata
  Cuda,          ///< runtime/driver calls or kernels, no framework events
  OpenMpOffload, ///< nvhpc nvkernel_*_F<l>L<l>_<n>, __omp_offloading_*
  OpenAcc,       ///< OpenACC API calls and regions, nvhpc *_<line>_gpu
};
constexpr unsigned NumProducerKinds = unsigned(ProducerKind::OpenAcc) + 1;

/// "unknown", "pytorch", "cuda", "openmp-offload", "openacc": the names used
/// in rule files ([producer.NAME]) and reports.
llvm::StringRef producerName(ProducerKind K);
std::optional<ProducerKind> parseProducer(llvm::StringRef Name);
/// "PyTorch", "CUDA/HIP", "OpenMP offload", "OpenACC", "unknown": for
/// sentences.
llvm::StringRef producerTitle(ProducerKind K);
/// The producers a rule file may name, in enum order, without "unknown".
llvm::ArrayRef<ProducerKind> textProducers();
/// The producer whose texts stand in when a rule has none for \p K: the
/// offload programs run on the CUDA runtime, so their next best texts are
/// the CUDA ones; std::nullopt means the rule's default texts.
std::optional<ProducerKind> producerFallback(ProducerKind K);

/// True when the rules' default texts, written for PyTorch, apply: a
/// PyTorch trace, or one whose producer cannot be told.
inline bool speaksPyTorch(ProducerKind K) {
  return K == ProducerKind::PyTorch || K == ProducerKind::Unknown;
}

/// The GPU software stack the trace was recorded on, whatever the program:
/// the vocabulary of its advice (HIP graphs, rocprofv3, roctx and matrix
/// cores on ROCm; CUDA graphs, Nsight Systems, NVTX and tensor cores on
/// CUDA). PyTorch on ROCm is still PyTorch (torch.cuda.* names work there),
/// but its graphs are HIP graphs and its profiler is rocprofv3.
enum class Platform : uint8_t { Unknown, Cuda, Rocm };
/// "unknown", "cuda", "rocm".
llvm::StringRef platformName(Platform P);

/// The platform \p D's properties name (AMD names, gfx architectures and
/// 64-wide wavefronts are ROCm; NVIDIA names and 32-wide warps CUDA).
Platform devicePlatform(const model::DeviceInfo &D);

/// How a report names \p D's architecture: the trace's own name (D.Arch)
/// when it has one; for an AMD device, the gfx name its compute version and
/// compute-unit count imply ("gfx90a" for 9.0 with 104 or 110 CUs, "gfx942"
/// for 9.4), or the family ("gfx9.0 family") when they do not settle it;
/// for others "compute 8.0". Empty when nothing is known. A device whose
/// properties do not say its platform (an empty name) takes \p Trace's.
std::string archName(const model::DeviceInfo &D, Platform Trace);
/// "CUs" for AMD devices, "SMs" for the others (\p Trace as in archName).
llvm::StringRef computeUnitsWord(const model::DeviceInfo &D, Platform Trace);

/// The producer and what it was told by.
struct ProducerInfo {
  ProducerKind Kind = ProducerKind::Unknown;
  /// Told, first match wins, by the trace's own metadata (HIP runtime or
  /// roctracer versions; CUPTI or CUDA versions), its devices (AMD names or
  /// 64-wide wavefronts; NVIDIA names or 32-wide warps), then by which of
  /// hip* and cuda*/cu* runtime calls are more.
  Platform Plat = Platform::Unknown;
  uint64_t HipCalls = 0, CudaCalls = 0;
  bool isRocm() const { return Plat == Platform::Rocm; }
  /// The signals seen, for `stats`: "1204 ATen ops, 3 ProfilerStep# ranges".
  std::string Signals;
  /// Counts behind the decision.
  uint64_t AtenOps = 0, PythonFrames = 0, StepMarkers = 0, TorchRanges = 0;
  uint64_t OmpKernels = 0, OmpCalls = 0, AccKernels = 0, AccCalls = 0;
  uint64_t RuntimeCalls = 0, DeviceWork = 0;
  bool TorchMetadata = false;
};

/// Decides the producer of \p T from its events (one pass, each distinct
/// name classified once).
ProducerInfo detectProducer(const model::Trace &T);

} // namespace tracelint::analysis

#endif
