//===- tests/corpus/CorpusCatalogue.h - The built-in rules, once --*- C++
//-*-===//
#ifndef TRACELINT_TESTS_CORPUS_CORPUSCATALOGUE_H
#define TRACELINT_TESTS_CORPUS_CORPUSCATALOGUE_H

#include "rules/Catalogue.h"

#include <gtest/gtest.h>

namespace tracelint::corpus {

/// The built-in catalogue, loaded once per test program; a load failure
/// fails the test that asked first.
inline const rules::Catalogue &catalogue() {
  static rules::Catalogue C = [] {
    auto B = rules::Catalogue::builtin();
    if (!B) {
      ADD_FAILURE() << llvm::toString(B.takeError());
      return rules::Catalogue();
    }
    return std::move(*B);
  }();
  return C;
}

} // namespace tracelint::corpus

#endif
