//===- CaptureBuffersTest.cpp - Activity buffer handling ------------------===//
#include "Buffers.h"

#include "gtest/gtest.h"

#include <cstring>
#include <vector>

using namespace tracelint::capture;

namespace {

/// A stand-in for CUPTI's record layout: [uint32 size][payload]...
struct FakeRecord {
  uint32_t Size;
  uint32_t Value;
};

bool nextFake(uint8_t *Buffer, size_t Valid, FakeRecord **Record) {
  uint8_t *P =
      *Record ? reinterpret_cast<uint8_t *>(*Record) + (*Record)->Size : Buffer;
  if (P + sizeof(FakeRecord) > Buffer + Valid)
    return false;
  *Record = reinterpret_cast<FakeRecord *>(P);
  return true;
}

TEST(CaptureBuffersTest, BuffersAreAlignedSizedAndReused) {
  BufferPool Pool(1001, 1);
  size_t Size = 0;
  uint8_t *A = Pool.request(Size);
  ASSERT_NE(A, nullptr);
  EXPECT_EQ(Size, 1008u); // rounded up to 8
  EXPECT_EQ(reinterpret_cast<uintptr_t>(A) % 8, 0u);
  uint8_t *B = Pool.request(Size);
  ASSERT_NE(B, nullptr);
  EXPECT_EQ(Pool.counts().Outstanding, 2u);
  Pool.release(A);
  Pool.release(B); // only one is kept; the other is freed
  Pool.release(nullptr);
  uint8_t *C = Pool.request(Size);
  EXPECT_TRUE(C == A || C == B);
  Pool.release(C);
  BufferCounts N = Pool.counts();
  EXPECT_EQ(N.Requested, 3u);
  EXPECT_EQ(N.Allocated, 2u);
  EXPECT_EQ(N.Completed, 3u);
  EXPECT_EQ(N.Outstanding, 0u);
  EXPECT_EQ(N.Failed, 0u);
}

TEST(CaptureBuffersTest, WalkVisitsEveryRecordOfTheValidPart) {
  BufferPool Pool(256);
  size_t Size = 0;
  uint8_t *Buf = Pool.request(Size);
  ASSERT_NE(Buf, nullptr);
  size_t Off = 0;
  for (uint32_t I = 0; I < 5; ++I) {
    FakeRecord R{sizeof(FakeRecord), I * 10};
    std::memcpy(Buf + Off, &R, sizeof(R));
    Off += sizeof(R);
  }
  std::vector<uint32_t> Seen;
  // Only the first three records are valid.
  size_t N =
      Pool.walk<FakeRecord>(Buf, 3 * sizeof(FakeRecord), nextFake,
                            [&](FakeRecord *R) { Seen.push_back(R->Value); });
  EXPECT_EQ(N, 3u);
  EXPECT_EQ(Seen, (std::vector<uint32_t>{0, 10, 20}));
  // An empty or missing buffer has no records.
  EXPECT_EQ(Pool.walk<FakeRecord>(Buf, 0, nextFake,
                                  [](FakeRecord *) { ADD_FAILURE(); }),
            0u);
  EXPECT_EQ(Pool.walk<FakeRecord>(nullptr, 64, nextFake,
                                  [](FakeRecord *) { ADD_FAILURE(); }),
            0u);
  EXPECT_EQ(Pool.counts().Records, 3u);
  Pool.release(Buf);
}

TEST(CaptureBuffersTest, ExhaustedMemoryIsReportedNotFatal) {
  BufferPool Pool(4096, 4, [](size_t, size_t) -> void * { return nullptr; });
  size_t Size = 123;
  EXPECT_EQ(Pool.request(Size), nullptr);
  EXPECT_EQ(Size, 0u);
  EXPECT_EQ(Pool.counts().Failed, 1u);
  EXPECT_EQ(Pool.counts().Outstanding, 0u);
}

} // namespace
