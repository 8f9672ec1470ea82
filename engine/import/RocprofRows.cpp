//===- import/RocprofRows.cpp ---------------------------------------------===//
//
// How rocprof's tblextr.py writes results.json, as far as this reader
// depends on it (docs/import.md, "Legacy rocprof"):
//
//   - every row is an 'X' event whose fields are strings: "ts" and "dur" are
//     whole microseconds, truncated, with a zero duration written as "1";
//     its arguments repeat the row's table columns, among them the exact
//     "BeginNs" and "EndNs" of the same clock;
//   - the process ("pid") is the row's section, named by a process_name
//     event: "CPU HIP API" (2), "CPU HSA API" (3), "COPY" (1), "GPU<n>"
//     (6 + n), "GPU Barriers<n>" (518 + n), "Markers and Ranges" (0); the
//     thread ("tid") is the OS thread of an API row and the HIP stream (or
//     the dispatching thread) of a device row;
//   - a launch is an arrow from the middle of the API call ('s', at most
//     the device row's start) to the device row's start ('t'), both in the
//     rows' truncated microseconds; arrows the other way (from a device row
//     to the hipStreamSynchronize that waited for it) are dependencies,
//     not launches.
//
//===----------------------------------------------------------------------===//
#include "import/RocprofRows.h"

#include "import/Numbers.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <limits>
#include <tuple>

using namespace tracelint;
using namespace tracelint::import;
using llvm::StringRef;
using model::EventKind;
using model::ImportStat;

RocprofProcess tracelint::import::rocprofProcess(StringRef Name) {
  Name = Name.trim();
  // One era numbers its sections: "0 Markers and Ranges", "3 GPU0".
  StringRef Rest = Name.ltrim("0123456789");
  if (Rest.size() < Name.size() && Rest.startswith(" "))
    Name = Rest.ltrim(' ');
  RocprofProcess P;
  auto DeviceAfter = [&](StringRef Prefix, RocprofRole Role) {
    StringRef N = Name;
    unsigned Device;
    if (!N.consume_front(Prefix) || N.empty() ||
        !llvm::all_of(N, llvm::isDigit) || N.getAsInteger(10, Device) ||
        Device >= (1u << 20))
      return false;
    P.Role = Role;
    P.Device = int32_t(Device);
    return true;
  };
  if (Name == "COPY")
    P.Role = RocprofRole::Copy;
  else if (Name == "Markers and Ranges")
    P.Role = RocprofRole::Markers;
  else if (Name.startswith("CPU ") && Name.endswith(" API")) {
    P.Role = RocprofRole::Api; // HIP, HSA, KFD
    P.Hip = Name == "CPU HIP API";
  } else if (!DeviceAfter("GPU Barriers", RocprofRole::Barrier)) {
    // "GPU<n>": a device's dispatches (DeviceAfter sets the role).
    DeviceAfter("GPU", RocprofRole::Gpu);
  }
  return P;
}

/// The value of "Key(V)" or "Key=V" in rocprof's argument text, up to the
/// next ')', ',' or space.
static std::optional<int64_t> callArg(StringRef Text, StringRef Key) {
  for (size_t At = Text.find(Key); At != StringRef::npos;
       At = Text.find(Key, At + 1)) {
    // A whole word: "sizeBytes", not "dpitchsizeBytes".
    if (At > 0 && (llvm::isAlnum(Text[At - 1]) || Text[At - 1] == '_'))
      continue;
    StringRef After = Text.substr(At + Key.size());
    if (!After.consume_front("(") && !After.consume_front("="))
      continue;
    StringRef Value = After.take_until(
        [](char C) { return C == ')' || C == ',' || C == ' '; });
    if (auto N = parseInteger(std::string_view(Value.data(), Value.size())))
      return N;
  }
  return std::nullopt;
}

RocprofCallArgs tracelint::import::parseRocprofCallArgs(StringRef Text) {
  RocprofCallArgs C;
  if (auto Bytes = callArg(Text, "sizeBytes"); Bytes && *Bytes >= 0)
    C.Bytes = *Bytes;
  // hipMemcpyKind: 0 HostToHost, 1 HostToDevice, 2 DeviceToHost,
  // 3 DeviceToDevice, 4 Default (told by the pointers: unknown here).
  if (auto Kind = callArg(Text, "kind")) {
    static const model::CopyKind Kinds[] = {
        model::CopyKind::HtoH, model::CopyKind::HtoD, model::CopyKind::DtoH,
        model::CopyKind::DtoD};
    if (*Kind >= 0 && *Kind < 4)
      C.Copy = Kinds[*Kind];
  }
  return C;
}

