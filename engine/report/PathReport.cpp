//===- report/PathReport.cpp - Text form of `tracelint path` --------------===//
#include "report/PathReport.h"
#include "report/IdleSplit.h"

#include "support/Format.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

using namespace tracelint;
using namespace tracelint::support;
using namespace tracelint::analysis;

static std::string pct(int64_t Ns, int64_t Of) {
  return support::formatShare(Of > 0 ? double(Ns) / double(Of) : 0);
}

static std::string name(const model::Trace &T, model::StringId Id,
                        size_t Width = 60) {
  if (Id == model::EmptyString)
    return "-";
  return support::sanitize(T.Strings.get(Id), Width);
}

static std::string targetLabel(const TargetInterval &X) {
  return X.FromStep ? "step " + std::to_string(X.StepNumber) : "window";
}

void tracelint::report::writePathText(llvm::raw_ostream &OS,
                                      const TraceIndex &C,
                                      const PathAnalysis &A,
                                      llvm::StringRef Input) {
  const model::Trace &T = C.trace();
  OS << "tracelint path: " << support::sanitize(Input) << "\n";
  if (A.Targets.empty() || A.Chosen >= A.Targets.size()) {
    OS << "cannot judge: the trace has no step or window to analyse\n";
    return;
  }
  const TargetInterval &X = A.Targets[A.Chosen];
  const StepPath &P = A.Path;
  int64_t Len = X.length();
  if (X.FromStep) {
    // The step time is the host range, as in lint and stats; completion
    // adds the device tail, the work that runs on after the range ends.
    OS << "target      " << targetLabel(X) << ": step time "
       << formatDuration(X.stepNs()) << " (its " << stepSourceName(T.StepsFrom)
       << " range); completion " << formatDuration(Len)
       << " from its start to the end of the last device work it submitted";
    if (X.deviceTailNs() > 0)
      OS << " (device tail " << formatDuration(X.deviceTailNs()) << ")";
    OS << "\n";
    std::vector<int64_t> L;
    for (int64_t V : A.Lengths)
      if (V >= 0)
        L.push_back(V);
    std::sort(L.begin(), L.end());
    OS << "steps       " << A.Targets.size() << " ("
       << stepSourceName(T.StepsFrom) << "); " << C.describeTarget();
    if (!L.empty())
      OS << "; completion per step: min " << formatDuration(L.front())
         << ", median " << formatDuration(L[(L.size() - 1) / 2]) << ", max "
         << formatDuration(L.back());
    OS << "\n";
  } else {
    OS << "target      window: " << formatDuration(Len)
       << " from the first event to the end of the last device work (the "
          "trace has no steps)\n";
  }
  // The steady steps' typical idle split: lint's target line, word for
  // word; the device table below splits the analysed step alone.
  const TargetIdle &Typical = C.targetIdle();
  if (std::string Split = idleSplitText(Typical); !Split.empty())
    OS << "idle        device " << Typical.Device << " " << Split
       << (X.FromStep ? " (typical step, as lint's target line)"
                      : " (as lint's target line)")
       << "\n";
  if (!P.HasPath && !C.hasDeviceActivity()) {
    OS << "cannot judge: the trace has no device activity; completion is "
          "the host range and there is no device work to follow\n";
    return;
  }
  if (!P.HasPath) {
    OS << "cannot judge: " << targetLabel(X)
       << " submitted no device work that the trace links to its launch; "
          "there is no path to follow\n";
    return;
  }
  OS << "completion  " << formatDuration(P.LengthNs) << " along the critical "
     << "path";
  if (P.LengthNs == Len)
    OS << " (equals the target interval)";
  OS << "\n";
  if (A.DroppedEdges)
    OS << "note        " << A.DroppedEdges
       << " dependencies ran backwards in time (clock skew) and were left "
          "out\n";

  OS << "\ncritical path by category\n";
  std::vector<unsigned> Cats;
  for (unsigned I = 0; I < NumPathCategories; ++I)
    if (P.ByCategory[I] > 0)
      Cats.push_back(I);
  std::stable_sort(Cats.begin(), Cats.end(), [&](unsigned L, unsigned R) {
    return P.ByCategory[L] > P.ByCategory[R];
  });
  for (unsigned I : Cats)
    OS << llvm::formatv(
        "  {0,-16} {1,12}  {2,7}   {3}\n", pathCategoryName(PathCategory(I)),
        formatDuration(P.ByCategory[I]), pct(P.ByCategory[I], P.LengthNs),
        pathCategoryTitle(PathCategory(I)));

  if (!P.Chains.empty()) {
    OS << "\ntop chains on the path (op -> launch -> device work)\n";
    unsigned N = 0;
    for (const PathChain &Ch : P.Chains) {
      OS << "  " << ++N << ". " << name(T, Ch.Op) << " -> " << name(T, Ch.Call)
         << " -> " << name(T, Ch.Work) << "\n"
         << "     " << formatDuration(Ch.totalNs()) << " ("
         << pct(Ch.totalNs(), P.LengthNs) << "): host "
         << formatDuration(Ch.HostNs) << ", latency "
         << formatDuration(Ch.LatencyNs) << ", device "
         << formatDuration(Ch.DeviceNs) << "\n";
    }
  }

  if (!A.Devices.empty()) {
    OS << "\ndevices in " << targetLabel(X)
       << (X.FromStep ? " (its start to its last device work)" : "") << "\n";
    for (const DeviceAttribution &D : A.Devices) {
      OS << "  device " << D.Device << ": busy " << formatDuration(D.BusyNs)
         << " (" << pct(D.BusyNs, Len) << ")";
      const char *Sep = ": ";
      for (unsigned K = 0; K < NumBusyKinds; ++K)
        if (D.BusyByKind[K] > 0) {
          OS << Sep << busyKindName(BusyKind(K)) << " "
             << formatDuration(D.BusyByKind[K]);
          Sep = ", ";
        }
      OS << "\n";
      if (std::string Split = idleSplitText(D.Split); !Split.empty())
        OS << "    " << Split << "\n";
      if (!D.IdleOtherWork.empty()) {
        OS << "    host work while idle:";
        Sep = " ";
        for (auto &[Id, Ns] : D.IdleOtherWork) {
          OS << Sep << name(T, Id, 50) << " " << formatDuration(Ns);
          Sep = ", ";
        }
        OS << "\n";
      }
    }
  }

  if (!A.WhatIfs.empty()) {
    OS << "\nwhat-if bounds (remove the time; completion falls by at most)\n";
    for (const WhatIfResult &R : A.WhatIfs)
      OS << llvm::formatv("  {0,-44} {1,12}  {2,7}   -> {3}\n",
                          support::sanitize(R.Query.describe(), 44),
                          formatDuration(R.GainNs), pct(R.GainNs, P.LengthNs),
                          formatDuration(R.LengthNs));
    // A name that matches nothing removes nothing: most often a typo or a
    // misspelt "category:" prefix, so say so and show the forms.
    llvm::SmallVector<llvm::StringRef, 4> Unknown;
    for (const WhatIfResult &R : A.WhatIfs)
      for (const std::string &N : R.Query.Names)
        if (!T.Strings.find(N) && !llvm::is_contained(Unknown, N))
          Unknown.push_back(N);
    for (llvm::StringRef N : Unknown)
      OS << "  note: no event is named '" << support::sanitize(N, 60)
         << "'; --what-if takes category:NAME, name:OP_OR_KERNEL or the op "
            "or kernel name alone\n";
  }
}
