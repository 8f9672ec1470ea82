//===- ProducerTest.cpp - What program produced a trace, and its texts ----===//
//
// Detection from events built in the test, and the rule format's
// per-producer texts: parsing, errors with their places, the fallback from
// an offload program to the CUDA texts, and rendering through the engine.
//
//===----------------------------------------------------------------------===//
#include "DetectorTestSupport.h"

#include "analysis/Producer.h"
#include "analysis/Stats.h"
#include "import/Import.h"
#include "rules/Catalogue.h"
#include "rules/Config.h"
#include "rules/Engine.h"

#include "gtest/gtest.h"

using namespace tracelint;
using namespace tracelint::testing;
using analysis::ProducerKind;
using model::EventKind;

namespace {

ProducerKind kindOf(model::Trace &&T) {
  analysis::TraceIndex Ctx(T);
  return Ctx.producer().Kind;
}

TEST(Producer, AtenOpsMakeAPyTorchTrace) {
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  M.op("aten::mm", 0, 10 * Us);
  M.launch(S, "sgemm_128x64", 2 * Us, 4 * Us, 5 * Us, 9 * Us);
  model::Trace T = M.finish();
  analysis::TraceIndex Ctx(T);
  EXPECT_EQ(Ctx.producer().Kind, ProducerKind::PyTorch);
  EXPECT_EQ(Ctx.producer().AtenOps, 1u);
  EXPECT_NE(Ctx.producer().Signals.find("1 ATen op"), std::string::npos);
}

TEST(Producer, StepMarkersOrPythonFramesAloneMakeAPyTorchTrace) {
  {
    TraceMaker M;
    M.step(1, 0, 10 * Us);
    EXPECT_EQ(kindOf(M.finish()), ProducerKind::PyTorch);
  }
  {
    TraceMaker M;
    M.add(M.Host, EventKind::Python, "train.py(12): step", 0, 5 * Us);
    EXPECT_EQ(kindOf(M.finish()), ProducerKind::PyTorch);
  }
}

TEST(Producer, RuntimeCallsAndKernelsWithoutFrameworkEventsAreCuda) {
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  M.launch(S, "saxpy", 0, 2 * Us, 3 * Us, 9 * Us);
  M.runtime("cudaMemcpy", 10 * Us, 20 * Us);
  // An annotation whose name merely contains "aten" is not an ATen op, and
  // an ATen-looking runtime call name does not count either.
  M.add(M.Host, EventKind::Annotation, "compute_saten", 0, 30 * Us);
  M.add(M.Host, EventKind::Runtime, "aten::bogus", 21 * Us, 22 * Us);
  model::Trace T = M.finish();
  analysis::TraceIndex Ctx(T);
  EXPECT_EQ(Ctx.producer().Kind, ProducerKind::Cuda);
  EXPECT_EQ(Ctx.producer().RuntimeCalls, 3u);
  EXPECT_NE(Ctx.producer().Signals.find("no Python or ATen events"),
            std::string::npos);
}

TEST(Producer, NvhpcAndLlvmOffloadKernelsAreOpenMp) {
  {
    TraceMaker M;
    uint32_t S = M.stream(0, 7);
    M.launch(S, "nvkernel_solve_F1L204_2", 0, 2 * Us, 3 * Us, 9 * Us,
             "cuLaunchKernel");
    EXPECT_EQ(kindOf(M.finish()), ProducerKind::OpenMpOffload);
  }
  {
    TraceMaker M;
    uint32_t S = M.stream(0, 7);
    M.launch(S, "__omp_offloading_10302_5a1b_main_l12", 0, 2 * Us, 3 * Us,
             9 * Us, "cuLaunchKernel");
    EXPECT_EQ(kindOf(M.finish()), ProducerKind::OpenMpOffload);
  }
  {
    // Not the nvhpc pattern: the line part is not digits.
    TraceMaker M;
    uint32_t S = M.stream(0, 7);
    M.launch(S, "nvkernel_solve_FxLy_2", 0, 2 * Us, 3 * Us, 9 * Us);
    EXPECT_EQ(kindOf(M.finish()), ProducerKind::Cuda);
  }
}

TEST(Producer, OpenAccKernelsAndCallsAreOpenAcc) {
  {
    TraceMaker M;
    uint32_t S = M.stream(0, 7);
    M.launch(S, "main_42_gpu", 0, 2 * Us, 3 * Us, 9 * Us, "cuLaunchKernel");
    EXPECT_EQ(kindOf(M.finish()), ProducerKind::OpenAcc);
  }
  {
    TraceMaker M;
    uint32_t S = M.stream(0, 7);
    M.launch(S, "jacobi_kernel", 0, 2 * Us, 3 * Us, 9 * Us);
    M.add(M.Host, EventKind::Other, "acc_enter_data@jacobi.c:40", 0, 1 * Us);
    EXPECT_EQ(kindOf(M.finish()), ProducerKind::OpenAcc);
  }
}

TEST(Producer, PyTorchWinsOverOffloadKernelsAndNothingIsUnknown) {
  {
    TraceMaker M;
    uint32_t S = M.stream(0, 7);
    M.op("aten::add", 0, 10 * Us);
    M.launch(S, "nvkernel_solve_F1L204_2", 1 * Us, 2 * Us, 3 * Us, 9 * Us);
    EXPECT_EQ(kindOf(M.finish()), ProducerKind::PyTorch);
  }
  {
    TraceMaker M;
    M.add(M.Host, EventKind::Annotation, "main loop", 0, 10 * Us);
    EXPECT_EQ(kindOf(M.finish()), ProducerKind::Unknown);
  }
}

/// A Kineto trace with only CUDA activity: a runtime call and its kernel,
/// with \p Extra top-level keys.
ProducerKind importedKind(llvm::StringRef Extra, std::string *Signals) {
  std::string Json = "{" + Extra.str() + R"json("traceEvents": [
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 10, "dur": 4, "args": {"correlation": 1}},
{"ph": "X", "cat": "kernel", "name": "saxpy", "pid": 0, "tid": 7, "ts": 20, "dur": 20, "args": {"device": 0, "stream": 7, "correlation": 1}}
]})json";
  auto T = import::importTraceBytes("cuda-only.json", Json);
  if (!T) {
    ADD_FAILURE() << llvm::toString(T.takeError());
    return ProducerKind::Unknown;
  }
  analysis::TraceIndex Ctx(*T);
  *Signals = Ctx.producer().Signals;
  return Ctx.producer().Kind;
}

