//===- capture/Collector.cpp - Trace events gathered in a window ----------===//
#include "Collector.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>

using namespace tracelint::capture;

namespace {
/// NVTX starts held while waiting for their ends; beyond this many open
/// ranges (a program that never ends its ranges) new starts are not held.
constexpr size_t MaxPendingMarkers = 1 << 16;
} // namespace

/// Length of the valid UTF-8 sequence at \p I, or 0.
static size_t utf8Length(std::string_view S, size_t I) {
  unsigned char C = S[I];
  size_t Len = C < 0x80           ? 1
               : (C >> 5) == 0x6  ? 2
               : (C >> 4) == 0xE  ? 3
               : (C >> 3) == 0x1E ? 4
                                  : 0;
  if (Len == 0 || I + Len > S.size())
    return 0;
  for (size_t K = 1; K < Len; ++K)
    if ((static_cast<unsigned char>(S[I + K]) >> 6) != 0x2)
      return 0;
  return Len;
}

std::string tracelint::capture::jsonString(std::string_view S) {
  std::string Out;
  Out.reserve(S.size() + 2);
  Out += '"';
  for (size_t I = 0; I < S.size();) {
    unsigned char C = S[I];
    switch (C) {
    case '"':
      Out += "\\\"";
      ++I;
      continue;
    case '\\':
      Out += "\\\\";
      ++I;
      continue;
    case '\n':
      Out += "\\n";
      ++I;
      continue;
    case '\r':
      Out += "\\r";
      ++I;
      continue;
    case '\t':
      Out += "\\t";
      ++I;
      continue;
    default:
      break;
    }
    if (C < 0x20) {
      char Buf[8];
      std::snprintf(Buf, sizeof(Buf), "\\u%04x", C);
      Out += Buf;
      ++I;
      continue;
    }
    // Names come from the program (NVTX) and may be any bytes; JSON
    // readers reject invalid UTF-8, so each bad byte becomes U+FFFD.
    size_t Len = utf8Length(S, I);
    if (Len == 0) {
      Out += "\\ufffd";
      ++I;
      continue;
    }
    Out.append(S.data() + I, Len);
    I += Len;
  }
  Out += '"';
  return Out;
}

std::string tracelint::capture::jsonInt(int64_t V) { return std::to_string(V); }
std::string tracelint::capture::jsonUInt(uint64_t V) {
  return std::to_string(V);
}
std::string tracelint::capture::jsonReal(double V) {
  if (!std::isfinite(V))
    return "0";
  char Buf[64];
  std::snprintf(Buf, sizeof(Buf), "%.6g", V);
  return Buf;
}
std::string tracelint::capture::jsonInts(std::initializer_list<int64_t> Vs) {
  std::string Out = "[";
  for (int64_t V : Vs) {
    if (Out.size() > 1)
      Out += ", ";
    Out += std::to_string(V);
  }
  return Out + "]";
}

void TraceCollector::windowStarted(uint64_t StartNs) {
  if (Started)
    return;
  Started = true;
  WinStart = StartNs;
}

void TraceCollector::windowEnded(uint64_t EndNs) {
  if (!Started || EndedWin)
    return;
  EndedWin = true;
  WinEnd = std::max(EndNs, WinStart);
}

bool TraceCollector::overlapsWindow(uint64_t Start, uint64_t End) const {
  if (!Started)
    return false;
  if (End < WinStart)
    return false;
  return !EndedWin || Start <= WinEnd;
}

bool TraceCollector::add(TraceEvent E) {
  ++Counts.Received;
  if (E.EndNs < E.StartNs)
    E.EndNs = E.StartNs;
  if (!overlapsWindow(E.StartNs, E.EndNs)) {
    ++Counts.OutsideWindow;
    return false;
  }
  if (MaxEvents && Counts.Kept >= MaxEvents) {
    ++Counts.DroppedByCap;
    return false;
  }
  ++Counts.Kept;
  Events.push_back(std::move(E));
  return true;
}

