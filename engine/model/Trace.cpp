//===- model/Trace.cpp ----------------------------------------------------===//
#include "model/Trace.h"

#include "llvm/Support/ErrorHandling.h"

using namespace tracelint::model;

llvm::StringRef tracelint::model::eventKindName(EventKind K) {
  switch (K) {
  case EventKind::Op:
    return "op";
  case EventKind::Python:
    return "python";
  case EventKind::Annotation:
    return "annotation";
  case EventKind::Runtime:
    return "runtime";
  case EventKind::Driver:
    return "driver";
  case EventKind::Kernel:
    return "kernel";
  case EventKind::Memcpy:
    return "memcpy";
  case EventKind::Memset:
    return "memset";
  case EventKind::Sync:
    return "sync";
  case EventKind::Collective:
    return "collective";
  case EventKind::Marker:
    return "marker";
  case EventKind::Counter:
    return "counter";
  case EventKind::Overhead:
    return "overhead";
  case EventKind::OsRuntime:
    return "osrt";
  case EventKind::Other:
    return "other";
  }
  llvm_unreachable("covered switch");
}

llvm::StringRef tracelint::model::copyKindName(CopyKind K) {
  switch (K) {
  case CopyKind::Unknown:
    return "unknown";
  case CopyKind::HtoD:
    return "HtoD";
  case CopyKind::DtoH:
    return "DtoH";
  case CopyKind::DtoD:
    return "DtoD";
  case CopyKind::HtoH:
    return "HtoH";
  case CopyKind::PtoP:
    return "PtoP";
  }
  llvm_unreachable("covered switch");
}

llvm::StringRef tracelint::model::memoryKindName(MemoryKind K) {
  switch (K) {
  case MemoryKind::Unknown:
    return "unknown";
  case MemoryKind::Pageable:
    return "pageable";
  case MemoryKind::Pinned:
    return "pinned";
  case MemoryKind::Device:
    return "device";
  case MemoryKind::Managed:
    return "managed";
  case MemoryKind::Array:
    return "array";
  case MemoryKind::Host:
    return "host";
  }
  llvm_unreachable("covered switch");
}

llvm::StringRef tracelint::model::laneKindName(LaneKind K) {
  switch (K) {
  case LaneKind::HostThread:
    return "host";
  case LaneKind::DeviceStream:
    return "device";
  case LaneKind::Other:
    return "other";
  }
  llvm_unreachable("covered switch");
}

llvm::StringRef tracelint::model::stepSourceName(StepSource S) {
  switch (S) {
  case StepSource::None:
    return "none";
  case StepSource::ProfilerStep:
    return "ProfilerStep";
  case StepSource::Named:
    return "named range";
  case StepSource::Inferred:
    return "inferred";
  }
  llvm_unreachable("covered switch");
}

uint32_t Trace::launchOf(const Event &DeviceEvent) const {
  if (!DeviceEvent.Correlation)
    return NoIndex;
  auto It = Correlations.find(
      correlationKey(laneOf(DeviceEvent).Domain, DeviceEvent.Correlation));
  return It == Correlations.end() ? NoIndex : It->second.Launch;
}

llvm::ArrayRef<uint32_t> Trace::deviceWorkOf(const Event &HostEvent) const {
  if (!HostEvent.Correlation)
    return {};
  auto It = Correlations.find(
      correlationKey(laneOf(HostEvent).Domain, HostEvent.Correlation));
  if (It == Correlations.end())
    return {};
  return It->second.Device;
}

bool Trace::hasDeviceLanes() const {
  for (const Lane &L : Lanes)
    if (L.Kind == LaneKind::DeviceStream && L.End > L.Begin)
      return true;
  return false;
}

size_t Trace::countKind(EventKind K) const {
  size_t N = 0;
  for (const Event &E : Events)
    N += E.Kind == K;
  return N;
}
