//===- report/TextWrap.h - Lines of the text reports -------------*- C++
//-*-===//
//
// How the text reports fill lines: at spaces only, so that a word, a number
// with its unit or a name is never split between two lines. A single word
// wider than the line (a path, a long kernel name) is broken after a `/`, a
// `::` or a `,`; one with no such place is kept whole on a line of its own,
// and only a word wider than MaxLineWidth is cut, at that limit. Words
// joined by a no-break space (NoBreakSpace: a rule's code and its name)
// stay on one line, written with a plain space.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_REPORT_TEXTWRAP_H
#define TRACELINT_REPORT_TEXTWRAP_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace tracelint::report {

/// No line of a text report is wider than this, whatever the terminal.
constexpr size_t MaxLineWidth = 240;
/// Where long lines wrap when the report does not go to a terminal.
constexpr size_t DefaultWidth = 100;
/// U+00A0: joins two words that wrapText() keeps on one line.
inline constexpr llvm::StringLiteral NoBreakSpace = "\xc2\xa0";

/// \p Text (sanitized: one column per code point) cut into lines at spaces:
/// the first at most \p FirstWidth columns (npos: \p Width), the others at
/// most \p Width. A word wider than its line is broken after a `/`, `::` or
/// `,`, as late as the line allows; one with no such place stands alone on
/// its line, however wide, unless it is wider than \p Hard (0: \p Width)
/// columns, where it is cut. No-break spaces come out as plain spaces.
std::vector<std::string> wrapText(llvm::StringRef Text, size_t Width,
                                  size_t FirstWidth = std::string::npos,
                                  size_t Hard = 0);

/// \p Text on one line of at most \p Columns columns: whole when it fits,
/// else cut after its last whole word that leaves room for a closing "…".
std::string cutToWidth(llvm::StringRef Text, size_t Columns);

/// Writes \p Lead, then \p Text wrapped to \p Width columns (0: one line,
/// unwrapped, for scripts and tests), continuation lines indented by
/// \p Hang columns (npos: to the text's column). \p Used: columns already
/// written on the line before \p Lead. Both are already sanitized. No line
/// is wider than MaxLineWidth; a lead that leaves no room for the text is
/// wrapped with it.
void writeWrapped(llvm::raw_ostream &OS, llvm::StringRef Lead,
                  llvm::StringRef Text, size_t Width,
                  size_t Hang = std::string::npos, size_t Used = 0);

} // namespace tracelint::report

#endif
