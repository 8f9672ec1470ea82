//===- EngineTest.cpp - Evaluator, rendering, ranking, fingerprints -------===//
//
// The traces are built in memory; every expected number is worked out in the
// comments from the event times.
//
//===----------------------------------------------------------------------===//
#include "rules/Engine.h"
#include "rules/Evaluator.h"

#include "analysis/PathCategory.h"

#include "model/TraceBuilder.h"

#include "gtest/gtest.h"

#include "UnitTestTimes.h"

#include <atomic>
#include <chrono>

using namespace tracelint;
using namespace tracelint::rules;
using model::EventKind;

using tracelint::testing::Ms;
using tracelint::testing::Us;

namespace {

class EngineTraceMaker {
public:
  uint32_t host(int64_t Pid, int64_t Tid) { return B.lane(Pid, Tid); }
  uint32_t stream(int64_t Pid, int32_t Device, int64_t Stream) {
    uint32_t L = B.lane(Pid, Stream);
    B.setDeviceLane(L, Device, Stream);
    return L;
  }
  void add(uint32_t Lane, EventKind Kind, llvm::StringRef Name, int64_t Start,
           int64_t End, uint32_t Correlation = 0,
           const model::EventArgs *A = nullptr) {
    model::Event E;
    E.Lane = Lane;
    E.Kind = Kind;
    E.Name = B.strings().intern(Name);
    E.Start = Start;
    E.Duration = End - Start;
    E.Correlation = Correlation;
    B.addEvent(E, A);
  }
  model::TraceBuilder B;
};

model::EventArgs copyArgs(model::CopyKind K, model::MemoryKind Src,
                          int64_t Bytes) {
  model::EventArgs A;
  A.Copy = K;
  A.Src = Src;
  A.Dst = model::MemoryKind::Device;
  A.Bytes = Bytes;
  return A;
}

/// Times in ms. Host thread (1, 1):
///   ProfilerStep#1 [0, 10], #2 [10, 20], #3 [20, 30]  -> median step 10 ms
///   cudaStreamSynchronize: step 1: [1, 2] [3, 4]          (2 calls)
///                          step 2: [11, 11.5] [12, 12.5] [13, 13.5]
///                                  [14, 14.5] [15, 15.5]  (5 calls)
///                          step 3: [21, 22] [23, 24] [25, 26] (3 calls)
///   aten::nonzero (op) [16, 17] in step 2
///   cudaLaunchKernel [5, 5.1], correlation 1, in step 1
/// Device 0, stream 7:
///   direct_copy_kernel [12, 14], correlation 1 (launched in step 1)
///   gemm [21, 29]
///   HtoD pageable 2 MB [25, 26]; HtoD pinned 2 MB [26, 27];
///   HtoD pageable 500 kB [27, 27.5]
///   -> device busy = [12, 14] + [21, 29] = 10 ms
model::Trace makeTrace() {
  EngineTraceMaker M;
  uint32_t H = M.host(1, 1);
  M.add(H, EventKind::Annotation, "ProfilerStep#1", 0, 10 * Ms);
  M.add(H, EventKind::Annotation, "ProfilerStep#2", 10 * Ms, 20 * Ms);
  M.add(H, EventKind::Annotation, "ProfilerStep#3", 20 * Ms, 30 * Ms);
  for (int64_t S : {1, 3})
    M.add(H, EventKind::Runtime, "cudaStreamSynchronize", S * Ms, (S + 1) * Ms);
  for (int64_t S : {11, 12, 13, 14, 15})
    M.add(H, EventKind::Runtime, "cudaStreamSynchronize", S * Ms,
          S * Ms + 500 * Us);
  for (int64_t S : {21, 23, 25})
    M.add(H, EventKind::Runtime, "cudaStreamSynchronize", S * Ms, (S + 1) * Ms);
  M.add(H, EventKind::Op, "aten::nonzero", 16 * Ms, 17 * Ms);
  M.add(H, EventKind::Runtime, "cudaLaunchKernel", 5 * Ms, 5 * Ms + 100 * Us,
        1);
  uint32_t D = M.stream(0, 0, 7);
  M.add(D, EventKind::Kernel, "void at::native::direct_copy_kernel_cuda",
        12 * Ms, 14 * Ms, 1);
  M.add(D, EventKind::Kernel, "gemm", 21 * Ms, 29 * Ms);
  model::EventArgs Pageable2 =
      copyArgs(model::CopyKind::HtoD, model::MemoryKind::Pageable, 2000000);
  model::EventArgs Pinned2 =
      copyArgs(model::CopyKind::HtoD, model::MemoryKind::Pinned, 2000000);
  model::EventArgs Pageable05 =
      copyArgs(model::CopyKind::HtoD, model::MemoryKind::Pageable, 500000);
  M.add(D, EventKind::Memcpy, "Memcpy HtoD (Pageable -> Device)", 25 * Ms,
        26 * Ms, 0, &Pageable2);
  M.add(D, EventKind::Memcpy, "Memcpy HtoD (Pinned -> Device)", 26 * Ms,
        27 * Ms, 0, &Pinned2);
  M.add(D, EventKind::Memcpy, "Memcpy HtoD (Pageable -> Device)", 27 * Ms,
        27 * Ms + 500 * Us, 0, &Pageable05);
  return M.B.finish();
}

/// A rule from its signature lines (TOML), with fixed texts.
RuleSpec rule(llvm::StringRef Signature, llvm::StringRef Code = "X001",
              llvm::StringRef Extra = "") {
  std::string Text = ("code = \"" + Code + "\"\nname = \"rule-" +
                      llvm::StringRef(Code).lower() + "\"\nsummary = \"s\"\n" +
                      Extra + Signature +
                      "\n[text]\nhypothesis = \"value {value} threshold "
                      "{threshold} steps {steps}\"\n[experiment]\nchange = "
                      "\"c\"\n")
                         .str();
  auto Spec = Catalogue::parseRule(Text, "test.toml");
  EXPECT_TRUE(bool(Spec));
  if (!Spec) {
    ADD_FAILURE() << llvm::toString(Spec.takeError()) << "\n" << Text;
    return RuleSpec();
  }
  return std::move(*Spec);
}

std::vector<Detection> evaluate(const analysis::TraceIndex &Ctx,
                                const RuleSpec &Spec,
                                std::string *Why = nullptr) {
  std::vector<Detection> Out;
  Outcome R = evaluateSignature(Ctx, Spec, RuleOptions(Spec), Out);
  std::string Reason =
      R.judged() ? "" : (skipKindName(R.kind()) + ": " + R.reason()).str();
  if (Why)
    *Why = Reason;
  else
    EXPECT_EQ(Reason, "");
  return Out;
}

const char *const SyncsPerStep = R"([signature.select]
kind = "runtime"
name = "cudaStreamSynchronize"
inside = "steps"
[signature.aggregate]
per = "step"
value = "count"
[signature.fires-when]
compare = ">"
threshold = 4
)";

