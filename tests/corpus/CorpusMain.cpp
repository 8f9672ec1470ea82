//===- tests/corpus/CorpusMain.cpp - main() of the corpus tests ----------===//
//
// The corpus tests skip (GTEST_SKIP) when ../shared/traces is absent, but a
// gtest binary whose every test skipped still exits 0, and CTest would say
// "Passed" for a run that checked nothing. This main exits 77 instead when
// nothing ran and nothing failed: the tests' SKIP_RETURN_CODE, so that
// CTest reports them as skipped (tests/corpus/CMakeLists.txt).
//
//===----------------------------------------------------------------------===//
#include <gtest/gtest.h>

int main(int Argc, char **Argv) {
  ::testing::InitGoogleTest(&Argc, Argv);
  int Rc = RUN_ALL_TESTS();
  const ::testing::UnitTest &Run = *::testing::UnitTest::GetInstance();
  if (Rc == 0 && Run.successful_test_count() == 0 &&
      Run.skipped_test_count() > 0)
    return 77;
  return Rc;
}
