//===- import/KinetoEvents.h - Decoding Chrome trace events -----*- C++ -*-===//
//
// Turns the objects of a Chrome trace's event array into model events:
// phases, categories of every Kineto era, pids/tids written as numbers or
// strings, old and new flow events, and the arguments rules read.
//
// Decoding is split in two so that batches can be parsed on another thread:
// decodeEventArray() parses a batch into RawEvents without touching the model
// (it only needs its own simdjson parser), and KinetoEventDecoder commits them
// to the TraceBuilder, in file order, on the importing thread.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_IMPORT_KINETOEVENTS_H
#define TRACELINT_IMPORT_KINETOEVENTS_H

#include "model/NameClasses.h"
#include "model/TraceBuilder.h"

#include "llvm/ADT/CachedHashString.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Allocator.h"

#include <simdjson.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tracelint::import {

class RocprofRows;

/// Ids that a decoding thread gives the strings, lanes and (category, name)
/// pairs it meets, so that the importing thread maps each to the model with
/// an array lookup rather than hashing every event's strings again. Each
/// decoding thread has its own; the ids mean nothing outside it.
class DecodeCache {
public:
  static constexpr uint32_t None = ~0u;

  explicit DecodeCache(unsigned Index) : Index(Index) {}
  /// The name classes to classify kernels by (the built-in ones until set).
  void setNames(const model::NameClassifier *N) { Names = N; }
  DecodeCache(const DecodeCache &) = delete;
  DecodeCache &operator=(const DecodeCache &) = delete;

  /// Which cache this is, for the committer's tables.
  unsigned index() const { return Index; }
  /// The id of \p S, or None once the cache is full (a trace whose strings
  /// hardly repeat should not be stored twice).
  uint32_t string(std::string_view S);
  /// The id of a numeric (pid, tid) lane, or None once the cache is full.
  uint32_t lane(int64_t Pid, int64_t Tid);
  /// Kind | DeviceBit | KnownBit of an event with this category and name.
  uint8_t classify(uint32_t CatId, uint32_t NameId, std::string_view Cat,
                   std::string_view Name);
  /// CategoryFlags of a category.
  uint8_t categoryFlags(uint32_t CatId, std::string_view Cat);

private:
  unsigned Index;
  const model::NameClassifier *Names = nullptr;
  llvm::BumpPtrAllocator Storage;
  llvm::DenseMap<llvm::CachedHashStringRef, uint32_t> Strings;
  llvm::DenseMap<std::pair<int64_t, int64_t>, uint32_t> Lanes;
  llvm::DenseMap<uint64_t, uint8_t> Classes;
  std::vector<uint8_t> CategoryFlagsById; // 0: not computed yet
};

/// One element of the event array as written, before it is committed. The
/// string views point into the batch's input buffer or into the unescaped
/// strings of the parser that decoded it, so both must outlive the commit.
struct RawEvent {
  uint64_t Offset = 0; ///< input offset of the element, for messages
  /// The element is not an object (a scalar or an array): counted as
  /// malformed, nothing else is set.
  bool NotAnObject = false;
  char Ph = 0;
  bool HasTs = false, HasDur = false;
  bool HasPid = false, HasTid = false, PidIsNum = false, TidIsNum = false;
  bool HasId = false, BindEnclosing = false;
  bool HasArgs = false;
  /// The object has at least one field (rocprof opens its array with "{}").
  bool AnyField = false;
  /// Fields of an unexpected JSON type (ImportStat::BadFieldType).
  uint32_t BadFields = 0;
  /// The keys read so far (one bit each, KinetoEvents.cpp's KeyBit), and
  /// whether one came again (ImportStat::DuplicateKey; the last usable value
  /// is kept).
  uint64_t SeenKeys = 0;
  bool DuplicateKey = false;
  /// A string field holds an escape simdjson cannot decode (a lone
  /// surrogate such as \ud800): the element is re-decoded repaired.
  bool BadEscape = false;
  std::string_view Cat, Name;
  int64_t Ts = 0, Dur = 0;
  int64_t Pid = 0, Tid = 0;
  std::string_view PidStr, TidStr;
  uint64_t Id = 0;
  int64_t Correlation = 0, ExternalId = 0;
  model::EventArgs A;
  std::string_view ArgName, InputDims, InputTypes, Collective, CopyKindArg;
  /// An op's "Concrete Inputs": the values of its scalar arguments, as a
  /// JSON array of strings ("" for a tensor).
  std::string_view ConcreteInputs;
  /// A collective kernel's "Process Group Name".
  std::string_view ProcessGroup;
  /// A collective kernel's message size (the larger of "In msg nelems" and
  /// "Out msg nelems") and element type ("dtype"), when recorded.
  int64_t MsgNelems = -1;
  std::string_view Dtype;
  /// The arguments of a legacy rocprof results.json row (RocprofRows.h),
  /// read from every event because the process that makes an event a rocprof
  /// row may be named only on commit: the exact times in integer ns
  /// ("BeginNs", "EndNs"; BadNs when one is not an integer), the OS process
  /// and thread ("pid", "tid"), the HSA queue ("queue-id"), the device
  /// ("dev-id", "gpu-id"), a dispatch's grid and work-group sizes in
  /// work-items ("grd", "wgr") and LDS bytes ("lds"), and an API call's
  /// argument text ("args": "( dst(0x..) sizeBytes(4096) kind(1))").
  int64_t BeginNs = -1, EndNs = -1;
  bool BadNs = false;
  int64_t OsPid = -1, OsTid = -1, Queue = -1;
  int64_t GridItems = -1, GroupItems = -1, Lds = -1;
  int32_t GpuId = -1;
  std::string_view CallArgs;

