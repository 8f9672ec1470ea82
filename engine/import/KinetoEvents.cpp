//===- import/KinetoEvents.cpp --------------------------------------------===//
#include "import/KinetoEvents.h"
#include "import/Numbers.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"

#include <cstring>

using namespace tracelint;
using namespace tracelint::import;
using model::EventKind;
using model::ImportStat;
using simdjson::ondemand::json_type;
using simdjson::ondemand::object;
using simdjson::ondemand::value;
using llvm::StringRef;

struct KinetoEventDecoder::RawEvent {
  char Ph = 0;
  std::string_view Cat, Name;
  bool HasTs = false, HasDur = false, BadTs = false;
  int64_t Ts = 0, Dur = 0;
  bool HasPid = false, HasTid = false, PidIsNum = false, TidIsNum = false;
  int64_t Pid = 0, Tid = 0;
  std::string_view PidStr, TidStr;
  bool HasId = false, BindEnclosing = false;
  uint64_t Id = 0;
  // Arguments.
  bool HasArgs = false;
  int64_t Correlation = 0, ExternalId = 0;
  model::EventArgs A;
  std::string_view ArgName, InputDims, InputTypes, Collective, CopyKindArg;
};

namespace {

// Keys are short: a plain loop beats a memchr call. A key with an escaped
// quote is cut short and simply not recognised.
std::string_view keyOf(const simdjson::ondemand::raw_json_string &K) {
  const char *Raw = K.raw();
  for (size_t I = 0; I < 256; ++I)
    if (Raw[I] == '"')
      return std::string_view(Raw, I);
  return {};
}

/// The text of a number, or the contents of a string holding one.
bool numberText(value V, std::string_view &Out) {
  json_type T;
  if (V.type().get(T))
    return false;
  if (T == json_type::number) {
    Out = V.raw_json_token();
    return true;
  }
  if (T == json_type::string)
    return !V.get_string().get(Out);
  return false;
}

bool integer(value V, int64_t &Out) {
  std::string_view Text;
  if (!numberText(V, Text))
    return false;
  auto N = parseInteger(Text);
  if (!N)
    return false;
  Out = *N;
  return true;
}

bool real(value V, float &Out) {
  double D;
  json_type T;
  if (V.type().get(T))
    return false;
  if (T == json_type::number) {
    if (V.get_double().get(D))
      return false;
    Out = float(D);
    return true;
  }
  std::string_view S;
  if (T != json_type::string || V.get_string().get(S))
    return false;
  return !llvm::StringRef(S).trim().getAsDouble(D) && ((Out = float(D)), true);
}

void dims3(value V, int32_t Out[3]) {
  simdjson::ondemand::array Arr;
  if (V.get_array().get(Arr))
    return;
  int I = 0;
  for (auto Elem : Arr) {
    value E;
    int64_t N;
    if (std::move(Elem).get(E) || !integer(E, N))
      return;
    if (I < 3)
      Out[I++] = static_cast<int32_t>(N);
  }
}

bool equalsAny(StringRef S, std::initializer_list<StringRef> Options) {
  for (StringRef O : Options)
    if (S.equals_insensitive(O))
      return true;
  return false;
}

bool isCommunicationKernel(StringRef Name) {
  return Name.startswith_insensitive("nccl") ||
         Name.startswith_insensitive("rccl") ||
         Name.contains("ncclKernel") || Name.contains("ncclDevKernel");
}

/// Event kind from the category (any era) and the name.
EventKind classify(StringRef Cat, StringRef Name, bool &Device, bool &Known) {
  Device = false;
  Known = true;
  if (Name.startswith("ProfilerStep#"))
    return EventKind::Annotation;
  if (equalsAny(Cat, {"cpu_op", "operator"}))
    return EventKind::Op;
  if (equalsAny(Cat, {"user_annotation"}))
    return EventKind::Annotation;
  if (equalsAny(Cat, {"gpu_user_annotation"})) {
    Device = true;
    return EventKind::Annotation;
  }
  if (equalsAny(Cat, {"python_function", "python"}))
    return EventKind::Python;
  if (equalsAny(Cat, {"cuda_runtime", "runtime", "mtia_runtime"}))
    return EventKind::Runtime;
  if (equalsAny(Cat, {"cuda_driver", "driver"}))
    return EventKind::Driver;
  if (equalsAny(Cat, {"kernel"})) {
    Device = true;
    return isCommunicationKernel(Name) ? EventKind::Collective
                                       : EventKind::Kernel;
  }
  if (equalsAny(Cat, {"gpu_memcpy", "memcpy"})) {
    Device = true;
    return EventKind::Memcpy;
  }
  if (equalsAny(Cat, {"gpu_memset", "memset"})) {
    Device = true;
    return EventKind::Memset;
  }
  if (equalsAny(Cat, {"cuda_sync"})) {
    Device = true;
    return EventKind::Sync;
  }
  if (equalsAny(Cat, {"overhead"}))
    return EventKind::Overhead;
  if (equalsAny(Cat, {"cpu_instant_event"}) || Name == "[memory]")
    return EventKind::Marker;
  if (Cat.empty() ||
      equalsAny(Cat, {"trace", "mtia_ccp_events", "cuda_profiler_range",
                      "python_function", "gpu_op", "ac2g", "fwdbwd", "async",
                      "async_cpu_to_gpu", "async_gpu"}))
    return EventKind::Other;
  Known = false;
  return EventKind::Other;
}

model::MemoryKind memoryKind(StringRef W) {
  W = W.trim();
  return llvm::StringSwitch<model::MemoryKind>(W)
      .Case("Pageable", model::MemoryKind::Pageable)
      .Case("Pinned", model::MemoryKind::Pinned)
      .Case("Device", model::MemoryKind::Device)
      .Case("Managed", model::MemoryKind::Managed)
      .Case("Array", model::MemoryKind::Array)
      .Case("Host", model::MemoryKind::Host)
      .Default(model::MemoryKind::Unknown);
}

model::CopyKind copyKind(StringRef W) {
  return llvm::StringSwitch<model::CopyKind>(W)
      .Case("HtoD", model::CopyKind::HtoD)
      .Case("DtoH", model::CopyKind::DtoH)
      .Case("DtoD", model::CopyKind::DtoD)
      .Case("HtoH", model::CopyKind::HtoH)
      .Case("PtoP", model::CopyKind::PtoP)
      .Default(model::CopyKind::Unknown);
}

/// "Memcpy HtoD (Pageable -> Device)" -> HtoD, Pageable, Device.
void parseCopyName(StringRef Name, model::EventArgs &A) {
  llvm::SmallVector<StringRef, 4> Words;
  Name.split(Words, ' ', 2, false);
  if (Words.size() >= 2 && A.Copy == model::CopyKind::Unknown)
    A.Copy = copyKind(Words[1]);
  size_t Open = Name.find('('), Close = Name.rfind(')');
  if (Open == StringRef::npos || Close == StringRef::npos || Close < Open)
    return;
  auto [Src, Dst] = Name.slice(Open + 1, Close).split("->");
  A.Src = memoryKind(Src);
  A.Dst = memoryKind(Dst);
}

/// Old traces write stream lanes as "stream 7"; thread ids may be strings.
bool numericId(std::string_view S, int64_t &Out, bool &IsStream) {
  StringRef R(S.data(), S.size());
  R = R.trim();
  IsStream = R.consume_front("stream ");
  R = R.trim();
  auto N = parseInteger(std::string_view(R.data(), R.size()));
  if (!N)
    return false;
  Out = *N;
  return true;
}

} // namespace

