//===- import/nsys/NsysEnums.h - Numbers and names of nsys exports -*- C++ -*-//
//
// The numeric codes of an Nsight Systems SQLite export and what they mean in
// the model, and the export eras that decide where the codes come from.
// Exports from 2022.3 on carry ENUM_* tables that name every code; 2022.2
// exports and the older ones without export metadata (nsys 2020-2021) have
// none. Codes are therefore read from the ENUM table when it exists (matched
// by the code's symbolic name, which is stable) and fall back to the built-in
// numbering of the file's era (Enums::builtin) when it does not. Note that
// nsys numbers memory kinds from 0 = pageable, whereas CUPTI (and so Kineto)
// starts at 1 = pageable.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_IMPORT_NSYS_NSYSENUMS_H
#define TRACELINT_IMPORT_NSYS_NSYSENUMS_H

#include "model/Event.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSet.h"

#include <cstdint>
#include <optional>

namespace tracelint::import::nsys {

/// The generations of the export schema that tracelint tells apart, by the
/// tables a file has (exportEraOf). They differ in where the producer's
/// version and the meaning of the numeric codes are found.
enum class ExportEra : uint8_t {
  /// nsys 2020.x and 2021.x: StringIds and CUPTI_ACTIVITY_KIND_* tables, but
  /// neither an export metadata table (so no version is recorded) nor ENUM
  /// tables. GPUs are in TARGET_INFO_CUDA_GPU (early 2021 versions) or
  /// TARGET_INFO_GPU (from about 2021.3).
  NoMetadata,
  /// nsys 2022.1 and 2022.2: EXPORT_META_DATA, no ENUM tables.
  Metadata,
  /// nsys 2022.3 on: ENUM_* tables name the codes (EXPORT_META_DATA, renamed
  /// META_DATA_EXPORT between 2023.1 and 2024.5).
  EnumTables,
};
/// The era of an SQLite database with the tables \p Tables, or nullopt when
/// it is not an Nsight Systems export. An export has StringIds and either an
/// export metadata table (EXPORT_META_DATA or META_DATA_EXPORT: 2022 on) or,
/// before nsys recorded export metadata, at least one CUPTI_ACTIVITY_KIND_*
/// table. nvprof's databases also have CUPTI_ACTIVITY_KIND_* tables, but
/// StringTable instead of StringIds, so they are not taken for one.
std::optional<ExportEra> exportEraOf(const llvm::StringSet<> &Tables);
/// How an era is named in the producer line when the file records no
/// version ("nsys 2020-2021, no export metadata"); empty for the eras that
/// record theirs.
llvm::StringRef unversionedEraName(ExportEra Era);

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

/// A copyKind code: the copy's direction, and whether it is a managed
/// (unified) memory page migration, which the driver performed on a page
/// fault or a prefetch and no host call launched (nsys's "Unified
/// Host-to-Device" and the like: model::EventKind::Migration).
struct CopyCode {
  model::CopyKind Kind = model::CopyKind::Unknown;
  bool Migration = false;
};

/// Why a managed-memory page migrated: MEMCPY.migrationCause in CUPTI's
/// numbering (CUpti_ActivityUnifiedMemoryMigrationCause, which
/// ENUM_CUDA_UNIF_MEM_MIGRATION labels alike); empty for 0 (unknown) and
/// for codes CUPTI does not define.
llvm::StringRef migrationCauseName(int64_t Code);

/// Code -> meaning for one export, from its ENUM tables or the built-ins.
struct Enums {
  llvm::DenseMap<int64_t, model::MemoryKind> MemKind;
  llvm::DenseMap<int64_t, CopyCode> CopyKind;
  llvm::DenseMap<int64_t, SyncType> Sync;
  llvm::DenseMap<int64_t, ApiClass> EventClass;
  llvm::DenseMap<int64_t, NvtxType> Nvtx;
  /// Which maps came from the file (for messages and tests).
  bool MemKindFromFile = false, CopyKindFromFile = false, SyncFromFile = false,
       EventClassFromFile = false, NvtxFromFile = false;

  /// The numbering that exports of \p Era use where they have no ENUM
  /// table: the one place that decides it (NsysEnums.cpp says where each
  /// era's numbering was checked).
  static Enums builtin(ExportEra Era);

  model::MemoryKind memKind(int64_t Code) const {
    auto It = MemKind.find(Code);
    return It == MemKind.end() ? model::MemoryKind::Unknown : It->second;
  }
  CopyCode copyKind(int64_t Code) const {
    auto It = CopyKind.find(Code);
    return It == CopyKind.end() ? CopyCode() : It->second;
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
bool copyKindFromName(llvm::StringRef Name, CopyCode &Out);
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
