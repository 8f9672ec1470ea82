//===- capture/Translate.cpp - CUPTI activity records to events -----------===//
#include "Translate.h"

#include <algorithm>

using namespace tracelint::capture;

namespace {

bool endsWithVersion(std::string_view S, size_t &Cut) {
  // "_v7000", "_v2": '_', 'v', then digits to the end.
  size_t P = S.rfind("_v");
  if (P == std::string_view::npos || P + 2 >= S.size())
    return false;
  for (size_t I = P + 2; I < S.size(); ++I)
    if (S[I] < '0' || S[I] > '9')
      return false;
  Cut = P;
  return true;
}

bool endsWith(std::string_view S, std::string_view Suffix) {
  return S.size() > Suffix.size() &&
         S.substr(S.size() - Suffix.size()) == Suffix;
}

/// Stream ids that CUPTI marks as "not applicable".
int64_t streamOrNone(uint32_t Stream) {
  return Stream == UINT32_MAX ? -1 : int64_t(Stream);
}

std::string bandwidth(uint64_t Bytes, uint64_t Start, uint64_t End) {
  if (End <= Start)
    return "0";
  return jsonReal(double(Bytes) / double(End - Start)); // bytes/ns = GB/s
}

/// The fields every record of device work has (kernels, copies, memsets):
/// its device as the process, its stream as the thread, and both, with the
/// context, among the arguments.
template <typename Record>
TraceEvent deviceWork(const Record &R, std::string Name, const char *Cat) {
  TraceEvent E;
  E.Name = std::move(Name);
  E.Cat = Cat;
  E.StartNs = R.start;
  E.EndNs = R.end;
  E.Pid = R.deviceId;
  E.Tid = R.streamId;
  E.OnDevice = true;
  E.Correlation = R.correlationId;
  E.Args = {{"stream", jsonInt(R.streamId)},
            {"context", jsonUInt(R.contextId)}};
  return E;
}

/// Bytes moved or set, and the bandwidth that implies.
template <typename Record>
void addTransferArgs(TraceEvent &E, const Record &R) {
  E.Args.push_back({"bytes", jsonUInt(R.bytes)});
  E.Args.push_back(
      {"memory bandwidth (GB/s)", bandwidth(R.bytes, R.start, R.end)});
}

/// "Memcpy HtoD (Pageable -> Device)", as Kineto names copies.
template <typename Record> std::string copyName(const Record &R) {
  return std::string("Memcpy ") + memcpyKindName(R.copyKind) + " (" +
         memoryKindName(R.srcKind) + " -> " + memoryKindName(R.dstKind) + ")";
}

} // namespace

std::string tracelint::capture::canonicalApiName(std::string_view Name) {
  for (bool Changed = true; Changed;) {
    Changed = false;
    size_t Cut;
    if (endsWithVersion(Name, Cut)) {
      Name = Name.substr(0, Cut);
      Changed = true;
    } else if (endsWith(Name, "_ptsz") || endsWith(Name, "_ptds")) {
      Name = Name.substr(0, Name.size() - 5);
      Changed = true;
    }
  }
  return std::string(Name);
}

const char *tracelint::capture::memcpyKindName(uint8_t K) {
  switch (K) {
  case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
    return "HtoD";
  case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
    return "DtoH";
  case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA:
    return "HtoA";
  case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH:
    return "AtoH";
  case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA:
    return "AtoA";
  case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD:
    return "AtoD";
  case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA:
    return "DtoA";
  case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD:
    return "DtoD";
  case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH:
    return "HtoH";
  case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP:
    return "PtoP";
  default:
    return "Unknown";
  }
}

const char *tracelint::capture::memoryKindName(uint32_t K) {
  switch (K) {
  case CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE:
    return "Pageable";
  case CUPTI_ACTIVITY_MEMORY_KIND_PINNED:
    return "Pinned";
  case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE:
    return "Device";
  case CUPTI_ACTIVITY_MEMORY_KIND_ARRAY:
    return "Array";
  case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED:
    return "Managed";
  case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC:
    return "Device Static";
  case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC:
    return "Managed Static";
  default:
    return "Unknown";
  }
}

