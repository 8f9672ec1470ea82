//===- report/HtmlBuilder.cpp - Writing HTML and SVG with escaping --------===//
#include "report/HtmlBuilder.h"
#include "support/Escape.h"

#include "llvm/Support/FormatVariadic.h"

#include <cassert>
#include <cmath>

using namespace tracelint;
using namespace tracelint::report;

HtmlBuilder::~HtmlBuilder() {
  assert(Open.empty() && "an element was left open");
}

void HtmlBuilder::attrs(std::initializer_list<HtmlAttr> Attrs) {
  for (const HtmlAttr &A : Attrs)
    OS << ' ' << A.first << "=\"" << support::xmlText(A.second) << '"';
}

void HtmlBuilder::open(llvm::StringLiteral Tag,
                       std::initializer_list<HtmlAttr> Attrs) {
  OS << '<' << Tag;
  attrs(Attrs);
  OS << '>';
  Open.push_back(Tag);
}

void HtmlBuilder::empty(llvm::StringLiteral Tag,
                        std::initializer_list<HtmlAttr> Attrs) {
  OS << '<' << Tag;
  attrs(Attrs);
  OS << "/>";
}

void HtmlBuilder::close() {
  assert(!Open.empty() && "close() without open()");
  OS << "</" << Open.back() << '>';
  // Block elements end their line, so that the file reads (and diffs)
  // line by line.
  llvm::StringRef T = Open.back();
  if (T == "div" || T == "section" || T == "li" || T == "ul" || T == "svg" ||
      T == "g" || T == "p" || T == "h2" || T == "h3" || T == "table" ||
      T == "tr")
    OS << '\n';
  Open.pop_back();
}

void HtmlBuilder::text(llvm::StringRef S) { OS << support::xmlText(S); }

void HtmlBuilder::element(llvm::StringLiteral Tag, llvm::StringRef Text,
                          std::initializer_list<HtmlAttr> Attrs) {
  open(Tag, Attrs);
  text(Text);
  close();
}

std::string report::svgNumber(double V) {
  if (!std::isfinite(V))
    return "0";
  std::string S = llvm::formatv("{0:F2}", V).str();
  while (S.back() == '0')
    S.pop_back();
  if (S.back() == '.')
    S.pop_back();
  if (S == "-0")
    S = "0";
  return S;
}
