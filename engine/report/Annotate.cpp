//===- report/Annotate.cpp - The findings as events of the trace ----------===//
#include "report/Annotate.h"
#include "report/HtmlTimeline.h"
#include "support/Escape.h"
#include "support/Format.h"

#include "llvm/ADT/DenseSet.h"

#include <algorithm>

using namespace tracelint;
using namespace tracelint::report;
using model::EventKind;

namespace {

/// Model time -> the file's "ts" (us), in the clock the file counts in.
double fileTs(const model::Trace &T, int64_t ModelNs) {
  return double(T.OriginNs - T.FileBaseNs + ModelNs) / 1000.0;
}

/// Flow ids above what profilers use for their own (32-bit correlations).
constexpr int64_t FlowIdBase = int64_t(1) << 36;

void lanePidTid(llvm::json::OStream &J, const model::Trace &T,
                const model::Lane &L) {
  if (L.RawPid != model::EmptyString)
    J.attribute("pid", support::jsonText(T.Strings.get(L.RawPid)));
  else
    J.attribute("pid", L.Pid);
  if (L.RawTid != model::EmptyString)
    J.attribute("tid", support::jsonText(T.Strings.get(L.RawTid)));
  else
    J.attribute("tid", L.Tid);
}

void metadata(llvm::json::OStream &J, llvm::StringRef Name, int64_t Pid,
              std::optional<int64_t> Tid, llvm::StringRef Key,
              llvm::json::Value V) {
  J.object([&] {
    J.attribute("ph", "M");
    J.attribute("cat", AnnotationCategory);
    J.attribute("name", Name);
    J.attribute("pid", Pid);
    if (Tid)
      J.attribute("tid", *Tid);
    J.attributeObject("args", [&] { J.attribute(Key, std::move(V)); });
  });
}

} // namespace

int64_t report::unusedPid(const model::Trace &T) {
  llvm::DenseSet<int64_t> Used;
  for (const model::Lane &L : T.Lanes)
    Used.insert(L.Pid);
  // Far from OS pids and device indices, and the same for every trace
  // that does not use it, so that annotated traces diff well.
  int64_t Pid = 999999;
  while (Used.contains(Pid))
    ++Pid;
  return Pid;
}

void report::writeAnnotationEvents(llvm::json::OStream &J, const LintedTrace &L,
                                   const analysis::TraceIndex &Ctx,
                                   int64_t Pid) {
  const model::Trace &T = Ctx.trace();
  const auto &Fs = L.Result.Findings;
  metadata(J, "process_name", Pid, std::nullopt, "name", "tracelint");
  // Above the program's own processes in Perfetto and chrome://tracing.
  metadata(J, "process_sort_index", Pid, std::nullopt, "sort_index", -1);
  ExampleLocator Locate(Ctx);
  int64_t FlowId = FlowIdBase;
  for (size_t I = 0; I < Fs.size(); ++I) {
    const rules::Finding &F = Fs[I];
    int64_t Tid = int64_t(I) + 1;
    std::string Title = std::to_string(I + 1) + ". " + F.Code + " " + F.Name;
    metadata(J, "thread_name", Pid, Tid, "name", support::jsonText(Title));
    metadata(J, "thread_sort_index", Pid, Tid, "sort_index", Tid);
    // The evidence window: the example events' span, or the whole trace
    // for a finding about the trace as a whole.
    std::vector<uint32_t> Events;
    for (const rules::ExampleEvent &E : F.Examples)
      if (uint32_t X = Locate.find(E); X != model::NoIndex)
        Events.push_back(X);
    int64_t Begin = T.WindowStart, End = T.WindowEnd;
    if (!Events.empty()) {
      Begin = INT64_MAX, End = INT64_MIN;
      for (uint32_t X : Events) {
        Begin = std::min(Begin, T.Events[X].Start);
        End = std::max(End, T.Events[X].end());
      }
    }
    J.object([&] {
      J.attribute("ph", "X");
      J.attribute("cat", AnnotationCategory);
      J.attribute("name", support::jsonText(F.Code + " " + F.Name));
      J.attribute("pid", Pid);
      J.attribute("tid", Tid);
      J.attribute("ts", fileTs(T, Begin));
      J.attribute("dur", double(std::max<int64_t>(End - Begin, 1)) / 1000.0);
      J.attributeObject("args", [&] {
        J.attribute("rank", int64_t(I) + 1);
        J.attribute("severity", rules::severityName(F.Sev));
        J.attribute("confidence", F.Confidence);
        J.attribute("hypothesis", support::jsonText(F.Hypothesis));
        J.attribute(
            "impact",
            support::jsonText(
                "up to " + support::formatDuration(F.ImpactNs) + " (" +
                support::formatShare(F.ImpactShare) + " of " +
                (L.Result.Target.Kind == analysis::TargetKind::MedianStep
                     ? "step"
                     : "window") +
                ")"));
        J.attribute("impact_ns", F.ImpactNs);
        J.attribute("experiment", support::jsonText(F.Next.Change));
        if (!F.Next.PredictMetric.empty())
          J.attribute("expect", support::jsonText(F.Next.PredictMetric));
        if (!F.Window.empty())
          J.attribute("where", support::jsonText(F.Window));
        J.attribute("fingerprint", F.Fingerprint);
      });
    });
    // One arrow from the slice to each example event.
    for (uint32_t X : Events) {
      const model::Event &E = T.Events[X];
      ++FlowId;
      J.object([&] {
        J.attribute("ph", "s");
        J.attribute("cat", AnnotationCategory);
        J.attribute("name", "evidence");
        J.attribute("id", FlowId);
        J.attribute("pid", Pid);
        J.attribute("tid", Tid);
        J.attribute("ts", fileTs(T, Begin));
      });
      J.object([&] {
        J.attribute("ph", "f");
        J.attribute("bp", "e");
        J.attribute("cat", AnnotationCategory);
        J.attribute("name", "evidence");
        J.attribute("id", FlowId);
        lanePidTid(J, T, T.laneOf(E));
        J.attribute("ts", fileTs(T, E.Start));
      });
    }
  }
}

