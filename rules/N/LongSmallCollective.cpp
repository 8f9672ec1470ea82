//===- rules/detectors/Communication.cpp - N rules: collectives and ranks -===//
//
// Single-trace communication signals. A collective kernel (NCCL/RCCL, the
// importers' Collective kind) that runs while no compute kernel runs on the
// same device is exposed: the step waits for it. Exposure is measured as a
// union: the collectives' busy union on a device minus that device's compute
// union, then unioned over devices, never a sum of kernel durations.
//
// A rank's trace says nothing about the other ranks: a collective lasts until
// the slowest peer arrives, so part of what looks like communication can be
// waiting. The texts say so; multi-rank skew analysis is separate work.
//
//===----------------------------------------------------------------------===//
#include "rules/BuiltinDetectors.h"
#include "rules/detectors/Collectives.h"
#include "rules/detectors/DetectorSupport.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <map>

using namespace tracelint;
using namespace tracelint::rules;
using namespace tracelint::rules::detect;
using analysis::TraceIndex;
using model::Event;
using model::EventKind;
using model::Interval;
using model::IntervalSet;

namespace {

/// Bytes of the tensors an "Input Dims" / "Input type" pair describes
/// ("[[6144], [2, 3]]" with ["float", "c10::Half"]), or -1 when a type or a
/// dimension cannot be read.
int64_t tensorBytes(llvm::StringRef Dims, llvm::StringRef Types) {
  // Types: a JSON array of strings.
  std::vector<llvm::StringRef> TypeList;
  for (size_t I = Types.find('"'); I != llvm::StringRef::npos;) {
    size_t J = Types.find('"', I + 1);
    if (J == llvm::StringRef::npos)
      return -1;
    TypeList.push_back(Types.slice(I + 1, J));
    I = Types.find('"', J + 1);
  }
  // Dims: the outer array holds one array of integers per input.
  Dims = Dims.trim();
  if (!Dims.consume_front("[") || !Dims.consume_back("]"))
    return -1;
  int64_t Total = 0;
  size_t Input = 0;
  while (true) {
    size_t Open = Dims.find('[');
    if (Open == llvm::StringRef::npos)
      break;
    size_t Close = Dims.find(']', Open);
    if (Close == llvm::StringRef::npos || Input >= TypeList.size())
      return -1;
    llvm::StringRef Shape = Dims.slice(Open + 1, Close);
    Dims = Dims.drop_front(Close + 1);
    llvm::StringRef Type = TypeList[Input++];
    if (Shape.trim().empty() && Type.empty())
      continue; // not a tensor (a scalar or list argument)
    int64_t Elements = 1;
    llvm::SmallVector<llvm::StringRef, 4> Parts;
    Shape.split(Parts, ',', -1, false);
    for (llvm::StringRef P : Parts) {
      int64_t D;
      if (P.trim().getAsInteger(10, D) || D < 0 || D > (int64_t(1) << 40))
        return -1;
      Elements *= D;
      if (Elements > (int64_t(1) << 50))
        return -1;
    }
    int64_t Size = model::scalarTypeSize(Type);
    if (Size < 0)
      return -1;
    Total += Elements * Size;
  }
  return Input == 0 ? -1 : Total;
}

/// A collective kernel's payload in bytes and where it came from: the
/// kernel's own message size, or the tensors of the `nccl:*` range that
/// encloses its launch call (record_shapes). -1 when neither is recorded.
int64_t collectivePayload(const TraceIndex &Ctx, const Event &E,
                          llvm::StringRef &From) {
  const model::Trace &T = Ctx.trace();
  if (const model::EventArgs *A = T.args(E); A && A->Bytes >= 0) {
    From = "the kernel's message size";
    return A->Bytes;
  }
  uint32_t L = T.launchOf(E);
  for (uint32_t Cur = L; Cur != model::NoIndex; Cur = T.Events[Cur].Parent) {
    const Event &P = T.Events[Cur];
    if (P.Kind != EventKind::Annotation && P.Kind != EventKind::Op)
      continue;
    if (!Ctx.is(P, model::NameClass::CommunicationRange))
      continue;
    const model::EventArgs *A = T.args(P);
    if (!A || A->InputDims == model::EmptyString)
      return -1;
    From = "the input shapes of its nccl:* range";
    return tensorBytes(T.Strings.get(A->InputDims),
                       T.Strings.get(A->InputTypes));
  }
  return -1;
}

} // namespace

