//===- rules/detectors/Shapes.cpp - Reading recorded input shapes ---------===//
#include "rules/detectors/Shapes.h"

#include "llvm/Support/JSON.h"

#include <limits>

using namespace tracelint;
using namespace tracelint::rules;
using namespace tracelint::rules::detect;

namespace {

/// Reads a JSON array of non-negative integers into \p Out.
bool readShape(const llvm::json::Array &A, Shape &Out) {
  for (const llvm::json::Value &D : A) {
    llvm::Optional<int64_t> N = D.getAsInteger();
    if (!N || *N < 0)
      return false;
    Out.push_back(*N);
  }
  return true;
}

} // namespace

std::optional<std::vector<ArgShapes>>
detect::parseInputDims(llvm::StringRef Text) {
  llvm::Expected<llvm::json::Value> V = llvm::json::parse(Text);
  if (!V) {
    llvm::consumeError(V.takeError());
    return std::nullopt;
  }
  const llvm::json::Array *Outer = V->getAsArray();
  if (!Outer)
    return std::nullopt;
  std::vector<ArgShapes> Args;
  Args.reserve(Outer->size());
  for (const llvm::json::Value &Arg : *Outer) {
    const llvm::json::Array *A = Arg.getAsArray();
    if (!A)
      return std::nullopt;
    ArgShapes &Out = Args.emplace_back();
    if (A->empty())
      continue; // a scalar or another non-tensor argument
    if (!(*A)[0].getAsArray()) {
      if (!readShape(*A, Out.Tensors.emplace_back()))
        return std::nullopt;
      continue;
    }
    Out.IsList = true;
    for (const llvm::json::Value &T : *A) {
      const llvm::json::Array *S = T.getAsArray();
      if (!S || !readShape(*S, Out.Tensors.emplace_back()))
        return std::nullopt;
    }
  }
  return Args;
}

std::optional<std::vector<ArgShapes>> detect::inputDims(const model::Trace &T,
                                                        const model::Event &E) {
  const model::EventArgs *A = T.args(E);
  if (!A || A->InputDims == model::EmptyString)
    return std::nullopt;
  return parseInputDims(T.Strings.get(A->InputDims));
}

const std::optional<std::vector<ArgShapes>> &
ShapeCache::dims(model::StringId Text) {
  auto [It, New] = Dims.try_emplace(Text);
  if (New)
    It->second = parseInputDims(T.Strings.get(Text));
  return It->second;
}

const std::vector<std::string> &ShapeCache::types(model::StringId Text) {
  auto [It, New] = Types.try_emplace(Text);
  if (New)
    It->second = parseInputTypes(T.Strings.get(Text));
  return It->second;
}

const std::optional<std::vector<ArgShapes>> &
ShapeCache::dimsOf(const model::Event &E) {
  static const std::optional<std::vector<ArgShapes>> None;
  const model::EventArgs *A = T.args(E);
  if (!A || A->InputDims == model::EmptyString)
    return None;
  return dims(A->InputDims);
}

std::vector<std::string> detect::parseInputTypes(llvm::StringRef Text) {
  std::vector<std::string> Out;
  llvm::Expected<llvm::json::Value> V = llvm::json::parse(Text);
  if (!V) {
    llvm::consumeError(V.takeError());
    return Out;
  }
  if (const llvm::json::Array *A = V->getAsArray())
    for (const llvm::json::Value &X : *A)
      Out.push_back(X.getAsString() ? X.getAsString()->str() : "");
  return Out;
}

int64_t detect::elementCount(llvm::ArrayRef<int64_t> S) {
  constexpr int64_t Max = std::numeric_limits<int64_t>::max();
  int64_t N = 1;
  for (int64_t D : S) {
    if (D == 0)
      return 0;
    N = N > Max / D ? Max : N * D;
  }
  return N;
}

std::string detect::shapeText(llvm::ArrayRef<int64_t> S) {
  std::string Out = "[";
  for (size_t I = 0; I < S.size(); ++I)
    Out += (I ? ", " : "") + std::to_string(S[I]);
  return Out + "]";
}

bool detect::isReducedPrecision(llvm::StringRef Type) {
  return Type.contains("Half") || Type.contains("BFloat16") ||
         Type.contains("half") || Type.contains("bfloat16");
}

bool detect::isSoftmaxOp(llvm::StringRef Op) {
  return Op == "aten::softmax" || Op == "aten::_softmax" ||
         Op == "aten::_safe_softmax" || Op == "aten::special_softmax";
}