const char *tracelint::capture::syncTypeName(uint32_t T) {
  switch (T) {
  case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE:
    return "Event Sync";
  case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT:
    return "Stream Wait Event";
  case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE:
    return "Stream Sync";
  case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE:
    return "Context Sync";
  default:
    return "Unknown Sync";
  }
}

const char *tracelint::capture::overheadKindName(uint32_t K) {
  switch (K) {
  case CUPTI_ACTIVITY_OVERHEAD_DRIVER_COMPILER:
    return "Driver compiler";
  case CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH:
    return "CUPTI buffer flush";
  case CUPTI_ACTIVITY_OVERHEAD_CUPTI_INSTRUMENTATION:
    return "CUPTI instrumentation";
  case CUPTI_ACTIVITY_OVERHEAD_CUPTI_RESOURCE:
    return "CUPTI resource";
  case CUPTI_ACTIVITY_OVERHEAD_RUNTIME_TRIGGERED_MODULE_LOADING:
    return "Runtime-triggered module loading";
  case CUPTI_ACTIVITY_OVERHEAD_LAZY_FUNCTION_LOADING:
    return "Lazy function loading";
  case CUPTI_ACTIVITY_OVERHEAD_COMMAND_BUFFER_FULL:
    return "Command buffer full";
  case CUPTI_ACTIVITY_OVERHEAD_ACTIVITY_BUFFER_REQUEST:
    return "Activity buffer request";
  case CUPTI_ACTIVITY_OVERHEAD_UVM_ACTIVITY_INIT:
    return "UVM activity initialisation";
  default:
    return "Unknown overhead";
  }
}

void RecordTranslator::translate(const CUpti_Activity *Record) {
  if (!Record)
    return;
  switch (Record->kind) {
  case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
  case CUPTI_ACTIVITY_KIND_KERNEL:
    return kernel(*reinterpret_cast<const CUpti_ActivityKernel10 *>(Record));
  case CUPTI_ACTIVITY_KIND_MEMCPY:
    return memcpy(*reinterpret_cast<const CUpti_ActivityMemcpy6 *>(Record));
  case CUPTI_ACTIVITY_KIND_MEMCPY2:
    return memcpyPeer(
        *reinterpret_cast<const CUpti_ActivityMemcpyPtoP4 *>(Record));
  case CUPTI_ACTIVITY_KIND_MEMSET:
    return memset(*reinterpret_cast<const CUpti_ActivityMemset4 *>(Record));
  case CUPTI_ACTIVITY_KIND_RUNTIME:
    return api(*reinterpret_cast<const CUpti_ActivityAPI *>(Record), true);
  case CUPTI_ACTIVITY_KIND_DRIVER:
    return api(*reinterpret_cast<const CUpti_ActivityAPI *>(Record), false);
  case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
    return synchronization(
        *reinterpret_cast<const CUpti_ActivitySynchronization2 *>(Record));
  case CUPTI_ACTIVITY_KIND_MARKER:
    return marker(*reinterpret_cast<const CUpti_ActivityMarker2 *>(Record));
  case CUPTI_ACTIVITY_KIND_OVERHEAD:
    return overhead(*reinterpret_cast<const CUpti_ActivityOverhead3 *>(Record));
  case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION:
    return externalCorrelation(
        *reinterpret_cast<const CUpti_ActivityExternalCorrelation *>(Record));
  case CUPTI_ACTIVITY_KIND_DEVICE:
    return device(*reinterpret_cast<const CUpti_ActivityDevice5 *>(Record));
  case CUPTI_ACTIVITY_KIND_CONTEXT:
    return context(*reinterpret_cast<const CUpti_ActivityContext3 *>(Record));
  default:
    C.countUnknownRecord();
    return;
  }
}

