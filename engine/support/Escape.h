//===- support/Escape.h - Untrusted text in structured formats ---*- C++
//-*-===//
//
// Every string that comes from a trace (event, op and kernel names, file
// names) is untrusted. Each output format has its own escaping, and each one
// starts from sanitize(), so that control characters, bidirectional
// overrides and invalid UTF-8 become visible escapes before the format's own
// rules apply.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_SUPPORT_ESCAPE_H
#define TRACELINT_SUPPORT_ESCAPE_H

#include "llvm/ADT/StringRef.h"

#include <string>

namespace tracelint::support {

/// Valid UTF-8 for llvm::json (which asserts on invalid input); invalid bytes
/// become U+FFFD. Control characters are kept: JSON escapes them itself.
std::string jsonText(llvm::StringRef S);

/// Character data or an attribute value for XML 1.0: sanitized (so no
/// character that XML 1.0 forbids remains), then &, <, >, " and ' escaped.
std::string xmlText(llvm::StringRef S);

/// Markdown text that renders literally: sanitized, then every ASCII
/// punctuation character backslash-escaped, so that no emphasis, link,
/// image, HTML tag, table cell or heading can be injected.
std::string markdownText(llvm::StringRef S);

/// A Markdown code span holding \p S literally: sanitized, delimited by a
/// backtick run longer than any inside it. With \p InTable, '|' is escaped as
/// GitHub tables require even inside code spans.
std::string markdownCode(llvm::StringRef S, bool InTable = false);

/// A relative or absolute file path as a URI reference (RFC 3986): an
/// absolute path becomes a file:// URI, and every byte outside the
/// unreserved set and '/' is percent-encoded.
std::string pathToUri(llvm::StringRef Path);

} // namespace tracelint::support

#endif
