//===- import/Numbers.h - Exact timestamps from JSON number text -*- C++
//-*-===//
//
// Kineto writes ts/dur in microseconds, as integers or with three decimals,
// on an epoch clock (about 1.7e15 us). A double holds such a value only to a
// quarter of a microsecond, so times are converted from the number's text.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_IMPORT_NUMBERS_H
#define TRACELINT_IMPORT_NUMBERS_H

#include <cstdint>
#include <optional>
#include <string_view>

namespace tracelint::import {

namespace detail {
std::optional<int64_t> microsToNanosGeneral(std::string_view Text);
std::optional<int64_t> parseIntegerGeneral(std::string_view Text);
} // namespace detail

/// Converts the text of a JSON number of microseconds ("12", "12.3456",
/// "-4", "1.5e3") to integer nanoseconds, rounding half away from zero at the
/// nanosecond. Returns nullopt for text that is not a finite number in range.
inline std::optional<int64_t> microsToNanos(std::string_view Text) {
  // Inline fast path for what Kineto writes, "1282.256": up to 15 digits,
  // then optionally '.' and 1 to 3 digits. Every event has two of these.
  size_t I = 0, N = Text.size();
  uint64_t Whole = 0;
  for (; I < N && I < 15 && unsigned(Text[I] - '0') < 10; ++I)
    Whole = Whole * 10 + unsigned(Text[I] - '0');
  if (I > 0 && I == N)
    return int64_t(Whole * 1000);
  if (I > 0 && Text[I] == '.' && N - I >= 2 && N - I <= 4) {
    uint64_t Frac = 0;
    for (size_t J = I + 1; J < N; ++J) {
      if (unsigned(Text[J] - '0') >= 10)
        return detail::microsToNanosGeneral(Text);
      Frac = Frac * 10 + unsigned(Text[J] - '0');
    }
    for (size_t J = N - I - 1; J < 3; ++J)
      Frac *= 10;
    return int64_t(Whole * 1000 + Frac);
  }
  return detail::microsToNanosGeneral(Text);
}

/// As microsToNanos, but a finite number beyond the int64 range of
/// nanoseconds (a duration from CUPTI's overflowed timestamps, 1e20 us)
/// saturates to the largest or smallest int64 instead of failing, so that it
/// can be flagged as absurd rather than lost. nullopt for text that is not a
/// number.
std::optional<int64_t> microsToNanosSaturating(std::string_view Text);

/// Parses an integer written as a JSON number or inside a string: decimal,
/// or hexadecimal with 0x. Fractional numbers are truncated toward zero.
inline std::optional<int64_t> parseInteger(std::string_view Text) {
  // Inline fast path: a plain non-negative decimal of at most 18 digits, the
  // common case for ids, sizes and counts.
  if (!Text.empty() && Text.size() <= 18) {
    uint64_t V = 0;
    size_t I = 0;
    for (; I < Text.size() && unsigned(Text[I] - '0') < 10; ++I)
      V = V * 10 + unsigned(Text[I] - '0');
    if (I == Text.size())
      return int64_t(V);
  }
  return detail::parseIntegerGeneral(Text);
}

} // namespace tracelint::import

#endif
