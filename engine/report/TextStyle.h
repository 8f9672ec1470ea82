//===- report/TextStyle.h - Colour in the text reports ----------*- C++ -*-===//
//
// The ANSI styles of the text reports (`--color`): bold labels and codes,
// yellow warnings, red errors. One Painter for the trace report and the job
// report, so that both look the same on a terminal.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_REPORT_TEXTSTYLE_H
#define TRACELINT_REPORT_TEXTSTYLE_H

#include "rules/Finding.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

namespace tracelint::report {

inline constexpr const char *Bold = "\x1b[1m";
inline constexpr const char *Yellow = "\x1b[33m";
inline constexpr const char *Red = "\x1b[31m";
inline constexpr const char *Reset = "\x1b[0m";

/// Writes text to a stream, styled only when colour is on.
class Painter {
public:
  Painter(llvm::raw_ostream &OS, bool Color) : OS(OS), Color(Color) {}
  void paint(llvm::StringRef Text, const char *Code) {
    if (Color)
      OS << Code << Text << Reset;
    else
      OS << Text;
  }
  /// A line's label, bold, padded to the report's 12 columns.
  void label(llvm::StringRef Label) {
    paint(llvm::formatv("{0,-12}", Label).str(), Bold);
  }
  void severity(rules::Severity S) {
    llvm::StringRef Name = rules::severityName(S);
    switch (S) {
    case rules::Severity::Info:
      OS << Name;
      return;
    case rules::Severity::Warning:
      paint(Name, Yellow);
      return;
    case rules::Severity::Error:
      paint(Name, Red);
      return;
    }
  }

private:
  llvm::raw_ostream &OS;
  bool Color;
};

} // namespace tracelint::report

#endif
