//===- import/KinetoEvents.h - Decoding Chrome trace events -----*- C++ -*-===//
//
// Turns the objects of a Chrome trace's event array into model events:
// phases, categories of every Kineto era, pids/tids written as numbers or
// strings, old and new flow events, and the arguments rules read.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_IMPORT_KINETOEVENTS_H
#define TRACELINT_IMPORT_KINETOEVENTS_H

#include "model/TraceBuilder.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringRef.h"

#include <simdjson.h>

#include <string>

namespace tracelint::import {

class KinetoEventDecoder {
public:
  KinetoEventDecoder(model::TraceBuilder &B, const std::string &Path)
      : B(B), Path(Path) {}

  /// Parses Buf[0, Len) as a JSON array of events. Returns false when
  /// simdjson reports an error; \p Done is the number of elements handled.
  /// \p StreamOffset is the input offset of Buf[0], for messages.
  bool decodeArray(simdjson::ondemand::parser &Parser, const char *Buf,
                   size_t Len, size_t Allocated, uint64_t StreamOffset,
                   size_t &Done);
  /// Counts an element that could not be parsed at all.
  void countMalformed(uint64_t Offset);

  size_t eventsRead() const { return ElementsRead; }
  size_t eventsWithPhase() const { return WithPhase; }
  /// Called once after the last batch.
  void finish();

private:
  struct RawEvent;
  bool decodeObject(simdjson::ondemand::object Obj, RawEvent &R);
  bool decodeArgs(simdjson::ondemand::object Args, RawEvent &R);
  void commit(RawEvent &R, uint64_t Offset);
  uint32_t laneFor(RawEvent &R);
  std::string place(uint64_t Offset) const;

  model::TraceBuilder &B;
  const std::string &Path;
  size_t ElementsRead = 0;
  size_t WithPhase = 0;
  /// (category id << 32 | name id) -> kind | 0x40 device | 0x80 known.
  llvm::DenseMap<uint64_t, uint8_t> Classified;
  bool SawCapitalised = false, SawLowercase = false;
};

/// Applies one top-level key of the trace object other than "traceEvents"
/// (deviceProperties, distributedInfo, versions, baseTimeNanoseconds, ...).
void applyTopLevelValue(model::TraceBuilder &B, llvm::StringRef Key,
                        const std::string &Json, int64_t &BaseTimeNs);

} // namespace tracelint::import

#endif
