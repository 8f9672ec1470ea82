//===- capture/Translate.h - CUPTI activity records to events ---*- C++ -*-===//
//
// The pure translation layer: each CUPTI activity record (the CUDA 13
// structures of cupti_activity.h) becomes a trace event in the Kineto
// vocabulary, or updates what the collector knows (devices, contexts,
// external correlation). No CUPTI function is called here; the API-name
// lookup is injected, so records built in memory test every kind.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_CAPTURE_TRANSLATE_H
#define TRACELINT_CAPTURE_TRANSLATE_H

#include "Collector.h"

#include <cupti_activity.h>

#include <string>

namespace tracelint::capture {

/// The name of a runtime (\p Runtime) or driver API callback id, or nullptr.
using ApiNameFn = const char *(*)(bool Runtime, uint32_t Cbid);

/// "cudaMemcpyAsync_ptsz_v7000" -> "cudaMemcpyAsync": CUPTI's callback names
/// carry the API version and the per-thread-stream variant, which neither
/// Kineto nor our rules use.
std::string canonicalApiName(std::string_view Name);

/// CUPTI's names for its enums, spelt as Kineto spells them.
const char *memcpyKindName(uint8_t CopyKind);    // "HtoD"
const char *memoryKindName(uint32_t MemoryKind); // "Pageable"
const char *syncTypeName(uint32_t Type);         // "Stream Sync"
const char *overheadKindName(uint32_t Kind);     // "CUPTI buffer flush"

class RecordTranslator {
public:
  /// \p ProcessId: this process, for records that name no thread.
  RecordTranslator(TraceCollector &C, ApiNameFn ApiName, int64_t ProcessId)
      : C(C), ApiName(ApiName), ProcessId(ProcessId) {}

  /// Dispatches on the record's kind; unknown kinds are counted.
  void translate(const CUpti_Activity *Record);

  void kernel(const CUpti_ActivityKernel10 &R);
  void memcpy(const CUpti_ActivityMemcpy6 &R);
  void memcpyPeer(const CUpti_ActivityMemcpyPtoP4 &R);
  void memset(const CUpti_ActivityMemset4 &R);
  void api(const CUpti_ActivityAPI &R, bool Runtime);
  void synchronization(const CUpti_ActivitySynchronization2 &R);
  void marker(const CUpti_ActivityMarker2 &R);
  void overhead(const CUpti_ActivityOverhead3 &R);
  void externalCorrelation(const CUpti_ActivityExternalCorrelation &R);
  void device(const CUpti_ActivityDevice5 &R);
  void context(const CUpti_ActivityContext3 &R);

private:
  TraceCollector &C;
  ApiNameFn ApiName;
  int64_t ProcessId;
};

} // namespace tracelint::capture

#endif
