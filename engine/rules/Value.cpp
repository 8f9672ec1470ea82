//===- rules/Value.cpp ----------------------------------------------------===//
#include "rules/Value.h"

#include "support/Format.h"

#include "llvm/Support/Format.h"

using namespace tracelint;
using namespace tracelint::rules;

std::string Value::text() const {
  switch (Kind) {
  case Type::Text:
    return Text;
  case Type::Duration:
    return support::formatDuration(Int);
  case Type::Share:
    return support::formatShare(Real);
  case Type::Bytes:
    return support::formatBytes(Int);
  case Type::Count:
    return std::to_string(Int);
  case Type::Number:
    return llvm::formatv("{0}", llvm::format("%.*f", int(Decimals), Real))
        .str();
  }
  return Text;
}

llvm::StringRef rules::valueTypeName(Value::Type T) {
  switch (T) {
  case Value::Type::Text:
    return "text";
  case Value::Type::Duration:
    return "duration";
  case Value::Type::Share:
    return "share";
  case Value::Type::Bytes:
    return "bytes";
  case Value::Type::Count:
    return "count";
  case Value::Type::Number:
    return "number";
  }
  return "text";
}
