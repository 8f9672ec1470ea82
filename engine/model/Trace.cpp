//===- model/Trace.cpp ----------------------------------------------------===//
#include "model/Trace.h"

#include "llvm/ADT/StringSwitch.h"
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
  case EventKind::Migration:
    return "migration";
  case EventKind::Other:
    return "other";
  }
  llvm_unreachable("covered switch");
}

int64_t tracelint::model::scalarTypeSize(llvm::StringRef Type) {
  Type = Type.trim();
  Type.consume_front("c10::");
  if (Type.startswith("Float8") || Type.startswith("float8"))
    return 1;
  return llvm::StringSwitch<int64_t>(Type)
      .Cases("Double", "double", "Long", "long int", "long", 8)
      .Cases("int64_t", "long long", "unsigned long", "uint64_t", 8)
      .Cases("ComplexFloat", "complex<float>", 8)
      .Cases("ComplexDouble", "complex<double>", 16)
      .Cases("Float", "float", "Int", "int", "int32_t", "unsigned int", 4)
      .Cases("UInt32", "uint32_t", 4)
      .Cases("Half", "BFloat16", "Short", "short int", "short", 2)
      .Cases("int16_t", "UInt16", "uint16_t", "ComplexHalf", 2)
      .Cases("Byte", "Char", "Bool", "signed char", "unsigned char", 1)
      .Cases("bool", "int8_t", "uint8_t", "char", 1)
      .Default(-1);
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

uint32_t Trace::linkOf(const Event &E) const {
  if (!E.Correlation)
    return NoIndex;
  const auto &CI = Correlations;
  // An element of Events: its link by index. A copy: by its key.
  const auto At = reinterpret_cast<uintptr_t>(&E),
             Begin = reinterpret_cast<uintptr_t>(Events.data());
  if (At >= Begin && At < Begin + Events.size() * sizeof(Event) &&
      CI.LinkOfEvent.size() == Events.size())
    return CI.LinkOfEvent[indexOf(E)];
  return CI.find(correlationKey(laneOf(E).Domain, E.Correlation));
}

uint32_t Trace::launchOf(const Event &DeviceEvent) const {
  const uint32_t Link = linkOf(DeviceEvent);
  return Link == NoIndex ? NoIndex : Correlations.Launch[Link];
}

llvm::ArrayRef<uint32_t> Trace::deviceWorkOf(const Event &HostEvent) const {
  const uint32_t Link = linkOf(HostEvent);
  if (Link == NoIndex)
    return {};
  return Correlations.deviceOf(Link);
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