/// The memory kinds on either side of a copy in direction \p K.
static void setSides(model::CopyKind K, model::EventArgs &A) {
  using model::MemoryKind;
  switch (K) {
  case model::CopyKind::HtoD:
    A.Src = MemoryKind::Host, A.Dst = MemoryKind::Device;
    break;
  case model::CopyKind::DtoH:
    A.Src = MemoryKind::Device, A.Dst = MemoryKind::Host;
    break;
  case model::CopyKind::DtoD:
  case model::CopyKind::PtoP:
    A.Src = MemoryKind::Device, A.Dst = MemoryKind::Device;
    break;
  case model::CopyKind::HtoH:
    A.Src = MemoryKind::Host, A.Dst = MemoryKind::Host;
    break;
  case model::CopyKind::Unknown:
    break;
  }
}

void tracelint::import::parseRocprofCopyName(StringRef Name,
                                             model::EventArgs &A) {
  static const std::pair<StringRef, model::CopyKind> Directions[] = {
      {"HostToDevice", model::CopyKind::HtoD},
      {"DeviceToHost", model::CopyKind::DtoH},
      {"DeviceToDevice", model::CopyKind::DtoD},
      {"HostToHost", model::CopyKind::HtoH},
      {"PeerToPeer", model::CopyKind::PtoP}};
  for (const auto &[Text, Kind] : Directions)
    if (Name.contains(Text)) {
      A.Copy = Kind;
      setSides(Kind, A);
      return;
    }
}

void RocprofRows::label(int64_t Pid, StringRef Name) {
  RocprofProcess P = rocprofProcess(Name);
  if (P.Role == RocprofRole::None)
    return;
  Processes[Pid] = P;
  if (P.Role == RocprofRole::Gpu)
    GpuPids.try_emplace(P.Device, Pid);
  Active = true;
}

RocprofRole RocprofRows::roleOf(int64_t Pid) const {
  auto It = Processes.find(Pid);
  return It == Processes.end() ? RocprofRole::None : It->second.Role;
}

std::string RocprofRows::place(size_t Index, uint64_t Offset) const {
  return llvm::formatv("event {0} at byte {1}", Index, Offset).str();
}

