//===- FormatTest.cpp - Units and terminal-safe text ----------------------===//
#include "support/Format.h"
#include "support/Count.h"

#include "gtest/gtest.h"

using namespace tracelint::support;

namespace {

TEST(FormatTest, CountsAgreeWithTheirNoun) {
  EXPECT_EQ(formatCount(1, "kernel"), "1 kernel");
  EXPECT_EQ(formatCount(0, "kernel"), "0 kernels");
  EXPECT_EQ(formatCount(3, "copy", "copies"), "3 copies");
  EXPECT_EQ(formatCount(1, "copy", "copies"), "1 copy");
  // Medians of counts: whole ones without decimals, never "1.0 copies".
  EXPECT_EQ(formatAverageCount(1.0, "copy", "copies"), "1 copy");
  EXPECT_EQ(formatAverageCount(2.0, "copy", "copies"), "2 copies");
  EXPECT_EQ(formatAverageCount(1.5, "copy", "copies"), "1.5 copies");
  EXPECT_EQ(formatAverageCount(0.96, "step"), "1 step");
  EXPECT_EQ(pluralNoun(1, "rank"), "rank");
  EXPECT_EQ(pluralNoun(4, "rank"), "ranks");
}

TEST(FormatTest, Durations) {
  EXPECT_EQ(formatDuration(0), "0 ns");
  EXPECT_EQ(formatDuration(850), "850 ns");
  EXPECT_EQ(formatDuration(1'500), "1.5 us");
  EXPECT_EQ(formatDuration(850'000), "850 us");
  EXPECT_EQ(formatDuration(12'345'000), "12.345 ms");
  EXPECT_EQ(formatDuration(12'345'678), "12.346 ms"); // rounded
  EXPECT_EQ(formatDuration(1'200'000'000), "1.2 s");
  // Rounding that reaches the next unit moves to it.
  EXPECT_EQ(formatDuration(999'999'600), "1 s");
  EXPECT_EQ(formatDuration(3'600'000'000'000), "3600 s");
  EXPECT_EQ(formatDuration(-2'500'000), "-2.5 ms");
}

TEST(FormatTest, BytesAndShares) {
  EXPECT_EQ(formatBytes(512), "512 B");
  EXPECT_EQ(formatBytes(1'500), "1.5 kB");
  EXPECT_EQ(formatBytes(50'000'000), "50 MB");
  EXPECT_EQ(formatBytes(85'899'345'920), "85.899 GB");
  EXPECT_EQ(formatShare(0.4), "40.0 %");
  EXPECT_EQ(formatShare(1.25), "125.0 %");
}

TEST(FormatTest, OffsetsFromTheFirstEvent) {
  EXPECT_EQ(formatOffset(0), "+0.000000 s");
  EXPECT_EQ(formatOffset(1'234'567'000), "+1.234567 s");
  EXPECT_EQ(formatOffset(100'000'000), "+0.100000 s");
  EXPECT_EQ(formatOffset(1'499), "+0.000001 s"); // rounded to the us
  EXPECT_EQ(formatOffset(-2'000'000), "-0.002000 s");
}

TEST(FormatTest, SanitizeEscapesControls) {
  EXPECT_EQ(sanitize("plain name"), "plain name");
  EXPECT_EQ(sanitize("a\x1b[2Jb"), "a\\x1B[2Jb");
  EXPECT_EQ(sanitize("tab\there\n"), "tab\\x09here\\x0A");
  EXPECT_EQ(sanitize("del\x7f"), "del\\x7F");
  // Valid UTF-8 is kept; C1 CSI (U+009B) and bidi overrides are not.
  EXPECT_EQ(sanitize("caf\xc3\xa9"), "caf\xc3\xa9");
  EXPECT_EQ(sanitize("x\xc2\x9b"
                     "31m"),
            "x\\u{009B}31m");
  EXPECT_EQ(sanitize("a\xe2\x80\xae"
                     "b"),
            "a\\u{202E}b");
  // Invalid UTF-8 bytes are escaped one by one.
  EXPECT_EQ(sanitize("\xff\xc3"), "\\xFF\\xC3");
}

TEST(FormatTest, SanitizeTruncates) {
  std::string Long(100, 'a');
  std::string Cut = sanitize(Long, 10);
  EXPECT_EQ(Cut, "aaaaaaa...");
  EXPECT_EQ(displayWidth(Cut), 10u);
  EXPECT_EQ(sanitize("short", 10), "short");
  EXPECT_EQ(sanitize("exactly10!", 10), "exactly10!");
  // An escape is never cut in half.
  EXPECT_EQ(sanitize("abcdef\x1b"
                     "ghijk",
                     10),
            "abcdef...");
  // Multi-byte characters count as one column and stay whole.
  std::string Accents;
  for (int I = 0; I < 20; ++I)
    Accents += "\xc3\xa9";
  std::string CutAccents = sanitize(Accents, 10);
  EXPECT_EQ(displayWidth(CutAccents), 10u);
  EXPECT_EQ(CutAccents.size(), 7u * 2 + 3);
}

TEST(FormatTest, EscapeInvisibleInJson) {
  // U+009B (CSI), U+202E (right-to-left override), U+2028: escaped.
  EXPECT_EQ(escapeInvisibleInJson("{\"n\": \"a\xC2\x9B"
                                  "2Jb\"}"),
            "{\"n\": \"a\\u009b2Jb\"}");
  EXPECT_EQ(escapeInvisibleInJson("\"x\xE2\x80\xAEy\xE2\x80\xA8z\""),
            "\"x\\u202ey\\u2028z\"");
  // Other non-ASCII text and ASCII pass unchanged.
  EXPECT_EQ(escapeInvisibleInJson("\"caf\xC3\xA9 \xE6\x97\xA5\", [1]"),
            "\"caf\xC3\xA9 \xE6\x97\xA5\", [1]");
}

} // namespace