std::string KinetoEventDecoder::place(uint64_t Offset) const {
  return llvm::formatv("event {0} at byte {1}", ElementsRead - 1, Offset).str();
}

void KinetoEventDecoder::countMalformed(uint64_t Offset) {
  ++ElementsRead;
  B.stats().add(ImportStat::EventsRead);
  B.stats().addAt(ImportStat::MalformedEvent, place(Offset));
}

bool KinetoEventDecoder::decodeArgs(object Args, RawEvent &R) {
  for (auto FieldRes : Args) {
    simdjson::ondemand::field F;
    if (std::move(FieldRes).get(F))
      return false;
    std::string_view K = keyOf(F.key());
    value V = F.value();
    int64_t N;
    switch (K.size()) {
    case 4:
      if (K == "grid") {
        dims3(V, R.A.Grid);
        R.HasArgs = true;
      } else if (K == "name") {
        if (V.get_string().get(R.ArgName))
          R.ArgName = {};
      } else if (K == "kind") {
        if (!V.get_string().get(R.CopyKindArg))
          R.HasArgs = true;
      } else if (K == "size" && integer(V, N)) {
        R.A.Bytes = N;
        R.HasArgs = true;
      }
      break;
    case 5:
      if ((K == "bytes" || K == "Bytes") && integer(V, N)) {
        R.A.Bytes = N;
        R.HasArgs = true;
      } else if (K == "block") {
        dims3(V, R.A.Block);
        R.HasArgs = true;
      }
      break;
    case 6:
      if (K == "device" && integer(V, N)) {
        R.A.Device = int32_t(N);
        R.HasArgs = true;
      } else if (K == "stream" && integer(V, N)) {
        R.A.Stream = N;
        R.HasArgs = true;
      }
      break;
    case 9:
      if (K == "Device Id" && integer(V, N)) {
        R.A.Device = int32_t(N);
        R.HasArgs = true;
      }
      break;
    case 10:
      if (K == "Input Dims" || K == "Input dims") {
        simdjson::ondemand::array Arr;
        if (!V.get_array().get(Arr) && !Arr.raw_json().get(R.InputDims))
          R.HasArgs = true;
      } else if (K == "Input type") {
        simdjson::ondemand::array Arr;
        if (!V.get_array().get(Arr) && !Arr.raw_json().get(R.InputTypes))
          R.HasArgs = true;
      }
      break;
    case 11:
      if (K == "correlation") {
        if (integer(V, N) && N > 0 && N <= int64_t(UINT32_MAX))
          R.Correlation = N;
      } else if (K == "External id" || K == "external id") {
        if (integer(V, N))
          R.ExternalId = N;
      }
      break;
    case 12:
      if (K == "warps per SM" && real(V, R.A.WarpsPerSM))
        R.HasArgs = true;
      break;
    case 13:
      if (K == "shared memory" && integer(V, N)) {
        R.A.SharedMemory = int32_t(N);
        R.HasArgs = true;
      } else if (K == "blocks per SM" && real(V, R.A.BlocksPerSM)) {
        R.HasArgs = true;
      }
      break;
    case 14:
      if (K == "wait_on_stream" && integer(V, N)) {
        R.A.WaitOnStream = int32_t(N);
        R.HasArgs = true;
      } else if (K == "Total Reserved" && integer(V, N)) {
        R.A.TotalReserved = N;
        R.HasArgs = true;
      }
      break;
    case 15:
      if (K == "Total Allocated" && integer(V, N)) {
        R.A.TotalAllocated = N;
        R.HasArgs = true;
      } else if (K == "Collective name") {
        if (!V.get_string().get(R.Collective))
          R.HasArgs = true;
      }
      break;
    case 20:
      if (K == "registers per thread" && integer(V, N)) {
        R.A.RegistersPerThread = int32_t(N);
        R.HasArgs = true;
      }
      break;
    case 25:
      if (K == "est. achieved occupancy %" && real(V, R.A.Occupancy))
        R.HasArgs = true;
      break;
    case 33:
      if (K == "wait_on_cuda_event_record_corr_id" && integer(V, N)) {
        R.A.WaitOnCorrelation = N;
        R.HasArgs = true;
      }
      break;
    default:
      break;
    }
  }
  return true;
}