void RocprofRows::addRow(const RawEvent &R, model::StringId Name,
                         size_t Index) {
  const RocprofProcess &P = Processes.find(R.LanePid)->second;
  if (R.BadNs)
    B.stats().addAt(ImportStat::BadValue,
                    place(Index, R.Offset) +
                        ": \"BeginNs\"/\"EndNs\" is not a whole number of "
                        "nanoseconds; the row keeps \"ts\"/\"dur\"");
  bool Exact = R.BeginNs >= 0;
  if (!Exact && !R.HasTs) {
    B.stats().addAt(ImportStat::MissingTimestamp, place(Index, R.Offset));
    return;
  }
  Row W;
  W.E.Name = Name;
  W.E.Start = Exact ? R.BeginNs : R.Ts;
  if (Exact && R.EndNs >= R.BeginNs) {
    W.E.Duration = R.EndNs - R.BeginNs;
  } else {
    // An end before the start is not a time this row can keep; "dur"
    // (truncated, but of the same clock) is the next best.
    if (Exact && R.EndNs >= 0)
      B.stats().addAt(ImportStat::BadValue,
                      place(Index, R.Offset) +
                          ": \"EndNs\" is before \"BeginNs\"; the row keeps "
                          "\"dur\"");
    if (!R.HasDur)
      B.stats().addAt(ImportStat::MissingDuration, place(Index, R.Offset));
    W.E.Duration = R.Dur;
  }
  W.TsNs = R.HasTs ? R.Ts : W.E.Start;
  W.DurNs = R.HasDur ? R.Dur : W.E.Duration;
  W.E.Correlation = static_cast<uint32_t>(R.Correlation);
  MaxCorrelation = std::max(MaxCorrelation, W.E.Correlation);
  W.E.ExternalId = R.ExternalId;
  W.Pid = R.LanePid;
  W.Tid = R.LaneTidNum ? R.LaneTid : 0;
  W.OsPid = R.OsPid;
  W.OsTid = R.OsTid;
  W.Queue = R.Queue;
  W.Role = P.Role;
  W.Device = R.GpuId >= 0 ? R.GpuId : P.Device;

  StringRef Text = B.strings().get(Name);
  switch (P.Role) {
  case RocprofRole::Api:
    W.E.Kind = EventKind::Runtime;
    W.Call =
        parseRocprofCallArgs(StringRef(R.CallArgs.data(), R.CallArgs.size()));
    break;
  case RocprofRole::Markers:
    // A roctxMark is written as a range of one nanosecond.
    W.E.Kind =
        W.E.Duration <= 1 && Exact ? EventKind::Marker : EventKind::Annotation;
    if (W.E.Kind == EventKind::Marker) {
      W.E.Duration = 0;
      W.E.Flags |= model::FlagInstant;
    }
    break;
  case RocprofRole::Gpu:
  case RocprofRole::Copy:
  case RocprofRole::Barrier: {
    model::EventArgs A;
    if (P.Role == RocprofRole::Gpu) {
      const model::NameClassifier &N =
          Names ? *Names : *model::NameClassifier::builtin();
      W.E.Kind = N.matches(Text, model::NameClass::CommunicationKernel)
                     ? EventKind::Collective
                     : EventKind::Kernel;
      // rocprof gives a dispatch's sizes in work-items, flattened: the
      // model counts the grid in work-groups, as CUDA counts blocks.
      if (R.GroupItems > 0 && R.GroupItems <= INT32_MAX) {
        A.Block[0] = int32_t(R.GroupItems);
        A.Block[1] = A.Block[2] = 1;
        if (R.GridItems > 0) {
          int64_t Groups = (R.GridItems + R.GroupItems - 1) / R.GroupItems;
          if (Groups <= INT32_MAX) {
            A.Grid[0] = int32_t(Groups);
            A.Grid[1] = A.Grid[2] = 1;
          }
        }
      }
      if (R.Lds >= 0 && R.Lds <= INT32_MAX)
        A.SharedMemory = int32_t(R.Lds);
    } else if (P.Role == RocprofRole::Copy) {
      // tblextr.py files "Memcpy", "Copy" and "Fill" operations here.
      W.E.Kind = Text.contains("Fill") ? EventKind::Memset : EventKind::Memcpy;
      if (W.E.Kind == EventKind::Memcpy)
        parseRocprofCopyName(Text, A);
      else
        A.Dst = model::MemoryKind::Device;
    } else {
      W.E.Kind = EventKind::Sync;
    }
    W.Args = uint32_t(ArgsHeld.size());
    ArgsHeld.push_back(A);
    break;
  }
  case RocprofRole::None:
    break;
  }
  if (R.HasDur && R.Dur == 0 && !(W.E.Flags & model::FlagInstant))
    B.stats().add(ImportStat::ZeroDuration);
  Rows.push_back(W);
}

void RocprofRows::addFlow(const RawEvent &R, size_t Index) {
  if (!R.HasTs || !R.HasId) {
    B.stats().addAt(ImportStat::FlowUnbound,
                    place(Index, R.Offset) + ": a flow event without " +
                        (R.HasTs ? "\"id\"" : "\"ts\""));
    return;
  }
  // Matching looks a microsecond either side of the time; a time at the
  // edge of int64 (only a damaged file has one) would overflow there.
  constexpr int64_t Limit = int64_t(1) << 62;
  if (R.Ts < -Limit || R.Ts > Limit) {
    B.stats().addAt(ImportStat::FlowUnbound,
                    place(Index, R.Offset) + ": its \"ts\" is out of range");
    return;
  }
  FlowEnd F;
  F.Id = R.Id;
  F.TsNs = R.Ts;
  F.Pid = R.LanePid;
  F.Tid = R.LaneTidNum ? R.LaneTid : 0;
  F.Start = R.Ph == 's';
  F.Index = Index;
  F.Offset = R.Offset;
  Flows.push_back(F);
}

