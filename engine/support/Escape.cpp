//===- support/Escape.cpp
//--------------------------------------------------===//
#include "support/Escape.h"
#include "support/Format.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/JSON.h"

#include <algorithm>

using namespace tracelint;
using namespace tracelint::support;

std::string support::jsonText(llvm::StringRef S) {
  return llvm::json::isUTF8(S) ? S.str() : llvm::json::fixUTF8(S);
}

std::string support::xmlText(llvm::StringRef S) {
  std::string Clean = sanitize(S);
  std::string Out;
  Out.reserve(Clean.size());
  for (size_t I = 0; I < Clean.size(); ++I) {
    char C = Clean[I];
    switch (C) {
    case '&':
      Out += "&amp;";
      break;
    case '<':
      Out += "&lt;";
      break;
    case '>':
      Out += "&gt;";
      break;
    case '"':
      Out += "&quot;";
      break;
    case '\'':
      Out += "&apos;";
      break;
    default:
      // U+FFFE and U+FFFF (EF BF BE/BF) are valid UTF-8 but not XML 1.0
      // characters; sanitize() keeps them as printable.
      if (static_cast<uint8_t>(C) == 0xEF && I + 2 < Clean.size() &&
          static_cast<uint8_t>(Clean[I + 1]) == 0xBF &&
          (static_cast<uint8_t>(Clean[I + 2]) & 0xFE) == 0xBE) {
        Out += static_cast<uint8_t>(Clean[I + 2]) == 0xBE ? "\\u{FFFE}"
                                                          : "\\u{FFFF}";
        I += 2;
        break;
      }
      Out += C;
    }
  }
  return Out;
}

std::string support::markdownText(llvm::StringRef S) {
  // sanitize() turns line breaks into visible escapes, so the text never
  // starts a line: only inline constructs need escaping (emphasis, code,
  // links and images start with '[', HTML and autolinks with '<', tables
  // split at '|', entities start with '&'). ':' is escaped where it would
  // start "://", so that no URL is autolinked.
  std::string Clean = sanitize(S);
  static constexpr llvm::StringLiteral Special = "\\`*_[]<>|~&";
  std::string Out;
  Out.reserve(Clean.size() + Clean.size() / 4);
  llvm::StringRef Rest = Clean;
  for (size_t I = 0; I < Clean.size(); ++I) {
    char C = Clean[I];
    if (Special.contains(C) || (C == ':' && Rest.substr(I).startswith("://")))
      Out += '\\';
    Out += C;
  }
  return Out;
}

std::string support::markdownCode(llvm::StringRef S, bool InTable) {
  std::string Clean = sanitize(S);
  if (InTable) {
    std::string Piped;
    for (char C : Clean) {
      if (C == '|')
        Piped += '\\';
      Piped += C;
    }
    Clean = std::move(Piped);
  }
  size_t Longest = 0, Run = 0;
  for (char C : Clean) {
    Run = C == '`' ? Run + 1 : 0;
    Longest = std::max(Longest, Run);
  }
  std::string Fence(Longest + 1, '`');
  // A space on each side keeps a backtick at either end out of the fence;
  // CommonMark strips exactly one space from each side.
  bool Pad = Clean.empty() || Clean.front() == '`' || Clean.back() == '`' ||
             Clean.front() == ' ';
  std::string Out = Fence;
  if (Pad)
    Out += ' ';
  Out += Clean;
  if (Pad)
    Out += ' ';
  Out += Fence;
  return Out;
}

std::string support::pathToUri(llvm::StringRef Path) {
  std::string Out;
  if (Path.startswith("/"))
    Out = "file://";
  for (char C : Path) {
    uint8_t B = static_cast<uint8_t>(C);
    if (llvm::isAlnum(C) || C == '-' || C == '.' || C == '_' || C == '~' ||
        C == '/') {
      Out += C;
      continue;
    }
    Out += '%';
    Out += llvm::hexdigit(B >> 4);
    Out += llvm::hexdigit(B & 15);
  }
  return Out;
}
