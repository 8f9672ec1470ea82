//===- tests/corpus/CorpusFiles.h - Finding the shared traces -----*- C++
//-*-===//
//
// The corpus tests read the real traces in ../shared/traces (never copied
// into the repository; TRACELINT_TRACES overrides the folder) and skip when
// the folder is absent. This header is where they find them.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_TESTS_CORPUS_CORPUSFILES_H
#define TRACELINT_TESTS_CORPUS_CORPUSFILES_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <string>
#include <vector>

namespace tracelint::corpus {

inline std::string tracesDir() {
  if (const char *Env = std::getenv("TRACELINT_TRACES"))
    return Env;
  return TRACELINT_DEFAULT_TRACES;
}

/// The files that are not traces though they look like inputs: provenance
/// notes and the corpus's deliberate non-trace.
inline bool isNotATrace(llvm::StringRef Path) {
  return Path.contains("negative-not-chrome-trace") ||
         Path.endswith("provenance.json");
}

/// Every input-looking file (.json, .gz, .sqlite), sorted; with
/// \p TracesOnly, without those isNotATrace() names.
inline std::vector<std::string> corpusFiles(bool TracesOnly = true) {
  std::vector<std::string> Files;
  std::error_code EC;
  for (llvm::sys::fs::recursive_directory_iterator It(tracesDir(), EC), End;
       It != End && !EC; It.increment(EC)) {
    llvm::StringRef P = It->path();
    if ((P.endswith(".json") || P.endswith(".gz") || P.endswith(".sqlite")) &&
        !(TracesOnly && isNotATrace(P)))
      Files.push_back(P.str());
  }
  std::sort(Files.begin(), Files.end());
  return Files;
}

/// Parameters for a per-file suite: \p Files, or one empty path when there
/// are none, so that the suite reports a skip instead of nothing.
inline std::vector<std::string> filesOrAbsent(std::vector<std::string> Files) {
  if (Files.empty())
    Files.push_back("");
  return Files;
}

/// A test name from the file name ("absent" for the empty path).
inline std::string caseName(const ::testing::TestParamInfo<std::string> &Info) {
  std::string Name = Info.param.empty()
                         ? std::string("absent")
                         : llvm::sys::path::filename(Info.param).str();
  for (char &Ch : Name)
    if (!std::isalnum(static_cast<unsigned char>(Ch)))
      Ch = '_';
  return Name + "_" + std::to_string(Info.index);
}

} // namespace tracelint::corpus

#endif
