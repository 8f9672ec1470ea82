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

/// The producer and what it was told by.
struct ProducerInfo {
  ProducerKind Kind = ProducerKind::Unknown;
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
