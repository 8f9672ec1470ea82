//===- ScalarTypeSizeTest.cpp - Element sizes of recorded input types -----===//
#include "model/Trace.h"

#include "gtest/gtest.h"

using namespace tracelint;

namespace {

TEST(ScalarTypeSize, KnowsBothSpellings) {
  EXPECT_EQ(model::scalarTypeSize("Float"), 4);
  EXPECT_EQ(model::scalarTypeSize("float"), 4);
  EXPECT_EQ(model::scalarTypeSize("BFloat16"), 2);
  EXPECT_EQ(model::scalarTypeSize("c10::BFloat16"), 2);
  EXPECT_EQ(model::scalarTypeSize("long int"), 8);
  EXPECT_EQ(model::scalarTypeSize("signed char"), 1);
  EXPECT_EQ(model::scalarTypeSize("Float8_e4m3fn"), 1);
  EXPECT_EQ(model::scalarTypeSize("Quaternion"), -1);
}

} // namespace
