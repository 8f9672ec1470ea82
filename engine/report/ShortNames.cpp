//===- report/ShortNames.cpp - Kernel and op names a reader can scan ------===//
//
// The names are demangled C++ (`void ns::kernel<4, F<float> >(int, F<float>)`)
// or generated identifiers (Triton, cuBLAS, Tensile). A name is read as a
// return type, a qualified name of `::`-separated parts with template
// argument lists, and a parameter list; brackets are matched, so a space or a
// `::` inside an argument list never splits the name.
//
//===----------------------------------------------------------------------===//
#include "report/ShortNames.h"
#include "support/Format.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

using namespace tracelint;
using namespace tracelint::report;

static constexpr llvm::StringLiteral Ellipsis = "\xe2\x80\xa6"; // U+2026

namespace {

bool isIdentChar(char C) {
  return llvm::isAlnum(C) || C == '_' || C == '$' || C == '~';
}

bool isOpener(char C) { return C == '<' || C == '(' || C == '[' || C == '{'; }

char closerOf(char C) {
  switch (C) {
  case '<':
    return '>';
  case '(':
    return ')';
  case '[':
    return ']';
  default:
    return '}';
  }
}

/// The index of the bracket that closes the one at \p At, or npos. A `<`
/// after a space is a comparison, not a template list, and `->` is an arrow.
size_t matchClose(llvm::StringRef S, size_t At) {
  llvm::SmallVector<char, 16> Open;
  for (size_t I = At; I < S.size(); ++I) {
    char C = S[I];
    char Prev = I ? S[I - 1] : ' ';
    if (isOpener(C)) {
      if (C == '<' && (Prev == ' ' || I + 1 == S.size() || S[I + 1] == '<' ||
                       S[I + 1] == '='))
        continue;
      Open.push_back(C);
      continue;
    }
    if (C != '>' && C != ')' && C != ']' && C != '}')
      continue;
    if (C == '>' && Prev == '-')
      continue;
    if (Open.empty())
      return llvm::StringRef::npos;
    if (C == '>') {
      if (Open.back() != '<')
        continue; // "a > b" inside a parameter list
    } else {
      while (!Open.empty() && Open.back() == '<')
        Open.pop_back(); // an unclosed "operator<"
      if (Open.empty() || closerOf(Open.back()) != C)
        return llvm::StringRef::npos;
    }
    Open.pop_back();
    if (Open.empty())
      return I;
  }
  return llvm::StringRef::npos;
}

/// Byte offset of the first code point after \p Columns columns.
size_t bytesForColumns(llvm::StringRef S, size_t Columns) {
  size_t I = 0;
  for (size_t Col = 0; I < S.size(); ++Col) {
    if (Col == Columns)
      return I;
    ++I;
    while (I < S.size() && (uint8_t(S[I]) & 0xC0) == 0x80)
      ++I;
  }
  return I;
}

/// \p S cut in the middle to MaxShortName columns.
std::string cutMiddle(llvm::StringRef S) {
  size_t W = support::displayWidth(S);
  if (W <= MaxShortName)
    return S.str();
  const size_t Head = 80, Tail = MaxShortName - Head - 1;
  size_t HeadBytes = bytesForColumns(S, Head);
  size_t TailStart = bytesForColumns(S, W - Tail);
  return (S.take_front(HeadBytes) + Ellipsis + S.drop_front(TailStart)).str();
}

/// A Tensile kernel (`Cijk_Alik_Bljk_HHS_BH_MT128x128x32_MI32x32x8x1_SN_…`)
/// cut after its macro tile and matrix-instruction fields: the data types
/// and tile tell kernels apart, the tuning flags after them rarely do.
std::string shortTensile(llvm::StringRef S) {
  if (!S.startswith("Cijk_") || S.size() <= 48)
    return S.str();
  llvm::SmallVector<llvm::StringRef, 64> Fields;
  S.split(Fields, '_');
  size_t Keep = std::min<size_t>(6, Fields.size());
  for (size_t I = 0; I < Fields.size(); ++I)
    if (Fields[I].startswith("MT")) {
      Keep = I + 1;
      if (I + 1 < Fields.size() && Fields[I + 1].startswith("MI"))
        Keep = I + 2;
      break;
    }
  if (Keep >= Fields.size())
    return S.str();
  std::string Out;
  for (size_t I = 0; I < Keep; ++I)
    Out += (Fields[I] + "_").str();
  return Out + Ellipsis.str();
}

/// Top-level pieces of \p S split at \p Sep, skipping bracketed groups.
llvm::SmallVector<llvm::StringRef, 8> splitTop(llvm::StringRef S,
                                               llvm::StringRef Sep) {
  llvm::SmallVector<llvm::StringRef, 8> Parts;
  size_t Begin = 0;
  for (size_t I = 0; I < S.size();) {
    if (isOpener(S[I])) {
      size_t Close = matchClose(S, I);
      I = Close == llvm::StringRef::npos ? I + 1 : Close + 1;
      continue;
    }
    if (S.substr(I).startswith(Sep)) {
      Parts.push_back(S.slice(Begin, I));
      I += Sep.size();
      Begin = I;
      continue;
    }
    ++I;
  }
  Parts.push_back(S.substr(Begin));
  return Parts;
}

/// The start of the parameter list: the first top-level "(" right after a
/// name or a template list (not "::(anonymous namespace)"), or npos.
size_t paramListStart(llvm::StringRef S) {
  for (size_t I = 0; I < S.size();) {
    if (!isOpener(S[I])) {
      ++I;
      continue;
    }
    size_t Close = matchClose(S, I);
    if (S[I] == '(' && I && (isIdentChar(S[I - 1]) || S[I - 1] == '>') &&
        Close != llvm::StringRef::npos)
      return I;
    I = Close == llvm::StringRef::npos ? I + 1 : Close + 1;
  }
  return llvm::StringRef::npos;
}

std::string shortPart(llvm::StringRef Part, bool Last);

/// One `::` part: its template list elided, or kept shortened when it is a
/// single short argument (`Kernel2<cutlass_80_tensorop_…>`, `foo<128>`).
std::string shortPart(llvm::StringRef Part, bool Last) {
  size_t Lt = Part.find('<');
  if (Lt == llvm::StringRef::npos || !Lt)
    return Last ? shortTensile(Part) : Part.str();
  size_t Close = matchClose(Part, Lt);
  if (Close == llvm::StringRef::npos)
    return Part.str();
  llvm::StringRef Base = Part.take_front(Lt);
  llvm::StringRef Args = Part.slice(Lt + 1, Close).trim();
  llvm::StringRef After = Part.drop_front(Close + 1);
  std::string Inner = Ellipsis.str();
  if (Last && splitTop(Args, ",").size() == 1) {
    std::string One = shortName(Args);
    if (support::displayWidth(One) <= 64)
      Inner = One;
  }
  return (Base + "<" + Inner + ">" + After).str();
}

/// A demangled signature or a qualified name, not a plain identifier.
bool looksLikeSignature(llvm::StringRef S) {
  return S.contains("::") || S.contains('<') ||
         paramListStart(S) != llvm::StringRef::npos;
}

} // namespace

