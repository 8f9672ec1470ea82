//===- ConcreteInputsImportTest.cpp - An op's recorded argument values ----===//
//
// The Kineto importer keeps an op's "Concrete Inputs" in its Detail text
// when they record a value, drops an array of empty strings, and lets a
// collective's name keep the field.
//
//===----------------------------------------------------------------------===//
#include "import/Import.h"

#include "gtest/gtest.h"

using namespace tracelint;

namespace {

/// The Detail text of the op named \p Name in \p T, or "(none)".
std::string detailOfOp(const model::Trace &T, llvm::StringRef Name) {
  for (const model::Event &E : T.Events)
    if (E.Kind == model::EventKind::Op && T.name(E) == Name) {
      const model::EventArgs *A = T.args(E);
      return A && A->Detail != model::EmptyString
                 ? T.Strings.get(A->Detail).str()
                 : "(none)";
    }
  return "(no such op)";
}

TEST(ConcreteInputsImport, KeptWhenTheyRecordAValue) {
  auto T = import::importTraceBytes("ops.json", R"json({"traceEvents": [
{"ph": "X", "cat": "cpu_op", "name": "aten::mean", "pid": 1, "tid": 1, "ts": 10, "dur": 4,
 "args": {"Input Dims": [[4, 8], [], [], []], "Input type": ["float", "ScalarList", "Scalar", ""],
          "Concrete Inputs": ["", "[-1]", "True", ""]}},
{"ph": "X", "cat": "cpu_op", "name": "aten::mul", "pid": 1, "tid": 1, "ts": 20, "dur": 4,
 "args": {"Input Dims": [[4, 8], [4, 8]], "Input type": ["float", "float"],
          "Concrete Inputs": ["", ""]}},
{"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": 1, "tid": 1, "ts": 30, "dur": 4,
 "args": {"Collective name": "allreduce", "Concrete Inputs": ["", "7", ""]}}
]})json");
  ASSERT_TRUE(bool(T)) << llvm::toString(T.takeError());
  EXPECT_EQ(detailOfOp(*T, "aten::mean"), R"(["", "[-1]", "True", ""])");
  EXPECT_EQ(detailOfOp(*T, "aten::mul"), "(none)");
  EXPECT_EQ(detailOfOp(*T, "record_param_comms"), "allreduce");
}

} // namespace