TEST(Evaluator, CountPerStepMax) {
  model::Trace T = makeTrace();
  analysis::TraceIndex Ctx(T);
  ASSERT_EQ(Ctx.targetNs(), 10 * Ms);
  std::vector<Detection> D = evaluate(Ctx, rule(SyncsPerStep));
  ASSERT_EQ(D.size(), 1u);
  EXPECT_EQ(D[0].Values["value"], "5");
  EXPECT_EQ(D[0].Values["threshold"], "4");
  EXPECT_EQ(D[0].Values["steps"], "#2");
  EXPECT_EQ(D[0].Values["count"], "5"); // the offending step's events
  EXPECT_EQ(D[0].Values["total"], "2.5 ms");
  EXPECT_EQ(D[0].Values["max"], "500 us");
  EXPECT_EQ(D[0].Values["subject"], "cudaStreamSynchronize");
  EXPECT_EQ(D[0].Values["top_names"], "cudaStreamSynchronize (5)");
  EXPECT_EQ(D[0].Window, "step #2");
  EXPECT_EQ(D[0].Subject, "cudaStreamSynchronize");
  // Impact: the largest per-step union of the selected events, 5 x 0.5 ms.
  EXPECT_EQ(D[0].ImpactNs, 2500 * Us);
  EXPECT_DOUBLE_EQ(D[0].Confidence, DeclarativeConfidence);
  // Three examples, longest first, earliest among equals.
  ASSERT_EQ(D[0].Examples.size(), 3u);
  EXPECT_EQ(D[0].Examples[0].DurationNs, 500 * Us);
  EXPECT_LT(D[0].Examples[0].TraceTimestampUs,
            D[0].Examples[1].TraceTimestampUs);
  EXPECT_EQ(D[0].Examples[0].Lane, "thread 1");
}

TEST(Evaluator, StatisticsOverSteps) {
  model::Trace T = makeTrace();
  analysis::TraceIndex Ctx(T);
  auto With = [&](llvm::StringRef Stat, llvm::StringRef Steps = "all") {
    std::string Sig = SyncsPerStep;
    Sig.insert(Sig.find("[signature.aggregate]"),
               ("steps = \"" + Steps + "\"\n").str());
    Sig += ("statistic = \"" + Stat + "\"\n").str();
    return evaluate(Ctx, rule(Sig));
  };
  // Per step: 2, 5, 3.
  EXPECT_TRUE(With("median").empty()); // 3 > 4 is false
  EXPECT_TRUE(With("min").empty());
  std::vector<Detection> Total = With("total"); // 10 > 4
  ASSERT_EQ(Total.size(), 1u);
  EXPECT_EQ(Total[0].Values["value"], "10");
  EXPECT_EQ(Total[0].Values["steps"], "#2"); // the steps over 4 themselves
  std::vector<Detection> Any = With("any");
  ASSERT_EQ(Any.size(), 1u);
  EXPECT_EQ(Any[0].Values["value"], "5");
  EXPECT_TRUE(With("max", "first").empty()); // step 1: 2
  ASSERT_EQ(With("max", "after-first").size(), 1u);
}

TEST(Evaluator, AnyOpInsideTheStep) {
  model::Trace T = makeTrace();
  analysis::TraceIndex Ctx(T);
  std::vector<Detection> D = evaluate(
      Ctx, rule("[signature.select]\nkind = \"op\"\nname = \"aten::nonzero\"\n"
                "inside = \"steps\"\n"));
  ASSERT_EQ(D.size(), 1u);
  EXPECT_EQ(D[0].Values["count"], "1");
  EXPECT_EQ(D[0].Subject, "aten::nonzero");
  EXPECT_EQ(D[0].Window, "step #2");
  EXPECT_EQ(D[0].ImpactNs, 1 * Ms);
  EXPECT_TRUE(evaluate(Ctx, rule("[signature.select]\nkind = \"op\"\nname = "
                                 "\"aten::nonzero\"\ninside = "
                                 "\"outside-steps\"\n"))
                  .empty());
}

