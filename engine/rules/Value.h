//===- rules/Value.h - A typed value for a rule's texts ---------*- C++ -*-===//
//
// What a detector measures goes into a finding as a typed value (a duration,
// a share, a size, a count, a number or text), not as pre-formatted text:
// the JSON and SARIF reports carry the number, and the text of a rule's
// {placeholders} is written by support/Format.h, the one formatter every
// report uses, so that a duration reads the same everywhere.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_RULES_VALUE_H
#define TRACELINT_RULES_VALUE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <ostream>
#include <string>

namespace tracelint::rules {

class Value {
public:
  enum class Type : uint8_t {
    Text,     ///< names, sentences
    Duration, ///< ns
    Share,    ///< a fraction, shown as a percentage
    Bytes,    ///< a size in bytes
    Count,    ///< a whole number of things
    Number,   ///< any other number (a ratio, a factor)
  };

  Value() = default;
  Value(std::string Text) : Text(std::move(Text)) {}
  Value(const char *Text) : Text(Text) {}
  Value(llvm::StringRef Text) : Text(Text.str()) {}

  static Value duration(int64_t Ns) { return {Type::Duration, Ns, 0}; }
  static Value share(double Fraction) { return {Type::Share, 0, Fraction}; }
  static Value bytes(int64_t Bytes) { return {Type::Bytes, Bytes, 0}; }
  static Value count(int64_t N) { return {Type::Count, N, 0}; }
  /// A number written with \p Decimals decimals: number(2.54, 1) is "2.5".
  static Value number(double X, unsigned Decimals = 2) {
    Value V(Type::Number, 0, X);
    V.Decimals = uint8_t(Decimals);
    return V;
  }

  Type type() const { return Kind; }
  bool isText() const { return Kind == Type::Text; }
  /// Durations, sizes and counts.
  int64_t integer() const { return Int; }
  /// Shares and numbers.
  double real() const { return Real; }
  /// The decimals a Number is written with.
  unsigned decimals() const { return Decimals; }
  /// The text of a Text value.
  const std::string &str() const { return Text; }

  /// As the reports show it: "1.75 ms", "17.5 %", "1.5 MB", "3", "2.5".
  std::string text() const;

  /// Tests compare a value with what a report would show.
  friend bool operator==(const Value &V, llvm::StringRef S) {
    return V.text() == S;
  }
  friend bool operator==(const Value &V, const char *S) {
    return V.text() == S;
  }
  friend bool operator==(const Value &V, const std::string &S) {
    return V.text() == S;
  }
  friend bool operator==(const Value &A, const Value &B) {
    return A.Kind == B.Kind && A.Int == B.Int && A.Real == B.Real &&
           A.Decimals == B.Decimals && A.Text == B.Text;
  }
  friend std::ostream &operator<<(std::ostream &OS, const Value &V) {
    return OS << V.text();
  }

private:
  Value(Type K, int64_t I, double R) : Kind(K), Int(I), Real(R) {}
  Type Kind = Type::Text;
  int64_t Int = 0;
  double Real = 0;
  uint8_t Decimals = 2;
  std::string Text;
};

/// "text", "duration", "share", "bytes", "count", "number".
llvm::StringRef valueTypeName(Value::Type T);

} // namespace tracelint::rules

/// Lets a Value stand in llvm::formatv: formatv("{0} per step", V).
template <> struct llvm::format_provider<tracelint::rules::Value> {
  static void format(const tracelint::rules::Value &V, llvm::raw_ostream &OS,
                     llvm::StringRef) {
    OS << V.text();
  }
};

#endif