void RecordTranslator::kernel(const CUpti_ActivityKernel10 &R) {
  TraceEvent E = deviceWork(R, R.name ? R.name : "(unnamed kernel)", "kernel");
  E.Args.push_back({"registers per thread", jsonInt(R.registersPerThread)});
  E.Args.push_back({"shared memory", jsonInt(int64_t(R.staticSharedMemory) +
                                             R.dynamicSharedMemory)});
  E.Args.push_back({"grid", jsonInts({R.gridX, R.gridY, R.gridZ})});
  E.Args.push_back({"block", jsonInts({R.blockX, R.blockY, R.blockZ})});
  if (R.queued && R.queued != UINT64_MAX)
    E.Args.push_back({"queued", jsonUInt(R.queued)});
  if (const DeviceProps *D = C.device(R.deviceId); D && D->NumSms) {
    double Blocks = double(R.gridX) * R.gridY * R.gridZ;
    double Threads = double(R.blockX) * R.blockY * R.blockZ;
    double PerSm = Blocks / D->NumSms;
    E.Args.push_back({"blocks per SM", jsonReal(PerSm)});
    E.Args.push_back(
        {"warps per SM",
         jsonReal(PerSm * Threads / (D->WarpSize ? D->WarpSize : 32))});
  }
  if (R.graphId)
    E.Args.push_back({"graph id", jsonUInt(R.graphId)});
  if (R.graphNodeId)
    E.Args.push_back({"graph node id", jsonUInt(R.graphNodeId)});
  if (R.isDeviceLaunched)
    E.Args.push_back({"device launched", "true"});
  C.add(std::move(E));
}

void RecordTranslator::memcpy(const CUpti_ActivityMemcpy6 &R) {
  TraceEvent E = deviceWork(R, copyName(R), "gpu_memcpy");
  addTransferArgs(E, R);
  if (R.flags & CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC)
    E.Args.push_back({"async", "true"});
  if (R.graphNodeId)
    E.Args.push_back({"graph node id", jsonUInt(R.graphNodeId)});
  C.add(std::move(E));
}

void RecordTranslator::memcpyPeer(const CUpti_ActivityMemcpyPtoP4 &R) {
  TraceEvent E = deviceWork(R, copyName(R), "gpu_memcpy");
  addTransferArgs(E, R);
  E.Args.push_back({"fromDevice", jsonUInt(R.srcDeviceId)});
  E.Args.push_back({"inDevice", jsonUInt(R.deviceId)});
  E.Args.push_back({"toDevice", jsonUInt(R.dstDeviceId)});
  E.Args.push_back({"fromContext", jsonUInt(R.srcContextId)});
  E.Args.push_back({"toContext", jsonUInt(R.dstContextId)});
  C.add(std::move(E));
}

void RecordTranslator::memset(const CUpti_ActivityMemset4 &R) {
  TraceEvent E = deviceWork(
      R, std::string("Memset (") + memoryKindName(R.memoryKind) + ")",
      "gpu_memset");
  addTransferArgs(E, R);
  E.Args.push_back({"value", jsonUInt(R.value)});
  C.add(std::move(E));
}

void RecordTranslator::api(const CUpti_ActivityAPI &R, bool Runtime) {
  TraceEvent E;
  const char *Raw = ApiName ? ApiName(Runtime, R.cbid) : nullptr;
  E.Name = Raw ? canonicalApiName(Raw)
               : std::string(Runtime ? "cudaRuntimeApi#" : "cuDriverApi#") +
                     std::to_string(R.cbid);
  E.Cat = Runtime ? "cuda_runtime" : "cuda_driver";
  E.StartNs = R.start;
  E.EndNs = R.end;
  E.Pid = R.processId;
  E.Tid = R.threadId;
  E.Correlation = R.correlationId;
  E.Args = {{"cbid", jsonUInt(R.cbid)}};
  if (R.returnValue)
    E.Args.push_back({"return value", jsonUInt(R.returnValue)});
  C.add(std::move(E));
}

void RecordTranslator::synchronization(
    const CUpti_ActivitySynchronization2 &R) {
  TraceEvent E;
  const char *Kind = syncTypeName(R.type);
  E.Name = Kind;
  E.Cat = "cuda_sync";
  E.StartNs = R.start;
  E.EndNs = R.end;
  E.Tid = streamOrNone(R.streamId);
  E.OnDevice = true;
  E.DeviceFromContext = true;
  E.ContextId = R.contextId;
  E.Correlation = R.correlationId;
  E.Args = {{"cuda_sync_kind", jsonString(Kind)},
            {"stream", jsonInt(streamOrNone(R.streamId))},
            {"context", jsonUInt(R.contextId)}};
  if (R.cudaEventId != UINT32_MAX &&
      (R.type == CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE ||
       R.type == CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT))
    E.Args.push_back({"wait_on_cuda_event_id", jsonUInt(R.cudaEventId)});
  C.add(std::move(E));
}