bool KinetoEventDecoder::decodeObject(object Obj, RawEvent &R) {
  for (auto FieldRes : Obj) {
    simdjson::ondemand::field F;
    if (std::move(FieldRes).get(F))
      return false;
    std::string_view K = keyOf(F.key());
    value V = F.value();
    switch (K.size()) {
    case 1:
      break;
    case 2:
      if (K == "ph") {
        std::string_view P;
        if (!V.get_string().get(P) && !P.empty())
          R.Ph = P[0];
        else
          B.stats().add(ImportStat::BadFieldType);
      } else if (K == "ts") {
        std::string_view T;
        std::optional<int64_t> Ns;
        if (numberText(V, T) && (Ns = microsToNanos(T))) {
          R.Ts = *Ns;
          R.HasTs = true;
        } else {
          R.BadTs = true;
        }
      } else if (K == "id") {
        int64_t N;
        if (integer(V, N)) {
          R.Id = uint64_t(N);
          R.HasId = true;
        } else {
          std::string_view S;
          if (!V.get_string().get(S)) {
            R.Id = llvm::hash_value(StringRef(S.data(), S.size()));
            R.HasId = true;
          }
        }
      } else if (K == "bp") {
        std::string_view S;
        R.BindEnclosing = !V.get_string().get(S) && S == "e";
      }
      break;
    case 3:
      if (K == "cat") {
        if (V.get_string().get(R.Cat))
          B.stats().add(ImportStat::BadFieldType);
      } else if (K == "dur") {
        std::string_view T;
        std::optional<int64_t> Ns;
        if (numberText(V, T) && (Ns = microsToNanos(T))) {
          R.Dur = *Ns;
          R.HasDur = true;
        } else {
          B.stats().add(ImportStat::BadFieldType);
        }
      } else if (K == "pid" || K == "tid") {
        bool IsPid = K == "pid";
        json_type T;
        if (V.type().get(T))
          return false;
        int64_t N;
        std::string_view S;
        bool Num = false;
        if (T == json_type::number) {
          Num = integer(V, N);
        } else if (T == json_type::string) {
          if (V.get_string().get(S))
            return false;
        } else {
          B.stats().add(ImportStat::BadFieldType);
        }
        (IsPid ? R.HasPid : R.HasTid) = true;
        (IsPid ? R.PidIsNum : R.TidIsNum) = Num;
        if (Num)
          (IsPid ? R.Pid : R.Tid) = N;
        else
          (IsPid ? R.PidStr : R.TidStr) = S;
      }
      break;
    case 4:
      if (K == "name") {
        if (V.get_string().get(R.Name))
          B.stats().add(ImportStat::BadFieldType);
      } else if (K == "args") {
        json_type T;
        if (V.type().get(T))
          return false;
        if (T == json_type::object) {
          object Args;
          if (V.get_object().get(Args) || !decodeArgs(Args, R))
            return false;
        }
      }
      break;
    default:
      break;
    }
  }
  return true;
}

