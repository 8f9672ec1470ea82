//===- rules/T/CutLastStep.cpp - T007 cut last step -----------------------===//
//
// The profiler often stops inside a step: the last ProfilerStep range then
// ends where the capture did, not where the step did. The trace index
// leaves such a step out of the steady steps (TraceIndex::lastStepCut), so
// that the median step time and every per-step figure measure whole steps;
// this rule says so. A quality finding: no impact.
//
//===----------------------------------------------------------------------===//
#include "rules/BuiltinDetectors.h"
#include "rules/detectors/DetectorSupport.h"

#include "llvm/Support/FormatVariadic.h"

using namespace tracelint;
using namespace tracelint::rules;
using namespace tracelint::rules::detect;
using analysis::TraceIndex;

Outcome rules::runCutLastStep(const TraceIndex &Ctx, const RuleOptions &,
                              std::vector<Detection> &Out) {
  llvm::ArrayRef<analysis::StepWindow> Steps = Ctx.steps();
  if (Steps.size() < 2)
    return Outcome::notApplicable("the trace has one step: there are no "
                                  "other steps to compare its length with");
  if (!Ctx.lastStepCut())
    return Outcome::ran();
  std::vector<int64_t> Others;
  for (const analysis::StepWindow &S : Steps.drop_back())
    Others.push_back(S.Range.length());
  Detection D = qualityDetection("cut-last-step", 0.9);
  auto &V = D.Values;
  V["step"] = llvm::formatv("step {0}", Steps.back().Number).str();
  V["length"] = dur(Steps.back().Range.length());
  V["usual"] = dur(median(Others));
  V["cut_share"] = pct(analysis::CutStepShare);
  V["steps"] = count(int64_t(Steps.size()));
  D.Window = V["step"].text();
  Out.push_back(std::move(D));
  return Outcome::ran();
}