void TraceCollector::markerStart(uint32_t Id, std::string Name,
                                 std::string Domain, uint64_t Ts, int64_t Pid,
                                 int64_t Tid) {
  if (Pending.size() >= MaxPendingMarkers && !Pending.count(Id)) {
    ++Counts.DroppedByCap;
    return;
  }
  Pending[Id] = {std::move(Name), std::move(Domain), Ts, Pid, Tid};
}

static TraceEvent markerEvent(std::string Name, const std::string &Domain,
                              uint64_t Start, uint64_t End, int64_t Pid,
                              int64_t Tid) {
  TraceEvent E;
  E.Name = std::move(Name);
  E.Cat = "user_annotation";
  E.StartNs = Start;
  E.EndNs = End;
  E.Pid = Pid;
  E.Tid = Tid;
  if (!Domain.empty())
    E.Args.push_back({"domain", jsonString(Domain)});
  E.Args.push_back({"source", jsonString("nvtx")});
  return E;
}

void TraceCollector::markerEnd(uint32_t Id, uint64_t Ts) {
  auto It = Pending.find(Id);
  if (It == Pending.end()) {
    ++Counts.UnpairedMarkerEnds;
    return;
  }
  PendingMarker M = std::move(It->second);
  Pending.erase(It);
  add(markerEvent(std::move(M.Name), M.Domain, M.Ts, std::max(Ts, M.Ts), M.Pid,
                  M.Tid));
}

void TraceCollector::closeOpenMarkers() {
  if (!Started)
    return;
  uint64_t End = EndedWin ? WinEnd : WinStart;
  std::vector<std::pair<uint32_t, PendingMarker>> Open(Pending.begin(),
                                                       Pending.end());
  Pending.clear();
  // Deterministic order: by start time, then id.
  std::sort(Open.begin(), Open.end(), [](const auto &A, const auto &B) {
    return A.second.Ts != B.second.Ts ? A.second.Ts < B.second.Ts
                                      : A.first < B.first;
  });
  for (auto &[Id, M] : Open) {
    if (M.Ts > End)
      continue;
    TraceEvent E =
        markerEvent(std::move(M.Name), M.Domain, M.Ts, End, M.Pid, M.Tid);
    E.Args.push_back({"open at window end", "true"});
    if (add(std::move(E)))
      ++Counts.OpenMarkersClosed;
  }
}

void TraceCollector::addExternalCorrelation(uint32_t Correlation,
                                            uint64_t ExternalId, int Kind) {
  auto [It, Inserted] = External.try_emplace(Correlation, ExternalId, Kind);
  // Kind 3 is CUPTI's CUSTOM0, which PyTorch uses for its operators: prefer
  // it over any other link for the same correlation.
  if (!Inserted && Kind == 3 && It->second.second != 3)
    It->second = {ExternalId, Kind};
}

uint64_t TraceCollector::externalId(uint32_t Correlation) const {
  auto It = External.find(Correlation);
  return It == External.end() ? 0 : It->second.first;
}

void TraceCollector::addDevice(DeviceProps D) {
  for (DeviceProps &Old : Devices)
    if (Old.Id == D.Id) {
      Old = std::move(D);
      return;
    }
  Devices.push_back(std::move(D));
  std::sort(
      Devices.begin(), Devices.end(),
      [](const DeviceProps &A, const DeviceProps &B) { return A.Id < B.Id; });
}

const DeviceProps *TraceCollector::device(uint32_t Id) const {
  for (const DeviceProps &D : Devices)
    if (D.Id == Id)
      return &D;
  return nullptr;
}

void TraceCollector::addContext(uint32_t ContextId, uint32_t DeviceId) {
  ContextDevice[ContextId] = DeviceId;
}

int64_t TraceCollector::deviceOfContext(uint32_t ContextId) const {
  auto It = ContextDevice.find(ContextId);
  return It == ContextDevice.end() ? -1 : int64_t(It->second);
}

void TraceCollector::setThreadName(int64_t Pid, int64_t Tid, std::string Name) {
  ThreadNames[{Pid, Tid}] = std::move(Name);
}