uint32_t KinetoEventDecoder::laneFor(RawEvent &R) {
  int64_t Pid = R.Pid, Tid = R.Tid;
  bool PidNum = R.PidIsNum, TidNum = R.TidIsNum, Stream = false, Ignored;
  if (!PidNum && R.HasPid && numericId(R.PidStr, Pid, Ignored))
    PidNum = true;
  if (!TidNum && R.HasTid && numericId(R.TidStr, Tid, Stream))
    TidNum = true;
  if (!R.HasPid)
    Pid = 0, PidNum = true;
  if (!R.HasTid)
    Tid = 0, TidNum = true;
  if (PidNum && TidNum)
    return B.lane(Pid, Tid);
  auto Text = [](bool Num, int64_t N, std::string_view S) {
    return Num ? std::to_string(N) : std::string(S);
  };
  return B.namedLane(Text(PidNum, Pid, R.PidStr), Text(TidNum, Tid, R.TidStr));
}

void KinetoEventDecoder::commit(RawEvent &R, uint64_t Offset) {
  if (R.Ph)
    ++WithPhase;
  StringRef Cat(R.Cat.data(), R.Cat.size());
  StringRef Name(R.Name.data(), R.Name.size());
  if (!Cat.empty()) {
    if (Cat == "Operator" || Cat == "Kernel" || Cat == "Runtime" ||
        Cat == "Memcpy")
      SawCapitalised = true;
    else if (Cat == "cpu_op" || Cat == "kernel" || Cat == "cuda_runtime")
      SawLowercase = true;
  }

  switch (R.Ph) {
  case 'M': {
    B.stats().add(ImportStat::MetadataEvents);
    StringRef Value(R.ArgName.data(), R.ArgName.size());
    if (Name == "process_name" && R.HasPid) {
      int64_t Pid;
      bool Ignored;
      if (R.PidIsNum)
        B.setProcessName(R.Pid, Value);
      else if (numericId(R.PidStr, Pid, Ignored))
        B.setProcessName(Pid, Value);
    } else if (Name == "thread_name") {
      B.setLaneName(laneFor(R), Value.rtrim());
    }
    return;
  }
  case 's':
  case 't':
  case 'f': {
    B.stats().add(ImportStat::FlowEvents);
    if (!R.HasTs || !R.HasId || R.Ph == 't')
      return;
    model::FlowKind K = model::FlowKind::Other;
    if (equalsAny(Cat, {"ac2g", "async", "async_cpu_to_gpu", "async_gpu"}))
      K = model::FlowKind::Launch;
    else if (equalsAny(Cat, {"fwdbwd"}))
      K = model::FlowKind::ForwardBackward;
    B.addFlowPoint(K, R.Id, R.Ph == 's', laneFor(R), R.Ts, R.BindEnclosing);
    return;
  }
  case 'X':
  case 'B':
  case 'E':
  case 'i':
  case 'I':
  case 'R':
  case 'C':
    break;
  default:
    B.stats().addAt(ImportStat::UnknownPhase, place(Offset));
    return;
  }

  if (!R.HasTs) {
    B.stats().addAt(ImportStat::MissingTimestamp, place(Offset));
    return;
  }
  uint32_t Lane = laneFor(R);
  if (R.Ph == 'E') {
    B.endEvent(Lane, R.Ts);
    return;
  }

  model::Event E;
  E.Name = B.strings().intern(Name);
  // Categories and names repeat: classify each (category, name) pair once.
  model::StringId CatId = B.strings().intern(Cat);
  auto [Cached, Inserted] =
      Classified.try_emplace((uint64_t(CatId) << 32) | E.Name, 0);
  if (Inserted) {
    bool Dev, Kn;
    EventKind K = classify(Cat, Name, Dev, Kn);
    Cached->second = uint8_t(unsigned(K) | (Dev ? 0x40 : 0) | (Kn ? 0x80 : 0));
  }
  EventKind Kind = EventKind(Cached->second & 0x3f);
  bool Device = Cached->second & 0x40, Known = Cached->second & 0x80;
  if (!Known)
    B.stats().add(ImportStat::UnknownCategory);
  E.Start = R.Ts;
  E.Lane = Lane;
  E.ExternalId = R.ExternalId;
  E.Correlation = static_cast<uint32_t>(R.Correlation);
  if (R.Ph == 'X') {
    if (!R.HasDur)
      B.stats().add(ImportStat::MissingDuration);
    E.Duration = R.Dur;
    if (R.HasDur && R.Dur == 0)
      B.stats().add(ImportStat::ZeroDuration);
  } else if (R.Ph == 'C') {
    Kind = EventKind::Counter;
    B.stats().add(ImportStat::CounterEvents);
  } else if (R.Ph != 'B') {
    Kind = Kind == EventKind::Other ? EventKind::Marker : Kind;
    E.Flags |= model::FlagInstant;
    B.stats().add(ImportStat::InstantEvents);
  }
  E.Kind = Kind;

  if (Device) {
    int32_t Dev = R.A.Device >= 0 ? R.A.Device : -1;
    const model::Lane &L = B.laneInfo(Lane);
    if (Dev < 0)
      Dev = L.Pid >= 0 && L.Pid < (1 << 20) ? int32_t(L.Pid) : 0;
    int64_t Stream = R.A.Stream >= 0 ? R.A.Stream : L.Tid;
    if (L.Kind != model::LaneKind::DeviceStream)
      B.setDeviceLane(Lane, Dev, Stream);
  }

  bool WantArgs = R.HasArgs && (Device || Kind == EventKind::Marker ||
                                Kind == EventKind::Op ||
                                Kind == EventKind::Runtime ||
                                Kind == EventKind::Driver);
  if (Kind == EventKind::Memcpy || Kind == EventKind::Memset)
    WantArgs = true;
  if (WantArgs) {
    if (Kind == EventKind::Memcpy) {
      if (!R.CopyKindArg.empty())
        R.A.Copy = copyKind(StringRef(R.CopyKindArg.data(), R.CopyKindArg.size()));
      parseCopyName(Name, R.A);
    }
    if (!R.InputDims.empty())
      R.A.InputDims = B.strings().intern(
          StringRef(R.InputDims.data(), R.InputDims.size()));
    if (!R.InputTypes.empty())
      R.A.InputTypes = B.strings().intern(
          StringRef(R.InputTypes.data(), R.InputTypes.size()));
    if (!R.Collective.empty())
      R.A.Detail = B.strings().intern(
          StringRef(R.Collective.data(), R.Collective.size()));
  }

  if (R.Ph == 'B')
    B.beginEvent(E, WantArgs ? &R.A : nullptr);
  else
    B.addEvent(E, WantArgs ? &R.A : nullptr);
}

