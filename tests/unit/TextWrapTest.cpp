//===- TextWrapTest.cpp - Lines of the text reports -----------------------===//
#include "report/TextWrap.h"
#include "support/Format.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

using namespace tracelint;
using namespace tracelint::report;

namespace {

std::string wrappedText(llvm::StringRef Lead, llvm::StringRef Text,
                        size_t Width, size_t Hang = std::string::npos,
                        size_t Used = 0) {
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  writeWrapped(OS, Lead, Text, Width, Hang, Used);
  return OS.str();
}

std::vector<std::string> outputLines(llvm::StringRef Out) {
  llvm::SmallVector<llvm::StringRef, 16> Parts;
  Out.rtrim('\n').split(Parts, '\n');
  return std::vector<std::string>(Parts.begin(), Parts.end());
}

TEST(TextWrapTest, BreaksAtSpaces) {
  auto Lines = wrapText("one two three four five six", 9);
  ASSERT_EQ(Lines.size(), 4u);
  EXPECT_EQ(Lines[0], "one two");
  EXPECT_EQ(Lines[1], "three");
  EXPECT_EQ(Lines[2], "four five");
  EXPECT_EQ(Lines[3], "six");
  // The first line may be narrower than the others.
  Lines = wrapText("one two three four", 9, 4);
  ASSERT_EQ(Lines.size(), 3u);
  EXPECT_EQ(Lines[0], "one");
  EXPECT_EQ(Lines[1], "two three");
  EXPECT_EQ(wrapText("", 10), std::vector<std::string>{""});
}

TEST(TextWrapTest, NeverSplitsAWordWithoutABreakPlace) {
  // "ProfilerActivity.CUDA" once came out as "ProfilerActivity.CUD A":
  // the word is whole on one line, wherever the text wraps.
  std::string Reason =
      "the trace has no device activity; record it with "
      "ProfilerActivity.CUDA and check that the buffers were not lost";
  for (size_t Width = 8; Width <= 60; ++Width)
    for (const std::string &L :
         wrapText(Reason, Width, Width / 2, MaxLineWidth)) {
      EXPECT_EQ(L.find("ProfilerActivity.CUD "), std::string::npos) << L;
      if (L.find("ProfilerActivity.CU") != std::string::npos) {
        EXPECT_NE(L.find("ProfilerActivity.CUDA"), std::string::npos)
            << Width << ": " << L;
      }
    }
  // Wider than the line: alone on a line of its own, whole.
  auto Lines = wrapText("record ProfilerActivity.CUDA now", 12,
                        std::string::npos, MaxLineWidth);
  ASSERT_EQ(Lines.size(), 3u);
  EXPECT_EQ(Lines[0], "record");
  EXPECT_EQ(Lines[1], "ProfilerActivity.CUDA");
  EXPECT_EQ(Lines[2], "now");
  // Multi-byte characters count once and are never split.
  Lines = wrapText("é ééééééééé é", 8, std::string::npos, 20);
  ASSERT_EQ(Lines.size(), 3u);
  EXPECT_EQ(Lines[1], "ééééééééé");
}

TEST(TextWrapTest, BreaksLongWordsAfterSlashColonsOrCommas) {
  auto Lines = wrapText("in /data/runs/owlv2/step-0001/trace.json.gz", 20);
  ASSERT_EQ(Lines.size(), 4u);
  EXPECT_EQ(Lines[0], "in");
  EXPECT_EQ(Lines[1], "/data/runs/owlv2/");
  EXPECT_EQ(Lines[2], "step-0001/");
  EXPECT_EQ(Lines[3], "trace.json.gz");
  Lines = wrapText("cutlass::gemm::kernel::GemmUniversal<…>", 24);
  ASSERT_EQ(Lines.size(), 2u);
  EXPECT_EQ(Lines[0], "cutlass::gemm::kernel::");
  EXPECT_EQ(Lines[1], "GemmUniversal<…>");
  Lines = wrapText("shape [16,5185,5185,64,64]", 12);
  ASSERT_EQ(Lines.size(), 3u);
  EXPECT_EQ(Lines[1], "[16,5185,");
  EXPECT_EQ(Lines[2], "5185,64,64]");
}

TEST(TextWrapTest, NoBreakSpaceKeepsWordsTogether) {
  // A rule's code and its name stay on one line, with a plain space.
  std::string Codes = "S001" + NoBreakSpace.str() +
                      "[sync-long-host-wait], S002" + NoBreakSpace.str() +
                      "[sync-after-every-launch]:";
  auto Lines = wrapText(Codes + " reason", 32);
  ASSERT_EQ(Lines.size(), 3u);
  EXPECT_EQ(Lines[0], "S001 [sync-long-host-wait],");
  EXPECT_EQ(Lines[1], "S002 [sync-after-every-launch]:");
  EXPECT_EQ(Lines[2], "reason");
  EXPECT_EQ(wrappedText("", Codes, 0),
            "S001 [sync-long-host-wait], S002 [sync-after-every-launch]:\n");
}

TEST(TextWrapTest, CutsOnlyPastTheHardLimit) {
  std::string Word(300, 'w');
  auto Lines = wrapText("a " + Word + " b", 10, std::string::npos, 240);
  ASSERT_EQ(Lines.size(), 4u);
  EXPECT_EQ(Lines[0], "a");
  EXPECT_EQ(Lines[1], std::string(240, 'w'));
  EXPECT_EQ(Lines[2], std::string(60, 'w'));
  EXPECT_EQ(Lines[3], "b");
}

TEST(TextWrapTest, CutToWidthEndsAfterAWord) {
  EXPECT_EQ(cutToWidth("fits as it is", 20), "fits as it is");
  EXPECT_EQ(cutToWidth("load batches in worker processes, then", 26),
            "load batches in worker…");
  // Trailing punctuation goes before the ellipsis.
  EXPECT_EQ(cutToWidth("in worker processes, then pin", 21),
            "in worker processes…");
  EXPECT_EQ(support::displayWidth(cutToWidth(std::string(50, 'x'), 10)), 10u);
}

TEST(TextWrapTest, WideLeadWrapsWithItsText) {
  // A lead that leaves no room (a long list of rule codes) is wrapped with
  // the text, at spaces, instead of squeezing the text into a narrow
  // column that splits its words.
  std::string Lead = "  ";
  for (int I = 0; I < 12; ++I)
    Lead += "K00" + std::to_string(I % 10) + " [some-rule-name], ";
  Lead += "X001 [last]: ";
  std::string Out =
      wrappedText(Lead, "record it with ProfilerActivity.CUDA first", 60, 4);
  for (const std::string &L : outputLines(Out)) {
    EXPECT_LE(support::displayWidth(L), 60u) << L;
    EXPECT_EQ(L.back() == 'D' || L.find("CUD A") != std::string::npos, false)
        << L;
  }
  EXPECT_EQ(Out.substr(0, 7), "  K000 ");
  EXPECT_NE(Out.find("ProfilerActivity.CUDA"), std::string::npos) << Out;
}

TEST(TextWrapTest, WrappedLinesHangAndKeepTheLimit) {
  std::string Out =
      wrappedText("lead: ", "aaa bbb ccc ddd eee fff ggg hhh iii", 30, 4);
  auto Lines = outputLines(Out);
  ASSERT_EQ(Lines.size(), 2u);
  EXPECT_EQ(Lines[0], "lead: aaa bbb ccc ddd eee fff");
  EXPECT_EQ(Lines[1], "    ggg hhh iii");
  // Width 0: one line, as written.
  EXPECT_EQ(wrappedText("lead: ", "a b c", 0), "lead: a b c\n");
  // Never wider than MaxLineWidth, whatever the width asked for.
  Out = wrappedText("", std::string(600, 'w'), 1000);
  for (const std::string &L : outputLines(Out))
    EXPECT_LE(support::displayWidth(L), MaxLineWidth);
}

} // namespace