// The API call on the flow's thread that holds the flow's time. Times are
// the rows' written microseconds, so a call holds [ts, ts + dur] (a zero
// duration is written as 1 us); one microsecond either side absorbs the
// truncation of the flow's own time.
uint32_t RocprofRows::hostRowAt(const FlowEnd &F) const {
  auto It = ByThread.find({F.Pid, F.Tid});
  if (It == ByThread.end())
    return model::NoIndex;
  const std::vector<uint32_t> &Idx = It->second;
  constexpr int64_t Slack = 1000;
  auto After =
      std::upper_bound(Idx.begin(), Idx.end(), F.TsNs + Slack,
                       [&](int64_t T, uint32_t I) { return T < Rows[I].TsNs; });
  // Calls on one thread nest but rarely overlap otherwise: the latest
  // start that holds the time is the innermost call. The scan is bounded
  // so that a hostile file cannot make it quadratic.
  unsigned Scanned = 0;
  for (auto I = After; I != Idx.begin() && Scanned < 64; ++Scanned) {
    const Row &R = Rows[*--I];
    if (R.Role != RocprofRole::Api)
      continue;
    // Saturated: a damaged row may last up to the end of int64.
    int64_t Dur = std::max<int64_t>(R.DurNs, 1000);
    int64_t End = R.TsNs > std::numeric_limits<int64_t>::max() - Dur - Slack
                      ? std::numeric_limits<int64_t>::max()
                      : R.TsNs + Dur + Slack;
    if (F.TsNs <= End)
      return *I;
  }
  return model::NoIndex;
}

// The device row of the flow's process that starts at the flow's time:
// exactly, in the written microseconds, on the flow's thread (the HIP
// stream, or the dispatching thread) if one does and is not linked yet,
// else on any thread, else the nearest within a microsecond.
uint32_t RocprofRows::deviceRowAt(const FlowEnd &F,
                                  llvm::DenseMap<uint32_t, bool> &Taken) const {
  auto It = ByProcess.find(F.Pid);
  if (It == ByProcess.end())
    return model::NoIndex;
  const std::vector<uint32_t> &Idx = It->second;
  constexpr int64_t Slack = 1000;
  auto First =
      std::lower_bound(Idx.begin(), Idx.end(), F.TsNs - Slack,
                       [&](uint32_t I, int64_t T) { return Rows[I].TsNs < T; });
  uint32_t Best = model::NoIndex;
  std::tuple<int64_t, bool, bool> BestRank; // distance, other thread, taken
  unsigned Scanned = 0;
  for (auto I = First; I != Idx.end() && Scanned < 256; ++I, ++Scanned) {
    const Row &R = Rows[*I];
    if (R.TsNs > F.TsNs + Slack)
      break;
    if (R.Role == RocprofRole::Api || R.Role == RocprofRole::Markers)
      continue;
    std::tuple<int64_t, bool, bool> Rank{std::abs(R.TsNs - F.TsNs),
                                         R.Tid != F.Tid, Taken.count(*I) > 0};
    // Untaken first, then exact, then on the flow's thread.
    auto Key = [](const std::tuple<int64_t, bool, bool> &T) {
      return std::make_tuple(std::get<2>(T), std::get<0>(T), std::get<1>(T));
    };
    if (Best == model::NoIndex || Key(Rank) < Key(BestRank)) {
      Best = *I;
      BestRank = Rank;
    }
  }
  return Best;
}

