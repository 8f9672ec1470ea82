//===- rules/C/RecompilationInSteadyState.cpp - C001 steady compiling ---===//
//
// torch.compile compiles a frame the first time it runs and again whenever
// a guard on the cached code fails (a new shape, dtype, Python value or
// global). Compilation in the first step is warm-up; compilation in a later
// step stalls the host for tens of milliseconds to minutes, and recurs
// whenever the inputs keep changing.
//
// Two kinds of evidence, both from the profiler's own records:
//  - compile work: the "<phase> (dynamo_timed)" ranges that Dynamo and
//    Inductor record while compiling, and the Python frames of the compile
//    entry points (with_stack=True);
//  - a new compiled variant: "Torch-Compiled Region: F/C" names the frame F
//    and its C-th compilation; a variant first run after the first step was
//    compiled then (the time from the cache lookup that missed to the
//    region's start is the compile, when nothing else records it), unless it
//    was compiled before the profiled window and only first used here.
//
// The steps: walk every host thread once for compile work and compiled
// regions (collectCompilation), measure the compile time of each step
// after the first (measureSteps), then describe the fresh variants, the
// shapes that changed and the longest compile.
//
//===----------------------------------------------------------------------===//
#include "rules/BuiltinDetectors.h"
#include "rules/detectors/DetectorSupport.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <map>

using namespace tracelint;
using namespace tracelint::rules;
using namespace tracelint::rules::detect;
using analysis::TraceIndex;
using model::Event;
using model::EventKind;

