//===- report/JsonSupport.cpp ---------------------------------------------===//
#include "report/JsonSupport.h"

#include "support/Escape.h"

#include "llvm/Support/FormatVariadic.h"

using namespace tracelint;
using namespace tracelint::report;
using rules::Value;

std::string report::roundedNumber(double V) {
  std::string S = llvm::formatv("{0:F6}", V).str();
  while (S.size() > 1 && S.back() == '0')
    S.pop_back();
  if (S.back() == '.')
    S.pop_back();
  return S;
}

void report::writeRounded(llvm::json::OStream &J, llvm::StringRef Key,
                          double V) {
  J.attributeBegin(Key);
  J.rawValue(roundedNumber(V));
  J.attributeEnd();
}

void report::writeValues(llvm::json::OStream &J, llvm::StringRef Key,
                         const std::map<std::string, Value> &Values) {
  J.attributeObject(Key, [&] {
    for (const auto &[Name, V] : Values)
      J.attributeObject(support::jsonText(Name), [&] {
        switch (V.type()) {
        case Value::Type::Text:
          J.attribute("text", support::jsonText(V.str()));
          return;
        case Value::Type::Duration:
          J.attribute("ns", V.integer());
          break;
        case Value::Type::Bytes:
          J.attribute("bytes", V.integer());
          break;
        case Value::Type::Count:
          J.attribute("count", V.integer());
          break;
        case Value::Type::Share:
          writeRounded(J, "share", V.real());
          break;
        case Value::Type::Number:
          writeRounded(J, "number", V.real());
          break;
        }
        J.attribute("text", V.text());
      });
  });
}