  // Derived by the decoding thread from the fields above (pure functions of
  // them, or DecodeCache ids), so that committing does little more than
  // append to the model.
  uint32_t CatId = DecodeCache::None, NameId = DecodeCache::None;
  uint32_t DimsId = DecodeCache::None, TypesId = DecodeCache::None;
  uint32_t CollectiveId = DecodeCache::None, GroupId = DecodeCache::None;
  uint32_t ConcreteId = DecodeCache::None;
  /// The lane: numeric (pid, tid) once strings such as "stream 7" are read
  /// as numbers, with its cache id; otherwise named by the texts.
  bool LanePidNum = false, LaneTidNum = false;
  int64_t LanePid = 0, LaneTid = 0;
  uint32_t LaneId = DecodeCache::None;
  /// The row is the legacy PyTorch exporter's (pid "CPU functions"): a
  /// host thread, whose uncategorised ranges are ops (docs/import.md).
  bool LegacyCpu = false;
  uint8_t CatFlags = 0;
  /// For the phases that make model events: the kind after the phase is
  /// applied, whether it runs on a device, and whether its category is known.
  model::EventKind Kind = model::EventKind::Other;
  bool Device = false, Known = true;
  /// The event keeps its arguments (then A is complete, copy kinds parsed).
  bool WantArgs = false;
};

/// The elements of one batch, in order.
struct DecodedBatch {
  std::vector<RawEvent> Events;
  /// simdjson rejected the element after the last one in Events.
  bool Failed = false;
  /// BadFieldType counts of the rejected element's fields that were decoded
  /// before the error (the serial importer counted them as it went).
  unsigned PartialBadFields = 0;
  /// The DecodeCache whose ids the events carry.
  unsigned CacheIndex = 0;

  void clear() {
    Events.clear();
    Failed = false;
    PartialBadFields = 0;
  }
};

/// Parses Buf[0, Len) as a JSON array of events into \p Out (cleared first).
/// Stops at the first element simdjson rejects and sets Out.Failed; the
/// elements before it are in Out.Events. \p StreamOffset is the input offset
/// of Buf[0]. Touches nothing but \p Parser, \p Cache and \p Out, so it may
/// run on any thread that owns those.
void decodeEventArray(simdjson::ondemand::parser &Parser, DecodeCache &Cache,
                      const char *Buf, size_t Len, size_t Allocated,
                      uint64_t StreamOffset, DecodedBatch &Out);

/// Commits decoded events to the model. Used on the importing thread only.
class KinetoEventDecoder {
public:
  KinetoEventDecoder(model::TraceBuilder &B, const std::string &Path);
  ~KinetoEventDecoder();

  /// The name classes to tell communication kernels by (the built-in ones
  /// until set); read by the rows of legacy rocprof files, which are
  /// classified on commit.
  void setNames(const model::NameClassifier *N);

  /// Commits every element of \p Batch in order, then the partial counts of
  /// the element that failed, if any.
  void commit(DecodedBatch &Batch);

  /// Counts an element that could not be parsed at all.
  void countMalformed(uint64_t Offset);
  /// The event just committed had invalid UTF-8, repaired.
  void countRepairedUtf8(uint64_t Offset);
  /// The event just committed had undecodable escapes, repaired.
  void countRepairedEscapes(uint64_t Offset);

  size_t eventsRead() const { return ElementsRead; }
  size_t eventsWithPhase() const { return WithPhase; }
  /// Events read but not yet in the builder: a legacy rocprof file's rows,
  /// committed by finish() once their links are known.
  size_t pendingEvents() const;
  /// Called once after the last batch.
  void finish();

private:
  void commit(RawEvent &R, unsigned Cache);
  uint32_t laneFor(RawEvent &R, unsigned Cache);
  model::StringId intern(uint32_t Id, std::string_view S, unsigned Cache);
  std::string place(uint64_t Offset) const;
  void countEmptyOpener();

  model::TraceBuilder &B;
  const std::string &Path;
  size_t ElementsRead = 0;
  size_t WithPhase = 0;
  /// Rows of the processes a legacy rocprof file names (RocprofRows.h).
  std::unique_ptr<RocprofRows> Rocprof;
  /// Where the array's first element is an empty object: rocprof opens its
  /// array with "{}", which carries nothing; any other trace's empty object
  /// is an unknown phase. Which one it is is known once the processes are
  /// named (rocprof names them next), so the count waits until then.
  std::string EmptyOpener;
  bool SawCapitalised = false, SawLowercase = false;
  /// Uncategorised ranges of the legacy exporter's "CPU functions" were read.
  bool SawLegacyExport = false;
  /// Per DecodeCache: its string and lane ids -> the model's (NoIndex until
  /// first committed).
  struct CacheMap {
    std::vector<model::StringId> Strings;
    std::vector<uint32_t> Lanes;
  };
  std::vector<CacheMap> Maps;
};

/// Applies one top-level key of the trace object other than "traceEvents"
/// (deviceProperties, distributedInfo, versions, baseTimeNanoseconds, ...).
void applyTopLevelValue(model::TraceBuilder &B, llvm::StringRef Key,
                        const std::string &Json, int64_t &BaseTimeNs);

} // namespace tracelint::import

#endif
