//===- support/Lazy.h - A value computed once, on first use -----*- C++ -*-===//
//
// The trace index computes its costlier facts only when a reader asks for
// them, and the rules read the index from several threads at once: a Lazy
// value is made exactly once, by whichever thread asks first, and every
// other thread waits for it and then reads the same object.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_SUPPORT_LAZY_H
#define TRACELINT_SUPPORT_LAZY_H

#include <mutex>
#include <optional>
#include <utility>

namespace tracelint::support {

template <typename T> class Lazy {
public:
  /// The value, made by \p Make() on the first call from any thread.
  template <typename MakeFn> const T &get(MakeFn &&Make) const {
    std::call_once(Once, [&] { Value.emplace(std::forward<MakeFn>(Make)()); });
    return *Value;
  }

private:
  mutable std::once_flag Once;
  mutable std::optional<T> Value;
};

} // namespace tracelint::support

#endif