void RocprofRows::linkFlows() {
  for (uint32_t I = 0; I < Rows.size(); ++I) {
    const Row &R = Rows[I];
    ByThread[{R.Pid, R.Tid}].push_back(I);
    ByProcess[R.Pid].push_back(I);
  }
  auto ByStart = [&](uint32_t A, uint32_t B) {
    return std::make_pair(Rows[A].TsNs, A) < std::make_pair(Rows[B].TsNs, B);
  };
  for (auto &Entry : ByThread)
    llvm::sort(Entry.second, ByStart);
  for (auto &Entry : ByProcess)
    llvm::sort(Entry.second, ByStart);

  // Each arrow's ends, in file order: the first 's' and the first 't' or
  // 'f' of an id.
  llvm::DenseMap<uint64_t, std::pair<uint32_t, uint32_t>> Arrows;
  std::vector<uint64_t> Order;
  for (uint32_t I = 0; I < Flows.size(); ++I) {
    auto [It, New] =
        Arrows.try_emplace(Flows[I].Id, model::NoIndex, model::NoIndex);
    if (New)
      Order.push_back(Flows[I].Id);
    uint32_t &End = Flows[I].Start ? It->second.first : It->second.second;
    if (End == model::NoIndex)
      End = I;
  }

  auto IsDevice = [](RocprofRole R) {
    return R == RocprofRole::Gpu || R == RocprofRole::Copy ||
           R == RocprofRole::Barrier;
  };
  auto Unbound = [&](const FlowEnd &F, StringRef Why) {
    B.stats().addAt(ImportStat::FlowUnbound,
                    place(F.Index, F.Offset) + ": " + Why.str());
  };
  uint64_t Next = uint64_t(MaxCorrelation) + 1;
  llvm::DenseMap<uint32_t, bool> Taken;
  for (uint64_t Id : Order) {
    auto [S, T] = Arrows[Id];
    if (S == model::NoIndex || T == model::NoIndex) {
      const FlowEnd &F = Flows[S == model::NoIndex ? T : S];
      Unbound(F, S == model::NoIndex ? "an arrow's end without its start"
                                     : "an arrow's start without its end");
      continue;
    }
    const FlowEnd &From = Flows[S], &To = Flows[T];
    // Only arrows from an API call to device work are launches; those from
    // a device row to the call that waited for it are left out.
    if (roleOf(From.Pid) != RocprofRole::Api || !IsDevice(roleOf(To.Pid)))
      continue;
    uint32_t Call = hostRowAt(From);
    if (Call == model::NoIndex) {
      Unbound(From, "no API call on its thread holds its time");
      continue;
    }
    uint32_t Work = deviceRowAt(To, Taken);
    if (Work == model::NoIndex) {
      Unbound(To, "no device row of its process starts at its time");
      continue;
    }
    if (Taken.count(Work)) {
      Unbound(To, "the device row that starts at its time has an arrow "
                  "already");
      continue;
    }
    Taken[Work] = true;
    Row &C = Rows[Call], &W = Rows[Work];
    if (W.E.Correlation)
      continue; // linked by its own correlation id
    if (!C.E.Correlation) {
      if (Next > std::numeric_limits<uint32_t>::max()) {
        Unbound(From, "out of correlation ids");
        continue;
      }
      C.E.Correlation = uint32_t(Next++);
    }
    W.E.Correlation = C.E.Correlation;
  }
}

// A copy's size is not among its row's columns, and an HSA copy's
// direction neither: both come from the arguments of the call that
// launched it.
void RocprofRows::fillCopiesFromCalls(
    const llvm::DenseMap<uint32_t, uint32_t> &CallOf) {
  for (Row &R : Rows) {
    if (R.Role != RocprofRole::Copy || !R.E.Correlation ||
        R.Args == model::NoIndex)
      continue;
    auto It = CallOf.find(R.E.Correlation);
    if (It == CallOf.end())
      continue;
    const RocprofCallArgs &C = Rows[It->second].Call;
    model::EventArgs &A = ArgsHeld[R.Args];
    if (A.Bytes < 0 && C.Bytes >= 0)
      A.Bytes = C.Bytes;
    if (R.E.Kind == EventKind::Memcpy && A.Copy == model::CopyKind::Unknown &&
        C.Copy != model::CopyKind::Unknown) {
      A.Copy = C.Copy;
      setSides(C.Copy, A);
    }
  }
}

// rocprof run with both --hsa-trace and --hip-trace writes each kernel
// twice on its GPU: once from the dispatch records (with grid sizes, on
// the dispatching thread) and once from the HIP activity records (on the
// HIP stream, linked to the hipLaunchKernel call), with the same
// nanoseconds. One row is kept, the one the program's HIP call launched if
// any (else one any call launched), with the sizes of both.
void RocprofRows::mergeDuplicateDispatches(
    const llvm::DenseMap<uint32_t, uint32_t> &CallOf) {
  auto Rank = [&](const Row &R) {
    if (!R.E.Correlation)
      return 0;
    auto It = CallOf.find(R.E.Correlation);
    if (It == CallOf.end())
      return 1;
    auto P = Processes.find(Rows[It->second].Pid);
    return P != Processes.end() && P->second.Hip ? 3 : 2;
  };
  llvm::DenseMap<std::tuple<int32_t, int64_t, int64_t>, uint32_t> Seen;
  for (uint32_t I = 0; I < Rows.size(); ++I) {
    Row &R = Rows[I];
    if (R.Role != RocprofRole::Gpu)
      continue;
    auto [It, New] =
        Seen.try_emplace(std::make_tuple(R.Device, R.E.Start, R.E.Duration), I);
    if (New)
      continue;
    uint32_t KeepIdx = It->second, DropIdx = I;
    if (Rank(Rows[DropIdx]) > Rank(Rows[KeepIdx]))
      std::swap(KeepIdx, DropIdx);
    Row &Keep = Rows[KeepIdx], &Drop = Rows[DropIdx];
    model::EventArgs &K = ArgsHeld[Keep.Args];
    const model::EventArgs &D = ArgsHeld[Drop.Args];
    if (K.Grid[0] <= 0)
      std::copy(std::begin(D.Grid), std::end(D.Grid), K.Grid);
    if (K.Block[0] <= 0)
      std::copy(std::begin(D.Block), std::end(D.Block), K.Block);
    if (K.SharedMemory < 0)
      K.SharedMemory = D.SharedMemory;
    Drop.Dropped = true;
    It->second = KeepIdx;
    B.stats().add(ImportStat::DuplicateRows);
  }
}

