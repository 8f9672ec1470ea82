//===- report/IdleSplit.cpp -----------------------------------------------===//
#include "report/IdleSplit.h"
#include "support/Format.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <utility>
#include <vector>

using namespace tracelint;
using namespace tracelint::support;

std::vector<report::IdleCause>
report::idleCauses(const analysis::TargetIdle &I) {
  std::vector<IdleCause> Parts = {
      {I.LaunchNs, "launch path (L001)", "launch"},
      {I.HostOtherNs, "host work (L002)", "host"},
      {I.UntracedNs, "untraced host (T005)", "untraced"},
      {I.HostWaitNs, "host waits (S001)", "wait"},
      {I.DataLoadingNs, "data loading (D001)", "data"},
      {I.StartupNs, "start-up (U001)", "startup"},
      {I.ProfilerNs, "profiler (U004)", "profiler"},
      {I.UnrecordedNs, "unrecorded dependency (S004)", "unrecorded"},
      {I.UnlinkedNs, "no host call", "unlinked"}};
  std::stable_sort(
      Parts.begin(), Parts.end(),
      [](const IdleCause &A, const IdleCause &B) { return A.Ns > B.Ns; });
  llvm::erase_if(Parts, [](const IdleCause &C) { return C.Ns <= 0; });
  return Parts;
}

std::string report::idleSplitText(const analysis::TargetIdle &I) {
  if (I.Device < 0 || I.SpanNs <= 0 || I.IdleNs <= 0)
    return "";
  std::vector<std::string> Items;
  for (const IdleCause &C : idleCauses(I))
    Items.push_back((C.Label + " " + formatDuration(C.Ns)).str());
  return llvm::formatv("idle {0} ({1}): {2}", formatDuration(I.IdleNs),
                       formatShare(double(I.IdleNs) / double(I.SpanNs)),
                       llvm::join(Items, ", "))
      .str();
}

void report::writeIdleSplitJson(llvm::json::OStream &J,
                                const analysis::TargetIdle &I) {
  if (I.Device < 0)
    return;
  J.attributeObject("device_idle", [&] {
    J.attribute("device", I.Device);
    J.attribute("span_ns", I.SpanNs);
    J.attribute("idle_ns", I.IdleNs);
    J.attribute("launch_path_ns", I.LaunchNs);
    J.attribute("host_other_ns", I.HostOtherNs);
    J.attribute("host_untraced_ns", I.UntracedNs);
    J.attribute("host_wait_ns", I.HostWaitNs);
    J.attribute("data_loading_ns", I.DataLoadingNs);
    J.attribute("startup_ns", I.StartupNs);
    J.attribute("profiler_ns", I.ProfilerNs);
    J.attribute("unrecorded_dependency_ns", I.UnrecordedNs);
    J.attribute("unlinked_ns", I.UnlinkedNs);
  });
}