bool KinetoEventDecoder::decodeArray(simdjson::ondemand::parser &Parser,
                                     const char *Buf, size_t Len,
                                     size_t Allocated, uint64_t StreamOffset,
                                     size_t &Done) {
  Done = 0;
  simdjson::ondemand::document Doc;
  if (Parser.iterate(Buf, Len, Allocated).get(Doc))
    return false;
  simdjson::ondemand::array Arr;
  if (Doc.get_array().get(Arr))
    return false;
  for (auto ElemRes : Arr) {
    value Elem;
    if (std::move(ElemRes).get(Elem))
      return false;
    const char *Loc = nullptr;
    if (Elem.current_location().get(Loc))
      return false;
    uint64_t Offset = StreamOffset + uint64_t(Loc - Buf);
    json_type T;
    if (Elem.type().get(T))
      return false;
    if (T != json_type::object) {
      // Skipped by the array iterator; the element is not an event.
      countMalformed(Offset);
      ++Done;
      continue;
    }
    object Obj;
    if (Elem.get_object().get(Obj))
      return false;
    RawEvent R;
    if (!decodeObject(Obj, R))
      return false;
    ++ElementsRead;
    B.stats().add(ImportStat::EventsRead);
    commit(R, Offset);
    ++Done;
  }
  return true;
}

void KinetoEventDecoder::finish() {
  model::Producer &P = B.producer();
  if (SawCapitalised && !SawLowercase)
    P.Era = "2020-2021 Kineto (capitalised categories)";
  else if (SawLowercase)
    P.Era = "2022+ Kineto (lower-case categories)";
}
