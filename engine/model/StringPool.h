//===- model/StringPool.h - Interned strings --------------------*- C++ -*-===//
//
// Event names, categories and argument texts repeat millions of times in a
// trace; the model stores each distinct string once and refers to it by a
// 32-bit id. Id 0 is always the empty string.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_MODEL_STRINGPOOL_H
#define TRACELINT_MODEL_STRINGPOOL_H

#include "llvm/ADT/CachedHashString.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Allocator.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace tracelint::model {

using StringId = uint32_t;
constexpr StringId EmptyString = 0;

class StringPool {
public:
  StringPool();
  StringPool(const StringPool &) = delete;
  StringPool &operator=(const StringPool &) = delete;
  StringPool(StringPool &&) = default;
  StringPool &operator=(StringPool &&) = default;

  /// Returns the id of \p S, adding it on first sight.
  StringId intern(llvm::StringRef S);
  /// Returns the id of \p S if it was interned, or std::nullopt.
  std::optional<StringId> find(llvm::StringRef S) const;
  llvm::StringRef get(StringId Id) const { return Strings[Id]; }
  size_t size() const { return Strings.size(); }
  /// Bytes held by the string characters themselves (not the index).
  size_t characterBytes() const { return CharBytes; }

private:
  // CachedHashStringRef hashes with llvm::hash_value, which is much faster on
  // long kernel names than the byte-at-a-time hash of LLVM 14's StringMap.
  llvm::DenseMap<llvm::CachedHashStringRef, StringId> Index;
  llvm::BumpPtrAllocator Storage;
  std::vector<llvm::StringRef> Strings;
  size_t CharBytes = 0;
};

} // namespace tracelint::model

#endif
