//===- import/EventSplitter.h - Finding event boundaries --------*- C++ -*-===//
//
// simdjson's on-demand parser indexes a whole document before reading it and
// cannot take one over 4 GiB, so the importer parses the event array in
// batches of whole events. The splitter finds where events end: it tracks
// strings (with escapes) and bracket depth over 64-byte blocks, using AVX2 or
// SSE2 compares where available, and only looks at individual brackets.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_IMPORT_EVENTSPLITTER_H
#define TRACELINT_IMPORT_EVENTSPLITTER_H

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tracelint::import {

/// Scans the inside of a JSON array, starting between two elements.
class EventSplitter {
public:
  struct Result {
    /// Offset just past the last complete element found (relative to the
    /// scanned range), or 0 when none completed.
    size_t LastElementEnd = 0;
    /// Number of complete elements found.
    size_t Elements = 0;
    /// True when the array's closing bracket was found, at ArrayEnd.
    bool ArrayClosed = false;
    size_t ArrayEnd = 0;
  };

  /// Scans [Data, Data + Size) from a point between elements and stops at
  /// the first element end at or after \p Target bytes, or at the array's
  /// end. \p Ends, if not null, receives the end offset of every element.
  /// The scan is restartable only from an element boundary.
  static Result scan(const char *Data, size_t Size, size_t Target,
                     std::vector<size_t> *Ends = nullptr);
};

} // namespace tracelint::import

#endif
