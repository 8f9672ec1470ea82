//===- capture/TraceWriter.h - Kineto JSON from collected events -*- C++
//-*-===//
//
// Writes a capture in the Kineto JSON schema (the PyTorch profiler's Chrome
// trace): what tracelint's importer reads and Perfetto opens. Besides the
// events it records the producer, the CUPTI and CUDA versions, the devices,
// the window and every count of records that were not kept.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_CAPTURE_TRACEWRITER_H
#define TRACELINT_CAPTURE_TRACEWRITER_H

#include "Collector.h"

#include <cstdint>
#include <string>

namespace tracelint::capture {

struct TraceMetadata {
  std::string ProducerVersion;      ///< tracelint's version
  uint32_t CuptiHeaderVersion = 0;  ///< CUPTI_API_VERSION built against
  uint32_t CuptiRuntimeVersion = 0; ///< cuptiGetVersion at run time
  int CudaDriverVersion = 0;        ///< cuDriverGetVersion (0: unknown)
  int CudaRuntimeVersion = 0;       ///< cudaRuntimeGetVersion (0: unknown)
  long Pid = 0;
  std::string ProcessName, Hostname;
  int64_t Rank = -1, LocalRank = -1, WorldSize = -1;
  std::string WindowMode, StopReason, RangeName;
  double DelaySec = 0, DurationSec = 0;
};

/// The whole trace document. Events are written in start order, preceded by
/// process and thread names, followed by launch flows (host call -> device
/// work, by correlation).
std::string renderTraceJson(const TraceCollector &C, const TraceMetadata &M);

/// Writes \p Text to \p Path through a temporary file in the same folder and
/// a rename, so readers never see half a trace. Returns "" or an error that
/// names the file and the cause.
std::string writeFileAtomically(const std::string &Path,
                                const std::string &Text);

} // namespace tracelint::capture

#endif
