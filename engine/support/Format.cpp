//===- support/Format.cpp
//--------------------------------------------------===//
#include "support/Format.h"

#include "llvm/Support/FormatVariadic.h"

#include <cstdio>

using namespace tracelint;
using namespace tracelint::support;

/// \p Value in units of \p Unit, with at most three decimals, choosing the
/// first unit whose rounded value stays below 1000 (or the last one).
static std::string formatScaled(int64_t Value, const char *const Names[],
                                unsigned NumUnits) {
  // Negative values only appear for times before the origin; keep the sign.
  bool Negative = Value < 0;
  uint64_t Abs = Negative ? 0 - uint64_t(Value) : uint64_t(Value);
  std::string Sign = Negative ? "-" : "";
  if (Abs < 1000)
    return llvm::formatv("{0}{1} {2}", Sign, Abs, Names[0]).str();
  uint64_t Div = 1; // thousandths of the current unit, in base units
  for (unsigned U = 1; U < NumUnits; ++U, Div *= 1000) {
    // Integer rounding to thousandths: exact, no floating-point drift.
    uint64_t Thousandths = Abs / Div + (Abs % Div >= (Div + 1) / 2 ? 1 : 0);
    if (Thousandths >= 1000 * 1000 && U + 1 < NumUnits)
      continue;
    std::string Out = llvm::formatv("{0}{1}", Sign, Thousandths / 1000).str();
    if (uint64_t Frac = Thousandths % 1000) {
      std::string Digits = std::to_string(Frac);
      Digits.insert(0, 3 - Digits.size(), '0');
      while (Digits.back() == '0')
        Digits.pop_back();
      Out += "." + Digits;
    }
    return Out + " " + Names[U];
  }
  return llvm::formatv("{0}{1} {2}", Sign, Abs, Names[0]).str();
}

std::string support::formatDuration(int64_t Ns) {
  static const char *const Units[] = {"ns", "us", "ms", "s"};
  return formatScaled(Ns, Units, 4);
}

std::string support::formatOffset(int64_t Ns) {
  // Integer arithmetic: a double would print 0.1 s as 0.099999.
  uint64_t Abs = Ns < 0 ? uint64_t(-(Ns + 1)) + 1 : uint64_t(Ns);
  uint64_t Us = (Abs + 500) / 1000;
  char Buf[48];
  std::snprintf(Buf, sizeof Buf, "%c%llu.%06llu s", Ns < 0 ? '-' : '+',
                (unsigned long long)(Us / 1000000),
                (unsigned long long)(Us % 1000000));
  return Buf;
}

std::string support::formatBytes(int64_t Bytes) {
  static const char *const Units[] = {"B", "kB", "MB", "GB", "TB", "PB"};
  return formatScaled(Bytes, Units, 6);
}

std::string support::formatRanges(llvm::ArrayRef<int64_t> Sorted) {
  std::string Out;
  for (size_t I = 0; I < Sorted.size();) {
    size_t J = I;
    while (J + 1 < Sorted.size() && Sorted[J + 1] == Sorted[J] + 1)
      ++J;
    if (!Out.empty())
      Out += ", ";
    Out += J == I ? std::to_string(Sorted[I])
                  : llvm::formatv("{0}-{1}", Sorted[I], Sorted[J]).str();
    I = J + 1;
  }
  return Out;
}

std::string support::formatShare(double Fraction) {
  return llvm::formatv("{0:F1} %", Fraction * 100).str();
}