Outcome rules::runLongSmallCollective(const TraceIndex &Ctx,
                                      const RuleOptions &Opts,
                                      std::vector<Detection> &Out) {
  const model::Trace &T = Ctx.trace();
  const int64_t MinDuration = int64_t(Opts.number("min-duration"));
  // In GB/s, which is also bytes per ns.
  const double MaxRate = Opts.number("max-rate-gbps");

  std::vector<DeviceComm> Devices = splitDeviceWork(Ctx);
  const MeasureWindows &MW = Ctx.measureWindows();
  std::map<int64_t, size_t> WindowOfStep;
  for (size_t K = 0; K < MW.StepNumbers.size(); ++K)
    WindowOfStep[MW.StepNumbers[K]] = K;

  size_t Collectives = 0, WithPayload = 0;
  std::vector<std::vector<Interval>> Flagged(MW.Ranges.size());
  struct Hit {
    uint32_t Index;
    int64_t Bytes;
    llvm::StringRef From;
  };
  std::vector<Hit> Hits;
  for (const DeviceComm &DC : Devices)
    for (uint32_t I : DC.Collectives) {
      const Event &E = T.Events[I];
      ++Collectives;
      llvm::StringRef From;
      int64_t Bytes = collectivePayload(Ctx, E, From);
      if (Bytes < 0)
        continue;
      ++WithPayload;
      if (E.Duration < MinDuration ||
          double(Bytes) / double(E.Duration) >= MaxRate)
        continue;
      size_t K = 0;
      if (MW.Steps) {
        uint32_t L = T.launchOf(E);
        int S = Ctx.stepAt(L != model::NoIndex ? T.Events[L].Start : E.Start);
        if (S < 0)
          continue;
        auto It = WindowOfStep.find(Ctx.steps()[size_t(S)].Number);
        if (It == WindowOfStep.end())
          continue;
        K = It->second;
      }
      Hits.push_back({I, Bytes, From});
      Flagged[K].push_back({E.Start, E.end()});
    }
  if (Collectives == 0)
    return Outcome::ran();
  if (WithPayload == 0)
    return Outcome::cannotJudge(
        llvm::formatv(
            "none of the {0} communication kernels has a "
            "recorded message size (kernel arguments \"In msg nelems\" "
            "and \"dtype\", written by PyTorch 2.1+, or the input shapes "
            "of the nccl:* ranges, written with record_shapes=True)",
            Collectives)
            .str());
  if (Hits.empty())
    return Outcome::ran();

  std::vector<int64_t> PerWindow;
  for (auto &F : Flagged)
    PerWindow.push_back(IntervalSet::unionOf(std::move(F)).length());
  int64_t MaxPerWindow = *std::max_element(PerWindow.begin(), PerWindow.end());

  llvm::sort(Hits, [&](const Hit &A, const Hit &B) {
    return T.Events[A.Index].Duration > T.Events[B.Index].Duration;
  });
  std::vector<Interval> All;
  std::map<std::string, size_t> Families;
  for (const Hit &H : Hits) {
    const Event &E = T.Events[H.Index];
    All.push_back({E.Start, E.end()});
    ++Families[collectiveFamily(T.name(E))];
  }
  const Hit &Longest = Hits.front();
  const Event &LE = T.Events[Longest.Index];

  Detection Det;
  auto &V = Det.Values;
  describeWindows(MW, V);
  V["count"] = std::to_string(Hits.size());
  V["collectives"] = std::to_string(Collectives);
  V["with_payload"] = std::to_string(WithPayload);
  V["total"] = dur(IntervalSet::unionOf(std::move(All)).length());
  V["value"] = dur(LE.Duration);
  V["max"] = dur(LE.Duration);
  V["payload"] = bytes(Longest.Bytes);
  V["payload_from"] = Longest.From.str();
  V["rate"] =
      llvm::formatv("{0:f3} GB/s", double(Longest.Bytes) / double(LE.Duration))
          .str();
  V["max_rate"] = llvm::formatv("{0:f1} GB/s", MaxRate).str();
  V["min_duration"] = dur(MinDuration);
  std::vector<std::string> Names;
  for (auto &[Name, N] : Families)
    Names.push_back(llvm::formatv("{0} ({1}x)", Name, N).str());
  V["top_names"] = joinNames(Names);
  V["subject"] = collectiveFamily(T.name(LE));
  V["example"] =
      llvm::formatv("{0} at {1:f3} us", V["subject"], Ctx.traceTimestampUs(LE))
          .str();
  Det.Examples.push_back(example(Ctx, LE));
  // If the peers arrived on time, this rank's step could shrink by no more
  // than the time of these collectives in one step (a union).
  Det.ImpactNs = MaxPerWindow;
  V["impact"] = dur(MaxPerWindow);
  Det.Subject = V["subject"].text();
  Det.Window = MW.describe();
  // Waiting is inferred from size and time, not observed.
  Det.Confidence = 0.5;
  Out.push_back(std::move(Det));
  return Outcome::ran();
}