std::string report::shortName(llvm::StringRef Name) {
  llvm::StringRef S = Name.trim();
  if (!looksLikeSignature(S))
    return cutMiddle(shortTensile(S));
  // The qualified name: what precedes the parameter list, after the return
  // type (the last top-level space: "void", "unsigned int").
  size_t Params = paramListStart(S);
  llvm::StringRef Head = S.take_front(Params);
  llvm::SmallVector<llvm::StringRef, 8> Words = splitTop(Head, " ");
  while (!Words.empty() && Words.back().empty())
    Words.pop_back();
  // Words with a "::" but no signature ("see c10::foo here") are prose.
  if (Params == llvm::StringRef::npos && Words.size() > 1 && !S.contains('<'))
    return cutMiddle(S);
  if (!Words.empty())
    Head = Words.back();
  llvm::SmallVector<llvm::StringRef, 8> Parts = splitTop(Head, "::");
  llvm::SmallVector<llvm::StringRef, 8> Kept;
  for (llvm::StringRef P : Parts)
    if (!P.empty() && P.front() != '(' && P.front() != '{')
      Kept.push_back(P); // "(anonymous namespace)", "{lambda(int)#1}"
  if (Kept.empty())
    return cutMiddle(S);
  std::string Out;
  for (size_t I = 0; I < Kept.size(); ++I)
    Out += (I ? "::" : "") + shortPart(Kept[I], I + 1 == Kept.size());
  return cutMiddle(Out);
}

