//===- import/EventSplitter.cpp -------------------------------------------===//
#include "import/EventSplitter.h"

#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

using namespace tracelint::import;

namespace {

struct ScanState {
  bool InString = false;
  bool Escaped = false; // previous byte was an unescaped backslash in a string
  int64_t Depth = 0;    // 0: between elements of the scanned array
};

/// Handles one bracket outside strings. Returns true to stop scanning.
inline bool onBracket(char C, size_t Pos, ScanState &S, size_t Target,
                      EventSplitter::Result &R, std::vector<size_t> *Ends) {
  if (C == '{' || C == '[') {
    ++S.Depth;
    return false;
  }
  if (S.Depth == 0) {
    R.ArrayClosed = true;
    R.ArrayEnd = Pos;
    return true;
  }
  if (--S.Depth == 0) {
    R.LastElementEnd = Pos + 1;
    ++R.Elements;
    if (Ends)
      Ends->push_back(Pos + 1);
    return Pos + 1 >= Target;
  }
  return false;
}

/// Byte-at-a-time scan of [Begin, End); used for blocks with backslashes and
/// for the tail shorter than a block.
bool scanScalar(const char *Data, size_t Begin, size_t End, ScanState &S,
                size_t Target, EventSplitter::Result &R,
                std::vector<size_t> *Ends) {
  for (size_t I = Begin; I < End; ++I) {
    char C = Data[I];
    if (S.InString) {
      if (S.Escaped)
        S.Escaped = false;
      else if (C == '\\')
        S.Escaped = true;
      else if (C == '"')
        S.InString = false;
      continue;
    }
    switch (C) {
    case '"':
      S.InString = true;
      break;
    case '{':
    case '[':
    case '}':
    case ']':
      if (onBracket(C, I, S, Target, R, Ends))
        return true;
      break;
    default:
      break;
    }
  }
  return false;
}

#if defined(__SSE2__)
inline uint64_t maskEq(const __m128i V[4], char C) {
  __m128i K = _mm_set1_epi8(C);
  uint64_t M0 = uint32_t(_mm_movemask_epi8(_mm_cmpeq_epi8(V[0], K)));
  uint64_t M1 = uint32_t(_mm_movemask_epi8(_mm_cmpeq_epi8(V[1], K)));
  uint64_t M2 = uint32_t(_mm_movemask_epi8(_mm_cmpeq_epi8(V[2], K)));
  uint64_t M3 = uint32_t(_mm_movemask_epi8(_mm_cmpeq_epi8(V[3], K)));
  return M0 | (M1 << 16) | (M2 << 32) | (M3 << 48);
}

// Each bit set where the byte is inside a string, given the positions of the
// (unescaped) quotes: a running XOR over the block.
inline uint64_t prefixXor(uint64_t M) {
  M ^= M << 1;
  M ^= M << 2;
  M ^= M << 4;
  M ^= M << 8;
  M ^= M << 16;
  M ^= M << 32;
  return M;
}
#endif

} // namespace

EventSplitter::Result EventSplitter::scan(const char *Data, size_t Size,
                                          size_t Target,
                                          std::vector<size_t> *Ends) {
  Result R;
  ScanState S;
  size_t I = 0;
#if defined(__SSE2__)
  const __m128i Lower = _mm_set1_epi8(0x20);
  for (; I + 64 <= Size; I += 64) {
    __m128i V[4], F[4];
    for (int K = 0; K < 4; ++K) {
      V[K] = _mm_loadu_si128(reinterpret_cast<const __m128i *>(Data + I + 16 * K));
      // '[' | 0x20 == '{' and ']' | 0x20 == '}': one compare finds both.
      F[K] = _mm_or_si128(V[K], Lower);
    }
    uint64_t Backslash = maskEq(V, '\\');
    if (Backslash || S.Escaped) {
      if (scanScalar(Data, I, I + 64, S, Target, R, Ends))
        return R;
      continue;
    }
    uint64_t Quotes = maskEq(V, '"');
    uint64_t InString = prefixXor(Quotes) ^ (S.InString ? ~uint64_t(0) : 0);
    S.InString = (InString >> 63) & 1;
    uint64_t Brackets = (maskEq(F, '{') | maskEq(F, '}')) & ~InString;
    while (Brackets) {
      unsigned Bit = __builtin_ctzll(Brackets);
      Brackets &= Brackets - 1;
      if (onBracket(Data[I + Bit], I + Bit, S, Target, R, Ends))
        return R;
    }
  }
#endif
  scanScalar(Data, I, Size, S, Target, R, Ends);
  return R;
}
