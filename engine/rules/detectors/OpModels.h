//===- rules/detectors/OpModels.h - FLOPs and bytes per op call -*- C++ -*-===//
//
// The models behind opRates() (OpRates.h): which op names tracelint counts,
// and for each the FLOPs and bytes that one call's recorded arguments imply.
// docs/efficiency.md states every convention; the models keep TraceLens's
// where it has one so that the two tools' figures can be compared.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_RULES_DETECTORS_OPMODELS_H
#define TRACELINT_RULES_DETECTORS_OPMODELS_H

#include "rules/detectors/OpRates.h"
#include "rules/detectors/Shapes.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tracelint::rules::detect {

/// The recorded arguments of one op call: "Input Dims", "Input type" and
/// "Concrete Inputs", by argument position.
class OpArgs {
public:
  OpArgs(std::vector<ArgShapes> Dims, std::vector<std::string> Types,
         std::vector<std::string> Concrete)
      : Dims(std::move(Dims)), Types(std::move(Types)),
        Concrete(std::move(Concrete)) {}

  size_t size() const { return Dims.size(); }
  /// The shape of argument \p I when it is a single tensor. A tensor of no
  /// dimensions (recorded as [] with an element type, such as the "double"
  /// that a Python number becomes) has an empty shape and one element.
  const Shape *tensor(size_t I) const;
  /// Argument \p I's recorded type ("c10::BFloat16", "Scalar"), or "".
  llvm::StringRef type(size_t I) const;
  /// The bytes of one element of tensor argument \p I; -1 when unknown.
  int64_t elementSize(size_t I) const;
  /// Whether the trace records the arguments' values ("Concrete Inputs").
  bool hasValues() const { return !Concrete.empty(); }
  /// Argument \p I's recorded value ("Concrete Inputs"), or "".
  llvm::StringRef value(size_t I) const;
  /// The value of argument \p I as an integer ("1"), or std::nullopt.
  std::optional<int64_t> integer(size_t I) const;
  /// The value of argument \p I as a bool ("True", "False"), or
  /// std::nullopt.
  std::optional<bool> boolean(size_t I) const;
  /// The value of argument \p I as a list of integers ("[16, 16]"; a single
  /// integer reads as a list of one), or std::nullopt.
  std::optional<Shape> integers(size_t I) const;

private:
  std::vector<ArgShapes> Dims;
  std::vector<std::string> Types;
  std::vector<std::string> Concrete;
};

/// What one call's arguments imply, before any timing.
struct OpWork {
  OpCategory Category = OpCategory::Gemm;
  std::string Dtype;
  std::vector<std::pair<std::string, int64_t>> Params;
  double Flops = 0, Bytes = 0;
};

/// How an op's calls are counted when modelled ops nest.
enum class OpRole : uint8_t {
  /// Counted unless a counted call encloses it: the op TraceLens reports
  /// (aten::addmm, aten::convolution, aten::layer_norm, aten::copy_).
  Primary,
  /// A composite counted only when no modelled op below it can be
  /// (aten::linear, aten::matmul, aten::scaled_dot_product_attention,
  /// aten::to): its work is normally its children's.
  Composite,
};

struct OpModel;
/// Fills \p W from \p A; false when the arguments do not fit the model.
using OpWorkFn = bool (*)(const OpModel &M, const OpArgs &A, OpWork &W);

/// One modelled op name.
struct OpModel {
  llvm::StringRef Name;
  OpCategory Category;
  OpRole Role;
  OpWorkFn Work;
  /// Which of its category's argument layouts the op has (the model
  /// function's own table).
  int Form = 0;
};

/// Every op name tracelint models.
llvm::ArrayRef<OpModel> opModels();

/// Applies \p M to \p A; std::nullopt when the arguments do not fit.
std::optional<OpWork> modelOp(const OpModel &M, const OpArgs &A);

// The category models (MatrixOpModels.cpp and MemoryOpModels.cpp).
bool gemmWork(const OpModel &M, const OpArgs &A, OpWork &W);
bool convWork(const OpModel &M, const OpArgs &A, OpWork &W);
bool attentionWork(const OpModel &M, const OpArgs &A, OpWork &W);
bool elementwiseWork(const OpModel &M, const OpArgs &A, OpWork &W);
bool normalizationWork(const OpModel &M, const OpArgs &A, OpWork &W);
bool reductionWork(const OpModel &M, const OpArgs &A, OpWork &W);

/// The element type PyTorch gives the result of an elementwise op over the
/// tensors \p Inputs (argument positions of \p A): the highest kind (bool,
/// integer, floating) among tensors with dimensions, the widest type within
/// it (two different 2-byte floats give float); a tensor without
/// dimensions decides only when its kind is higher.
std::string resultType(const OpArgs &A, llvm::ArrayRef<size_t> Inputs);

/// \p S with each axis broadcast against \p T's (numpy rules, aligned at
/// the last axis); std::nullopt when two sizes differ and neither is 1.
std::optional<Shape> broadcastShapes(llvm::ArrayRef<int64_t> S,
                                     llvm::ArrayRef<int64_t> T);

} // namespace tracelint::rules::detect

#endif
