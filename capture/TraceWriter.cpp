//===- capture/TraceWriter.cpp - Kineto JSON from collected events --------===//
#include "TraceWriter.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <set>
#include <unistd.h>

using namespace tracelint::capture;

namespace {

/// Microseconds with the nanosecond fraction, as Kineto writes them.
std::string micros(uint64_t Ns) {
  char Buf[40];
  std::snprintf(Buf, sizeof(Buf), "%llu.%03llu",
                static_cast<unsigned long long>(Ns / 1000),
                static_cast<unsigned long long>(Ns % 1000));
  return Buf;
}

void metadataEvent(std::string &Out, const char *What, int64_t Pid,
                   const int64_t *Tid, const std::string &Name) {
  Out += "  {\"ph\": \"M\", \"name\": \"";
  Out += What;
  Out += "\", \"pid\": " + jsonInt(Pid);
  if (Tid)
    Out += ", \"tid\": " + jsonInt(*Tid);
  Out += ", \"args\": {\"name\": " + jsonString(Name) + "}},\n";
}

bool isHostCall(const TraceEvent &E) {
  return !E.OnDevice && (std::strcmp(E.Cat, "cuda_runtime") == 0 ||
                         std::strcmp(E.Cat, "cuda_driver") == 0);
}

} // namespace