TEST(Producer, AKinetoTraceWithCpuActivityOffIsPyTorch) {
  std::string Signals;
  // libkineto's schema: the PyTorch profiler run with only CUDA activity.
  EXPECT_EQ(importedKind(R"("schemaVersion": 1, )", &Signals),
            ProducerKind::PyTorch);
  EXPECT_NE(Signals.find("a Kineto trace (schemaVersion 1) without CPU ops"),
            std::string::npos)
      << Signals;
  // tracelint capture writes the same schema for any CUDA program.
  EXPECT_EQ(importedKind(
                R"("schemaVersion": 1, "tracelint_capture": {"records": {}}, )",
                &Signals),
            ProducerKind::Cuda);
  // A Chrome trace of other origin says nothing of the profiler.
  EXPECT_EQ(importedKind("", &Signals), ProducerKind::Cuda);
}

TEST(Producer, StatsCarryTheProducer) {
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  M.launch(S, "saxpy", 0, 2 * Us, 3 * Us, 9 * Us);
  model::Trace T = M.finish();
  analysis::TraceIndex Ctx(T);
  analysis::TraceStats St = analysis::computeStats(Ctx);
  EXPECT_EQ(St.Program.Kind, ProducerKind::Cuda);
  EXPECT_EQ(St.Program.Signals, Ctx.producer().Signals);
}

