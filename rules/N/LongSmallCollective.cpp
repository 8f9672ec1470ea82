//===- rules/N/LongSmallCollective.cpp - N002 long, small collectives --===//
//
// A collective lasts until the slowest peer arrives. One that moves few
// bytes (its own message size, or the input shapes of its nccl:* range)
// yet runs long is more likely waiting for a peer than transferring: its
// rate, bytes over duration, is far below what the link carries. A rank's
// trace says nothing about the other ranks, so the waiting is inferred,
// not observed; multi-rank skew analysis is separate work.
//
// The steps: read each collective's payload and keep the long, slow ones
// launched in a steady window (collectSlowCollectives), measure their union
// per window, then describe the longest of them.
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

/// A long collective whose payload explains little of its time.
struct Hit {
  uint32_t Index;
  int64_t Bytes;
  llvm::StringRef From;
};

/// The collectives of the trace, read once.
struct CollectiveScan {
  size_t Collectives = 0, WithPayload = 0;
  std::vector<std::vector<Interval>> Flagged; ///< the hits, per window
  std::vector<Hit> Hits;
};

/// The thresholds of the rule's options.
struct Limits {
  int64_t MinDuration;
  double MaxRate; ///< in GB/s, which is also bytes per ns
};

CollectiveScan collectSlowCollectives(const TraceIndex &Ctx,
                                      llvm::ArrayRef<DeviceComm> Devices,
                                      Limits Lim) {
  const model::Trace &T = Ctx.trace();
  const size_t NumWindows = Ctx.measureWindows().Ranges.size();
  CollectiveScan S;
  S.Flagged.resize(NumWindows);
  for (const DeviceComm &DC : Devices)
    for (uint32_t I : DC.Collectives) {
      const Event &E = T.Events[I];
      ++S.Collectives;
      llvm::StringRef From;
      int64_t Bytes = collectivePayload(Ctx, E, From);
      if (Bytes < 0)
        continue;
      ++S.WithPayload;
      if (E.Duration < Lim.MinDuration ||
          double(Bytes) / double(E.Duration) >= Lim.MaxRate)
        continue;
      size_t K = collectiveWindow(Ctx, E);
      if (K >= NumWindows)
        continue;
      S.Hits.push_back({I, Bytes, From});
      S.Flagged[K].push_back({E.Start, E.end()});
    }
  return S;
}

/// The most time the hits take in one window (a union): what this rank's
/// step could shrink by at most if the peers arrived on time.
int64_t maxPerWindow(CollectiveScan &S) {
  int64_t Max = 0;
  for (auto &F : S.Flagged)
    Max = std::max(Max, IntervalSet::unionOf(std::move(F)).length());
  return Max;
}

/// {top_names} and {total}: the hits' families (by name) and their union.
void describeFamilies(const model::Trace &T, llvm::ArrayRef<Hit> Hits,
                      std::map<std::string, Value> &V) {
  std::vector<Interval> All;
  std::map<std::string, size_t> Families;
  for (const Hit &H : Hits) {
    const Event &E = T.Events[H.Index];
    All.push_back({E.Start, E.end()});
    ++Families[collectiveFamily(T.name(E))];
  }
  std::vector<std::string> Names;
  for (auto &[Name, N] : Families)
    Names.push_back(llvm::formatv("{0} ({1}x)", Name, N).str());
  V["top_names"] = joinNames(Names);
  V["total"] = dur(IntervalSet::unionOf(std::move(All)).length());
}

} // namespace

Outcome rules::runLongSmallCollective(const TraceIndex &Ctx,
                                      const RuleOptions &Opts,
                                      std::vector<Detection> &Out) {
  const model::Trace &T = Ctx.trace();
  const Limits Lim{int64_t(Opts.number("min-duration")),
                   Opts.number("max-rate-gbps")};

  CollectiveScan S = collectSlowCollectives(Ctx, splitDeviceWork(Ctx), Lim);
  if (S.Collectives == 0)
    return Outcome::ran();
  if (S.WithPayload == 0)
    return Outcome::cannotJudge(
        llvm::formatv(
            "none of the {0} communication kernels has a "
            "recorded message size (kernel arguments \"In msg nelems\" "
            "and \"dtype\", written by PyTorch 2.1+, or the input shapes "
            "of the nccl:* ranges, written with record_shapes=True)",
            S.Collectives)
            .str());
  if (S.Hits.empty())
    return Outcome::ran();
  const int64_t Impact = maxPerWindow(S);
  llvm::sort(S.Hits, [&](const Hit &A, const Hit &B) {
    return T.Events[A.Index].Duration > T.Events[B.Index].Duration;
  });
  const Hit &Longest = S.Hits.front();
  const Event &LE = T.Events[Longest.Index];

  Detection Det;
  auto &V = Det.Values;
  describeWindows(Ctx.measureWindows(), V);
  V["count"] = count(int64_t(S.Hits.size()));
  V["collectives"] = count(int64_t(S.Collectives));
  V["with_payload"] = count(int64_t(S.WithPayload));
  describeFamilies(T, S.Hits, V);
  V["value"] = dur(LE.Duration);
  V["max"] = dur(LE.Duration);
  V["payload"] = bytes(Longest.Bytes);
  V["payload_from"] = Longest.From.str();
  V["rate"] =
      llvm::formatv("{0:f3} GB/s", double(Longest.Bytes) / double(LE.Duration))
          .str();
  V["max_rate"] = llvm::formatv("{0:f1} GB/s", Lim.MaxRate).str();
  V["min_duration"] = dur(Lim.MinDuration);
  const std::string Family = collectiveFamily(T.name(LE));
  V["subject"] = Family;
  V["example"] = nameAt(Ctx, Family, LE);
  Det.Examples.push_back(example(Ctx, LE));
  Det.ImpactNs = Impact;
  V["impact"] = dur(Impact);
  Det.Subject = Family;
  Det.Window = Ctx.measureWindows().describe();
  // Waiting is inferred from size and time, not observed.
  Det.Confidence = 0.5;
  Out.push_back(std::move(Det));
  return Outcome::ran();
}
