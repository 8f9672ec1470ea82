//===- UnitTestTimes.h - Time units for traces built in unit tests -*- C++
//-*-===//
//
// One definition of the units the tests lay out their timelines in. The
// unit tests are compiled as a unity build (tests/unit/CMakeLists.txt), so
// a constant that each file defined for itself would be defined twice in
// one translation unit.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_TESTS_UNIT_UNITTESTTIMES_H
#define TRACELINT_TESTS_UNIT_UNITTESTTIMES_H

#include <cstdint>

namespace tracelint::testing {

constexpr int64_t Us = 1000;
constexpr int64_t Ms = 1000 * Us;

} // namespace tracelint::testing

#endif