TEST(Platform, MetadataDevicesThenCallCountsDecide) {
  {
    TraceMaker M;
    M.runtime("cudaLaunchKernel", 0, 2 * Us);
    model::Trace T = M.finish();
    T.Source.HipRuntimeVersion = "60443483";
    analysis::TraceIndex Ctx(T);
    EXPECT_TRUE(Ctx.producer().isRocm());
  }
  {
    // No metadata, no device properties: the runtime calls tell.
    TraceMaker M;
    M.runtime("hipLaunchKernel", 0, 2 * Us);
    M.runtime("hipMemcpyAsync", 3 * Us, 4 * Us);
    M.runtime("cudaGetDevice", 5 * Us, 6 * Us);
    model::Trace T = M.finish();
    analysis::TraceIndex Ctx(T);
    EXPECT_EQ(Ctx.producer().Plat, analysis::Platform::Rocm);
    EXPECT_EQ(Ctx.producer().HipCalls, 2u);
  }
  {
    TraceMaker M;
    M.runtime("cudaLaunchKernel", 0, 2 * Us);
    model::Trace T = M.finish();
    analysis::TraceIndex Ctx(T);
    EXPECT_EQ(Ctx.producer().Plat, analysis::Platform::Cuda);
  }
  {
    TraceMaker M;
    model::Trace T = M.finish();
    analysis::TraceIndex Ctx(T);
    EXPECT_EQ(Ctx.producer().Plat, analysis::Platform::Unknown);
    EXPECT_EQ(analysis::platformName(Ctx.producer().Plat), "unknown");
  }
}

TEST(Platform, ArchitecturesAreNamedAsTheirVendorDoes) {
  using analysis::Platform;
  model::DeviceInfo Mi250;
  Mi250.Name = "AMD Instinct MI250X";
  Mi250.ComputeMajor = 9;
  Mi250.ComputeMinor = 0;
  Mi250.NumSMs = 110;
  EXPECT_EQ(analysis::archName(Mi250, Platform::Unknown), "gfx90a");
  EXPECT_EQ(analysis::computeUnitsWord(Mi250, Platform::Unknown), "CUs");
  // Kineto on ROCm leaves the name empty: the trace's platform decides.
  model::DeviceInfo Mi300;
  Mi300.ComputeMajor = 9;
  Mi300.ComputeMinor = 4;
  Mi300.NumSMs = 304;
  EXPECT_EQ(analysis::archName(Mi300, Platform::Rocm), "gfx942");
  EXPECT_EQ(analysis::archName(Mi300, Platform::Cuda), "compute 9.4");
  model::DeviceInfo Odd = Mi250;
  Odd.NumSMs = 7;
  EXPECT_EQ(analysis::archName(Odd, Platform::Rocm), "gfx9.0 family");
  Odd.Arch = "gfx90c";
  EXPECT_EQ(analysis::archName(Odd, Platform::Rocm), "gfx90c");
  model::DeviceInfo H100;
  H100.Name = "NVIDIA H100 80GB HBM3";
  H100.ComputeMajor = 9;
  H100.ComputeMinor = 0;
  EXPECT_EQ(analysis::archName(H100, Platform::Rocm), "compute 9.0");
  EXPECT_EQ(analysis::computeUnitsWord(H100, Platform::Rocm), "SMs");
  EXPECT_EQ(analysis::archName(model::DeviceInfo(), Platform::Rocm), "");
}

TEST(Producer, NamesRoundTrip) {
  for (unsigned I = 0; I < analysis::NumProducerKinds; ++I) {
    auto K = ProducerKind(I);
    EXPECT_EQ(analysis::parseProducer(analysis::producerName(K)), K);
  }
  EXPECT_FALSE(analysis::parseProducer("jax"));
  EXPECT_EQ(analysis::producerFallback(ProducerKind::OpenAcc),
            ProducerKind::Cuda);
  EXPECT_FALSE(analysis::producerFallback(ProducerKind::Cuda));
}

