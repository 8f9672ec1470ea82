//===- report/PathJson.cpp - JSON form of `tracelint path` ----------------===//
//
// Keys in a fixed order, times in integer ns, so that two runs over the
// same trace give byte-identical output.
//
//===----------------------------------------------------------------------===//
#include "report/IdleSplit.h"
#include "report/PathReport.h"

#include "llvm/Support/JSON.h"

using namespace tracelint;
using namespace tracelint::analysis;

static constexpr int64_t PathJsonVersion = 1;

static std::string text(llvm::StringRef S) {
  return llvm::json::isUTF8(S) ? S.str() : llvm::json::fixUTF8(S);
}

void tracelint::report::writePathJson(llvm::raw_ostream &OS,
                                      const TraceIndex &C,
                                      const PathAnalysis &A,
                                      llvm::StringRef Input) {
  const model::Trace &T = C.trace();
  auto Name = [&](model::StringId Id) { return text(T.Strings.get(Id)); };
  llvm::json::OStream J(OS, 2);
  J.object([&] {
    J.attribute("tracelint_path_version", PathJsonVersion);
    J.attribute("input", text(Input));
    J.attribute("steps_from", stepSourceName(T.StepsFrom));
    // The step time lint and stats print (TraceIndex::targetNs).
    J.attribute("step_time_ns", C.targetNs());
    J.attributeArray("targets", [&] {
      for (size_t I = 0; I < A.Targets.size(); ++I) {
        const TargetInterval &X = A.Targets[I];
        J.object([&] {
          if (X.FromStep)
            J.attribute("step", X.StepNumber);
          J.attribute("start_ns", X.Range.Begin);
          J.attribute("end_ns", X.Range.End);
          J.attribute("host_end_ns", X.HostRange.End);
          J.attribute("step_ns", X.stepNs());
          J.attribute("device_tail_ns", X.deviceTailNs());
          if (I < A.Lengths.size() && A.Lengths[I] >= 0)
            J.attribute("path_ns", A.Lengths[I]);
        });
      }
    });
    if (A.Chosen >= A.Targets.size())
      return;
    const TargetInterval &X = A.Targets[A.Chosen];
    const StepPath &P = A.Path;
    J.attributeObject("analysed", [&] {
      if (X.FromStep)
        J.attribute("step", X.StepNumber);
      else
        J.attribute("window", true);
      J.attribute("target_ns", X.length());
      J.attribute("step_ns", X.stepNs());
      J.attribute("device_tail_ns", X.deviceTailNs());
      J.attribute("has_path", P.HasPath);
      if (!P.HasPath)
        return;
      J.attribute("path_ns", P.LengthNs);
      J.attribute("dropped_edges", int64_t(A.DroppedEdges));
      J.attributeObject("categories", [&] {
        for (unsigned I = 0; I < NumPathCategories; ++I)
          if (P.ByCategory[I] > 0)
            J.attribute(pathCategoryName(PathCategory(I)), P.ByCategory[I]);
      });
      J.attributeArray("chains", [&] {
        for (const PathChain &Ch : P.Chains)
          J.object([&] {
            if (Ch.Op != model::EmptyString)
              J.attribute("op", Name(Ch.Op));
            if (Ch.Call != model::EmptyString)
              J.attribute("call", Name(Ch.Call));
            if (Ch.Work != model::EmptyString)
              J.attribute("work", Name(Ch.Work));
            J.attribute("total_ns", Ch.totalNs());
            J.attribute("host_ns", Ch.HostNs);
            J.attribute("latency_ns", Ch.LatencyNs);
            J.attribute("device_ns", Ch.DeviceNs);
          });
      });
      J.attributeArray("devices", [&] {
        for (const DeviceAttribution &D : A.Devices)
          J.object([&] {
            J.attribute("device", int64_t(D.Device));
            J.attribute("busy_ns", D.BusyNs);
            J.attributeObject("busy_by_kind", [&] {
              for (unsigned K = 0; K < NumBusyKinds; ++K)
                J.attribute(busyKindName(BusyKind(K)), D.BusyByKind[K]);
            });
            J.attribute("idle_ns", D.IdleNs);
            writeIdleSplitJson(J, D.Split);
            J.attributeArray("idle_other_work", [&] {
              for (auto &[Id, Ns] : D.IdleOtherWork)
                J.object([&] {
                  J.attribute("name", Name(Id));
                  J.attribute("ns", Ns);
                });
            });
          });
      });
      J.attributeArray("what_if", [&] {
        for (const WhatIfResult &R : A.WhatIfs)
          J.object([&] {
            J.attributeArray("categories", [&] {
              for (unsigned I = 0; I < NumPathCategories; ++I)
                if (R.Query.Categories.test(I))
                  J.value(pathCategoryName(PathCategory(I)));
            });
            J.attributeArray("names", [&] {
              for (const std::string &N : R.Query.Names)
                J.value(text(N));
            });
            J.attribute("path_ns", R.LengthNs);
            J.attribute("gain_ns", R.GainNs);
          });
      });
    });
  });
  OS << "\n";
}
