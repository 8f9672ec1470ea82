//===- model/StringPool.cpp -----------------------------------------------===//
#include "model/StringPool.h"

#include <cstring>

using namespace tracelint::model;

StringPool::StringPool() { intern(""); }

StringId StringPool::intern(llvm::StringRef S) {
  llvm::CachedHashStringRef Key(S);
  auto It = Index.find(Key);
  if (It != Index.end())
    return It->second;
  char *Copy = Storage.Allocate<char>(S.size() + 1);
  if (!S.empty())
    std::memcpy(Copy, S.data(), S.size());
  Copy[S.size()] = '\0';
  llvm::StringRef Owned(Copy, S.size());
  StringId Id = static_cast<StringId>(Strings.size());
  Index.try_emplace(llvm::CachedHashStringRef(Owned, Key.hash()), Id);
  Strings.push_back(Owned);
  CharBytes += S.size();
  return Id;
}

std::optional<StringId> StringPool::find(llvm::StringRef S) const {
  auto It = Index.find(llvm::CachedHashStringRef(S));
  if (It == Index.end())
    return std::nullopt;
  return It->second;
}