// --- Rule texts per producer ----------------------------------------------

const char *const WithTexts = R"toml(code = "X001"
name = "slow-kernels"
summary = "kernels"
[signature.select]
kind = "kernel"
[text]
hypothesis = "default hypothesis {count}"
alternatives = ["default alternative"]
[experiment]
change = "torch change"
verify = "torch verify"
[producer.cuda.text]
hypothesis = "cuda hypothesis {count}"
[producer.cuda.experiment]
change = "cuda change"
[producer.openmp-offload.experiment]
change = "omp change"
)toml";

std::string producerErrorOf(llvm::StringRef Text) {
  auto Spec = rules::Catalogue::parseRule(Text, "x.toml");
  if (Spec) {
    ADD_FAILURE() << "expected an error for:\n" << Text.str();
    return "";
  }
  return llvm::toString(Spec.takeError());
}

TEST(ProducerTexts, OverridesParseAndFallBack) {
  auto Spec = rules::Catalogue::parseRule(WithTexts, "x.toml");
  ASSERT_TRUE(bool(Spec)) << llvm::toString(Spec.takeError());
  ASSERT_EQ(Spec->ByProducer.size(), 2u);
  EXPECT_EQ(Spec->ByProducer[0].Producer, ProducerKind::Cuda);

  rules::RuleTexts Torch = Spec->textsFor(ProducerKind::PyTorch);
  EXPECT_EQ(Torch.Hypothesis, "default hypothesis {count}");
  EXPECT_EQ(Torch.Next.Change, "torch change");

  rules::RuleTexts Cuda = Spec->textsFor(ProducerKind::Cuda);
  EXPECT_EQ(Cuda.Hypothesis, "cuda hypothesis {count}");
  EXPECT_EQ(Cuda.Next.Change, "cuda change");
  // Keys without an override keep the default.
  EXPECT_EQ(Cuda.Next.Verify, "torch verify");
  EXPECT_EQ(Cuda.Alternatives, std::vector<std::string>{"default alternative"});

  // OpenMP: its own change, the CUDA hypothesis (its fallback).
  rules::RuleTexts Omp = Spec->textsFor(ProducerKind::OpenMpOffload);
  EXPECT_EQ(Omp.Next.Change, "omp change");
  EXPECT_EQ(Omp.Hypothesis, "cuda hypothesis {count}");
  // OpenACC has none: all CUDA.
  EXPECT_EQ(Spec->textsFor(ProducerKind::OpenAcc).Next.Change, "cuda change");
  EXPECT_EQ(Spec->textsFor(ProducerKind::Unknown).Next.Change, "torch change");
}

TEST(ProducerTexts, ErrorsNameThePlace) {
  std::string Text = std::string(WithTexts) + "[producer.jax.text]\n"
                                              "hypothesis = \"x\"\n";
  EXPECT_EQ(producerErrorOf(Text),
            "x.toml:18:11: unknown producer 'jax' in [producer]; expected "
            "one of pytorch, cuda, openmp-offload, openacc");
  std::string Feature =
      std::string(WithTexts) + "predict-feature = \"steps\"\n";
  EXPECT_EQ(producerErrorOf(Feature),
            "x.toml:18:1: unknown key 'predict-feature' in "
            "[producer.openmp-offload.experiment]; allowed keys: change, "
            "predict-trace, predict-metric, verify, refuted-if");
  std::string Empty = std::string(WithTexts) + "[producer.openacc.text]\n";
  EXPECT_NE(producerErrorOf(Empty).find("x.toml:18:"), std::string::npos);
  EXPECT_NE(producerErrorOf(Empty).find("[producer.openacc] overrides no text"),
            std::string::npos);
  std::string NotTable = std::string(WithTexts) + "[producer.openacc]\n"
                                                  "text = \"x\"\n";
  EXPECT_NE(
      producerErrorOf(NotTable).find("'producer.openacc.text' must be a table"),
      std::string::npos);
}

