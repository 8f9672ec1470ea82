//===- rules/M/MemoryNearCapacity.cpp - M005 memory near capacity ---------===//
//
// A device whose memory is nearly full costs nothing by itself, but the
// caching allocator then fails allocations, releases its whole cache
// (cudaFree after cudaFree, each one synchronizing the device) and tries
// again; one step later it must allocate everything again. Fragmentation
// makes this happen before the memory is really exhausted.
//
// This detector reads the device memory events of profile_memory=True
// ("[memory]" instants with Total Allocated and Total Reserved) and the
// device's capacity from the trace's device properties, and reports the
// peak reserved share of the capacity. It also finds allocator retries on
// each host thread: an allocation, at least two frees, then an allocation
// again, all within the same enclosing op (one allocation request). The
// retries' host time, bounded by the device idle time it leaves (as for
// S003), is the impact; without retries the finding is a risk, at info with
// no impact. Without device memory events or without the capacity it
// cannot judge, and says how many retry patterns it saw anyway.
//
//===----------------------------------------------------------------------===//
#include "rules/BuiltinDetectors.h"
#include "rules/detectors/DetectorSupport.h"

#include "support/Count.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <map>

using namespace tracelint;
using namespace tracelint::rules;
using namespace tracelint::rules::detect;
using analysis::HostWait;
using analysis::TraceIndex;
using model::Event;
using model::EventKind;
using model::Interval;