TEST(Evaluator, PageableCopiesOverOneMegabyte) {
  model::Trace T = makeTrace();
  analysis::TraceIndex Ctx(T);
  std::vector<Detection> D = evaluate(
      Ctx, rule("[signature.select]\nkind = \"memcpy\"\ncopy = "
                "\"HtoD\"\nsrc = \"pageable\"\nmin-bytes = \"1MB\"\n"));
  ASSERT_EQ(D.size(), 1u);
  EXPECT_EQ(D[0].Values["count"], "1"); // 2 MB pageable; not pinned, not 0.5
  EXPECT_EQ(D[0].Examples[0].DurationNs, 1 * Ms);
  // sum(bytes) over all pageable HtoD copies: 2.5 MB > 2 MB.
  std::vector<Detection> Bytes = evaluate(
      Ctx, rule("[signature.select]\nkind = \"memcpy\"\nsrc = \"pageable\"\n"
                "[signature.aggregate]\nvalue = \"sum(bytes)\"\n"
                "[signature.fires-when]\ncompare = \">\"\nthreshold = "
                "\"2MB\"\n"));
  ASSERT_EQ(Bytes.size(), 1u);
  EXPECT_EQ(Bytes[0].Values["value"], "2.5 MB");
  EXPECT_EQ(Bytes[0].Values["threshold"], "2 MB");
}

TEST(Evaluator, ShareOfDeviceBusy) {
  model::Trace T = makeTrace();
  analysis::TraceIndex Ctx(T);
  ASSERT_EQ(Ctx.deviceBusyNs(), 10 * Ms);
  auto With = [&](llvm::StringRef Threshold) {
    return evaluate(
        Ctx, rule(("[signature.select]\nkind = \"kernel\"\nname = "
                   "\"*direct_copy*\"\n[signature.aggregate]\nvalue = "
                   "\"union(duration)\"\n[signature.fires-when]\ncompare = "
                   "\">\"\nthreshold = \"" +
                   Threshold + "\"\nrelative-to = \"device-busy\"\n")
                      .str()));
  };
  std::vector<Detection> D = With("2%"); // 2 ms of 10 ms = 20 %
  ASSERT_EQ(D.size(), 1u);
  EXPECT_EQ(D[0].Values["value"], "2 ms");
  EXPECT_EQ(D[0].Values["share"], "20.0 % of device busy time");
  EXPECT_EQ(D[0].Values["threshold"], "2.0 %");
  // The kernel runs at [12, 14] ms, inside step 2's range, though it was
  // launched in step 1: the impact is its time inside a step.
  EXPECT_EQ(D[0].ImpactNs, 2 * Ms);
  EXPECT_TRUE(With("25%").empty());
}

TEST(Evaluator, DeviceWorkBelongsToTheStepThatLaunchedIt) {
  model::Trace T = makeTrace();
  analysis::TraceIndex Ctx(T);
  std::vector<Detection> D = evaluate(
      Ctx, rule("[signature.select]\nkind = \"kernel\"\nsteps = \"first\"\n"));
  ASSERT_EQ(D.size(), 1u);
  EXPECT_EQ(D[0].Subject, "void at::native::direct_copy_kernel_cuda");
  EXPECT_EQ(D[0].Window, "step #1");
}

TEST(Evaluator, PerNameReportsEachName) {
  model::Trace T = makeTrace();
  analysis::TraceIndex Ctx(T);
  std::vector<Detection> D = evaluate(
      Ctx, rule("[signature.select]\nkind = [\"kernel\", \"memcpy\"]\n"
                "[signature.aggregate]\nper = \"name\"\nvalue = "
                "\"sum(duration)\"\n[signature.fires-when]\nthreshold = "
                "\"1.5ms\"\n"));
  // gemm 8 ms, direct_copy 2 ms, pageable copies 1.5 ms; pinned 1 ms is
  // below. Largest first.
  ASSERT_EQ(D.size(), 3u);
  EXPECT_EQ(D[0].Subject, "gemm");
  EXPECT_EQ(D[0].Values["value"], "8 ms");
  EXPECT_EQ(D[1].Subject, "void at::native::direct_copy_kernel_cuda");
  EXPECT_EQ(D[2].Subject, "Memcpy HtoD (Pageable -> Device)");
  EXPECT_EQ(D[2].Values["count"], "2");
}

TEST(Evaluator, RegexIsMatchedPerName) {
  model::Trace T = makeTrace();
  analysis::TraceIndex Ctx(T);
  std::vector<Detection> D =
      evaluate(Ctx, rule("[signature.select]\nname-regex = "
                         "\"^cuda(Stream|Device)Synchronize$\"\n"));
  ASSERT_EQ(D.size(), 1u);
  EXPECT_EQ(D[0].Values["count"], "10");
  // Names and regex must both hold.
  EXPECT_TRUE(evaluate(Ctx, rule("[signature.select]\nname = \"gemm\"\n"
                                 "name-regex = \"^cuda\"\n"))
                  .empty());
}