namespace {

llvm::StringRef chromeCategory(EventKind K) {
  switch (K) {
  case EventKind::Op:
    return "cpu_op";
  case EventKind::Python:
    return "python_function";
  case EventKind::Annotation:
    return "user_annotation";
  case EventKind::Runtime:
    return "cuda_runtime";
  case EventKind::Driver:
    return "cuda_driver";
  case EventKind::Kernel:
  case EventKind::Collective:
    return "kernel";
  case EventKind::Memcpy:
    return "gpu_memcpy";
  case EventKind::Memset:
    return "gpu_memset";
  case EventKind::Sync:
    return "cuda_sync";
  case EventKind::Overhead:
    return "overhead";
  case EventKind::Marker:
    return "cpu_instant_event";
  default:
    return "";
  }
}

} // namespace

void report::writeModelEvents(llvm::json::OStream &J,
                              const analysis::TraceIndex &Ctx) {
  const model::Trace &T = Ctx.trace();
  llvm::DenseSet<int64_t> NamedPids;
  for (const model::Lane &L : T.Lanes) {
    if (L.Process != model::EmptyString && NamedPids.insert(L.Pid).second)
      J.object([&] {
        J.attribute("ph", "M");
        J.attribute("name", "process_name");
        J.attribute("pid", L.Pid);
        J.attributeObject("args", [&] {
          J.attribute("name", support::jsonText(T.Strings.get(L.Process)));
        });
      });
    J.object([&] {
      J.attribute("ph", "M");
      J.attribute("name", "thread_name");
      lanePidTid(J, T, L);
      J.attributeObject("args", [&] {
        J.attribute("name", support::jsonText(L.Name != model::EmptyString
                                                  ? T.Strings.get(L.Name).str()
                                                  : Ctx.describeLane(L)));
      });
    });
  }
  for (const model::Event &E : T.Events) {
    if (E.Kind == EventKind::Counter)
      continue; // a counter sample has no name-value pair in the model
    const model::Lane &L = T.laneOf(E);
    const model::EventArgs *A = T.args(E);
    J.object([&] {
      bool Instant = E.hasFlag(model::FlagInstant);
      J.attribute("ph", Instant ? "i" : "X");
      J.attribute("cat", chromeCategory(E.Kind));
      J.attribute("name", support::jsonText(T.name(E)));
      lanePidTid(J, T, L);
      J.attribute("ts", fileTs(T, E.Start));
      if (!Instant)
        J.attribute("dur", double(E.Duration) / 1000.0);
      J.attributeObject("args", [&] {
        if (E.Correlation)
          J.attribute("correlation", int64_t(E.Correlation));
        if (E.ExternalId)
          J.attribute("External id", E.ExternalId);
        if (L.Kind == model::LaneKind::DeviceStream) {
          J.attribute("device", int64_t(L.Device));
          J.attribute("stream", L.Stream);
        }
        if (A && A->Bytes >= 0)
          J.attribute("bytes", A->Bytes);
      });
    });
  }
}
