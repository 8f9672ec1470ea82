//===- report/HtmlBuilder.h - Writing HTML and SVG with escaping -*- C++
//-*-===//
//
// The HTML report holds names from the trace, which may hold markup. The
// builder escapes every text and attribute value as it writes it
// (support::xmlText, valid for HTML5 and SVG alike), so that a writer cannot
// forget to; only tag and attribute names, which are the writer's own
// literals, go out as they are.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_REPORT_HTMLBUILDER_H
#define TRACELINT_REPORT_HTMLBUILDER_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

namespace tracelint::report {

/// One attribute: a literal name and a value that is escaped on write.
using HtmlAttr = std::pair<llvm::StringLiteral, std::string>;

class HtmlBuilder {
public:
  explicit HtmlBuilder(llvm::raw_ostream &OS) : OS(OS) {}
  ~HtmlBuilder();

  /// <Tag attrs...>; closed by close().
  void open(llvm::StringLiteral Tag,
            std::initializer_list<HtmlAttr> Attrs = {});
  /// <Tag attrs.../> (SVG shapes) or <Tag attrs...> for HTML void elements.
  void empty(llvm::StringLiteral Tag,
             std::initializer_list<HtmlAttr> Attrs = {});
  /// Closes the innermost open element.
  void close();
  /// Escaped character data.
  void text(llvm::StringRef S);
  /// <Tag attrs...>text</Tag>.
  void element(llvm::StringLiteral Tag, llvm::StringRef Text,
               std::initializer_list<HtmlAttr> Attrs = {});
  /// Markup that the writer wrote itself (the style sheet, the doctype):
  /// never a trace string.
  void literal(llvm::StringLiteral S) { OS << S; }
  size_t depth() const { return Open.size(); }

private:
  void attrs(std::initializer_list<HtmlAttr> Attrs);
  llvm::raw_ostream &OS;
  std::vector<llvm::StringLiteral> Open;
};

/// A number for an SVG coordinate: at most two decimals, no trailing zeros.
std::string svgNumber(double V);

} // namespace tracelint::report

#endif
