//===- support/Count.h - Counts of things in words --------------*- C++ -*-===//
//
// Every report that writes "N things" goes through here, so that one copy
// is "1 copy", never "1 copies" or "1.0 copies", and a per-step median of a
// count reads "1.5 copies" but "2 copies".
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_SUPPORT_COUNT_H
#define TRACELINT_SUPPORT_COUNT_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>

namespace tracelint::support {

/// \p N things: "1 kernel", "0 kernels", "3 kernels". \p Plural defaults to
/// \p Singular + "s" (give it for "copy", "copies").
std::string formatCount(int64_t N, llvm::StringRef Singular,
                        llvm::StringRef Plural = {});

/// A count that may be a median or a mean: a whole number without decimals
/// ("2 copies", "1 copy"), any other with one ("1.5 copies").
std::string formatAverageCount(double N, llvm::StringRef Singular,
                               llvm::StringRef Plural = {});

/// The noun alone, for "3 of 4 ranks" and the like: \p Singular for one
/// thing, else \p Plural (default \p Singular + "s").
std::string pluralNoun(double N, llvm::StringRef Singular,
                       llvm::StringRef Plural = {});

} // namespace tracelint::support

#endif