std::string report::shortenNamesIn(llvm::StringRef Text) {
  std::string Out;
  size_t I = 0;
  while (I < Text.size()) {
    char C = Text[I];
    bool Start =
        (llvm::isAlpha(C) || C == '_') && (I == 0 || !isIdentChar(Text[I - 1]));
    if (!Start) {
      Out += C;
      ++I;
      continue;
    }
    // The longest name from here: identifiers, "::" and bracketed lists.
    size_t J = I;
    bool Grouped = false, HasParams = false;
    while (J < Text.size()) {
      if (isIdentChar(Text[J])) {
        ++J;
        continue;
      }
      if (Text.substr(J).startswith("::")) {
        J += 2;
        continue;
      }
      char Prev = Text[J - 1];
      if (isOpener(Text[J]) && Text[J] != '[' &&
          (isIdentChar(Prev) || Prev == '>' || Prev == ':' || Prev == ')')) {
        size_t Close = matchClose(Text, J);
        if (Close == llvm::StringRef::npos)
          break;
        Grouped = true;
        HasParams |= Text[J] == '(' && Prev != ':';
        J = Close + 1;
        continue;
      }
      break;
    }
    llvm::StringRef Span = Text.slice(I, J);
    // "wait(s)" and "aten::mm" stay; templates and long names do not.
    bool Templated = Grouped && (Span.contains('<') || Span.contains("::"));
    if (Templated || Span.size() > 60) {
      // "void ns::kernel<…>(…)" reads as "ns::kernel<…>".
      if (HasParams && llvm::StringRef(Out).endswith("void "))
        Out.resize(Out.size() - 5);
      Out += shortName(Span);
    } else {
      Out += Span.str();
    }
    I = J;
  }
  return Out;
}

std::vector<std::string> report::wrapText(llvm::StringRef Text, size_t Width) {
  Width = std::max<size_t>(Width, 8);
  std::vector<std::string> Lines;
  std::string Cur;
  size_t CurW = 0;
  llvm::SmallVector<llvm::StringRef, 32> Words;
  Text.split(Words, ' ', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef W : Words) {
    size_t WW = support::displayWidth(W);
    if (CurW && CurW + 1 + WW <= Width) {
      (Cur += ' ') += W;
      CurW += 1 + WW;
      continue;
    }
    if (CurW)
      Lines.push_back(std::move(Cur));
    // A word wider than the line is cut where the line ends.
    while (WW > Width) {
      size_t B = bytesForColumns(W, Width);
      Lines.push_back(W.take_front(B).str());
      W = W.drop_front(B);
      WW -= Width;
    }
    Cur = W.str();
    CurW = WW;
  }
  if (CurW || Lines.empty())
    Lines.push_back(std::move(Cur));
  return Lines;
}

std::string report::namesAsShown(llvm::StringRef Text, bool LongNames) {
  return LongNames ? Text.str() : shortenNamesIn(Text);
}

void report::writeWrapped(llvm::raw_ostream &OS, llvm::StringRef Lead,
                          llvm::StringRef Text, size_t Width, size_t Hang,
                          size_t Used) {
  if (!Width) { // --width 0: one line per text, for scripts and tests
    OS << Lead << Text << "\n";
    return;
  }
  size_t LeadW = Used + support::displayWidth(Lead);
  if (Hang == std::string::npos)
    Hang = LeadW;
  // A lead wider than the line starts the text on a line of its own.
  size_t First = LeadW + 20 > Width ? 20 : Width - LeadW;
  std::vector<std::string> Parts = wrapText(Text, First);
  OS << Lead << Parts.front() << "\n";
  if (Parts.size() == 1)
    return;
  std::string Rest =
      llvm::join(llvm::ArrayRef<std::string>(Parts).drop_front(), " ");
  size_t Avail = Hang + 20 > Width ? 20 : Width - Hang;
  for (const std::string &P : wrapText(Rest, Avail))
    OS << std::string(Hang, ' ') << P << "\n";
}
