//===- tests/corpus/PathCorpusTest.cpp - The critical path on real traces -===//
//
// Over every trace in ../shared/traces:
//  - on every trace with device activity some step (or the window) has a
//    path, and every path's length equals its target interval: the graph's
//    weights reproduce the recorded timeline;
//  - the categories of the analysed path sum to its length, and no what-if
//    predicts a gain larger than the path or a negative one;
//  - hta-critical-path-a100/simple_add (PARAM AlexNet; the README: the
//    first aten::to takes 25-30 s of CUDA initialisation, one cudaFree
//    5-6 s) is host-bound: host work other than submitting holds most of
//    the window's path, the device's categories a tiny share, and removing
//    that host work would shorten it by most of its length.
// The test skips when the folder is absent; TRACELINT_TRACES overrides it.
//
//===----------------------------------------------------------------------===//
#include "CorpusFiles.h"
#include "analysis/PathAnalysis.h"
#include "analysis/TraceIndex.h"
#include "import/Import.h"

#include "llvm/Support/FileSystem.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <string>
#include <vector>

using namespace tracelint;
using corpus::corpusFiles;
using corpus::tracesDir;
using namespace tracelint::analysis;

TEST(PathCorpusTest, PathEqualsTargetOnEveryTrace) {
  auto Files = corpusFiles();
  if (Files.empty())
    GTEST_SKIP() << "no traces under " << tracesDir();
  size_t WithDevice = 0;
  for (const std::string &F : Files) {
    SCOPED_TRACE(F);
    auto T = import::importTraceFile(F, {});
    if (!T) {
      llvm::consumeError(T.takeError());
      continue; // rejected inputs are the importer's tests
    }
    TraceIndex C(*T);
    PathModel M(C);
    PathAnalysis A = M.analyze({});
    size_t Paths = 0;
    for (size_t I = 0; I < A.Targets.size(); ++I) {
      const TargetInterval &X = A.Targets[I];
      if (X.LastWork == model::NoIndex)
        continue;
      ++Paths;
      EXPECT_EQ(A.Lengths[I], X.length()) << "target " << I;
    }
    if (!C.hasDeviceActivity())
      continue;
    ++WithDevice;
    EXPECT_GT(Paths, 0u);
    ASSERT_TRUE(A.Path.HasPath);
    int64_t Sum = std::accumulate(A.Path.ByCategory.begin(),
                                  A.Path.ByCategory.end(), int64_t(0));
    EXPECT_EQ(Sum, A.Path.LengthNs);
    for (const WhatIfResult &R : A.WhatIfs) {
      EXPECT_GE(R.GainNs, 0);
      EXPECT_LE(R.GainNs, A.Path.LengthNs) << R.Query.describe();
    }
  }
  EXPECT_GT(WithDevice, 30u);
}

TEST(PathCorpusTest, SimpleAddIsHostBound) {
  std::string F;
  for (const std::string &P : corpusFiles())
    if (llvm::StringRef(P).contains("hta-critical-path-a100/simple_add/"))
      F = P;
  if (F.empty())
    GTEST_SKIP() << "hta-critical-path-a100/simple_add not found";
  auto T = import::importTraceFile(F, {});
  ASSERT_TRUE(bool(T)) << llvm::toString(T.takeError());
  TraceIndex C(*T);
  PathModel M(C);
  PathAnalysis A = M.analyze({});
  ASSERT_TRUE(A.Path.HasPath);
  int64_t Len = A.Path.LengthNs;
  // The host holds the path, and most of it is start-up: the process's
  // first runtime calls create the CUDA context (tens of seconds, however
  // the call is named).
  int64_t Startup = A.Path.ByCategory[unsigned(PathCategory::Startup)];
  int64_t Device = 0;
  for (unsigned I = 0; I < NumPathCategories; ++I)
    if (isDeviceCategory(PathCategory(I)))
      Device += A.Path.ByCategory[I];
  EXPECT_GT(Startup, Len / 2);
  EXPECT_LT(Device, Len / 100);
  WhatIfQuery Q;
  Q.Categories.set(unsigned(PathCategory::Startup));
  EXPECT_GT(M.medianGain(Q), Len / 2);
  Q = {};
  Q.Categories.set(unsigned(PathCategory::Compute));
  EXPECT_LT(M.medianGain(Q), Len / 100);
}
