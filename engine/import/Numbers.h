//===- import/Numbers.h - Exact timestamps from JSON number text -*- C++ -*-===//
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

/// Converts the text of a JSON number of microseconds ("12", "12.3456",
/// "-4", "1.5e3") to integer nanoseconds, rounding half away from zero at the
/// nanosecond. Returns nullopt for text that is not a finite number in range.
std::optional<int64_t> microsToNanos(std::string_view Text);

/// Parses an integer written as a JSON number or inside a string: decimal,
/// or hexadecimal with 0x. Fractional numbers are truncated toward zero.
std::optional<int64_t> parseInteger(std::string_view Text);

} // namespace tracelint::import

#endif