// Patterns that backtracking engines take exponential time on, against
// long names that almost match: LLVM's Regex (no backreferences, no
// submatches asked for) simulates its automaton, so each name costs time
// linear in its length. An exponential engine would not finish.
TEST(Evaluator, NestedQuantifiersDoNotBlowUp) {
  EngineTraceMaker M;
  uint32_t S = M.stream(1, 0, 7);
  std::string AllA(200'000, 'a');
  M.add(S, EventKind::Kernel, AllA, 0, Ms);
  M.add(S, EventKind::Kernel, AllA + "!", Ms, 2 * Ms);
  M.add(S, EventKind::Kernel, "gemm", 2 * Ms, 3 * Ms);
  model::Trace T = M.B.finish();
  analysis::TraceIndex Ctx(T);
  for (const char *Re : {"(a+)+$", "^(a|aa)+$", "^(a*)*$", "^(a|a?)+$"}) {
    auto Start = std::chrono::steady_clock::now();
    std::vector<Detection> D = evaluate(
        Ctx, rule(std::string("[signature.select]\nname-regex = \"") + Re +
                  "\"\n[signature.aggregate]\nper = \"name\"\n"
                  "value = \"count\"\n[signature.fires-when]\n"
                  "compare = \">=\"\nthreshold = 1\n"));
    double Seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
            .count();
    // Only the name of a's matches; the one ending in '!' does not.
    ASSERT_EQ(D.size(), 1u) << Re;
    EXPECT_EQ(D[0].Subject.size(), AllA.size()) << Re;
    EXPECT_LT(Seconds, 10.0) << Re;
  }
}

TEST(Evaluator, ThresholdAndBoundsFromOptions) {
  model::Trace T = makeTrace();
  analysis::TraceIndex Ctx(T);
  RuleSpec Spec = rule("[signature.select]\nkind = \"runtime\"\n"
                       "min-duration = \"min-wait\"\n"
                       "[signature.fires-when]\nthreshold = \"limit\"\n",
                       "X001",
                       "[options.limit]\ndefault = 6\n"
                       "[options.min-wait]\ndefault = \"1ms\"\n");
  // Runtime calls of at least 1 ms: the 5 one-ms syncs (the launch is
  // 0.1 ms, the step-2 syncs 0.5 ms): 5 < 6.
  RuleOptions Opts(Spec);
  std::vector<Detection> Out;
  EXPECT_TRUE(evaluateSignature(Ctx, Spec, Opts, Out).judged());
  EXPECT_TRUE(Out.empty());
  Opts.set("limit", 5.0);
  EXPECT_TRUE(evaluateSignature(Ctx, Spec, Opts, Out).judged());
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_EQ(Out[0].Values["count"], "5");
  Opts.set("min-wait", double(500 * Us));
  Out.clear();
  Opts.set("limit", 11.0);
  EXPECT_TRUE(evaluateSignature(Ctx, Spec, Opts, Out).judged());
  EXPECT_TRUE(Out.empty()); // 10 syncs of at least 0.5 ms
}

TEST(Evaluator, CannotJudge) {
  EngineTraceMaker M;
  uint32_t H = M.host(1, 1);
  M.add(H, EventKind::Runtime, "cudaStreamSynchronize", 0, 1 * Ms);
  model::Trace T = M.B.finish();
  analysis::TraceIndex Ctx(T);
  std::string Why;
  evaluate(Ctx,
           rule("[signature.select]\nkind = \"kernel\"\n[signature.aggregate]"
                "\nvalue = \"union(duration)\"\n[signature.fires-when]\n"
                "threshold = \"2%\"\nrelative-to = \"device-busy\"\n"),
           &Why);
  EXPECT_EQ(Why, "cannot judge: the trace has no device busy time to compare "
                 "with (no device activity was recorded)");
  evaluate(Ctx, rule(SyncsPerStep), &Why);
  EXPECT_EQ(Why, "cannot judge: the trace has no step markers");
}

TEST(Engine, NeedsBecomeSkippedRulesWithReasons) {
  EngineTraceMaker M;
  uint32_t H = M.host(1, 1);
  // An ATen op makes it a PyTorch trace: the reasons name torch.profiler's
  // options (a CUDA program's name nsys's; ProducerTest).
  M.add(H, EventKind::Op, "aten::mm", 0, 1 * Ms);
  M.add(H, EventKind::Runtime, "cudaLaunchKernel", 0, 1 * Ms, 7);
  model::Trace T = M.B.finish();
  analysis::TraceIndex Ctx(T);
  Catalogue C;
  ASSERT_FALSE(bool(C.add(rule(SyncsPerStep, "X001"))));
  ASSERT_FALSE(
      bool(C.add(rule("[signature.select]\nkind = \"kernel\"\n", "X002"))));
  ASSERT_FALSE(bool(C.add(rule("[signature.select]\nkind = \"op\"\n", "X003",
                               "needs = [\"shapes\", \"memory\"]\n"))));
  LintResult R = runRules(Ctx, C, Config(), "t.json");
  EXPECT_TRUE(R.Findings.empty());
  ASSERT_EQ(R.Skipped.size(), 3u);
  EXPECT_EQ(R.Skipped[0].Code, "X001");
  EXPECT_EQ(R.Skipped[0].Reason,
            "the trace has no step markers; call prof.step() "
            "once per iteration (ProfilerStep#N ranges)");
  EXPECT_EQ(R.Skipped[1].Reason,
            "the trace has kernel launch calls but no device "
            "activity (no kernels, copies or memsets were captured); record "
            "it with ProfilerActivity.CUDA and check that the device buffers "
            "were not lost");
  EXPECT_EQ(R.Skipped[2].Reason,
            "the trace has no operator input shapes; profile "
            "with record_shapes=True; the trace has no memory events; "
            "profile with profile_memory=True");
  EXPECT_EQ(R.QualityNotes,
            std::vector<std::string>{
                "no step markers: impact is measured against the whole "
                "window, which may mix start-up and steady state"});
}

TEST(Engine, FindingsAreRenderedAndPenalisedForTraceQuality) {
  model::Trace T = makeTrace();
  T.Stats.TruncatedAtByte = 1234;
  T.Stats.add(model::ImportStat::Truncated);
  T.Stats.addAt(model::ImportStat::MalformedEvent, "event 9 at byte 700");
  analysis::TraceIndex Ctx(T);
  Catalogue C;
  ASSERT_FALSE(bool(C.add(rule(SyncsPerStep, "X001"))));
  LintResult R = runRules(Ctx, C, Config(), "t.json");
  ASSERT_EQ(R.Findings.size(), 1u);
  const Finding &F = R.Findings[0];
  EXPECT_EQ(F.Code, "X001");
  EXPECT_EQ(F.Name, "rule-x001");
  EXPECT_EQ(F.Hypothesis, "value 5 threshold 4 steps #2");
  // Truncation and lost events lower every rule; unlinked device work only
  // the rules that need correlation or launches, which X001 does not.
  EXPECT_NEAR(F.Confidence, 0.6 * 0.7 * 0.8, 1e-12);
  ASSERT_EQ(F.ConfidenceNotes.size(), 2u);
  EXPECT_EQ(F.ConfidenceNotes[0], "confidence x0.7: the trace is truncated at "
                                  "byte 1234: events after it are missing");
  EXPECT_EQ(F.ConfidenceNotes[1],
            "confidence x0.8: events were lost in import: 1 events that are "
            "not valid JSON objects, first at event 9 at byte 700");
  EXPECT_EQ(F.ImpactNs, 2500 * Us);
  EXPECT_DOUBLE_EQ(F.ImpactShare, 0.25);
  EXPECT_EQ(F.Sev, Severity::Warning);
  EXPECT_EQ(F.Fingerprint, fingerprint("X001", "cudaStreamSynchronize"));
  ASSERT_EQ(R.QualityNotes.size(), 3u);
  EXPECT_EQ(R.QualityNotes[2],
            "80.0 % of device work has no host call in the trace");
}

// A detector table of the test's own.
Outcome detectA(const analysis::TraceIndex &, const RuleOptions &Opts,
                std::vector<Detection> &Out) {
  // Scores (impact x confidence): 4e6 x 0.5 = 2e6 ("b"), 2e6 x 1 = 2e6 ("a"),
  // 1e9 x 0.1 (impact clipped to the 10 ms target: 1e6).
  Detection D;
  D.ImpactNs = 4 * Ms;
  D.Confidence = 0.5;
  D.Subject = "b";
  Out.push_back(D);
  D.ImpactNs = 2 * Ms;
  D.Confidence = 1;
  D.Subject = "a";
  D.SeverityOverride = Severity::Info;
  Out.push_back(D);
  D.ImpactNs = 1000 * Ms;
  D.Confidence = 0.1;
  D.Subject = "huge";
  D.Values["impact"] = "set by the detector";
  Out.push_back(D);
  (void)Opts;
  return Outcome::ran();
}
Outcome detectB(const analysis::TraceIndex &, const RuleOptions &,
                std::vector<Detection> &Out) {
  Detection D;
  D.ImpactNs = 4 * Ms;
  D.Confidence = 0.5;
  D.Subject = "a";
  Out.push_back(D);
  return Outcome::ran();
}
Outcome detectNothing(const analysis::TraceIndex &, const RuleOptions &,
                      std::vector<Detection> &) {
  return Outcome::cannotJudge("the trace has no collectives");
}

DetectorFn testDetectors(llvm::StringRef Name) {
  if (Name == "test-a")
    return detectA;
  if (Name == "test-b")
    return detectB;
  if (Name == "test-none")
    return detectNothing;
  return nullptr;
}

RuleSpec detectorRule(llvm::StringRef Code, llvm::StringRef Detector) {
  RuleSpec S;
  S.Code = Code.str();
  S.Name = "rule-" + Code.lower();
  S.Summary = "s";
  S.Sig.Detector = Detector.str();
  S.Hypothesis = "{subject} costs up to {impact} of the {target}";
  S.Next.Change = "change {subject}";
  S.Origin = "builtin:test";
  return S;
}

TEST(Engine, RankingByScoreThenCodeThenSubject) {
  model::Trace T = makeTrace();
  analysis::TraceIndex Ctx(T);
  Catalogue C;
  ASSERT_FALSE(bool(C.add(detectorRule("L002", "test-b"))));
  ASSERT_FALSE(bool(C.add(detectorRule("L001", "test-a"))));
  ASSERT_FALSE(bool(C.add(detectorRule("L003", "test-none"))));
  ASSERT_FALSE(bool(C.add(detectorRule("L004", "not-built-in"))));
  Config Cfg;
  LintResult R = runRules(Ctx, C, Cfg, "t.json", testDetectors);
  ASSERT_EQ(R.Findings.size(), 4u);
  // Three at 2e6: L001 "a", L001 "b", L002 "a"; then L001 "huge" at 1e6.
  EXPECT_EQ(R.Findings[0].Code + ":" + R.Findings[0].Subject, "L001:a");
  EXPECT_EQ(R.Findings[1].Code + ":" + R.Findings[1].Subject, "L001:b");
  EXPECT_EQ(R.Findings[2].Code + ":" + R.Findings[2].Subject, "L002:a");
  EXPECT_EQ(R.Findings[3].Subject, "huge");
  EXPECT_EQ(R.Findings[3].ImpactNs, 10 * Ms); // clipped to the target
  EXPECT_DOUBLE_EQ(R.Findings[3].ImpactShare, 1.0);
  // The texts quote the final bound (clipped to the target), whatever the
  // detector wrote for {impact}.
  EXPECT_EQ(R.Findings[3].Hypothesis,
            "huge costs up to 10 ms of the median step time 10 ms "
            "(steps 2-3)");
  EXPECT_EQ(R.Findings[0].Hypothesis, "a costs up to 2 ms of the median step "
                                      "time 10 ms (steps 2-3)");
  EXPECT_EQ(R.Findings[0].Next.Change, "change a");
  // The detection's override (info) is a floor: 20 % of the step at
  // confidence 0.5 raises it to warning.
  EXPECT_EQ(R.Findings[0].Sev, Severity::Warning);
  ASSERT_EQ(R.Skipped.size(), 2u);
  EXPECT_EQ(R.Skipped[0].Reason, "the trace has no collectives");
  EXPECT_EQ(R.Skipped[1].Reason, "detector 'not-built-in' is "
                                 "not built into this binary");
  // The configuration's severity wins over the detection's.
  auto Cfg2 = Config::parse("[rules.L001]\nseverity = \"error\"\n",
                            "tracelint.toml", C);
  ASSERT_TRUE(bool(Cfg2)) << llvm::toString(Cfg2.takeError());
  LintResult R2 = runRules(Ctx, C, *Cfg2, "t.json", testDetectors);
  EXPECT_EQ(R2.Findings[0].Sev, Severity::Error);
  // Disabled rules neither run nor appear as skipped.
  Config Only;
  Only.applyCommandLine({"L002"}, {});
  LintResult R3 = runRules(Ctx, C, Only, "t.json", testDetectors);
  ASSERT_EQ(R3.Findings.size(), 1u);
  EXPECT_TRUE(R3.Skipped.empty());
}

TEST(Engine, WorkBesideTheRulesRunsOnceAndChangesNothing) {
  // lint's statistics run on the rules' threads (runRules' Beside): once,
  // before runRules returns, at any thread count, and the findings, the
  // skipped rules and the target are those of a run without it.
  model::Trace T = makeTrace();
  analysis::TraceIndex Ctx(T);
  Catalogue C;
  ASSERT_FALSE(bool(C.add(detectorRule("L002", "test-b"))));
  ASSERT_FALSE(bool(C.add(detectorRule("L001", "test-a"))));
  ASSERT_FALSE(bool(C.add(detectorRule("L003", "test-none"))));
  ASSERT_FALSE(bool(C.add(rule(SyncsPerStep, "X001"))));
  auto Summary = [](const LintResult &R) {
    std::string S =
        R.Target.Description + "|" + std::to_string(R.Target.Idle.IdleNs) + "|";
    for (const Finding &F : R.Findings)
      S += F.Code + ":" + F.Subject + ":" + std::to_string(F.ImpactNs) + ";";
    for (const Skipped &K : R.Skipped)
      S += K.Code + ":" + K.Reason + ";";
    return S;
  };
  const std::string Plain =
      Summary(runRules(Ctx, C, Config(), "t.json", testDetectors));
  for (unsigned Jobs : {1u, 2u, 4u}) {
    Config Cfg;
    Cfg.Jobs = Jobs;
    std::atomic<int> Calls{0};
    LintResult R =
        runRules(Ctx, C, Cfg, "t.json", testDetectors, [&] { ++Calls; });
    EXPECT_EQ(Calls.load(), 1) << Jobs;
    EXPECT_EQ(Summary(R), Plain) << Jobs;
  }
}

TEST(Engine, ThePathIsKeptOnlyWhenAFindingAsksForABound) {
  // A rule whose finding names a what-if makes lint build the critical
  // path (to bound the impact), at any thread count. Rules that find
  // nothing need none: on one thread it is never started; on several it
  // is started beside the rules and stopped when they are done, unless it
  // was already complete (DependencyGraphStops checks the stopping).
  model::Trace T = makeTrace();
  analysis::TraceIndex Ctx(T);
  RuleSpec Bounded = detectorRule("L001", "test-b");
  std::string Error;
  ASSERT_TRUE(
      analysis::WhatIfQuery::parse("category:wait", Bounded.Sig.WhatIf, Error))
      << Error;
  RuleSpec Quiet = detectorRule("L003", "test-none");
  Quiet.Sig.WhatIf = Bounded.Sig.WhatIf;
  for (unsigned Jobs : {1u, 2u, 4u}) {
    Config Cfg;
    Cfg.Jobs = Jobs;
    Catalogue WithFinding, Without;
    ASSERT_FALSE(bool(WithFinding.add(Bounded)));
    ASSERT_FALSE(bool(WithFinding.add(Quiet)));
    ASSERT_FALSE(bool(Without.add(Quiet)));
    LintResult R = runRules(Ctx, WithFinding, Cfg, "t.json", testDetectors);
    ASSERT_EQ(R.Findings.size(), 1u);
    EXPECT_TRUE(R.Times.GraphBuilt) << Jobs;
    EXPECT_FALSE(R.Findings[0].PathQuery.empty()) << Jobs;
    LintResult Q = runRules(Ctx, Without, Cfg, "t.json", testDetectors);
    EXPECT_TRUE(Q.Findings.empty());
    ASSERT_EQ(Q.Skipped.size(), 1u);
    if (Jobs == 1) {
      EXPECT_FALSE(Q.Times.GraphBuilt);
    }
  }
}

TEST(Engine, RenderTemplate) {
  std::map<std::string, Value> V = {{"value", Value::duration(3 * Ms)},
                                    {"n", Value::count(2)}};
  EXPECT_EQ(renderTemplate("waits {value} in {n} steps", V),
            "waits 3 ms in 2 steps");
  EXPECT_EQ(renderTemplate("{unknown} stays, {value}", V),
            "{unknown} stays, 3 ms");
  EXPECT_EQ(renderTemplate("{{literal}} and }} {value}", V),
            "{literal} and } 3 ms");
  EXPECT_EQ(renderTemplate("unclosed {value", V), "unclosed {value");
  EXPECT_EQ(renderTemplate("", V), "");
  EXPECT_EQ(renderTemplate("{value}{n}", V), "3 ms2");
  // A noun that agrees with the count, for whole and median counts.
  V["one"] = Value::count(1);
  V["median"] = Value::number(1.0, 1);
  V["half"] = Value::number(1.5, 1);
  V["text"] = "1";
  EXPECT_EQ(renderTemplate("{one:copy|copies}, {n:copy|copies}", V),
            "1 copy, 2 copies");
  EXPECT_EQ(renderTemplate("{median:copy|copies}, {half:kernel}", V),
            "1 copy, 1.5 kernels");
  EXPECT_EQ(renderTemplate("{text:time}, {value:wait}", V),
            "1 time, 3 ms waits");
  EXPECT_EQ(renderTemplate("{missing:copy|copies}", V),
            "{missing:copy|copies}");
}

TEST(Engine, FingerprintsAreStable) {
  std::string F = fingerprint("S001", "aten::item > aten::_local_scalar_dense");
  EXPECT_EQ(F.size(), 16u);
  EXPECT_EQ(F.find_first_not_of("0123456789abcdef"), std::string::npos);
  // Stable across runs and builds: baselines store it. Changing the hash or
  // the normalisation is a breaking change of the baseline format.
  EXPECT_EQ(fingerprint("S001", "cudaStreamSynchronize"), "be03df41a4c63b82");
  // Run-specific numbers and spacing do not matter...
  EXPECT_EQ(fingerprint("S001", "ProfilerStep#3 > aten::item"),
            fingerprint("S001", "ProfilerStep#12 > aten::item"));
  EXPECT_EQ(fingerprint("M001", "  a   b "), fingerprint("M001", "a b"));
  EXPECT_EQ(fingerprint("M001", "buffer 0x7f00aa"),
            fingerprint("M001", "buffer 0x5500bb"));
  // ...but the code and the subject do.
  EXPECT_NE(fingerprint("S001", "x"), fingerprint("S002", "x"));
  EXPECT_NE(fingerprint("S001", "gemm_128x64"),
            fingerprint("S001", "gemm_128x128"));
}

} // namespace

