//===- rules/detectors/Shapes.h - Reading recorded input shapes -*- C++ -*-===//
//
// With record_shapes=True, PyTorch's profiler writes each op's arguments as
// "Input Dims" (one entry per argument: a tensor's shape, a list of shapes
// for a tensor list, [] for anything else) and "Input type". Several rules
// read them; they share one parser so that they agree on what a malformed
// text is.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_RULES_DETECTORS_SHAPES_H
#define TRACELINT_RULES_DETECTORS_SHAPES_H

#include "model/Trace.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace tracelint::rules::detect {

/// A tensor's dimensions, outermost first.
using Shape = llvm::SmallVector<int64_t, 4>;

/// One argument of an op: the shape of a tensor (one entry), the shapes of a
/// tensor list (one per tensor), or none for a scalar or another non-tensor
/// argument. A zero-dimensional tensor is recorded as [] too, so it reads
/// as no tensor.
struct ArgShapes {
  llvm::SmallVector<Shape, 1> Tensors;
  bool IsList = false; ///< recorded as a list of shapes
  /// The shape of a single-tensor argument, or nullptr.
  const Shape *tensor() const {
    return !IsList && Tensors.size() == 1 ? &Tensors[0] : nullptr;
  }
};

/// Parses an "Input Dims" text such as "[[1, 77], [], [[2, 3], [2, 5]]]".
/// std::nullopt when it is not a list of such arguments: not JSON, a
/// dimension that is negative or not an integer, or deeper nesting.
std::optional<std::vector<ArgShapes>> parseInputDims(llvm::StringRef Text);

/// The parsed "Input Dims" of \p E, or std::nullopt when it has none or
/// they cannot be read.
std::optional<std::vector<ArgShapes>> inputDims(const model::Trace &T,
                                                const model::Event &E);

/// Parses an "Input type" text (a JSON array of strings); an entry that is
/// not a string reads as "". Empty when the text is not a JSON array.
std::vector<std::string> parseInputTypes(llvm::StringRef Text);

/// The parsed "Input Dims" and "Input type" texts of a trace, each text
/// parsed once: ops repeat their shapes step after step, and a rule that
/// reads the shapes of every op of a long trace would otherwise parse the
/// same few hundred texts millions of times. One per rule run (it is not
/// shared between threads); references stay valid while it lives.
class ShapeCache {
public:
  explicit ShapeCache(const model::Trace &T) : T(T) {}
  /// parseInputDims() of the text \p Text.
  const std::optional<std::vector<ArgShapes>> &dims(model::StringId Text);
  /// parseInputTypes() of the text \p Text.
  const std::vector<std::string> &types(model::StringId Text);
  /// inputDims() of \p E.
  const std::optional<std::vector<ArgShapes>> &dimsOf(const model::Event &E);

private:
  const model::Trace &T;
  std::unordered_map<model::StringId, std::optional<std::vector<ArgShapes>>>
      Dims;
  std::unordered_map<model::StringId, std::vector<std::string>> Types;
};

/// The element count of a shape, saturating at INT64_MAX.
int64_t elementCount(llvm::ArrayRef<int64_t> S);

/// "[1, 77]".
std::string shapeText(llvm::ArrayRef<int64_t> S);

/// Whether a recorded element type is half or bfloat16 ("c10::Half",
/// "c10::BFloat16"): the types tensor cores take in 8-element tiles.
bool isReducedPrecision(llvm::StringRef Type);

/// Whether \p Op is one of ATen's softmax ops (the score-matrix pass of
/// attention written as separate ops).
bool isSoftmaxOp(llvm::StringRef Op);

} // namespace tracelint::rules::detect

#endif
