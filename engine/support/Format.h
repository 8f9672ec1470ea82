//===- support/Format.h - Human-readable numbers and safe text ---*- C++
//-*-===//
//
// Shared by the text writers: every duration, size and share is written
// through these helpers so that reports agree on units, and every string that
// comes from a trace goes through sanitize() first, because a trace is
// untrusted input and a kernel name may hold terminal escape sequences.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_SUPPORT_FORMAT_H
#define TRACELINT_SUPPORT_FORMAT_H

#include "llvm/ADT/StringRef.h"

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <string>

namespace tracelint::support {

/// A duration in the largest unit that keeps it at least 1, with up to three
/// decimals and no trailing zeros: "850 ns", "850 us", "12.345 ms", "1.2 s".
std::string formatDuration(int64_t Ns);

/// A time from the trace's first event as Perfetto's timeline shows it, in
/// seconds with microsecond precision: 1234567000 -> "+1.234567 s".
std::string formatOffset(int64_t Ns);

/// A size in decimal units (1 kB = 1000 B, matching GB/s), same style:
/// "512 B", "1.5 kB", "12.583 MB".
std::string formatBytes(int64_t Bytes);

/// A fraction as a percentage with one decimal: 0.4125 -> "41.3 %".
std::string formatShare(double Fraction);

/// Sorted integers with runs folded into ranges: {0, 1, 2, 3, 5} ->
/// "0-3, 5" (ranks of a job, step numbers).
std::string formatRanges(llvm::ArrayRef<int64_t> Sorted);

/// \p S made safe for a terminal: ASCII control characters (ESC included),
/// C1 controls, bidirectional overrides and invalid UTF-8 become visible
/// escapes (\xNN, \u{NNNN}). With \p MaxColumns > 0, text wider than that is
/// cut to fit and ends in "...".
std::string sanitize(llvm::StringRef S, size_t MaxColumns = 0);

/// Serialized JSON made safe to print: the characters that JSON may carry
/// raw but that change how a terminal or an editor shows the text after them
/// (C1 controls such as U+009B, a CSI; bidirectional overrides and isolates;
/// line and paragraph separators; U+FEFF) are written as \uXXXX escapes,
/// which decode to the same strings. (JSON already escapes C0 controls.)
/// These characters only occur inside JSON strings, so the document's
/// meaning is unchanged.
std::string escapeInvisibleInJson(llvm::StringRef Json);

/// Columns taken by a sanitized string (one per code point).
size_t displayWidth(llvm::StringRef Sanitized);

} // namespace tracelint::support

#endif