namespace {

/// One step of the launch-overhead toy: five 2 ms kernels queued behind 1 ms
/// launches, completion 11 ms; removing the launch time gains 1 ms.
model::Trace launchToy() {
  model::TraceBuilder B;
  uint32_t Host = B.lane(1, 1), Stream = B.lane(100, 7);
  B.setDeviceLane(Stream, 0, 7);
  auto Add = [&](uint32_t Lane, EventKind K, llvm::StringRef Name,
                 int64_t Start, int64_t End, uint32_t Corr) {
    model::Event E;
    E.Lane = Lane;
    E.Kind = K;
    E.Name = B.strings().intern(Name);
    E.Start = Start;
    E.Duration = End - Start;
    E.Correlation = Corr;
    B.addEvent(E);
  };
  Add(Host, EventKind::Annotation, "ProfilerStep#1", 0, 5 * Ms, 0);
  for (uint32_t I = 0; I < 5; ++I) {
    Add(Host, EventKind::Runtime, "cudaLaunchKernel", I * Ms, (I + 1) * Ms,
        I + 1);
    Add(Stream, EventKind::Kernel, "k", (1 + 2 * I) * Ms, (3 + 2 * I) * Ms,
        I + 1);
  }
  return B.finish();
}

Outcome detectLaunchBlame(const analysis::TraceIndex &, const RuleOptions &,
                          std::vector<Detection> &Out) {
  Detection D;
  D.ImpactNs = 4 * Ms; // the detector's own, looser bound
  D.Subject = "launches";
  Out.push_back(D);
  return Outcome::ran();
}

DetectorFn launchBlameDetectors(llvm::StringRef Name) {
  return Name == "test-launch" ? detectLaunchBlame : nullptr;
}

} // namespace

