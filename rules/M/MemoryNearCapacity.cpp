//===- rules/detectors/MemoryCapacity.cpp - M005 memory near capacity -----===//
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
  for (uint32_t S : Ctx.submissions(A.Lane)) {
    const Event &E = Ctx.trace().Events[S];
    if (E.Start > A.Start && E.Start < B.Start)
      return false;
  }
  return true;
}

std::vector<Retry> findRetries(const TraceIndex &Ctx, unsigned MinFrees) {
  const model::Trace &T = Ctx.trace();
  std::vector<Retry> Out;
  for (uint32_t LI = 0; LI < T.Lanes.size(); ++LI) {
    const model::Lane &L = T.Lanes[LI];
    if (L.Kind != model::LaneKind::HostThread)
      continue;
    std::vector<std::pair<uint32_t, AllocatorCall>> Seq;
    for (uint32_t I = L.Begin; I < L.End; ++I) {
      const Event &E = T.Events[I];
      AllocatorCall K = Ctx.allocatorCall(E);
      if (K != AllocatorCall::None)
        Seq.push_back({I, K});
    }
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
      R.Lane = LI;
      R.Frees = Frees;
      for (size_t K = I; K <= J; ++K)
        R.Calls.push_back(Seq[K].first);
      R.Range = {First.Start, T.Events[Seq[J].first].end()};
      Out.push_back(std::move(R));
      I = J + 1;
    }
  }
  return Out;
}

struct DeviceMemory {
  int64_t PeakReserved = -1, PeakAllocated = -1;
  int64_t LowAllocated = -1; ///< the smallest Total Allocated recorded
  uint32_t PeakEvent = model::NoIndex; ///< the memory event at the peak
  int64_t Capacity = -1;
};