namespace {

/// One allocator retry: the failed allocation, the frees of the cache and
/// the allocation that follows them.
struct Retry {
  std::vector<uint32_t> Calls; ///< in order; front() failed, back() retried
  uint32_t Lane = model::NoIndex;
  Interval Range;
  unsigned Frees = 0;
};

/// True when nothing but allocator calls happens between \p A and \p B on
/// their lane: the same enclosing event, and (without one) no submission in
/// between.
bool sameRequest(const TraceIndex &Ctx, const Event &A, const Event &B) {
  if (A.Parent != B.Parent)
    return false;
  if (A.Parent != model::NoIndex)
    return true;
  // Times are whole nanoseconds: "after A's start" is from A.Start + 1.
  return !submitsWithin(Ctx, A.Lane, {A.Start + 1, B.Start});
}

/// The retries among the allocator calls \p Seq of one lane, in order.
void findLaneRetries(const TraceIndex &Ctx, uint32_t Lane,
                     const std::vector<std::pair<uint32_t, AllocatorCall>> &Seq,
                     unsigned MinFrees, std::vector<Retry> &Out) {
  const model::Trace &T = Ctx.trace();
  for (size_t I = 0; I < Seq.size();) {
    if (Seq[I].second != AllocatorCall::Malloc) {
      ++I;
      continue;
    }
    size_t J = I + 1;
    while (J < Seq.size() && Seq[J].second == AllocatorCall::Free)
      ++J;
    unsigned Frees = unsigned(J - I - 1);
    bool Match = Frees >= MinFrees && J < Seq.size() &&
                 Seq[J].second == AllocatorCall::Malloc;
    const Event &First = T.Events[Seq[I].first];
    for (size_t K = I + 1; Match && K <= J; ++K)
      Match = sameRequest(Ctx, First, T.Events[Seq[K].first]);
    if (!Match) {
      I = J > I + 1 ? J : I + 1;
      continue;
    }
    Retry R;
    R.Lane = Lane;
    R.Frees = Frees;
    for (size_t K = I; K <= J; ++K)
      R.Calls.push_back(Seq[K].first);
    R.Range = {First.Start, T.Events[Seq[J].first].end()};
    Out.push_back(std::move(R));
    I = J + 1;
  }
}

/// Every host thread's allocator retries: an allocation, at least
/// \p MinFrees frees, then an allocation again, in one request.
std::vector<Retry> findRetries(const TraceIndex &Ctx, unsigned MinFrees) {
  const model::Trace &T = Ctx.trace();
  std::vector<Retry> Out;
  for (uint32_t LI = 0; LI < T.Lanes.size(); ++LI) {
    const model::Lane &L = T.Lanes[LI];
    if (L.Kind != model::LaneKind::HostThread)
      continue;
    std::vector<std::pair<uint32_t, AllocatorCall>> Seq;
    for (uint32_t I = L.Begin; I < L.End; ++I) {
      AllocatorCall K = Ctx.allocatorCall(T.Events[I]);
      if (K != AllocatorCall::None)
        Seq.push_back({I, K});
    }
    findLaneRetries(Ctx, LI, Seq, MinFrees, Out);
  }
  return Out;
}

struct DeviceMemory {
  int64_t PeakReserved = -1, PeakAllocated = -1;
  int64_t LowAllocated = -1; ///< the smallest Total Allocated recorded
  uint32_t PeakEvent = model::NoIndex; ///< the memory event at the peak
  int64_t Capacity = -1;
};

/// The memory events of the trace and the device memory they record.
struct MemoryEvents {
  std::map<int32_t, DeviceMemory> ByDevice; ///< devices with figures
  uint64_t Count = 0;                       ///< memory events of any kind
  uint64_t OnDevices = 0;                   ///< those of device memory
};

void addMemoryEvent(const model::Trace &T, const Event &E,
                    const model::EventArgs &A, MemoryEvents &M) {
  int64_t Reserved = std::max(A.TotalReserved, A.TotalAllocated);
  if (Reserved < 0)
    return;
  DeviceMemory &D = M.ByDevice[A.Device];
  if (Reserved > D.PeakReserved) {
    D.PeakReserved = Reserved;
    D.PeakEvent = T.indexOf(E);
  }
  D.PeakAllocated = std::max(D.PeakAllocated, A.TotalAllocated);
  if (A.TotalAllocated >= 0 &&
      (D.LowAllocated < 0 || A.TotalAllocated < D.LowAllocated))
    D.LowAllocated = A.TotalAllocated;
}

/// The device memory events' peaks by device, with each device's capacity.
MemoryEvents collectMemory(const model::Trace &T) {
  MemoryEvents M;
  for (const Event &E : T.Events) {
    if (E.Kind != EventKind::Marker)
      continue;
    const model::EventArgs *A = T.args(E);
    bool Memory = T.name(E) == "[memory]" ||
                  (A && (A->TotalAllocated >= 0 || A->TotalReserved >= 0));
    if (!Memory)
      continue;
    ++M.Count;
    if (!A || A->Device < 0)
      continue;
    ++M.OnDevices;
    addMemoryEvent(T, E, *A, M);
  }
  for (auto &[D, Mem] : M.ByDevice)
    for (const model::DeviceInfo &I : T.Devices)
      if (I.Id == D && I.TotalGlobalMemory > 0)
        Mem.Capacity = I.TotalGlobalMemory;
  return M;
}

/// What the profiler did not record that the rule needs, when no device
/// has memory figures; \p Note tells of the retries seen anyway.
std::string whyNoDeviceMemory(const MemoryEvents &M, const std::string &Note) {
  if (M.Count == 0)
    return "the trace has no memory events; profile with "
           "profile_memory=True (and ProfilerActivity.CUDA for device "
           "memory)" +
           Note;
  if (M.OnDevices == 0)
    return llvm::formatv("the trace's {0} memory events are "
                         "all host (CPU) memory; device memory events need "
                         "profile_memory=True with ProfilerActivity.CUDA{1}",
                         M.Count, Note)
        .str();
  return "the device memory events carry no Total Allocated "
         "or Total Reserved (older profilers record only each "
         "allocation's size); a PyTorch 1.10 or later profiler with "
         "profile_memory=True records them" +
         Note;
}

std::string retryNote(const std::vector<Retry> &Retries) {
  if (Retries.empty())
    return "";
  return llvm::formatv(
             "; it shows {0} retried after freeing the cache, "
             "the caching allocator's recovery from a failed "
             "allocation",
             support::formatCount(int64_t(Retries.size()), "allocation"))
      .str();
}

/// The device closest to its capacity (the first of equals), and its peak
/// reserved share of it; -1 when no device's capacity is known.
std::pair<int32_t, double> fullestDevice(const MemoryEvents &M) {
  int32_t Dev = -1;
  double Share = -1;
  for (auto &[D, Mem] : M.ByDevice) {
    if (Mem.Capacity <= 0)
      continue;
    double S = double(Mem.PeakReserved) / double(Mem.Capacity);
    if (S > Share) {
      Share = S;
      Dev = D;
    }
  }
  return {Dev, Share};
}

/// The retries of the steady windows, collected once.
struct WindowRetries {
  std::vector<std::vector<HostWait>> WaitsIn; ///< the retries as waits
  std::vector<std::vector<Interval>> Parts;   ///< their ranges
  uint64_t Count = 0, Frees = 0;
  const Retry *Longest = nullptr;
  std::vector<uint32_t> Calls; ///< of every retry, for the path query
};

WindowRetries collectWindowRetries(const TraceIndex &Ctx,
                                   const std::vector<Retry> &Retries) {
  const MeasureWindows &Win = Ctx.measureWindows();
  WindowRetries S;
  S.WaitsIn.resize(Win.Ranges.size());
  S.Parts.resize(Win.Ranges.size());
  for (const Retry &R : Retries) {
    S.Calls.insert(S.Calls.end(), R.Calls.begin(), R.Calls.end());
    size_t W = Win.indexOf(R.Range.Begin);
    if (W == Win.Ranges.size())
      continue;
    ++S.Count;
    S.Frees += R.Frees;
    S.Parts[W].push_back(R.Range);
    S.WaitsIn[W].push_back(asHostWait(R.Calls.front(), R.Lane, R.Range));
    if (!S.Longest || R.Range.length() > S.Longest->Range.length())
      S.Longest = &R;
  }
  return S;
}

/// The retries' time per window and the bound on the gain, medians.
struct RetryFigures {
  int64_t RetryNs = 0;
  int64_t ImpactNs = 0; ///< at most the target; 0 without a target
};

RetryFigures measureRetries(const TraceIndex &Ctx, const WindowRetries &S) {
  const MeasureWindows &Win = Ctx.measureWindows();
  const int64_t Target = Ctx.targetNs();
  std::vector<int64_t> GainPer, RetryPer;
  for (size_t W = 0; W < Win.Ranges.size(); ++W) {
    RetryPer.push_back(
        model::IntervalSet::unionOf(S.Parts[W]).lengthWithin(Win.Ranges[W]));
    GainPer.push_back(Ctx.waitsGainBound(S.WaitsIn[W], Win.Ranges[W]));
  }
  RetryFigures F;
  F.RetryNs = median(RetryPer);
  F.ImpactNs = Target > 0 ? std::min(median(GainPer), Target) : 0;
  return F;
}

/// The placeholders of the device's memory figures.
void describeMemory(const TraceIndex &Ctx, int32_t Dev, const DeviceMemory &M,
                    double Share, double MinShare,
                    std::map<std::string, Value> &V) {
  auto BytesOrUnknown = [](int64_t B, bool Known) {
    return Known ? bytes(B) : Value("unknown");
  };
  // A device number names the device: text, like a name.
  V["device"] = llvm::formatv("{0}", Dev).str();
  V["peak_reserved"] = bytes(M.PeakReserved);
  V["peak_allocated"] = BytesOrUnknown(M.PeakAllocated, M.PeakAllocated >= 0);
  V["capacity"] = bytes(M.Capacity);
  V["share"] = pct(Share);
  V["threshold"] = pct(MinShare);
  V["headroom"] = bytes(std::max<int64_t>(M.Capacity - M.PeakReserved, 0));
  V["cached_unused"] =
      BytesOrUnknown(std::max<int64_t>(M.PeakReserved - M.PeakAllocated, 0),
                     M.PeakAllocated >= 0);
  V["low_allocated"] = BytesOrUnknown(M.LowAllocated, M.LowAllocated >= 0);
  V["peak_at"] =
      support::formatOffset(Ctx.traceOffsetNs(Ctx.trace().Events[M.PeakEvent]));
  V["target"] = Ctx.describeTarget();
  describeWindows(Ctx.measureWindows(), V);
}

/// The placeholders of the retries, the verdict, the subject and the
/// example: a measured cost with retries, a risk at info without.
void describeRetries(const TraceIndex &Ctx, const WindowRetries &S,
                     const RetryFigures &F, Detection &Det) {
  const model::Trace &T = Ctx.trace();
  auto &V = Det.Values;
  const int64_t Target = Ctx.targetNs();
  V["retries"] = count(int64_t(S.Count));
  V["retry_frees"] = count(int64_t(S.Frees));
  V["retry_time"] = dur(F.RetryNs);
  V["impact"] = dur(F.ImpactNs);
  V["impact_share"] =
      Target > 0 ? pct(double(F.ImpactNs) / double(Target)) : pct(0);
  if (!S.Longest) {
    V["subject"] = "the step's peak";
    V["retry_note"] = llvm::formatv("no allocation in {0} was retried after "
                                    "freeing the cache",
                                    V["window"])
                          .str();
    V["verdict"] = "no allocation was retried yet, so this is a risk (a "
                   "larger input, or fragmentation, fails the next "
                   "allocation), not a measured cost";
    Det.SeverityOverride = Severity::Info;
    Det.Subject = "device memory";
    return;
  }
  const Event &Failed = T.Events[S.Longest->Calls.front()];
  std::string Path = Ctx.opPath(T.Events[S.Longest->Calls.back()]);
  V["subject"] = Path;
  V["retry_note"] =
      llvm::formatv("{0} in {1} {2} retried after freeing the cache ({3}), "
                    "the longest at {4}: {5} from the failed call to the "
                    "retried one at {6}",
                    support::formatCount(S.Count, "allocation"), V["window"],
                    S.Count == 1 ? "was" : "were",
                    support::formatCount(S.Frees, "free"), Path,
                    dur(S.Longest->Range.length()),
                    support::formatOffset(Ctx.traceOffsetNs(Failed)))
          .str();
  V["verdict"] = llvm::formatv("the allocator already runs out: retries "
                               "take {0} {1}, and the device idled for up "
                               "to {{impact} {1} because of them",
                               V["retry_time"], V["per"])
                     .str();
  Det.Examples.push_back(example(Ctx, Failed));
  Det.Subject = "retries > " + Path;
}

} // namespace

