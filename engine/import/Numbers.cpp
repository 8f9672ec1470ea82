//===- import/Numbers.cpp -------------------------------------------------===//
#include "import/Numbers.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>

using namespace tracelint::import;

static std::string_view trim(std::string_view S) {
  while (!S.empty() &&
         (S.front() == ' ' || S.front() == '\t' || S.front() == '\n' ||
          S.front() == '\r' || S.front() == '"'))
    S.remove_prefix(1);
  while (!S.empty() &&
         (S.back() == ' ' || S.back() == '\t' || S.back() == '\n' ||
          S.back() == '\r' || S.back() == '"'))
    S.remove_suffix(1);
  return S;
}

// Slow path for exponents and very long mantissas: long double keeps 64 bits
// of mantissa, enough for epoch nanoseconds.
static std::optional<int64_t> viaLongDouble(std::string_view S) {
  std::string Copy(S);
  char *End = nullptr;
  long double V = std::strtold(Copy.c_str(), &End);
  if (End != Copy.c_str() + Copy.size() || !std::isfinite(V))
    return std::nullopt;
  V = std::round(V * 1000.0L);
  if (V >= 9.2e18L || V <= -9.2e18L)
    return std::nullopt;
  return static_cast<int64_t>(V);
}

std::optional<int64_t>
tracelint::import::detail::microsToNanosGeneral(std::string_view Text) {
  std::string_view S = trim(Text);
  if (S.empty())
    return std::nullopt;
  bool Negative = false;
  size_t I = 0;
  if (S[0] == '-') {
    Negative = true;
    ++I;
  }
  uint64_t Whole = 0;
  size_t Digits = 0;
  for (; I < S.size() && S[I] >= '0' && S[I] <= '9'; ++I, ++Digits) {
    if (Digits >= 15) // beyond ~1e15 us the ns value may overflow: slow path
      return viaLongDouble(S);
    Whole = Whole * 10 + unsigned(S[I] - '0');
  }
  if (Digits == 0)
    return std::nullopt;
  uint64_t Frac = 0;
  unsigned FracDigits = 0;
  bool RoundUp = false;
  if (I < S.size() && S[I] == '.') {
    ++I;
    size_t Start = I;
    for (; I < S.size() && S[I] >= '0' && S[I] <= '9'; ++I) {
      unsigned D = unsigned(S[I] - '0');
      if (FracDigits < 3) {
        Frac = Frac * 10 + D;
        ++FracDigits;
      } else if (I - Start == 3) {
        RoundUp = D >= 5;
      }
    }
    if (I == Start)
      return std::nullopt;
  }
  if (I < S.size()) {
    if (S[I] == 'e' || S[I] == 'E')
      return viaLongDouble(S);
    return std::nullopt;
  }
  while (FracDigits < 3) {
    Frac *= 10;
    ++FracDigits;
  }
  uint64_t Ns = Whole * 1000 + Frac + (RoundUp ? 1 : 0);
  if (Ns > uint64_t(std::numeric_limits<int64_t>::max()))
    return std::nullopt;
  return Negative ? -int64_t(Ns) : int64_t(Ns);
}

std::optional<int64_t>
tracelint::import::detail::parseIntegerGeneral(std::string_view Text) {
  std::string_view S = trim(Text);
  if (S.empty())
    return std::nullopt;
  bool Negative = false;
  if (S[0] == '-') {
    Negative = true;
    S.remove_prefix(1);
  }
  int Base = 10;
  if (S.size() > 2 && S[0] == '0' && (S[1] == 'x' || S[1] == 'X')) {
    Base = 16;
    S.remove_prefix(2);
  }
  uint64_t V = 0;
  auto [Ptr, Ec] = std::from_chars(S.data(), S.data() + S.size(), V, Base);
  if (Ec != std::errc() || Ptr == S.data())
    return std::nullopt;
  if (Ptr != S.data() + S.size()) {
    // A fractional or exponent number: only its integer part is meaningful.
    if (Base != 10 || (*Ptr != '.' && *Ptr != 'e' && *Ptr != 'E'))
      return std::nullopt;
    if (*Ptr != '.')
      return std::nullopt;
  }
  if (V > uint64_t(std::numeric_limits<int64_t>::max()))
    return std::nullopt;
  return Negative ? -int64_t(V) : int64_t(V);
}

std::optional<int64_t>
tracelint::import::microsToNanosSaturating(std::string_view Text) {
  if (std::optional<int64_t> Ns = microsToNanos(Text))
    return Ns;
  std::string Copy(trim(Text));
  if (Copy.empty() || !(Copy[0] == '-' || (Copy[0] >= '0' && Copy[0] <= '9')))
    return std::nullopt;
  char *End = nullptr;
  long double V = std::strtold(Copy.c_str(), &End);
  // strtold also reads "infinity" and "nan": only a whole JSON-like number
  // counts, and an overflow to HUGE_VALL saturates like any huge value.
  if (End != Copy.c_str() + Copy.size() || std::isnan(V) ||
      Copy.find_first_of("iInN") != std::string::npos)
    return std::nullopt;
  if (V >= 9.2e15L)
    return std::numeric_limits<int64_t>::max();
  if (V <= -9.2e15L)
    return std::numeric_limits<int64_t>::min();
  return std::nullopt;
}