std::string retryNote(const std::vector<Retry> &Retries) {
  if (Retries.empty())
    return "";
  return llvm::formatv("; it shows {0} allocation(s) retried after freeing "
                       "the cache, the caching allocator's recovery from a "
                       "failed allocation",
                       Retries.size())
      .str();
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

  // Device memory events and their peaks, by device.
  std::map<int32_t, DeviceMemory> ByDevice;
  uint64_t MemoryEvents = 0, DeviceEvents = 0;
  for (const Event &E : T.Events) {
    if (E.Kind != EventKind::Marker)
      continue;
    const model::EventArgs *A = T.args(E);
    bool Memory = T.name(E) == "[memory]" ||
                  (A && (A->TotalAllocated >= 0 || A->TotalReserved >= 0));
    if (!Memory)
      continue;
    ++MemoryEvents;
    if (!A || A->Device < 0)
      continue;
    ++DeviceEvents;
    int64_t Reserved = std::max(A->TotalReserved, A->TotalAllocated);
    if (Reserved < 0)
      continue;
    DeviceMemory &M = ByDevice[A->Device];
    if (Reserved > M.PeakReserved) {
      M.PeakReserved = Reserved;
      M.PeakEvent = T.indexOf(E);
    }
    M.PeakAllocated = std::max(M.PeakAllocated, A->TotalAllocated);
    if (A->TotalAllocated >= 0 &&
        (M.LowAllocated < 0 || A->TotalAllocated < M.LowAllocated))
      M.LowAllocated = A->TotalAllocated;
  }
  std::string Note = retryNote(Retries);
  if (ByDevice.empty()) {
    if (MemoryEvents == 0)
      return Outcome::cannotJudge(
          "the trace has no memory events; profile with "
          "profile_memory=True (and ProfilerActivity.CUDA for device "
          "memory)" +
          Note);
    if (DeviceEvents == 0)
      return Outcome::cannotJudge(
          llvm::formatv("the trace's {0} memory events are "
                        "all host (CPU) memory; device memory events need "
                        "profile_memory=True with ProfilerActivity.CUDA{1}",
                        MemoryEvents, Note)
              .str());
    return Outcome::cannotJudge(
        "the device memory events carry no Total Allocated "
        "or Total Reserved (older profilers record only each "
        "allocation's size); a PyTorch 1.10 or later profiler with "
        "profile_memory=True records them" +
        Note);
  }
  for (auto &[D, M] : ByDevice)
    for (const model::DeviceInfo &I : T.Devices)
      if (I.Id == D && I.TotalGlobalMemory > 0)
        M.Capacity = I.TotalGlobalMemory;
  // The device closest to its capacity.
  int32_t Dev = -1;
  double Share = -1;
  for (auto &[D, M] : ByDevice) {
    if (M.Capacity <= 0)
      continue;
    double S = double(M.PeakReserved) / double(M.Capacity);
    if (S > Share) {
      Share = S;
      Dev = D;
    }
  }
  if (Dev < 0)
    return Outcome::cannotJudge(
        llvm::formatv("the trace does not give the memory "
                      "capacity of device {0} (deviceProperties' "
                      "totalGlobalMem, which Kineto writes for CUDA and "
                      "ROCm devices){1}",
                      ByDevice.begin()->first, Note)
            .str());
  const DeviceMemory &M = ByDevice[Dev];

  const MeasureWindows &Win = Ctx.measureWindows();
  const size_t N = Win.Ranges.size();
  std::vector<std::vector<HostWait>> WaitsIn(N);
  std::vector<std::vector<Interval>> RetryParts(N);
  uint64_t InWindows = 0, Frees = 0;
  const Retry *Longest = nullptr;
  for (const Retry &R : Retries) {
    // The window holding the instant (a binary search).
    auto It = Win.Ranges.begin() + Win.indexOf(R.Range.Begin);
    if (It == Win.Ranges.end())
      continue;
    size_t W = It - Win.Ranges.begin();
    ++InWindows;
    Frees += R.Frees;
    RetryParts[W].push_back(R.Range);
    HostWait HW;
    HW.Event = R.Calls.front();
    HW.Lane = R.Lane;
    HW.Kind = analysis::WaitKind::Explicit;
    HW.Range = R.Range;
    WaitsIn[W].push_back(HW);
    if (!Longest || R.Range.length() > Longest->Range.length())
      Longest = &R;
  }
  if (Share < MinShare && InWindows == 0)
    return Outcome::ran();

  const int64_t Target = Ctx.targetNs();
  std::vector<int64_t> GainPer(N, 0), RetryPer(N, 0);
  for (size_t W = 0; W < N; ++W) {
    RetryPer[W] =
        model::IntervalSet::unionOf(RetryParts[W]).lengthWithin(Win.Ranges[W]);
    GainPer[W] = Ctx.waitsGainBound(WaitsIn[W], Win.Ranges[W]);
  }
  int64_t Impact = Target > 0 ? std::min(median(GainPer), Target) : 0;

  Detection Det;
  auto &V = Det.Values;
  V["device"] = std::to_string(Dev);
  V["peak_reserved"] = bytes(M.PeakReserved);
  V["peak_allocated"] =
      M.PeakAllocated >= 0 ? bytes(M.PeakAllocated) : std::string("unknown");
  V["capacity"] = bytes(M.Capacity);
  V["share"] = pct(Share);
  V["threshold"] = pct(MinShare);
  V["headroom"] = bytes(std::max<int64_t>(M.Capacity - M.PeakReserved, 0));
  V["cached_unused"] =
      M.PeakAllocated >= 0
          ? bytes(std::max<int64_t>(M.PeakReserved - M.PeakAllocated, 0))
          : std::string("unknown");
  V["low_allocated"] =
      M.LowAllocated >= 0 ? bytes(M.LowAllocated) : std::string("unknown");
  V["retries"] = std::to_string(InWindows);
  V["retry_frees"] = std::to_string(Frees);
  V["retry_time"] = dur(median(RetryPer));
  V["impact"] = dur(Impact);
  V["impact_share"] =
      Target > 0 ? pct(double(Impact) / double(Target)) : pct(0);
  const Event &Peak = T.Events[M.PeakEvent];
  V["peak_at"] = llvm::formatv("{0:f3} us", Ctx.traceTimestampUs(Peak)).str();
  V["target"] = Ctx.describeTarget();
  describeWindows(Win, V);
  if (Longest) {
    const Event &Again = T.Events[Longest->Calls.back()];
    std::string Path = Ctx.opPath(Again);
    V["subject"] = Path;
    V["retry_note"] =
        llvm::formatv("{0} allocation(s) in {1} were retried after freeing "
                      "the cache ({2} frees), the longest at {3}: {4} from "
                      "the failed call to the retried one at {5:f3} us",
                      InWindows, V["window"], Frees, Path,
                      dur(Longest->Range.length()),
                      Ctx.traceTimestampUs(T.Events[Longest->Calls.front()]))
            .str();
    V["verdict"] = llvm::formatv("the allocator already runs out: retries "
                                 "take {0} {1}, and the device idled for up "
                                 "to {{impact} {1} because of them",
                                 V["retry_time"], V["per"])
                       .str();
    Det.Examples.push_back(example(Ctx, T.Events[Longest->Calls.front()]));
    Det.Subject = "retries > " + Path;
  } else {
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
  }
  Det.Examples.push_back(example(Ctx, Peak));
  Det.ImpactNs = Impact;
  // On the critical path: the calls of the retries taking no time.
  std::vector<uint32_t> RetryCalls;
  for (const Retry &R : Retries)
    RetryCalls.insert(RetryCalls.end(), R.Calls.begin(), R.Calls.end());
  if (Impact > 0)
    Det.PathQuery = namesQuery(T, RetryCalls);
  Det.Window = Win.describe();
  // The peak and the capacity are recorded; memory outside the allocator
  // (the context, library workspaces, other processes) is not.
  Det.Confidence = Longest ? 0.7 : 0.5;
  Out.push_back(std::move(Det));
  return Outcome::ran();
}