void RecordTranslator::marker(const CUpti_ActivityMarker2 &R) {
  int64_t Pid = ProcessId, Tid = 0;
  if (R.objectKind == CUPTI_ACTIVITY_OBJECT_THREAD ||
      R.objectKind == CUPTI_ACTIVITY_OBJECT_PROCESS) {
    Pid = R.objectId.pt.processId;
    Tid = R.objectId.pt.threadId;
  }
  std::string Domain = R.domain ? R.domain : "";
  if (R.flags & CUPTI_ACTIVITY_FLAG_MARKER_START) {
    C.markerStart(R.id, R.name ? R.name : "(unnamed range)", std::move(Domain),
                  R.timestamp, Pid, Tid);
  } else if (R.flags & CUPTI_ACTIVITY_FLAG_MARKER_END) {
    C.markerEnd(R.id, R.timestamp);
  } else if (R.flags & CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS) {
    TraceEvent E;
    E.Name = R.name ? R.name : "(unnamed mark)";
    E.Cat = "user_annotation";
    E.Ph = 'i';
    E.StartNs = E.EndNs = R.timestamp;
    E.Pid = Pid;
    E.Tid = Tid;
    if (!Domain.empty())
      E.Args.push_back({"domain", jsonString(Domain)});
    E.Args.push_back({"source", jsonString("nvtx")});
    C.add(std::move(E));
  } else {
    C.countUnknownRecord(); // synchronisation markers: not traced
  }
}

void RecordTranslator::overhead(const CUpti_ActivityOverhead3 &R) {
  TraceEvent E;
  E.Name = overheadKindName(R.overheadKind);
  E.Cat = "overhead";
  E.StartNs = R.start;
  E.EndNs = R.end;
  E.Pid = ProcessId;
  E.Tid = 0;
  if (R.objectKind == CUPTI_ACTIVITY_OBJECT_THREAD ||
      R.objectKind == CUPTI_ACTIVITY_OBJECT_PROCESS) {
    E.Pid = R.objectId.pt.processId;
    E.Tid = R.objectId.pt.threadId;
  } else if (R.objectKind == CUPTI_ACTIVITY_OBJECT_DEVICE ||
             R.objectKind == CUPTI_ACTIVITY_OBJECT_CONTEXT ||
             R.objectKind == CUPTI_ACTIVITY_OBJECT_STREAM) {
    E.Args.push_back({"device", jsonUInt(R.objectId.dcs.deviceId)});
  }
  E.Args.push_back({"overhead kind", jsonUInt(R.overheadKind)});
  if (R.correlationId)
    E.Correlation = R.correlationId;
  C.add(std::move(E));
}

void RecordTranslator::externalCorrelation(
    const CUpti_ActivityExternalCorrelation &R) {
  C.addExternalCorrelation(R.correlationId, R.externalId, int(R.externalKind));
}

void RecordTranslator::device(const CUpti_ActivityDevice5 &R) {
  DeviceProps D;
  D.Id = R.id;
  D.Name = R.name ? R.name : "";
  D.TotalGlobalMem = R.globalMemorySize;
  D.ComputeMajor = R.computeCapabilityMajor;
  D.ComputeMinor = R.computeCapabilityMinor;
  D.NumSms = R.numMultiprocessors;
  D.WarpSize = R.numThreadsPerWarp;
  D.MaxThreadsPerBlock = R.maxThreadsPerBlock;
  D.MaxThreadsPerMultiprocessor =
      R.maxWarpsPerMultiprocessor * R.numThreadsPerWarp;
  D.MaxBlocksPerMultiprocessor = R.maxBlocksPerMultiprocessor;
  D.RegsPerBlock = R.maxRegistersPerBlock;
  D.RegsPerMultiprocessor = R.maxRegistersPerMultiprocessor;
  D.SharedMemPerBlock = R.maxSharedMemoryPerBlock;
  D.SharedMemPerMultiprocessor = R.maxSharedMemoryPerMultiprocessor;
  D.L2CacheSize = R.l2CacheSize;
  D.MemoryBandwidth = R.globalMemoryBandwidth;
  C.addDevice(std::move(D));
}

void RecordTranslator::context(const CUpti_ActivityContext3 &R) {
  C.addContext(R.contextId, R.deviceId);
}