Outcome rules::runMemoryNearCapacity(const TraceIndex &Ctx,
                                     const RuleOptions &Opts,
                                     std::vector<Detection> &Out) {
  const model::Trace &T = Ctx.trace();
  const double MinShare = Opts.number("min-share-of-capacity");
  const unsigned MinFrees =
      unsigned(std::max(1.0, Opts.number("min-frees-per-retry")));
  std::vector<Retry> Retries = findRetries(Ctx, MinFrees);
  std::string Note = retryNote(Retries);

  MemoryEvents Memory = collectMemory(T);
  if (Memory.ByDevice.empty())
    return Outcome::cannotJudge(whyNoDeviceMemory(Memory, Note));
  auto [Dev, Share] = fullestDevice(Memory);
  if (Dev < 0)
    return Outcome::cannotJudge(
        llvm::formatv("the trace does not give the memory "
                      "capacity of device {0} (deviceProperties' "
                      "totalGlobalMem, which Kineto writes for CUDA and "
                      "ROCm devices){1}",
                      Memory.ByDevice.begin()->first, Note)
            .str());
  const DeviceMemory &M = Memory.ByDevice[Dev];

  WindowRetries S = collectWindowRetries(Ctx, Retries);
  if (Share < MinShare && S.Count == 0)
    return Outcome::ran();
  RetryFigures F = measureRetries(Ctx, S);

  Detection Det;
  describeMemory(Ctx, Dev, M, Share, MinShare, Det.Values);
  describeRetries(Ctx, S, F, Det);
  Det.Examples.push_back(example(Ctx, T.Events[M.PeakEvent]));
  Det.ImpactNs = F.ImpactNs;
  // On the critical path: the calls of the retries taking no time.
  if (F.ImpactNs > 0)
    Det.PathQuery = namesQuery(T, S.Calls);
  Det.Window = Ctx.measureWindows().describe();
  // The peak and the capacity are recorded; memory outside the allocator
  // (the context, library workspaces, other processes) is not.
  Det.Confidence = S.Longest ? 0.7 : 0.5;
  Out.push_back(std::move(Det));
  return Outcome::ran();
}