namespace {

constexpr llvm::StringLiteral RegionPrefix = "Torch-Compiled Region: ";
constexpr llvm::StringLiteral CacheLookup = "TorchDynamo Cache Lookup";

/// True for a host range that Dynamo, AOTAutograd or Inductor record while
/// compiling (not while running compiled code).
bool isCompileWork(llvm::StringRef N) {
  if (N.endswith(" (dynamo_timed)"))
    return true;
  // Python frames, "path/file.py(line): function".
  size_t Colon = N.rfind("): ");
  if (Colon == llvm::StringRef::npos)
    return false;
  llvm::StringRef Fn = N.drop_front(Colon + 3);
  if (N.contains("torch/_dynamo/convert_frame.py("))
    return Fn == "_compile" || Fn == "compile_inner";
  if (N.contains("torch/_inductor/compile_fx.py("))
    return Fn == "compile_fx_inner" || Fn == "fx_codegen_and_compile";
  if (N.contains("torch/_functorch/aot_autograd.py("))
    return Fn == "create_aot_dispatcher_function";
  return false;
}

/// The frame number of "Torch-Compiled Region: F/C", and C; false when the
/// name does not have that form.
bool parseRegion(llvm::StringRef N, unsigned &Frame, unsigned &Compile) {
  if (!N.consume_front(RegionPrefix))
    return false;
  auto [F, C] = N.split('/');
  C = C.take_while(llvm::isDigit);
  return !F.getAsInteger(10, Frame) && !C.getAsInteger(10, Compile);
}

/// A compiled variant: one "F/C".
struct Variant {
  unsigned Frame = 0, Compile = 0;
  int FirstStep = -1;              ///< index into Ctx.steps()
  uint32_t First = model::NoIndex; ///< its first region event
  int64_t CompileGapNs = 0;        ///< cache lookup end to first region start
};

/// The first op inside \p Region (same lane) that has recorded input
/// shapes: "name [[...], ...]", or "".
std::string firstShapes(const model::Trace &T, uint32_t Region) {
  const Event &R = T.Events[Region];
  const model::Lane &L = T.laneOf(R);
  for (uint32_t I = Region + 1; I < L.End && T.Events[I].Start < R.end(); ++I) {
    const Event &E = T.Events[I];
    if (E.Kind != EventKind::Op)
      continue;
    const model::EventArgs *A = T.args(E);
    if (A && A->InputDims != model::EmptyString)
      return (T.name(E) + " " + T.Strings.get(A->InputDims)).str();
  }
  return "";
}

/// The compile work and compiled variants of the trace.
struct CompileScan {
  std::vector<model::Interval> Work;
  std::vector<uint32_t> WorkEvents;
  std::map<std::string, Variant> Variants; ///< by "F/C"
  uint64_t Regions = 0;                    ///< compiled-region runs
};

/// What a name is to this rule, decided once per name: a host thread has
/// millions of events and a few thousand names, and the tests above search
/// the text.
enum class NameRole : uint8_t { Unknown, Other, Lookup, CompileWork, Region };

NameRole roleOf(llvm::StringRef N) {
  unsigned F, C;
  return N == CacheLookup       ? NameRole::Lookup
         : isCompileWork(N)     ? NameRole::CompileWork
         : parseRegion(N, F, C) ? NameRole::Region
                                : NameRole::Other;
}

/// Adds the compile work and compiled regions of host lane \p L to \p S;
/// \p Roles caches roleOf() by string id.
void scanLane(const TraceIndex &Ctx, const model::Lane &L, CompileScan &S,
              std::vector<NameRole> &Roles) {
  const model::Trace &T = Ctx.trace();
  int64_t LookupEnd = -1;
  for (uint32_t I = L.Begin; I < L.End; ++I) {
    const Event &E = T.Events[I];
    NameRole &Role = Roles[E.Name];
    if (Role == NameRole::Unknown)
      Role = roleOf(T.name(E));
    if (Role == NameRole::Other)
      continue;
    if (Role == NameRole::Lookup) {
      LookupEnd = E.end();
      continue;
    }
    if (Role == NameRole::CompileWork) {
      S.Work.push_back({E.Start, E.end()});
      S.WorkEvents.push_back(I);
      continue;
    }
    llvm::StringRef N = T.name(E);
    unsigned F = 0, C = 0;
    parseRegion(N, F, C);
    ++S.Regions;
    auto [It, New] =
        S.Variants.try_emplace(N.drop_front(RegionPrefix.size()).str());
    if (!New)
      continue;
    Variant &V = It->second;
    V.Frame = F;
    V.Compile = C;
    V.First = I;
    V.FirstStep = Ctx.stepAt(E.Start);
    if (LookupEnd >= 0 && LookupEnd <= E.Start)
      V.CompileGapNs = E.Start - LookupEnd;
  }
}

CompileScan collectCompilation(const TraceIndex &Ctx) {
  CompileScan S;
  std::vector<NameRole> Roles(Ctx.trace().Strings.size(), NameRole::Unknown);
  for (const model::Lane &L : Ctx.trace().Lanes)
    if (L.Kind == model::LaneKind::HostThread)
      scanLane(Ctx, L, S, Roles);
  return S;
}

/// The compile time of each step after the first: a union of the compile
/// work and the gaps before the variants first run there.
struct CompileFigures {
  std::vector<const Variant *> Fresh; ///< first run after the first step
  std::vector<int64_t> PerStep;
  int64_t Total = 0, Worst = 0;
  int WorstStep = -1;      ///< index into Ctx.steps()
  unsigned StepsWith = 0;  ///< steps with at least min-compile
  bool Recompiled = false; ///< a fresh variant with C > 0
};

CompileFigures measureSteps(const TraceIndex &Ctx, const CompileScan &S,
                            int64_t MinCompile) {
  const model::Trace &T = Ctx.trace();
  llvm::ArrayRef<analysis::StepWindow> Steps = Ctx.steps();
  CompileFigures F;
  std::vector<model::Interval> Parts = S.Work;
  for (const auto &[Key, V] : S.Variants)
    if (V.FirstStep >= 1) {
      F.Fresh.push_back(&V);
      const Event &R = T.Events[V.First];
      if (V.CompileGapNs > 0)
        Parts.push_back({R.Start - V.CompileGapNs, R.Start});
    }
  model::IntervalSet Compiling = model::IntervalSet::unionOf(std::move(Parts));
  for (size_t I = 1; I < Steps.size(); ++I) {
    int64_t Ns = Compiling.lengthWithin(Steps[I].Range);
    F.PerStep.push_back(Ns);
    F.Total += Ns;
    if (Ns >= MinCompile)
      ++F.StepsWith;
    if (Ns > F.Worst) {
      F.Worst = Ns;
      F.WorstStep = int(I);
    }
  }
  F.Recompiled =
      llvm::any_of(F.Fresh, [](const Variant *V) { return V->Compile > 0; });
  return F;
}

/// The shapes that changed: a fresh recompiled variant against an earlier
/// variant of the same frame, or "" when none shows a change.
std::string changedShapes(const model::Trace &T, const CompileScan &S,
                          llvm::ArrayRef<const Variant *> Fresh) {
  for (const Variant *V : Fresh) {
    if (V->Compile == 0)
      continue;
    for (const auto &[Key, Old] : S.Variants) {
      if (Old.Frame != V->Frame || &Old == V ||
          T.Events[Old.First].Start >= T.Events[V->First].Start)
        continue;
      std::string Before = firstShapes(T, Old.First),
                  After = firstShapes(T, V->First);
      if (!Before.empty() && !After.empty() && Before != After)
        return llvm::formatv("variant {0} ran {1}; variant {2}/{3} ran {4}",
                             Key, Before, V->Frame, V->Compile, After)
            .str();
    }
  }
  return "";
}

/// {shapes}: the change that made the variants, or why none shows.
std::string describeShapes(const model::Trace &T, const CompileScan &S,
                           llvm::ArrayRef<const Variant *> Fresh) {
  std::string Shapes = changedShapes(T, S, Fresh);
  if (!Shapes.empty())
    return Shapes;
  bool AnyShapes = llvm::any_of(S.Variants, [&](const auto &KV) {
    return !firstShapes(T, KV.second.First).empty();
  });
  if (T.Source.RecordShapes == 0 || !AnyShapes)
    return "the trace has no input shapes inside the compiled regions "
           "(profile with record_shapes=True to see them)";
  return "the ops inside the compiled regions show no shape change: the "
         "failed guard is probably on something else (a dtype, a Python "
         "value, a global, a module attribute)";
}

/// {variants}: the fresh variants and the step each first ran in.
std::string describeVariants(llvm::ArrayRef<analysis::StepWindow> Steps,
                             llvm::ArrayRef<const Variant *> Fresh) {
  std::vector<std::string> Names;
  for (const Variant *V : Fresh)
    Names.push_back(llvm::formatv("{0}/{1} (first run in step {2})", V->Frame,
                                  V->Compile, Steps[V->FirstStep].Number)
                        .str());
  if (Names.empty())
    return "none";
  return joinNames(Names, 4) + (Names.size() > 4 ? " and others" : "");
}

/// The example: the longest compile work in a step after the first, else
/// the first fresh variant's region; nullptr when neither exists.
const Event *compileExample(const TraceIndex &Ctx, const CompileScan &S,
                            llvm::ArrayRef<const Variant *> Fresh) {
  const model::Trace &T = Ctx.trace();
  const Event *Ex = nullptr;
  for (uint32_t I : S.WorkEvents)
    if (Ctx.stepAt(T.Events[I].Start) >= 1 &&
        (!Ex || T.Events[I].Duration > Ex->Duration))
      Ex = &T.Events[I];
  if (!Ex && !Fresh.empty())
    Ex = &T.Events[Fresh.front()->First];
  return Ex;
}

/// {window}: the steps after the first, which this rule measures even
/// when the trace has only two (warm-up compiles in the first step).
std::string stepsAfterTheFirst(llvm::ArrayRef<analysis::StepWindow> Steps) {
  return Steps.size() > 2 ? llvm::formatv("steps {0}-{1}", Steps[1].Number,
                                          Steps.back().Number)
                                .str()
                          : llvm::formatv("step {0}", Steps[1].Number).str();
}

/// The figures and texts of the finding.
void describeCompilation(const TraceIndex &Ctx, const CompileScan &S,
                         const CompileFigures &F, Detection &Det) {
  const model::Trace &T = Ctx.trace();
  llvm::ArrayRef<analysis::StepWindow> Steps = Ctx.steps();
  auto &V = Det.Values;
  V["steady"] = count(int64_t(Steps.size() - 1));
  V["compile_steps"] = count(F.StepsWith);
  V["compile_total"] = dur(F.Total);
  V["worst"] = dur(F.Worst);
  V["worst_step"] =
      F.WorstStep >= 0 ? count(Steps[F.WorstStep].Number) : Value("none");
  V["variants"] = describeVariants(Steps, F.Fresh);
  V["fresh"] = count(int64_t(F.Fresh.size()));
  V["kind"] = F.Recompiled      ? "recompiles frames it had compiled before"
              : F.Fresh.empty() ? "compiles"
                                : "compiles frames for the first time";
  V["shapes"] = describeShapes(T, S, F.Fresh);
  V["work_events"] = count(int64_t(S.WorkEvents.size()));
  V["per_step"] = dur(median(F.PerStep));
  V["value"] = dur(F.Total);
  V["window"] = stepsAfterTheFirst(Steps);
  V["metric"] = "median step time";
  V["example"] = "none";
  if (const Event *Ex = compileExample(Ctx, S, F.Fresh)) {
    V["example"] = nameAt(Ctx, T.name(*Ex), *Ex);
    Det.Examples.push_back(example(Ctx, *Ex));
  }
}

} // namespace

