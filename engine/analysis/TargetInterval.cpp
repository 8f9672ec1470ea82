//===- analysis/TargetInterval.cpp ----------------------------------------===//
#include "analysis/TargetInterval.h"

using namespace tracelint;
using namespace tracelint::analysis;

std::vector<TargetInterval>
tracelint::analysis::targetIntervals(const TraceIndex &C) {
  const model::Trace &T = C.trace();
  std::vector<TargetInterval> Out;
  if (!C.hasSteps()) {
    TargetInterval W;
    W.HostRange = C.window();
    W.Range = {T.WindowStart, T.WindowStart};
    for (int32_t D : C.devices())
      for (uint32_t I : C.deviceWork(D)) {
        W.Work.push_back(I);
        if (T.Events[I].end() > W.Range.End) {
          W.Range.End = T.Events[I].end();
          W.LastWork = I;
        }
      }
    if (W.LastWork == model::NoIndex)
      W.Range = W.HostRange;
    Out.push_back(W);
    return Out;
  }
  for (const StepWindow &S : C.steps()) {
    TargetInterval X;
    X.StepNumber = S.Number;
    X.FromStep = true;
    X.HostRange = S.Range;
    X.Range = {S.Range.Begin, S.Range.Begin};
    Out.push_back(X);
  }
  for (uint32_t LI = 0; LI < T.Lanes.size(); ++LI) {
    if (T.Lanes[LI].Kind != model::LaneKind::HostThread)
      continue;
    for (uint32_t I : C.submissions(LI)) {
      const model::Event &L = T.Events[I];
      int SI = C.stepAt(L.Start);
      if (SI < 0)
        continue;
      TargetInterval &X = Out[SI];
      for (uint32_t W : T.deviceWorkOf(L)) {
        const model::Event &E = T.Events[W];
        if (!model::isDeviceWork(E.Kind) || E.hasFlag(model::FlagBeforeLaunch))
          continue;
        X.Work.push_back(W);
        if (E.end() > X.Range.End ||
            (E.end() == X.Range.End && X.LastWork == model::NoIndex)) {
          X.Range.End = E.end();
          X.LastWork = W;
        }
      }
    }
  }
  for (TargetInterval &X : Out)
    if (X.LastWork == model::NoIndex)
      X.Range = X.HostRange;
  return Out;
}