/// Length of the valid UTF-8 sequence at the start of \p S and its code
/// point, or 0 when it is not valid (overlong, surrogate, truncated).
static unsigned decodeUtf8(llvm::StringRef S, uint32_t &CodePoint) {
  auto Byte = [&](size_t I) { return static_cast<uint8_t>(S[I]); };
  uint8_t Lead = Byte(0);
  unsigned Len;
  uint32_t Min;
  if (Lead >= 0xC2 && Lead <= 0xDF) {
    Len = 2, Min = 0x80, CodePoint = Lead & 0x1F;
  } else if (Lead >= 0xE0 && Lead <= 0xEF) {
    Len = 3, Min = 0x800, CodePoint = Lead & 0x0F;
  } else if (Lead >= 0xF0 && Lead <= 0xF4) {
    Len = 4, Min = 0x10000, CodePoint = Lead & 0x07;
  } else {
    return 0;
  }
  if (S.size() < Len)
    return 0;
  for (unsigned I = 1; I < Len; ++I) {
    if ((Byte(I) & 0xC0) != 0x80)
      return 0;
    CodePoint = (CodePoint << 6) | (Byte(I) & 0x3F);
  }
  if (CodePoint < Min || CodePoint > 0x10FFFF ||
      (CodePoint >= 0xD800 && CodePoint <= 0xDFFF))
    return 0;
  return Len;
}

/// Code points that change how a terminal shows the text after them.
static bool isInvisibleControl(uint32_t C) {
  return (C >= 0x80 && C <= 0x9F) ||     // C1 controls (CSI is 0x9B)
         (C >= 0x202A && C <= 0x202E) || // bidirectional embeddings
         (C >= 0x2066 && C <= 0x2069) || // bidirectional isolates
         C == 0x2028 || C == 0x2029 || C == 0xFEFF;
}

std::string support::sanitize(llvm::StringRef S, size_t MaxColumns) {
  std::string Out;
  Out.reserve(S.size());
  size_t Columns = 0;
  // Where to cut if the text turns out too wide: the last piece boundary
  // that leaves room for "...".
  size_t CutAt = 0;
  auto Append = [&](llvm::StringRef Piece, size_t Width) {
    Out += Piece;
    Columns += Width;
    if (MaxColumns >= 3 && Columns <= MaxColumns - 3)
      CutAt = Out.size();
  };
  for (size_t I = 0; I < S.size();) {
    uint8_t C = static_cast<uint8_t>(S[I]);
    if (C >= 0x20 && C < 0x7F) {
      Append(S.substr(I, 1), 1);
      ++I;
      continue;
    }
    uint32_t CodePoint = 0;
    unsigned Len = C >= 0x80 ? decodeUtf8(S.substr(I), CodePoint) : 0;
    if (Len && !isInvisibleControl(CodePoint)) {
      Append(S.substr(I, Len), 1);
      I += Len;
      continue;
    }
    std::string Escaped =
        Len ? "\\u{" + llvm::formatv("{0:X-4}", CodePoint).str() + "}"
            : "\\x" + llvm::formatv("{0:X-2}", unsigned(C)).str();
    Append(Escaped, Escaped.size());
    I += Len ? Len : 1;
  }
  if (MaxColumns && Columns > MaxColumns) {
    Out.resize(MaxColumns >= 3 ? CutAt : 0);
    Out += llvm::StringRef("...").take_front(MaxColumns);
  }
  return Out;
}

std::string support::escapeInvisibleInJson(llvm::StringRef Json) {
  std::string Out;
  Out.reserve(Json.size());
  for (size_t I = 0; I < Json.size();) {
    uint8_t C = static_cast<uint8_t>(Json[I]);
    if (C < 0x80) {
      Out += char(C);
      ++I;
      continue;
    }
    uint32_t CodePoint = 0;
    unsigned Len = decodeUtf8(Json.substr(I), CodePoint);
    if (!Len) {
      // Not UTF-8 (the writers never produce this): keep the byte.
      Out += char(C);
      ++I;
      continue;
    }
    if (isInvisibleControl(CodePoint))
      Out += llvm::formatv("\\u{0:x-4}", CodePoint).str();
    else
      Out += Json.substr(I, Len);
    I += Len;
  }
  return Out;
}

size_t support::displayWidth(llvm::StringRef Sanitized) {
  size_t N = 0;
  for (char C : Sanitized)
    N += (static_cast<uint8_t>(C) & 0xC0) != 0x80;
  return N;
}
