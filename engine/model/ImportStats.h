//===- model/ImportStats.h - What import dropped, fixed or could not link -===//
//
// Bad input is counted, never silently ignored: every event an importer drops,
// clamps or cannot link is counted here by reason, with the place of the first
// occurrence, so that reports can show it and rules can lower confidence.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_MODEL_IMPORTSTATS_H
#define TRACELINT_MODEL_IMPORTSTATS_H

#include "llvm/ADT/StringRef.h"

#include <array>
#include <cstdint>
#include <string>

namespace tracelint::model {

enum class StatSeverity : uint8_t {
  Info,     ///< normal for some producers; shown on request
  Warning,  ///< the model was adjusted; results may be affected
  DataLoss, ///< events are missing from the model
};

// X(Id, Severity, Description)
#define TRACELINT_IMPORT_STATS(X)                                              \
  X(EventsRead, Info, "trace events read")                                     \
  X(MetadataEvents, Info, "metadata ('M') events")                             \
  X(FlowEvents, Info, "flow events ('s'/'t'/'f')")                             \
  X(CounterEvents, Info, "counter ('C') samples")                              \
  X(InstantEvents, Info, "instant events")                                     \
  X(ZeroDuration, Info, "complete events with zero duration")                  \
  X(UnknownPhase, Warning, "events with a phase tracelint does not model")     \
  X(UnknownCategory, Info, "events with an unrecognised category")             \
  X(MissingTimestamp, DataLoss, "events without a usable 'ts' (dropped)")      \
  X(MissingDuration, Warning, "complete events without 'dur' (taken as 0)")    \
  X(NegativeDuration, Warning, "negative durations (clamped to 0)")            \
  X(AbsurdDuration, Warning,                                                   \
    "durations reaching far past every event start (clamped to the others)")   \
  X(MalformedEvent, DataLoss, "events that are not valid JSON objects")        \
  X(InvalidUtf8, Warning,                                                      \
    "events with invalid UTF-8 (bad bytes replaced by U+FFFD)")                \
  X(InvalidEscape, Warning,                                                    \
    "events with a lone surrogate or invalid escape in a string (replaced "    \
    "by U+FFFD)")                                                              \
  X(BadFieldType, Warning, "fields with an unexpected JSON type (ignored)")    \
  X(DuplicateKey, Warning,                                                     \
    "events that give a key tracelint reads more than once (the last usable "  \
    "value is kept)")                                                          \
  X(UnmatchedEnd, Warning, "'E' events without a matching 'B' (dropped)")      \
  X(UnclosedBegin, Warning,                                                    \
    "'B' events without a matching 'E' (closed at the window end)")            \
  X(NestingConflict, Warning,                                                  \
    "host events that partly overlap an enclosing event on the same thread")   \
  X(DeviceWithoutLaunch, Info,                                                 \
    "device events whose correlation id has no host call in the trace")        \
  X(LaunchWithoutDevice, Info,                                                 \
    "kernel launches whose correlation id has no device event in the trace")   \
  X(DeviceBeforeLaunch, Warning,                                               \
    "device events that start before the host call that launched them")        \
  X(FlowUnbound, Info, "flow events that could not be bound to an event")      \
  X(Truncated, DataLoss, "input ended before the trace was complete")          \
  X(DamagedCompression, DataLoss,                                              \
    "damaged compressed data (read up to the damage)")                         \
  X(TrailingGarbage, Warning, "bytes after the end of the trace document")     \
  X(OversizedMetadata, Warning,                                                \
    "top-level values too large to read as metadata (skipped)")                \
  X(DuplicateApiRows, Info,                                                    \
    "API rows that repeat a call only to carry its backtrace (skipped)")       \
  X(UnmodelledRows, Info, "export rows tracelint does not model (skipped)")    \
  X(MissingName, Warning, "rows whose name id is not in StringIds")            \
  X(BadValue, Warning, "values of the wrong type or out of range (ignored)")   \
  X(UnusableRow, DataLoss,                                                     \
    "rows without a usable time, thread or device (dropped)")                  \
  X(UnclosedRange, Warning,                                                    \
    "NVTX ranges without an end (closed at the window end)")                   \
  X(SyncTypeMismatch, Info,                                                    \
    "sync rows whose syncType disagrees with their API call (named by the "    \
    "call)")                                                                   \
  X(ProducerDropped, DataLoss,                                                 \
    "records the producer dropped before writing the trace (its buffers or "   \
    "event limit)")                                                            \
  X(DuplicateRows, Info,                                                       \
    "rows that record device work another row records too (merged into it)")

enum class ImportStat : uint8_t {
#define TRACELINT_STAT_ENUM(Id, Sev, Desc) Id,
  TRACELINT_IMPORT_STATS(TRACELINT_STAT_ENUM)
#undef TRACELINT_STAT_ENUM
      NumStats
};
constexpr unsigned NumImportStats = static_cast<unsigned>(ImportStat::NumStats);

llvm::StringRef importStatName(ImportStat S);
llvm::StringRef importStatDescription(ImportStat S);
StatSeverity importStatSeverity(ImportStat S);
llvm::StringRef statSeverityName(StatSeverity S);

class ImportStats {
public:
  /// Counts one occurrence. \p Where, if given, describes the first
  /// occurrence ("event 123 at byte 4567") and is kept once per reason.
  void add(ImportStat S, uint64_t N = 1);
  void addAt(ImportStat S, llvm::StringRef Where);
  uint64_t get(ImportStat S) const { return Counts[unsigned(S)]; }
  llvm::StringRef firstPlace(ImportStat S) const {
    return FirstPlace[unsigned(S)];
  }
  /// True when some count of the given severity is non-zero.
  bool any(StatSeverity Sev) const;

  /// Byte offset in the (decompressed) input where a truncated trace ends,
  /// or -1 when the input was complete.
  int64_t TruncatedAtByte = -1;

private:
  std::array<uint64_t, NumImportStats> Counts{};
  std::array<std::string, NumImportStats> FirstPlace{};
};

} // namespace tracelint::model

#endif