TEST(Engine, ImpactIsCappedByTheCriticalPath) {
  model::Trace T = launchToy();
  analysis::TraceIndex Ctx(T);
  Catalogue C;
  RuleSpec S = detectorRule("L009", "test-launch");
  S.Sig.WhatIf.Categories.set(unsigned(analysis::PathCategory::Launch));
  ASSERT_FALSE(bool(C.add(S)));
  LintResult R = runRules(Ctx, C, Config(), "t.json", launchBlameDetectors);
  ASSERT_EQ(R.Findings.size(), 1u);
  EXPECT_EQ(R.Findings[0].PathBoundNs, 1 * Ms);
  EXPECT_EQ(R.Findings[0].ImpactNs, 1 * Ms);
  EXPECT_EQ(R.Findings[0].PathQuery, "launch");
  EXPECT_EQ(R.Findings[0].Hypothesis,
            "launches costs up to 1 ms of the median step time 5 ms "
            "(1 step)");
  // The detector's 4 ms is more than twice the capped 1 ms: the finding
  // says in one sentence, shown on every card, where the path keeps the
  // rest.
  ASSERT_GE(R.Findings[0].Evidence.size(), 1u);
  EXPECT_EQ(R.Findings[0].Evidence.back(),
            "critical path: without launch the steady steps would complete "
            "at most 1 ms earlier (median), so the impact is capped there");
  EXPECT_EQ(R.Findings[0].RestNote,
            "only 1 ms of the 4 ms would come back: without launch the "
            "steps' critical path still runs through 10 ms compute");

  // A rule with a gain floor keeps a finding whose capped impact falls
  // under it at info, and says so (1 ms is 20 % < 25 %).
  Catalogue C3;
  RuleSpec Floor = S;
  Floor.Options.push_back(
      {"min-gain-share", 0.25, "floor", "why", NumberUnit::Share});
  ASSERT_FALSE(bool(C3.add(Floor)));
  // The severity levels do not raise it: one step lowers its confidence
  // under 0.4.
  LintResult R3 = runRules(Ctx, C3, Config(), "t.json", launchBlameDetectors);
  ASSERT_EQ(R3.Findings.size(), 1u);
  EXPECT_LT(R3.Findings[0].Confidence, 0.4);
  EXPECT_EQ(R3.Findings[0].Sev, Severity::Info);
  EXPECT_EQ(R3.Findings[0].Evidence.back(),
            "critical path: without launch the steady steps would complete "
            "at most 1 ms earlier (median), so the impact is capped there, "
            "under the rule's min-gain-share (25.0 %), so the finding is "
            "info");
  Floor.Options.back().Default = 0.2;
  Catalogue C4;
  ASSERT_FALSE(bool(C4.add(Floor)));
  LintResult R4 = runRules(Ctx, C4, Config(), "t.json", launchBlameDetectors);
  ASSERT_EQ(R4.Findings.size(), 1u);
  EXPECT_EQ(R4.Findings[0].Sev, Severity::Warning); // at the floor

  // Without a floor of its own, a rule's capped finding under 1 % of the
  // target is info: nothing in this step is a memset, so removing memsets
  // gains nothing.
  Catalogue C5;
  RuleSpec Memsets = S;
  Memsets.Sig.WhatIf = {};
  Memsets.Sig.WhatIf.Categories.set(unsigned(analysis::PathCategory::Memset));
  ASSERT_FALSE(bool(C5.add(Memsets)));
  LintResult R5 = runRules(Ctx, C5, Config(), "t.json", launchBlameDetectors);
  ASSERT_EQ(R5.Findings.size(), 1u);
  EXPECT_EQ(R5.Findings[0].ImpactNs, 0);
  EXPECT_EQ(R5.Findings[0].Sev, Severity::Info);
  EXPECT_EQ(R5.Findings[0].Evidence.back(),
            "critical path: without memset the steady steps would complete "
            "at most 0 ns earlier (median), so the impact is capped there, "
            "under 1.0 % of the target, too little to measure, so the "
            "finding is info");

  // Turned off, the detector's bound stands and no path is built.
  Config Off;
  Off.PathBounds = false;
  LintResult R2 = runRules(Ctx, C, Off, "t.json", launchBlameDetectors);
  ASSERT_EQ(R2.Findings.size(), 1u);
  EXPECT_EQ(R2.Findings[0].ImpactNs, 4 * Ms);
  EXPECT_EQ(R2.Findings[0].PathBoundNs, -1);
}

TEST(Engine, SeverityFollowsImpactAndConfidence) {
  // The rule's severity is a floor; 20 % of the target at confidence 0.4
  // makes a warning, 50 % at 0.6 an error (docs/rule-format.md).
  EXPECT_EQ(severityForImpact(Severity::Info, 0.19, 0.9), Severity::Info);
  EXPECT_EQ(severityForImpact(Severity::Info, 0.20, 0.4), Severity::Warning);
  EXPECT_EQ(severityForImpact(Severity::Info, 0.96, 0.39), Severity::Info);
  EXPECT_EQ(severityForImpact(Severity::Info, 0.96, 0.6), Severity::Error);
  EXPECT_EQ(severityForImpact(Severity::Info, 0.5, 0.59), Severity::Warning);
  EXPECT_EQ(severityForImpact(Severity::Error, 0.0, 0.0), Severity::Error);
  EXPECT_EQ(severityForImpact(Severity::Warning, 0.01, 0.9), Severity::Warning);
}
