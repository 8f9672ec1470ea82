//===- rules/GrowingKvCacheCatTest.cpp - M007 growing concatenated cache --===//
#include "../DetectorTestSupport.h"

#include "llvm/Support/FormatVariadic.h"

#include "gtest/gtest.h"

using namespace tracelint;
using namespace tracelint::testing;
using analysis::TraceIndex;

namespace {

/// Token k (h = k x 200 us) runs, per layer (2), an aten::cat [h + 100l,
/// +10) us with the "Input Dims" text \p Dims(k) (null: no shapes) whose
/// 30 us copy kernel runs at [h + 100l + 5, +30), then a 50 us gemm at
/// [h + 100l + 40, +50). The window is [0, 200 x tokens - 10) us: 2 x 30 us
/// of appends per token.
template <typename DimsFn>
model::Trace decode(int Tokens, DimsFn Dims,
                    llvm::StringRef CatName = "aten::cat") {
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  for (int K = 0; K < Tokens; ++K)
    for (int L = 0; L < 2; ++L) {
      int64_t T0 = K * 200 * Us + L * 100 * Us;
      model::EventArgs A;
      std::string D = Dims(K);
      if (!D.empty())
        A.InputDims = M.B.strings().intern(D);
      M.add(M.Host, model::EventKind::Op, CatName, T0, T0 + 10 * Us, 0,
            D.empty() ? nullptr : &A);
      M.launch(S, "CatArrayBatchedCopy", T0 + 2 * Us, T0 + 4 * Us, T0 + 5 * Us,
               T0 + 35 * Us);
      M.op("aten::mm", T0 + 38 * Us, T0 + 45 * Us);
      M.launch(S, "gemm", T0 + 39 * Us, T0 + 40 * Us, T0 + 40 * Us,
               T0 + 90 * Us);
    }
  return M.finish();
}

std::string appendDims(int K) {
  return llvm::formatv("[[[1, 8, {0}, 64], [1, 8, 1, 64]], []]", 16 + K).str();
}

TEST(GrowingCatDetector, FiresOnAppendsThatGrowByOneToken) {
  model::Trace T = decode(10, appendDims);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("M007", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  const rules::Detection &D = Out.front();
  EXPECT_EQ(D.Values.at("calls"), "20");
  EXPECT_EQ(D.Values.at("levels"), "10");
  EXPECT_EQ(D.Values.at("growth"), "1");
  EXPECT_EQ(D.Values.at("dim"), "2");
  EXPECT_EQ(D.Values.at("per_level"), "2");
  EXPECT_EQ(D.Values.at("first_shape"), "[1, 8, 17, 64]");
  EXPECT_EQ(D.Values.at("last_shape"), "[1, 8, 26, 64]");
  EXPECT_EQ(D.Values.at("first_inputs"), "[1, 8, 16, 64] + [1, 8, 1, 64]");
  EXPECT_EQ(D.Subject, "aten::cat [1, 8, *, 64]");
  // No steps: the window is the target; 20 copies of 30 us, disjoint.
  EXPECT_EQ(D.ImpactNs, 600 * Us);
  ASSERT_EQ(D.PathQuery.Names.size(), 1u);
  EXPECT_EQ(D.PathQuery.Names.front(), "CatArrayBatchedCopy");
}

TEST(GrowingCatDetector, OneStepPerTokenMeasuresTheMedianStep) {
  // prof.step() once per token: each 200 us token is a step. Steps 2-10
  // are measured; each holds 2 appends of 30 us: 60 us per step. A growing
  // attention mask, [1, 16+k] + [1, 1], is a second run of one call per
  // size; the cache run (2 calls per size) speaks for the finding.
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  for (int K = 0; K < 10; ++K) {
    int64_t H = K * 200 * Us;
    M.step(K + 1, H, H + 200 * Us);
    for (int L = 0; L < 2; ++L) {
      int64_t T0 = H + L * 100 * Us;
      model::EventArgs A;
      A.InputDims = M.B.strings().intern(appendDims(K));
      M.add(M.Host, model::EventKind::Op, "aten::cat", T0, T0 + 10 * Us, 0, &A);
      M.launch(S, "CatArrayBatchedCopy", T0 + 2 * Us, T0 + 4 * Us, T0 + 5 * Us,
               T0 + 35 * Us);
    }
    model::EventArgs Mask;
    Mask.InputDims = M.B.strings().intern(
        llvm::formatv("[[[1, {0}], [1, 1]], []]", 16 + K).str());
    M.add(M.Host, model::EventKind::Op, "aten::cat", H + 150 * Us, H + 160 * Us,
          0, &Mask);
    M.launch(S, "CatArrayBatchedCopy", H + 152 * Us, H + 154 * Us, H + 155 * Us,
             H + 157 * Us);
  }
  model::Trace T = M.finish();
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("M007", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  const rules::Detection &D = Out.front();
  EXPECT_EQ(D.Subject, "aten::cat [1, 8, *, 64]");
  EXPECT_EQ(D.Values.at("calls"), "30");
  EXPECT_EQ(D.Values.at("per_level"), "2");
  EXPECT_EQ(D.Window, "steps 2-10");
  // 2 x 30 us of cache appends and 2 us of the mask's per step.
  EXPECT_EQ(D.ImpactNs, 62 * Us);
}

TEST(GrowingCatDetector, QuietWhenTheCacheKeepsItsSize) {
  // A rolling window: the same cat at every token, nothing grows.
  model::Trace T =
      decode(10, [](int) { return "[[[1, 8, 31, 64], [1, 8, 1, 64]], []]"; });
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("M007", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
}

TEST(GrowingCatDetector, QuietBelowTheMinimumRun) {
  model::Trace T = decode(7, appendDims);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("M007", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
  // ... and fires when the option allows 7 levels.
  EXPECT_EQ(run("M007", Ctx, Out, {{"min-growth-steps", 7}}), "");
  EXPECT_EQ(Out.size(), 1u);
}

TEST(GrowingCatDetector, QuietWhenSizesGrowUnevenly) {
  // Bucketed or sorted sequence lengths: growing, but not by one step.
  const int Sizes[] = {16, 18, 19, 23, 24, 30, 31, 40, 41, 50};
  model::Trace T = decode(10, [&](int K) {
    return llvm::formatv("[[[4, {0}, 512], [4, 1, 512]], []]", Sizes[K]).str();
  });
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("M007", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
}

TEST(GrowingCatDetector, QuietWhenTheStepIsLargerThanMaxStep) {
  model::Trace T = decode(10, [](int K) {
    return llvm::formatv("[[[1, {0}, 64], [1, 64, 64]], []]", 64 * (K + 1))
        .str();
  });
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("M007", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
  EXPECT_EQ(run("M007", Ctx, Out, {{"max-step", 64}}), "");
  EXPECT_EQ(Out.size(), 1u);
}

TEST(GrowingCatDetector, EqualInputShapesAreNotReadAsGrowth) {
  // cat([x, x]) with x growing: the concatenated dimension cannot be told
  // from the shapes, so the calls are not used (and not unreadable).
  model::Trace T = decode(10, [](int K) {
    return llvm::formatv("[[[1, 8, {0}, 32], [1, 8, {0}, 32]], []]", 16 + K)
        .str();
  });
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("M007", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
}

TEST(GrowingCatDetector, ReadsTheConcatAliasOnce) {
  // aten::concat calls aten::cat: the outer op is read, the inner one not.
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  for (int K = 0; K < 8; ++K) {
    int64_t T0 = K * 100 * Us;
    model::EventArgs A;
    A.InputDims = M.B.strings().intern(appendDims(K));
    M.add(M.Host, model::EventKind::Op, "aten::concat", T0, T0 + 20 * Us, 0,
          &A);
    M.add(M.Host, model::EventKind::Op, "aten::cat", T0 + 1 * Us, T0 + 19 * Us,
          0, &A);
    M.launch(S, "CatArrayBatchedCopy", T0 + 2 * Us, T0 + 4 * Us, T0 + 5 * Us,
             T0 + 35 * Us);
  }
  model::Trace T = M.finish();
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("M007", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_EQ(Out.front().Values.at("calls"), "8");
  EXPECT_EQ(Out.front().Values.at("op"), "aten::concat");
  EXPECT_EQ(Out.front().ImpactNs, 240 * Us);
}

TEST(GrowingCatDetector, CannotJudgeWhenTheCatsHaveNoShapes) {
  // record_shapes was on (the engine's "shapes" need holds), yet no cat
  // recorded its input shapes: the detector says how many it saw.
  model::Trace T = decode(10, [](int) { return std::string(); });
  T.Source.RecordShapes = 1;
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  std::string Why = run("M007", Ctx, Out);
  EXPECT_TRUE(llvm::StringRef(Why).startswith(
      "cannot judge: 20 concatenation ops (aten::cat) ran, but the trace has "
      "no input shapes for them"))
      << Why;
  EXPECT_TRUE(llvm::StringRef(Why).contains("record_shapes=True")) << Why;
  EXPECT_TRUE(Out.empty());
}

TEST(GrowingCatDetector, CannotJudgeWhenListShapesWereNotRecorded) {
  model::Trace T = decode(10, [](int) { return "[[], []]"; });
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  std::string Why = run("M007", Ctx, Out);
  EXPECT_TRUE(llvm::StringRef(Why).startswith(
      "cannot judge: 20 of 20 concatenation ops (aten::cat) recorded no "
      "shapes for their tensor-list input"))
      << Why;
  EXPECT_TRUE(Out.empty());
}

TEST(GrowingCatDetector, MalformedShapesAreCountedNotFatal) {
  // Every third token's text is damaged; the others still grow by one,
  // but the damaged levels break the run into pieces shorter than 8.
  const char *Bad[] = {"[[[1, 8, 16, 64], [1, 8, 1, 64]], []",
                       "{\"dims\": 3}",
                       "[[[1, 8, -3, 64], [1, 8, 1, 64]], []]",
                       "[[[1, 8, 2.5, 64], [1, 8, 1, 64]], []]",
                       "[[[1, 8, 16], [1, 8, 1, 64]], []]",
                       "[[[1, 9, 16, 64], [1, 8, 1, 64]], []]",
                       "[[[1, 8, 16, 64], \"x\"], []]",
                       "[3, []]",
                       "",
                       "[]"};
  for (const char *Text : Bad) {
    model::Trace T = decode(10, [&](int) { return std::string(Text); });
    TraceIndex Ctx(T);
    std::vector<rules::Detection> Out;
    std::string Why = run("M007", Ctx, Out);
    EXPECT_TRUE(Out.empty()) << Text;
    // Either the calls had no shapes at all, or they are counted.
    EXPECT_TRUE(llvm::StringRef(Why).startswith("cannot judge: ") ||
                llvm::StringRef(Text) == "[]")
        << Text << ": " << Why;
  }
  // Mixed: 12 tokens, token 5 damaged: sizes 17..21 (5 levels), then
  // 23..28 (6 levels) remain; with min-growth-steps 5 the first run fires
  // and the damaged calls are reported as not counted.
  model::Trace T = decode(12, [](int K) {
    return K == 5 ? std::string("[[[1, 8, 21, 64], [1, 8, 1, 64]]")
                  : appendDims(K);
  });
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("M007", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
  EXPECT_EQ(run("M007", Ctx, Out, {{"min-growth-steps", 5}}), "");
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_EQ(Out.front().Values.at("levels"), "6");
  EXPECT_EQ(Out.front().Values.at("calls"), "22");
  bool Counted = false;
  for (const std::string &L : Out.front().ExtraEvidence)
    Counted |= llvm::StringRef(L).startswith("2 more concatenation calls");
  EXPECT_TRUE(Counted);
}

} // namespace
