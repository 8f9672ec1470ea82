//===- model/StringPool.cpp -----------------------------------------------===//
#include "model/StringPool.h"

using namespace tracelint::model;

StringPool::StringPool() { intern(""); }

StringId StringPool::intern(llvm::StringRef S) {
  auto [It, Inserted] =
      Index.try_emplace(S, static_cast<StringId>(Strings.size()));
  if (Inserted) {
    Strings.push_back(It->getKey());
    CharBytes += S.size();
  }
  return It->getValue();
}

std::optional<StringId> StringPool::find(llvm::StringRef S) const {
  auto It = Index.find(S);
  if (It == Index.end())
    return std::nullopt;
  return It->getValue();
}
