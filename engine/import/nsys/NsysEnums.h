//===- import/nsys/NsysEnums.h - Numbers and names of nsys exports -*- C++ -*-//
//
// The numeric codes of an Nsight Systems SQLite export and what they mean in
// the model. Exports from 2022.3 on carry ENUM_* tables that name every code;
// 2022.2 exports have none. Codes are therefore read from the ENUM table when
// it exists (matched by the code's symbolic name, which is stable) and fall
// back to the built-in numbering, verified on real 2022.2 to 2025.1 exports,
// when it does not. Note that nsys numbers memory kinds from 0 = pageable,
// whereas CUPTI (and so Kineto) starts at 1 = pageable.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_IMPORT_NSYS_NSYSENUMS_H
#define TRACELINT_IMPORT_NSYS_NSYSENUMS_H

#include "model/Event.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>

namespace tracelint::import::nsys {

/// What a row of NVTX_EVENTS is.
enum class NvtxType : uint8_t {
  PushPop,    ///< nvtxRangePush/Pop (and the NVTXT variant)
  StartEnd,   ///< nvtxRangeStart/End (may end on another thread)
  Mark,       ///< nvtxMark: an instant
  DomainName, ///< nvtxDomainCreate: names a domain id
  Metadata,   ///< categories, thread/device/context/stream names, ...
  Unknown,
};

/// What a row of CUPTI_ACTIVITY_KIND_RUNTIME is (its eventClass).
enum class ApiClass : uint8_t {
  Runtime,   ///< CUDA runtime API
  Driver,    ///< CUDA driver API
  Backtrace, ///< a copy of another row that carries its call stack
  Other,
};

/// CUPTI synchronization types, in CUPTI's numbering.
enum class SyncType : uint8_t {
  Unknown,
  EventSync,
  StreamWaitEvent,
  StreamSync,
  ContextSync,
};
/// Kineto's name for a sync type ("Stream Sync", ...), so that both importers
/// name device sync records alike.
llvm::StringRef syncTypeName(SyncType T);
/// The sync type a CUDA API call performs, judged by its (normalised) name;
/// Unknown when the name is not a synchronisation call.
SyncType syncTypeOfCall(llvm::StringRef Name);

/// Code -> meaning for one export, from its ENUM tables or the built-ins.
struct Enums {
  llvm::DenseMap<int64_t, model::MemoryKind> MemKind;
  llvm::DenseMap<int64_t, model::CopyKind> CopyKind;
  llvm::DenseMap<int64_t, SyncType> Sync;
  llvm::DenseMap<int64_t, ApiClass> EventClass;
  llvm::DenseMap<int64_t, NvtxType> Nvtx;
  /// Which maps came from the file (for messages and tests).
  bool MemKindFromFile = false, CopyKindFromFile = false, SyncFromFile = false,
       EventClassFromFile = false, NvtxFromFile = false;

  /// The built-in numbering (a 2022.2 export, which has no ENUM tables).
  static Enums builtin();

  model::MemoryKind memKind(int64_t Code) const {
    auto It = MemKind.find(Code);
    return It == MemKind.end() ? model::MemoryKind::Unknown : It->second;
  }
  model::CopyKind copyKind(int64_t Code) const {
    auto It = CopyKind.find(Code);
    return It == CopyKind.end() ? model::CopyKind::Unknown : It->second;
  }
  SyncType sync(int64_t Code) const {
    auto It = Sync.find(Code);
    return It == Sync.end() ? SyncType::Unknown : It->second;
  }
  ApiClass eventClass(int64_t Code) const {
    auto It = EventClass.find(Code);
    return It == EventClass.end() ? ApiClass::Other : It->second;
  }
  NvtxType nvtx(int64_t Code) const {
    auto It = Nvtx.find(Code);
    return It == Nvtx.end() ? NvtxType::Unknown : It->second;
  }
};

/// Meaning of one ENUM row by its symbolic name (e.g.
/// "CUDA_MEMOPR_MEMORY_KIND_PAGEABLE"); false when the name is not known.
bool memKindFromName(llvm::StringRef Name, model::MemoryKind &Out);
bool copyKindFromName(llvm::StringRef Name, model::CopyKind &Out);
bool syncTypeFromName(llvm::StringRef Name, SyncType &Out);
bool eventClassFromName(llvm::StringRef Name, ApiClass &Out);
bool nvtxTypeFromName(llvm::StringRef Name, NvtxType &Out);

/// A CUDA API name without nsys's API-version suffix:
/// "cudaLaunchKernel_v7000" -> "cudaLaunchKernel",
/// "cudaGetDeviceProperties_v2_v12000" -> "cudaGetDeviceProperties_v2".
/// Only a final "_v" followed by four or more digits is an API version;
/// "cuGetProcAddress_v2" is the function's own name and stays.
llvm::StringRef normaliseApiName(llvm::StringRef Name);

/// The process and thread of an nsys global thread id: bits 24-47 hold the
/// pid and bits 0-23 the tid (higher bits identify the VM and hardware).
inline int64_t pidOfGlobalId(int64_t GlobalId) {
  return (GlobalId >> 24) & 0xFFFFFF;
}
inline int64_t tidOfGlobalId(int64_t GlobalId) { return GlobalId & 0xFFFFFF; }

} // namespace tracelint::import::nsys

#endif
