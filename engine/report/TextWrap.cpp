//===- report/TextWrap.cpp - Lines of the text reports --------------------===//
#include "report/TextWrap.h"
#include "support/Format.h"

#include "llvm/ADT/SmallVector.h"

#include <algorithm>

using namespace tracelint;
using namespace tracelint::report;

static constexpr llvm::StringLiteral Ellipsis = "\xe2\x80\xa6"; // U+2026

namespace {

/// The byte after the code point that starts at \p I.
size_t nextCodePoint(llvm::StringRef S, size_t I) {
  ++I;
  while (I < S.size() && (uint8_t(S[I]) & 0xC0) == 0x80)
    ++I;
  return I;
}

/// Byte offset of the first code point after \p Columns columns.
size_t bytesForColumns(llvm::StringRef S, size_t Columns) {
  size_t I = 0;
  for (size_t Col = 0; I < S.size() && Col < Columns; ++Col)
    I = nextCodePoint(S, I);
  return I;
}

/// Bytes of the longest head of \p Word, at most \p Columns wide, that ends
/// just after a `/`, `::` or `,` (with something after it); 0 when none.
size_t lastBreak(llvm::StringRef Word, size_t Columns) {
  size_t Best = 0;
  size_t Col = 0;
  for (size_t I = 0; I < Word.size() && Col < Columns; ++Col) {
    size_t Next = nextCodePoint(Word, I);
    char C = Word[I];
    bool After = C == '/' || C == ',' || (C == ':' && I && Word[I - 1] == ':');
    if (After && Next < Word.size())
      Best = Next;
    I = Next;
  }
  return Best;
}

/// \p S with its no-break spaces written as plain ones.
std::string plainSpaces(llvm::StringRef S) {
  std::string Out;
  Out.reserve(S.size());
  while (true) {
    size_t At = S.find(NoBreakSpace);
    Out += S.take_front(At).str();
    if (At == llvm::StringRef::npos)
      return Out;
    Out += ' ';
    S = S.drop_front(At + NoBreakSpace.size());
  }
}

} // namespace

std::vector<std::string> report::wrapText(llvm::StringRef Text, size_t Width,
                                          size_t FirstWidth, size_t Hard) {
  Width = std::max<size_t>(Width, 8);
  FirstWidth = std::max<size_t>(std::min(FirstWidth, Width), 1);
  Hard = std::max(Hard, Width);
  std::vector<std::string> Lines;
  std::string Cur;
  size_t CurW = 0;
  auto Room = [&] { return Lines.empty() ? FirstWidth : Width; };
  auto Flush = [&] {
    Lines.push_back(std::move(Cur));
    Cur.clear();
    CurW = 0;
  };
  llvm::SmallVector<llvm::StringRef, 32> Words;
  Text.split(Words, ' ', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef W : Words) {
    size_t WW = support::displayWidth(W);
    if (CurW + (CurW ? 1 : 0) + WW <= Room()) {
      if (CurW) {
        Cur += ' ';
        ++CurW;
      }
      Cur += W.str();
      CurW += WW;
      continue;
    }
    if (CurW)
      Flush();
    // The word starts a line and is wider than it: break it after a `/`,
    // `::` or `,`; with no such place, give it a full line, then keep it
    // whole; only past Hard is it cut.
    while (WW > Room()) {
      size_t B = lastBreak(W, Room());
      if (!B && Room() < Width) {
        Flush(); // the first line is short: try a full one
        continue;
      }
      if (!B && WW <= Hard)
        break;
      if (!B)
        B = bytesForColumns(W, Hard);
      Lines.push_back(W.take_front(B).str());
      W = W.drop_front(B);
      WW = support::displayWidth(W);
    }
    Cur = W.str();
    CurW = WW;
    if (CurW > Room())
      Flush(); // a word kept whole stands alone on its line
  }
  if (CurW || Lines.empty())
    Flush();
  for (std::string &L : Lines)
    L = plainSpaces(L);
  return Lines;
}

std::string report::cutToWidth(llvm::StringRef Text, size_t Columns) {
  if (support::displayWidth(Text) <= Columns)
    return Text.str();
  if (Columns < 2)
    return Ellipsis.str();
  std::vector<std::string> Lines =
      wrapText(Text, Columns - 1, std::string::npos, Columns - 1);
  llvm::StringRef Head = llvm::StringRef(Lines.front()).rtrim(" ,;:");
  if (Head.empty())
    Head = Text;
  Head = Head.take_front(bytesForColumns(Head, Columns - 1));
  return Head.str() + Ellipsis.str();
}

void report::writeWrapped(llvm::raw_ostream &OS, llvm::StringRef Lead,
                          llvm::StringRef Text, size_t Width, size_t Hang,
                          size_t Used) {
  if (!Width) { // --width 0: one line per text, for scripts and tests
    OS << Lead << plainSpaces(Text) << "\n";
    return;
  }
  // The narrowest a line's text may be: narrower reads as a column of
  // fragments.
  constexpr size_t MinText = 20;
  Width = std::min(Width, MaxLineWidth);
  size_t LeadW = Used + support::displayWidth(Lead);
  if (Hang == std::string::npos)
    Hang = LeadW;
  Hang = std::min(Hang, Width > MinText ? Width - MinText : 0);
  if (LeadW + MinText <= Width) {
    std::vector<std::string> Lines =
        wrapText(Text, Width - Hang, Width - LeadW,
                 MaxLineWidth - std::max(LeadW, Hang));
    OS << Lead << Lines.front() << "\n";
    for (size_t I = 1; I < Lines.size(); ++I)
      OS << std::string(Hang, ' ') << Lines[I] << "\n";
    return;
  }
  // A lead that leaves no room for the text is wrapped with it, after its
  // indentation.
  llvm::StringRef Words = Lead.ltrim(' ');
  size_t Pad = Lead.size() - Words.size();
  std::string Merged = Words.str();
  if (!Text.empty() && !Merged.empty() && Merged.back() != ' ')
    Merged += ' ';
  Merged.append(Text.data(), Text.size());
  size_t Start = std::min(Used + Pad, Width > MinText ? Width - MinText : 0);
  std::vector<std::string> Lines =
      wrapText(Merged, Width - Hang, Width - Start,
               MaxLineWidth - std::max(Start, Hang));
  OS << Lead.take_front(Pad) << Lines.front() << "\n";
  for (size_t I = 1; I < Lines.size(); ++I)
    OS << std::string(Hang, ' ') << Lines[I] << "\n";
}
