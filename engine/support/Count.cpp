//===- support/Count.cpp --------------------------------------------------===//
#include "support/Count.h"

#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace tracelint;

/// \p N with one decimal, or none when that decimal is 0.
static std::string averageText(double N) {
  std::string S = llvm::formatv("{0:f1}", N).str();
  if (llvm::StringRef(S).endswith(".0"))
    S.resize(S.size() - 2);
  return S == "-0" ? "0" : S;
}

std::string support::pluralNoun(double N, llvm::StringRef Singular,
                                llvm::StringRef Plural) {
  if (averageText(N) == "1")
    return Singular.str();
  return Plural.empty() ? Singular.str() + "s" : Plural.str();
}

std::string support::formatCount(int64_t N, llvm::StringRef Singular,
                                 llvm::StringRef Plural) {
  return std::to_string(N) + " " +
         (N == 1 ? Singular.str() : pluralNoun(double(N), Singular, Plural));
}

std::string support::formatAverageCount(double N, llvm::StringRef Singular,
                                        llvm::StringRef Plural) {
  return averageText(N) + " " + pluralNoun(N, Singular, Plural);
}
