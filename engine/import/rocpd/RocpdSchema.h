//===- import/rocpd/RocpdSchema.h - A rocpd database ------------*- C++ -*-===//
//
// The facts about rocprofv3's rocpd SQLite schema (version 3, ROCm 7.x) that
// the importer needs before it reads a row: how its tables are named, which
// file is one at all, and what the strings it stores mean (the categories of
// its events, the operations of its copies).
//
// rocprofv3 names every table rocpd_<name>_<uuid>, the run's UUID with its
// dashes made underscores, and adds views named rocpd_<name> over them. The
// views are never read (the SQLite layer disables views), so the importer
// finds each run's tables by their suffix.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_IMPORT_ROCPD_ROCPDSCHEMA_H
#define TRACELINT_IMPORT_ROCPD_ROCPDSCHEMA_H

#include "model/Event.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSet.h"

#include <string>
#include <vector>

namespace tracelint::import::rocpd {

// The tables the importer reads, without their run suffix.
constexpr llvm::StringLiteral StringTable = "rocpd_string";
constexpr llvm::StringLiteral NodeTable = "rocpd_info_node";
constexpr llvm::StringLiteral ProcessTable = "rocpd_info_process";
constexpr llvm::StringLiteral ThreadTable = "rocpd_info_thread";
constexpr llvm::StringLiteral AgentTable = "rocpd_info_agent";
constexpr llvm::StringLiteral QueueTable = "rocpd_info_queue";
constexpr llvm::StringLiteral StreamTable = "rocpd_info_stream";
constexpr llvm::StringLiteral SymbolTable = "rocpd_info_kernel_symbol";
constexpr llvm::StringLiteral TrackTable = "rocpd_track";
constexpr llvm::StringLiteral EventTable = "rocpd_event";
constexpr llvm::StringLiteral RegionTable = "rocpd_region";
constexpr llvm::StringLiteral SampleTable = "rocpd_sample";
constexpr llvm::StringLiteral DispatchTable = "rocpd_kernel_dispatch";
constexpr llvm::StringLiteral CopyTable = "rocpd_memory_copy";
constexpr llvm::StringLiteral AllocTable = "rocpd_memory_allocate";
constexpr llvm::StringLiteral MetadataTable = "rocpd_metadata";
/// Only schema 4 has it: times move out of the event tables into it.
constexpr llvm::StringLiteral TimestampTable = "rocpd_timestamp";

/// True when \p Name is table \p Base of some run: Base itself (a file
/// written without a UUID) or Base + "_" + the run's UUID.
bool isTableOf(llvm::StringRef Name, llvm::StringRef Base);

/// True when \p Tables are rocprofv3's (rocprofiler-sdk's) rocpd tables:
/// an agent, dispatch, region or copy table of some run.
bool isRocpdDatabase(const llvm::StringSet<> &Tables);

/// True when \p Tables are rocmProfileData's (RPD, the roctracer-era
/// tool): it also names its tables rocpd_*, but has rocpd_api and rocpd_op.
bool isRpdDatabase(const llvm::StringSet<> &Tables);

/// The run suffixes of the file ("" or "_<uuid>"), sorted (a UUIDv7 starts
/// with its time, so this is the order the runs were recorded in).
std::vector<std::string> findRuns(const llvm::StringSet<> &Tables);

/// What an event's category (rocpd_event.category_id, a rocprofiler-sdk
/// tracing kind such as HIP_RUNTIME_API_EXT) makes of it.
enum class Category : uint8_t {
  Unknown,     ///< no category: judged by the name
  HipApi,      ///< HIP runtime and compiler API calls
  HsaApi,      ///< HSA runtime calls (core, AMD extension, image, finalizer)
  MarkerRange, ///< roctx ranges (MARKER_CORE_RANGE_API)
  MarkerCall,  ///< roctx calls (MARKER_CORE_API): marks, and older ranges
  LibraryApi,  ///< RCCL, rocDecode, rocJPEG calls: what the program asked of
               ///< a library, not runtime calls
  Unmodelled,  ///< anything else (roctx control and naming, KFD, OMPT, ...)
};
Category classifyCategory(llvm::StringRef Name);

/// The copy direction a memory copy's operation names
/// ("MEMORY_COPY_HOST_TO_DEVICE" -> HtoD); Unknown for any other text.
model::CopyKind copyKindFromOperation(llvm::StringRef Name);

} // namespace tracelint::import::rocpd

#endif