Outcome rules::runRecompilationInSteadyState(const TraceIndex &Ctx,
                                             const RuleOptions &Opts,
                                             std::vector<Detection> &Out) {
  const int64_t MinCompile = int64_t(Opts.number("min-compile"));
  llvm::ArrayRef<analysis::StepWindow> Steps = Ctx.steps();

  CompileScan S = collectCompilation(Ctx);
  if (S.Work.empty() && S.Variants.empty())
    return Outcome::ran(); // nothing was compiled with torch.compile
  // A window that is not mostly start-up passes the rule's need without
  // steps; warm-up still cannot be told from steady state then.
  if (Steps.size() < 2)
    return Outcome::cannotJudge(
        llvm::formatv(
            "the trace runs torch.compile code ({0} "
            "compiled-region runs and compile ranges) but has {1}, so "
            "warm-up compilation cannot be told from compilation in "
            "steady state; profile several steps after warm-up "
            "(torch.profiler.schedule with warmup, and prof.step() "
            "marking each step)",
            S.Regions + S.Work.size(),
            Steps.empty() ? "no step markers" : "only one step")
            .str());

  CompileFigures F = measureSteps(Ctx, S, MinCompile);
  // Without measurable compile time, only a recompiled variant (C > 0)
  // first run in a later step is evidence, and weaker: it may have been
  // compiled before the window. A frame's first variant first run late is
  // code that the first step did not reach.
  if (F.StepsWith == 0 && !F.Recompiled)
    return Outcome::ran();

  const int64_t Impact = std::min(median(F.PerStep), Ctx.targetNs());
  Detection Det;
  describeCompilation(Ctx, S, F, Det);
  Det.Values["impact"] = dur(Impact);
  Det.Values["target"] = Ctx.describeTarget();
  Det.ImpactNs = Impact;
  Det.Window = Det.Values["window"].text();
  Det.Subject = F.Recompiled ? "recompilation" : "compilation";
  // Recorded compile work is direct evidence; a variant first seen late
  // may have been compiled before the window.
  if (F.StepsWith > 0) {
    Det.Confidence = 0.8;
  } else {
    Det.Confidence = 0.4;
    Det.ConfidenceNotes.emplace_back(
        "no compile time was recorded in the steps: the new variants may "
        "have been compiled before the profiled window");
  }
  Out.push_back(std::move(Det));
  return Outcome::ran();
}
