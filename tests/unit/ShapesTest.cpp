//===- tests/unit/ShapesTest.cpp - Parsing recorded input shapes ----------===//
#include "rules/detectors/Shapes.h"

#include "model/TraceBuilder.h"

#include "gtest/gtest.h"

using namespace tracelint::rules::detect;

namespace {

TEST(ShapesTest, TensorsScalarsAndLists) {
  auto Args = parseInputDims("[[1, 77], [], [[2, 3], [2, 5]], [[]]]");
  ASSERT_TRUE(Args);
  ASSERT_EQ(Args->size(), 4u);
  ASSERT_NE((*Args)[0].tensor(), nullptr);
  EXPECT_EQ(shapeText(*(*Args)[0].tensor()), "[1, 77]");
  EXPECT_TRUE((*Args)[1].Tensors.empty());
  EXPECT_EQ((*Args)[1].tensor(), nullptr);
  EXPECT_TRUE((*Args)[2].IsList);
  EXPECT_EQ((*Args)[2].tensor(), nullptr);
  ASSERT_EQ((*Args)[2].Tensors.size(), 2u);
  EXPECT_EQ(shapeText((*Args)[2].Tensors[1]), "[2, 5]");
  // A list holding one zero-dimensional tensor.
  EXPECT_TRUE((*Args)[3].IsList);
  ASSERT_EQ((*Args)[3].Tensors.size(), 1u);
  EXPECT_TRUE((*Args)[3].Tensors[0].empty());
}

TEST(ShapesTest, MalformedTextIsRejectedNotGuessed) {
  for (const char *Bad : {"", "[", "{}", "[1, 2]", "[[1, -2]]", "[[1.5]]",
                          "[[\"a\"]]", "[[[[1]]]]", "[[[1], 2]]", "[[1, [2]]]"})
    EXPECT_FALSE(parseInputDims(Bad)) << Bad;
  auto Empty = parseInputDims("[]");
  ASSERT_TRUE(Empty);
  EXPECT_TRUE(Empty->empty());
}

TEST(ShapesTest, ElementCountSaturates) {
  EXPECT_EQ(elementCount({}), 1);
  EXPECT_EQ(elementCount({2, 3, 4}), 24);
  EXPECT_EQ(elementCount({4, 0, 5}), 0);
  EXPECT_EQ(elementCount({int64_t(1) << 40, int64_t(1) << 40}), INT64_MAX);
}

TEST(ShapesTest, InputTypes) {
  auto Types = parseInputTypes("[\"float\", \"\", 3, \"c10::Half\"]");
  ASSERT_EQ(Types.size(), 4u);
  EXPECT_EQ(Types[0], "float");
  EXPECT_EQ(Types[2], "");
  EXPECT_EQ(Types[3], "c10::Half");
  EXPECT_TRUE(parseInputTypes("not json").empty());
}

TEST(ShapesTest, TheCacheReadsWhatTheParsersRead) {
  // Ops sharing texts, one with malformed dims, one without arguments: the
  // cache gives each what parseInputDims/parseInputTypes/inputDims give.
  tracelint::model::TraceBuilder B;
  uint32_t L = B.lane(1, 1);
  const char *DimsTexts[] = {"[[2, 3], []]", "[[4]]", "[[1, -2]]", "nonsense"};
  const char *TypeTexts[] = {"[\"float\", \"Scalar\"]", "[]", "{}"};
  for (int I = 0; I < 24; ++I) {
    tracelint::model::Event E;
    E.Lane = L;
    E.Kind = tracelint::model::EventKind::Op;
    E.Name = B.strings().intern("op");
    E.Start = 10 * I;
    E.Duration = 5;
    tracelint::model::EventArgs A;
    A.InputDims = B.strings().intern(DimsTexts[I % 4]);
    A.InputTypes = B.strings().intern(TypeTexts[I % 3]);
    B.addEvent(E, I % 5 == 4 ? nullptr : &A);
  }
  tracelint::model::Trace T = B.finish();
  ShapeCache Cache(T);
  auto Text = [](const std::optional<std::vector<ArgShapes>> &D) {
    if (!D)
      return std::string("none");
    std::string S;
    for (const ArgShapes &A : *D) {
      S += A.IsList ? "L(" : "(";
      for (const Shape &X : A.Tensors)
        S += shapeText(X);
      S += ")";
    }
    return S;
  };
  for (int Round = 0; Round < 2; ++Round) // parsed, then from the cache
    for (const tracelint::model::Event &E : T.Events) {
      if (E.Kind != tracelint::model::EventKind::Op)
        continue;
      EXPECT_EQ(Text(Cache.dimsOf(E)), Text(inputDims(T, E)));
      if (const tracelint::model::EventArgs *A = T.args(E)) {
        EXPECT_EQ(Text(Cache.dims(A->InputDims)),
                  Text(parseInputDims(T.Strings.get(A->InputDims))));
        EXPECT_EQ(Cache.types(A->InputTypes),
                  parseInputTypes(T.Strings.get(A->InputTypes)));
      }
    }
}

} // namespace