TEST(ProducerTexts, ProducersLimitsARuleToSomePrograms) {
  std::string Text = std::string(WithTexts);
  Text.insert(Text.find("[signature"), "producers = [\"pytorch\"]\n");
  auto Spec = rules::Catalogue::parseRule(Text, "x.toml");
  ASSERT_TRUE(bool(Spec)) << llvm::toString(Spec.takeError());
  EXPECT_EQ(Spec->Producers, std::vector<ProducerKind>{ProducerKind::PyTorch});
  rules::Catalogue C;
  ASSERT_FALSE(bool(C.add(*Spec)));
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  M.launch(S, "k", 0, 2 * Us, 3 * Us, 9 * Us);
  model::Trace T = M.finish();
  analysis::TraceIndex Ctx(T);
  rules::LintResult R = rules::runRules(Ctx, C, rules::Config(), "t.json");
  EXPECT_TRUE(R.Findings.empty());
  ASSERT_EQ(R.Skipped.size(), 1u);
  EXPECT_EQ(R.Skipped[0].Kind, rules::SkipKind::NotApplicable);
  EXPECT_NE(R.Skipped[0].Reason.find("patterns of PyTorch programs, and the "
                                     "trace is from a CUDA/HIP program"),
            std::string::npos)
      << R.Skipped[0].Reason;

  std::string Bad = std::string(WithTexts);
  Bad.insert(Bad.find("[signature"), "producers = [\"jax\"]\n");
  EXPECT_EQ(producerErrorOf(Bad),
            "x.toml:4:14: 'producers' takes pytorch, cuda, "
            "openmp-offload, openacc");
}

TEST(ProducerTexts, EngineRendersTheProducersTexts) {
  auto Spec = rules::Catalogue::parseRule(WithTexts, "x.toml");
  ASSERT_TRUE(bool(Spec)) << llvm::toString(Spec.takeError());
  rules::Catalogue C;
  ASSERT_FALSE(bool(C.add(*Spec)));
  auto Lint = [&](bool Torch) {
    TraceMaker M;
    uint32_t S = M.stream(0, 7);
    if (Torch)
      M.op("aten::mm", 0, 3 * Us);
    M.launch(S, "k", 0, 2 * Us, 3 * Us, 9 * Us);
    model::Trace T = M.finish();
    analysis::TraceIndex Ctx(T);
    rules::LintResult R = rules::runRules(Ctx, C, rules::Config(), "t.json");
    EXPECT_EQ(R.Findings.size(), 1u);
    return R.Findings.empty() ? rules::Finding() : R.Findings.front();
  };
  rules::Finding Cuda = Lint(false);
  EXPECT_EQ(Cuda.Hypothesis, "cuda hypothesis 1");
  EXPECT_EQ(Cuda.Next.Change, "cuda change");
  rules::Finding Torch = Lint(true);
  EXPECT_EQ(Torch.Hypothesis, "default hypothesis 1");
  EXPECT_EQ(Torch.Next.Change, "torch change");
}

TEST(ProducerTexts, MissingNeedsSpeakTheProducersTools) {
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  M.launch(S, "saxpy", 0, 2 * Us, 3 * Us, 9 * Us);
  model::Trace T = M.finish();
  analysis::TraceIndex Ctx(T);
  std::string Steps = rules::missingNeed(Ctx, rules::Need::Steps);
  EXPECT_NE(Steps.find("NVTX"), std::string::npos) << Steps;
  EXPECT_EQ(Steps.find("prof.step"), std::string::npos) << Steps;
  EXPECT_EQ(rules::missingNeed(Ctx, rules::Need::Shapes).find("record_shapes"),
            std::string::npos);
}

} // namespace