std::string tracelint::capture::renderTraceJson(const TraceCollector &C,
                                                const TraceMetadata &M) {
  const std::vector<TraceEvent> &Events = C.events();
  std::vector<size_t> Order(Events.size());
  std::iota(Order.begin(), Order.end(), 0);
  std::stable_sort(Order.begin(), Order.end(), [&](size_t A, size_t B) {
    return Events[A].StartNs < Events[B].StartNs;
  });
  uint64_t Base = C.hasWindowStart() ? C.windowStart() : 0;
  if (!Events.empty())
    Base = C.hasWindowStart() ? std::min(Base, Events[Order.front()].StartNs)
                              : Events[Order.front()].StartNs;

  auto devicePid = [&](const TraceEvent &E) -> int64_t {
    if (!E.DeviceFromContext)
      return E.Pid;
    int64_t D = C.deviceOfContext(E.ContextId);
    return D >= 0 ? D : 0;
  };

  std::string Out;
  Out.reserve(256 + Events.size() * 240);
  Out += "{\n  \"schemaVersion\": 1,\n";
  Out += "  \"traceName\": " +
         jsonString("tracelint capture of " +
                    (M.ProcessName.empty() ? std::string("a process")
                                           : M.ProcessName) +
                    " (pid " + std::to_string(M.Pid) + ")") +
         ",\n";
  Out += "  \"deviceProperties\": [";
  bool First = true;
  for (const DeviceProps &D : C.devices()) {
    Out += First ? "\n" : ",\n";
    First = false;
    Out += "    {\"id\": " + jsonUInt(D.Id) +
           ", \"name\": " + jsonString(D.Name) +
           ", \"totalGlobalMem\": " + jsonUInt(D.TotalGlobalMem) +
           ", \"computeMajor\": " + jsonUInt(D.ComputeMajor) +
           ", \"computeMinor\": " + jsonUInt(D.ComputeMinor) +
           ", \"maxThreadsPerBlock\": " + jsonUInt(D.MaxThreadsPerBlock) +
           ", \"maxThreadsPerMultiprocessor\": " +
           jsonUInt(D.MaxThreadsPerMultiprocessor) +
           ", \"maxBlocksPerMultiprocessor\": " +
           jsonUInt(D.MaxBlocksPerMultiprocessor) +
           ", \"regsPerBlock\": " + jsonUInt(D.RegsPerBlock) +
           ", \"regsPerMultiprocessor\": " + jsonUInt(D.RegsPerMultiprocessor) +
           ", \"warpSize\": " + jsonUInt(D.WarpSize) +
           ", \"sharedMemPerBlock\": " + jsonUInt(D.SharedMemPerBlock) +
           ", \"sharedMemPerMultiprocessor\": " +
           jsonUInt(D.SharedMemPerMultiprocessor) +
           ", \"numSms\": " + jsonUInt(D.NumSms) +
           ", \"l2CacheSize\": " + jsonUInt(D.L2CacheSize) +
           ", \"memoryBandwidth\": " + jsonUInt(D.MemoryBandwidth) + "}";
  }
  Out += First ? "],\n" : "\n  ],\n";
  if (M.Rank >= 0 || M.LocalRank >= 0 || M.WorldSize >= 0) {
    Out += "  \"distributedInfo\": {\"rank\": " + jsonInt(M.Rank) +
           ", \"local_rank\": " + jsonInt(M.LocalRank) +
           ", \"world_size\": " + jsonInt(M.WorldSize) + "},\n";
  }
  if (M.CuptiRuntimeVersion)
    Out += "  \"cupti_version\": " + jsonUInt(M.CuptiRuntimeVersion) + ",\n";
  if (M.CudaRuntimeVersion)
    Out +=
        "  \"cuda_runtime_version\": " + jsonInt(M.CudaRuntimeVersion) + ",\n";
  if (M.CudaDriverVersion)
    Out += "  \"cuda_driver_version\": " + jsonInt(M.CudaDriverVersion) + ",\n";

  const CollectorCounts &N = C.counts();
  Out += "  \"trace_producer\": {\"name\": \"tracelint capture\", "
         "\"version\": " +
         jsonString(M.ProducerVersion) +
         ", \"cupti_header_version\": " + jsonUInt(M.CuptiHeaderVersion) +
         ", \"cupti_version\": " + jsonUInt(M.CuptiRuntimeVersion) +
         ", \"cuda_driver_version\": " + jsonInt(M.CudaDriverVersion) +
         ", \"cuda_runtime_version\": " + jsonInt(M.CudaRuntimeVersion) +
         ", \"pid\": " + jsonInt(M.Pid) +
         ", \"process\": " + jsonString(M.ProcessName) +
         ", \"host\": " + jsonString(M.Hostname) + "},\n";
  Out += "  \"tracelint_capture\": {\"window\": {\"mode\": " +
         jsonString(M.WindowMode) + ", \"delay_s\": " + jsonReal(M.DelaySec) +
         ", \"duration_s\": " + jsonReal(M.DurationSec) +
         ", \"range\": " + jsonString(M.RangeName) +
         ", \"opened\": " + (C.hasWindowStart() ? "true" : "false") +
         ", \"start_ns\": " + jsonUInt(C.windowStart()) + ", \"end_ns\": " +
         jsonUInt(C.hasWindowEnd() ? C.windowEnd() : C.windowStart()) +
         ", \"stop_reason\": " + jsonString(M.StopReason) +
         "}, \"max_events\": " + jsonUInt(C.maxEvents()) +
         ", \"records\": {\"received\": " + jsonUInt(N.Received) +
         ", \"kept\": " + jsonUInt(N.Kept) +
         ", \"dropped_max_events\": " + jsonUInt(N.DroppedByCap) +
         ", \"dropped_by_cupti\": " + jsonUInt(N.CuptiDropped) +
         ", \"outside_window\": " + jsonUInt(N.OutsideWindow) +
         ", \"unpaired_range_ends\": " + jsonUInt(N.UnpairedMarkerEnds) +
         ", \"ranges_open_at_end\": " + jsonUInt(N.OpenMarkersClosed) +
         ", \"untranslated\": " + jsonUInt(N.UnknownRecords) + "}},\n";
  Out += "  \"displayTimeUnit\": \"ms\",\n";
  Out += "  \"baseTimeNanoseconds\": " + jsonUInt(Base) + ",\n";
  Out += "  \"traceEvents\": [\n";

  // Names of processes and lanes.
  std::set<int64_t> HostPids, DevicePids;
  std::set<std::pair<int64_t, int64_t>> Streams, Threads;
  for (const TraceEvent &E : Events) {
    if (E.OnDevice) {
      int64_t D = devicePid(E);
      DevicePids.insert(D);
      Streams.insert({D, E.Tid});
    } else {
      HostPids.insert(E.Pid);
      Threads.insert({E.Pid, E.Tid});
    }
  }
  for (int64_t P : HostPids)
    metadataEvent(Out, "process_name", P, nullptr,
                  M.ProcessName.empty() ? "pid " + std::to_string(P)
                                        : M.ProcessName);
  for (int64_t D : DevicePids) {
    std::string Name = "GPU " + std::to_string(D);
    if (const DeviceProps *P = C.device(uint32_t(D)); P && !P->Name.empty())
      Name += " (" + P->Name + ")";
    metadataEvent(Out, "process_name", D, nullptr, Name);
  }
  for (const auto &[D, S] : Streams)
    metadataEvent(Out, "thread_name", D, &S, "stream " + std::to_string(S));
  for (const auto &[P, T] : Threads) {
    auto It = C.threadNames().find({P, T});
    if (It != C.threadNames().end())
      metadataEvent(Out, "thread_name", P, &T, It->second);
  }

  // Host calls by correlation, for the launch flows.
  std::vector<std::pair<uint32_t, size_t>> HostByCorr;
  for (size_t I = 0; I < Events.size(); ++I)
    if (Events[I].Correlation && isHostCall(Events[I]))
      HostByCorr.push_back({Events[I].Correlation, I});
  std::sort(HostByCorr.begin(), HostByCorr.end());

  std::string Flows;
  bool AnyEvent = false;
  for (size_t I : Order) {
    const TraceEvent &E = Events[I];
    if (AnyEvent)
      Out += ",\n";
    AnyEvent = true;
    int64_t Pid = E.OnDevice ? devicePid(E) : E.Pid;
    Out += "  {\"ph\": \"";
    Out += E.Ph;
    Out += "\", \"cat\": ";
    Out += jsonString(E.Cat);
    Out += ", \"name\": " + jsonString(E.Name) + ", \"pid\": " + jsonInt(Pid) +
           ", \"tid\": " + jsonInt(E.Tid) +
           ", \"ts\": " + micros(E.StartNs - Base);
    if (E.Ph == 'X')
      Out += ", \"dur\": " + micros(E.EndNs - E.StartNs);
    else
      Out += ", \"s\": \"t\"";
    Out += ", \"args\": {";
    bool FirstArg = true;
    auto Arg = [&](const std::string &K, const std::string &V) {
      if (!FirstArg)
        Out += ", ";
      FirstArg = false;
      Out += jsonString(K) + ": " + V;
    };
    if (E.OnDevice)
      Arg("device", jsonInt(Pid));
    for (const EventArg &A : E.Args)
      Arg(A.first, A.second);
    if (E.Correlation) {
      Arg("correlation", jsonUInt(E.Correlation));
      if (uint64_t Ext = C.externalId(E.Correlation))
        Arg("External id", jsonUInt(Ext));
    }
    Out += "}}";

    if (E.OnDevice && E.Correlation) {
      auto It = std::lower_bound(HostByCorr.begin(), HostByCorr.end(),
                                 std::make_pair(E.Correlation, size_t(0)));
      if (It != HostByCorr.end() && It->first == E.Correlation) {
        const TraceEvent &H = Events[It->second];
        std::string Id = jsonUInt(E.Correlation);
        Flows += ",\n  {\"ph\": \"s\", \"id\": " + Id +
                 ", \"pid\": " + jsonInt(H.Pid) +
                 ", \"tid\": " + jsonInt(H.Tid) +
                 ", \"ts\": " + micros(H.StartNs - Base) +
                 ", \"cat\": \"ac2g\", \"name\": \"ac2g\"}";
        Flows += ",\n  {\"ph\": \"f\", \"id\": " + Id +
                 ", \"pid\": " + jsonInt(Pid) + ", \"tid\": " + jsonInt(E.Tid) +
                 ", \"ts\": " + micros(E.StartNs - Base) +
                 ", \"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"}";
      }
    }
  }
  // Names are written only for lanes that hold events, so an empty trace
  // has no names and no dangling comma.
  Out += Flows;
  Out += "\n  ]\n}\n";
  return Out;
}

std::string tracelint::capture::writeFileAtomically(const std::string &Path,
                                                    const std::string &Text) {
  std::string Tmp = Path + ".tmp" + std::to_string(long(::getpid()));
  auto Fail = [&](const char *What) {
    std::string Msg = Tmp + ": cannot " + What + ": " + std::strerror(errno);
    std::remove(Tmp.c_str());
    return Msg;
  };
  FILE *F = std::fopen(Tmp.c_str(), "wb");
  if (!F)
    return Tmp + ": cannot create: " + std::strerror(errno);
  bool Ok = std::fwrite(Text.data(), 1, Text.size(), F) == Text.size();
  Ok = std::fflush(F) == 0 && Ok;
  if (Ok)
    ::fsync(::fileno(F));
  if (std::fclose(F) != 0 || !Ok)
    return Fail("write");
  if (std::rename(Tmp.c_str(), Path.c_str()) != 0) {
    std::string Msg = Path + ": cannot rename " + Tmp +
                      " into place: " + std::strerror(errno);
    std::remove(Tmp.c_str());
    return Msg;
  }
  return {};
}