int32_t RocprofRows::copyDevice(const Row &R) const {
  if (R.Device >= 0)
    return R.Device;
  // An HSA copy names no device: the only GPU of the trace, else device 0.
  int32_t Only = -1;
  for (const auto &Entry : Processes) {
    if (Entry.second.Role != RocprofRole::Gpu)
      continue;
    if (Only >= 0 && Only != Entry.second.Device)
      return 0;
    Only = Entry.second.Device;
  }
  return Only >= 0 ? Only : 0;
}

uint32_t RocprofRows::laneOf(const Row &R) {
  if (R.Role == RocprofRole::Api || R.Role == RocprofRole::Markers) {
    // The OS thread, so that a roctx range and the HIP and HSA calls of one
    // thread share its lane and nest; rocprof files them under three
    // sections.
    if (R.OsPid >= 0 && R.OsTid >= 0)
      return B.lane(R.OsPid, R.OsTid);
    return B.lane(R.Pid, R.Tid);
  }
  // A device row runs on an HSA queue; rows without one keep their thread
  // (the HIP stream, or the dispatching thread). rocprof files a device's
  // kernels, its barrier packets and every device's copies in separate
  // sections, but work on one queue runs in order: all of it goes on the
  // lane of its device and queue, in the device's GPU<n> process.
  int32_t Device =
      R.Role == RocprofRole::Copy ? copyDevice(R) : std::max(R.Device, 0);
  int64_t Stream = R.Queue >= 0 ? R.Queue : R.Tid;
  auto Gpu = GpuPids.find(Device);
  uint32_t Lane =
      Gpu != GpuPids.end()
          ? B.lane(Gpu->second, Stream)
          // No GPU<n> process to put it in: the row's own section, with the
          // device in the key, since COPY holds every device's copies.
          : B.lane(R.Pid, (int64_t(Device) << 32) | (Stream & 0xffffffff));
  if (B.laneInfo(Lane).Kind != model::LaneKind::DeviceStream)
    B.setDeviceLane(Lane, Device, Stream);
  return Lane;
}

void RocprofRows::finish() {
  if (!Active)
    return;
  model::Producer &P = B.producer();
  P.Format = "rocprof";
  P.Era = "rocprof v1/v2 results.json";
  // addRow stored each dispatch's grid in work-groups, whatever the call
  // that launched it (K004 would otherwise divide a HIP grid again).
  P.KernelGridInBlocks = true;

  linkFlows();
  llvm::DenseMap<uint32_t, uint32_t> CallOf; // correlation -> API row
  for (uint32_t I = 0; I < Rows.size(); ++I)
    if (Rows[I].Role == RocprofRole::Api && Rows[I].E.Correlation)
      CallOf.try_emplace(Rows[I].E.Correlation, I);
  fillCopiesFromCalls(CallOf);
  mergeDuplicateDispatches(CallOf);
  for (Row &R : Rows) {
    if (R.Dropped)
      continue;
    if (R.Args != model::NoIndex) {
      model::EventArgs &A = ArgsHeld[R.Args];
      A.Device =
          R.Role == RocprofRole::Copy ? copyDevice(R) : std::max(R.Device, 0);
      A.Stream = R.Queue >= 0 ? R.Queue : R.Tid;
    }
    R.E.Lane = laneOf(R);
    B.addEvent(R.E, R.Args == model::NoIndex ? nullptr : &ArgsHeld[R.Args]);
  }
  Rows.clear();
  ArgsHeld.clear();
  Flows.clear();
  ByThread.clear();
  ByProcess.clear();
}
