//===- import/EventSplitter.cpp -------------------------------------------===//
#include "import/EventSplitter.h"

#include <cstring>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#elif defined(__SSE2__)
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

/// Positions in one 64-byte block, as bit masks (bit i: byte i).
struct BlockMasks {
  uint64_t Backslash, Quote;
  uint64_t Open;  ///< '{' or '['
  uint64_t Close; ///< '}' or ']'
};

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

/// Scans the block at Data[I, I + 64) given its masks (inlined into each
/// vector loop). Returns true to stop scanning.
[[gnu::always_inline]] inline bool
scanBlock(const char *Data, size_t I, const BlockMasks &M, ScanState &S,
          size_t Target, EventSplitter::Result &R, std::vector<size_t> *Ends) {
  if (M.Backslash || S.Escaped)
    return scanScalar(Data, I, I + 64, S, Target, R, Ends);
  uint64_t InString = prefixXor(M.Quote) ^ (S.InString ? ~uint64_t(0) : 0);
  S.InString = (InString >> 63) & 1;
  uint64_t Opens = M.Open & ~InString;
  uint64_t Brackets = Opens | (M.Close & ~InString);
  while (Brackets) {
    unsigned Bit = __builtin_ctzll(Brackets);
    Brackets &= Brackets - 1;
    // Events nest a few levels deep: only a close back to the array's
    // level needs a closer look.
    if ((Opens >> Bit) & 1)
      ++S.Depth;
    else if (S.Depth > 1)
      --S.Depth;
    else if (onBracket(Data[I + Bit], I + Bit, S, Target, R, Ends))
      return true;
  }
  return false;
}

#if defined(__x86_64__) || defined(__i386__)
// AVX2 finds the masks of a block with two loads instead of four; it is
// chosen at run time, so the binary still runs on CPUs without it.
[[gnu::target("avx2")]] inline uint64_t maskEq(__m256i Lo, __m256i Hi, char C) {
  __m256i K = _mm256_set1_epi8(C);
  uint64_t L = uint32_t(_mm256_movemask_epi8(_mm256_cmpeq_epi8(Lo, K)));
  uint64_t H = uint32_t(_mm256_movemask_epi8(_mm256_cmpeq_epi8(Hi, K)));
  return L | (H << 32);
}

/// Scans whole blocks from I on; returns true to stop scanning, with I at the
/// first byte not scanned otherwise.
[[gnu::target("avx2")]] bool scanBlocksAVX2(const char *Data, size_t Size,
                                            size_t &I, ScanState &S,
                                            size_t Target,
                                            EventSplitter::Result &R,
                                            std::vector<size_t> *Ends) {
  const __m256i Lower = _mm256_set1_epi8(0x20);
  for (; I + 64 <= Size; I += 64) {
    __m256i Lo =
        _mm256_loadu_si256(reinterpret_cast<const __m256i *>(Data + I));
    __m256i Hi =
        _mm256_loadu_si256(reinterpret_cast<const __m256i *>(Data + I + 32));
    // '[' | 0x20 == '{' and ']' | 0x20 == '}': one compare finds both.
    __m256i FoldLo = _mm256_or_si256(Lo, Lower);
    __m256i FoldHi = _mm256_or_si256(Hi, Lower);
    BlockMasks M{maskEq(Lo, Hi, '\\'), maskEq(Lo, Hi, '"'),
                 maskEq(FoldLo, FoldHi, '{'), maskEq(FoldLo, FoldHi, '}')};
    if (scanBlock(Data, I, M, S, Target, R, Ends))
      return true;
  }
  return false;
}
#endif

#if defined(__SSE2__)
inline uint64_t maskEq(const __m128i V[4], char C) {
  __m128i K = _mm_set1_epi8(C);
  uint64_t M0 = uint32_t(_mm_movemask_epi8(_mm_cmpeq_epi8(V[0], K)));
  uint64_t M1 = uint32_t(_mm_movemask_epi8(_mm_cmpeq_epi8(V[1], K)));
  uint64_t M2 = uint32_t(_mm_movemask_epi8(_mm_cmpeq_epi8(V[2], K)));
  uint64_t M3 = uint32_t(_mm_movemask_epi8(_mm_cmpeq_epi8(V[3], K)));
  return M0 | (M1 << 16) | (M2 << 32) | (M3 << 48);
}

bool scanBlocksSSE2(const char *Data, size_t Size, size_t &I, ScanState &S,
                    size_t Target, EventSplitter::Result &R,
                    std::vector<size_t> *Ends) {
  const __m128i Lower = _mm_set1_epi8(0x20);
  for (; I + 64 <= Size; I += 64) {
    __m128i V[4], F[4];
    for (int K = 0; K < 4; ++K) {
      V[K] =
          _mm_loadu_si128(reinterpret_cast<const __m128i *>(Data + I + 16 * K));
      F[K] = _mm_or_si128(V[K], Lower);
    }
    BlockMasks M{maskEq(V, '\\'), maskEq(V, '"'), maskEq(F, '{'),
                 maskEq(F, '}')};
    if (scanBlock(Data, I, M, S, Target, R, Ends))
      return true;
  }
  return false;
}
#endif

} // namespace

EventSplitter::Result EventSplitter::scan(const char *Data, size_t Size,
                                          size_t Target,
                                          std::vector<size_t> *Ends) {
  Result R;
  ScanState S;
  size_t I = 0;
#if defined(__x86_64__) || defined(__i386__)
  if (__builtin_cpu_supports("avx2")) {
    if (scanBlocksAVX2(Data, Size, I, S, Target, R, Ends))
      return R;
  } else
#endif
  {
#if defined(__SSE2__)
    if (scanBlocksSSE2(Data, Size, I, S, Target, R, Ends))
      return R;
#endif
  }
  scanScalar(Data, I, Size, S, Target, R, Ends);
  return R;
}
