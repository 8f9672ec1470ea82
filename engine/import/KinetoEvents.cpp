//===- import/KinetoEvents.cpp --------------------------------------------===//
#include "import/KinetoEvents.h"
#include "import/Numbers.h"
#include "import/RocprofRows.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Compiler.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

using namespace tracelint;
using namespace tracelint::import;
using llvm::StringRef;
using model::EventKind;
using model::ImportStat;
using simdjson::ondemand::json_type;
using simdjson::ondemand::object;
using simdjson::ondemand::value;

namespace {

/// K == Lit, with the literal's length known to the compiler: it compares
/// words inline, where string_view's == (and GCC's memcmp for most lengths)
/// calls memcmp for every key.
template <size_t N> inline bool is(std::string_view K, const char (&Lit)[N]) {
  constexpr size_t Len = N - 1;
  if (K.size() != Len)
    return false;
  const char *P = K.data();
  auto Same = [&](size_t At, auto Word) {
    decltype(Word) A, B;
    std::memcpy(&A, P + At, sizeof(A));
    std::memcpy(&B, Lit + At, sizeof(B));
    return A == B;
  };
  if constexpr (Len >= 8) {
    for (size_t I = 0; I + 8 <= Len; I += 8)
      if (!Same(I, uint64_t()))
        return false;
    // The last, overlapping word covers the rest.
    return Same(Len - 8, uint64_t());
  } else if constexpr (Len >= 4) {
    return Same(0, uint32_t()) && Same(Len - 4, uint32_t());
  } else {
    for (size_t I = 0; I < Len; ++I)
      if (P[I] != Lit[I])
        return false;
    return true;
  }
}

// A key with an escaped quote is cut short and simply not recognised. Keys
// are short: one 16-byte compare finds the end of most, where a byte loop
// mispredicts its exit on nearly every key. Reading past the key is safe:
// simdjson's input is padded.
std::string_view keyOf(const simdjson::ondemand::raw_json_string &K) {
  const char *Raw = K.raw();
#if defined(__SSE2__)
  const __m128i Quote = _mm_set1_epi8('"');
  for (size_t I = 0; I < 256; I += 16) {
    __m128i V = _mm_loadu_si128(reinterpret_cast<const __m128i *>(Raw + I));
    if (unsigned M = unsigned(_mm_movemask_epi8(_mm_cmpeq_epi8(V, Quote))))
      return std::string_view(Raw, I + unsigned(__builtin_ctz(M)));
  }
#else
  for (size_t I = 0; I < 256; ++I)
    if (Raw[I] == '"')
      return std::string_view(Raw, I);
#endif
  return {};
}

/// One bit per key tracelint reads, to notice a key given twice (JSON allows
/// it; the last usable value is kept). Spellings read as one key share a bit.
enum KeyBit : unsigned {
  KPh,
  KTs,
  KId,
  KBp,
  KCat,
  KDur,
  KPid,
  KTid,
  KName,
  KArgs,
  AGrid,
  AName,
  AKind,
  ASize,
  ABytes,
  ADtype,
  ABlock,
  ADevice,
  AStream,
  ADeviceId,
  AInputDims,
  AInputType,
  ACorrelation,
  AExternalId,
  AWarps,
  AShared,
  ABlocksPerSM,
  AInMsg,
  AWaitStream,
  AReserved,
  AOutMsg,
  AAllocated,
  ACollective,
  AConcreteInputs,
  AProcessGroup,
  ARegisters,
  AOccupancy,
  AWaitEvent,
  // Legacy rocprof's results.json rows (RocprofRows.h).
  ABeginNs,
  AEndNs,
  AOsPid,
  AOsTid,
  AQueue,
  AGpuId,
  AGrd,
  AWgr,
  ALds,
  ACallArgs,
  NumKeyBits
};
static_assert(NumKeyBits <= 64, "RawEvent::SeenKeys holds one bit per key");

/// Marks key \p Bit as read.
void see(RawEvent &R, KeyBit Bit) {
  uint64_t M = uint64_t(1) << Bit;
  R.DuplicateKey |= (R.SeenKeys & M) != 0;
  R.SeenKeys |= M;
}

/// get_string() that notes an escape simdjson cannot decode (a lone
/// surrogate): true on error, like simdjson's get().
bool getString(value V, std::string_view &Out, RawEvent &R) {
  simdjson::error_code E = V.get_string().get(Out);
  if (E == simdjson::STRING_ERROR)
    R.BadEscape = true;
  return E != simdjson::SUCCESS;
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

/// The direction of a unified (managed) memory copy-kind spelling, or
/// nullopt when \p W names none: "Unified HtoD", "Unified Host-to-Device"
/// (nsys's label), "UVM_HTOD" or "CUDA_MEMCPY_KIND_UVM_HTOD" (nsys's ENUM
/// name), in any case. Only HtoD, DtoH and DtoD have unified twins.
std::optional<model::CopyKind> unifiedCopyKind(StringRef W) {
  W = W.trim();
  if (W.size() > 17 && W.take_front(17).equals_insensitive("CUDA_MEMCPY_KIND_"))
    W = W.drop_front(17);
  if (W.size() > 4 && W.take_front(4).equals_insensitive("UVM_"))
    W = W.drop_front(4);
  else if (W.size() > 8 && W.take_front(8).equals_insensitive("Unified "))
    W = W.drop_front(8).ltrim();
  else
    return std::nullopt;
  W = W.take_until([](char C) { return C == ' ' || C == '('; });
  if (equalsAny(W, {"HtoD", "Host-to-Device"}))
    return model::CopyKind::HtoD;
  if (equalsAny(W, {"DtoH", "Device-to-Host"}))
    return model::CopyKind::DtoH;
  if (equalsAny(W, {"DtoD", "Device-to-Device"}))
    return model::CopyKind::DtoD;
  return std::nullopt;
}

/// Event kind from the category (any era) and the name.
EventKind classify(StringRef Cat, StringRef Name,
                   const model::NameClassifier &Names, bool &Device,
                   bool &Known) {
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
    return Names.matches(Name, model::NameClass::CommunicationKernel)
               ? EventKind::Collective
               : EventKind::Kernel;
  }
  // Managed-memory page migrations: the driver's, on a fault or a prefetch,
  // not a copy that a host call put on a stream, so not device work. Kineto
  // itself records none (CUPTI's memcpy kinds have no unified ones); traces
  // that other tools wrote in its format name them so. The copy-kind
  // argument can say so too (derive()).
  if (equalsAny(Cat, {"unified_memory", "gpu_unified_memory"})) {
    Device = true;
    return EventKind::Migration;
  }
  if (equalsAny(Cat, {"gpu_memcpy", "memcpy"})) {
    Device = true;
    if (Name.size() > 7 && Name.take_front(7).equals_insensitive("Memcpy ") &&
        unifiedCopyKind(Name.drop_front(7)))
      return EventKind::Migration;
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

/// The process name that PyTorch's legacy exporter (torch.autograd.profiler's
/// export_chrome_trace, the only one in builds without Kineto) gives every
/// CPU row; it writes no categories and no OS pid.
constexpr std::string_view LegacyCpuProcess = "CPU functions";

/// One spelling of a key, and the field it names.
template <size_t N> struct Spelling {
  const char (&Text)[N];
  KeyBit Bit;
};
template <size_t N> Spelling(const char (&)[N], KeyBit) -> Spelling<N>;

/// The field of the spelling that \p K is, or NumKeyBits. Each compare is
/// is()'s inline one, against a literal of known length.
template <typename... SpellingTs>
inline KeyBit match(std::string_view K, SpellingTs... S) {
  KeyBit Bit = NumKeyBits;
  (void)((is(K, S.Text) && ((Bit = S.Bit), true)) || ...);
  return Bit;
}

/// Which field key \p K is, among the keys of an event object (\p InArgs
/// false) or of its "args" object (\p InArgs true); NumKeyBits for a key
/// tracelint does not read. The one table of how each field is spelled
/// (Kineto eras differ: "bytes" and "Bytes" are one field), by length, so
/// that a key costs one jump and a few word compares.
template <bool InArgs> KeyBit fieldOf(std::string_view K) {
  if constexpr (!InArgs) {
    switch (K.size()) {
    case 2:
      return match(K, Spelling{"ph", KPh}, Spelling{"ts", KTs},
                   Spelling{"id", KId}, Spelling{"bp", KBp});
    case 3:
      return match(K, Spelling{"cat", KCat}, Spelling{"dur", KDur},
                   Spelling{"pid", KPid}, Spelling{"tid", KTid});
    case 4:
      return match(K, Spelling{"name", KName}, Spelling{"args", KArgs});
    default:
      return NumKeyBits;
    }
  }
  switch (K.size()) {
  case 3:
    return match(K, Spelling{"pid", AOsPid}, Spelling{"tid", AOsTid},
                 Spelling{"grd", AGrd}, Spelling{"wgr", AWgr},
                 Spelling{"lds", ALds});
  case 4:
    return match(K, Spelling{"grid", AGrid}, Spelling{"name", AName},
                 Spelling{"kind", AKind}, Spelling{"size", ASize},
                 Spelling{"args", ACallArgs});
  case 5:
    return match(K, Spelling{"bytes", ABytes}, Spelling{"Bytes", ABytes},
                 Spelling{"dtype", ADtype}, Spelling{"block", ABlock},
                 Spelling{"EndNs", AEndNs});
  case 6:
    return match(K, Spelling{"device", ADevice}, Spelling{"stream", AStream},
                 Spelling{"dev-id", AGpuId}, Spelling{"gpu-id", AGpuId});
  case 7:
    return match(K, Spelling{"BeginNs", ABeginNs});
  case 8:
    return match(K, Spelling{"queue-id", AQueue});
  case 9:
    return match(K, Spelling{"Device Id", ADeviceId});
  case 10:
    return match(K, Spelling{"Input Dims", AInputDims},
                 Spelling{"Input dims", AInputDims},
                 Spelling{"Input type", AInputType});
  case 11:
    return match(K, Spelling{"correlation", ACorrelation},
                 Spelling{"External id", AExternalId},
                 Spelling{"external id", AExternalId});
  case 12:
    return match(K, Spelling{"warps per SM", AWarps});
  case 13:
    return match(K, Spelling{"shared memory", AShared},
                 Spelling{"blocks per SM", ABlocksPerSM},
                 Spelling{"In msg nelems", AInMsg});
  case 14:
    return match(K, Spelling{"wait_on_stream", AWaitStream},
                 Spelling{"Total Reserved", AReserved},
                 Spelling{"Out msg nelems", AOutMsg});
  case 15:
    return match(K, Spelling{"Total Allocated", AAllocated},
                 Spelling{"Collective name", ACollective},
                 Spelling{"Concrete Inputs", AConcreteInputs});
  case 18:
    return match(K, Spelling{"Process Group Name", AProcessGroup});
  case 20:
    return match(K, Spelling{"registers per thread", ARegisters});
  case 25:
    return match(K, Spelling{"est. achieved occupancy %", AOccupancy});
  case 33:
    return match(K, Spelling{"wait_on_cuda_event_record_corr_id", AWaitEvent});
  default:
    return NumKeyBits;
  }
}

/// Calls \p Read(Bit, Value) for each field of \p Obj that fieldOf<InArgs>
/// knows, after marking it seen; other fields are skipped unread. False
/// when simdjson rejects the object or \p Read returns false.
template <bool InArgs, typename ReadFn>
inline bool readFields(object Obj, RawEvent &R, ReadFn Read) {
  for (auto FieldRes : Obj) {
    simdjson::ondemand::field F;
    if (std::move(FieldRes).get(F))
      return false;
    if constexpr (!InArgs)
      R.AnyField = true;
    KeyBit Bit = fieldOf<InArgs>(keyOf(F.key()));
    if (Bit == NumKeyBits)
      continue;
    see(R, Bit);
    if (!Read(Bit, F.value()))
      return false;
  }
  return true;
}

// Out of line on purpose: inlined into decodeObject (GCC 12 -O3 does so),
// it made the event's field loop too large to be inlined into
// decodeEventArray, and a 100 MB trace took 7% more instructions.
LLVM_ATTRIBUTE_NOINLINE bool decodeArgs(object Args, RawEvent &R) {
  return readFields<true>(Args, R, [&R](KeyBit Bit, value V) {
    // Most arguments are one number or string kept as it is; each one read
    // makes the event keep its arguments.
    auto Int = [&](auto &Field) {
      int64_t N;
      if (integer(V, N)) {
        Field = std::remove_reference_t<decltype(Field)>(N);
        R.HasArgs = true;
      }
    };
    auto Real = [&](float &Field) {
      if (real(V, Field))
        R.HasArgs = true;
    };
    auto Text = [&](std::string_view &Field) {
      if (!getString(V, Field, R))
        R.HasArgs = true;
    };
    auto RawArray = [&](std::string_view &Field) {
      simdjson::ondemand::array Arr;
      if (!V.get_array().get(Arr) && !Arr.raw_json().get(Field))
        R.HasArgs = true;
    };
    int64_t N;
    switch (Bit) {
    case AGrid:
      dims3(V, R.A.Grid);
      R.HasArgs = true;
      break;
    case ABlock:
      dims3(V, R.A.Block);
      R.HasArgs = true;
      break;
    case AName:
      // The value of a metadata event (a process or thread name), not an
      // argument that an event keeps.
      if (getString(V, R.ArgName, R))
        R.ArgName = {};
      break;
    case AKind:
      Text(R.CopyKindArg);
      break;
    case ADtype:
      Text(R.Dtype);
      break;
    case ACollective:
      Text(R.Collective);
      break;
    case AProcessGroup:
      Text(R.ProcessGroup);
      break;
    case AInputDims:
      RawArray(R.InputDims);
      break;
    case AInputType:
      RawArray(R.InputTypes);
      break;
    case AConcreteInputs:
      RawArray(R.ConcreteInputs);
      break;
    case ASize:
    case ABytes:
      Int(R.A.Bytes);
      break;
    case ADevice:
    case ADeviceId:
      Int(R.A.Device);
      break;
    case AStream:
      Int(R.A.Stream);
      break;
    case AShared:
      Int(R.A.SharedMemory);
      break;
    case AWaitStream:
      Int(R.A.WaitOnStream);
      break;
    case AReserved:
      Int(R.A.TotalReserved);
      break;
    case AAllocated:
      Int(R.A.TotalAllocated);
      break;
    case ARegisters:
      Int(R.A.RegistersPerThread);
      break;
    case AWaitEvent:
      Int(R.A.WaitOnCorrelation);
      break;
    case AWarps:
      Real(R.A.WarpsPerSM);
      break;
    case ABlocksPerSM:
      Real(R.A.BlocksPerSM);
      break;
    case AOccupancy:
      Real(R.A.Occupancy);
      break;
    case AInMsg:
    case AOutMsg:
      if (integer(V, N)) {
        R.MsgNelems = std::max(R.MsgNelems, N);
        R.HasArgs = true;
      }
      break;
    // A rocprof row's fields: RocprofRows builds its arguments from them,
    // so they do not make the event keep Kineto's.
    case ABeginNs:
    case AEndNs: {
      int64_t &Ns = Bit == ABeginNs ? R.BeginNs : R.EndNs;
      if (integer(V, N) && N >= 0)
        Ns = N;
      else
        R.BadNs = true;
      break;
    }
    case AOsPid:
      if (integer(V, N))
        R.OsPid = N;
      break;
    case AOsTid:
      if (integer(V, N))
        R.OsTid = N;
      break;
    case AQueue:
      if (integer(V, N) && N >= 0)
        R.Queue = N;
      break;
    case AGpuId:
      if (integer(V, N) && N >= 0 && N < (1 << 20))
        R.GpuId = int32_t(N);
      break;
    case AGrd:
      if (integer(V, N) && N > 0)
        R.GridItems = N;
      break;
    case AWgr:
      if (integer(V, N) && N > 0)
        R.GroupItems = N;
      break;
    case ALds:
      if (integer(V, N) && N >= 0)
        R.Lds = N;
      break;
    case ACallArgs:
      if (getString(V, R.CallArgs, R))
        R.CallArgs = {};
      break;
    // Links, not arguments: they do not make the event keep its arguments.
    case ACorrelation:
      if (integer(V, N) && N > 0 && N <= int64_t(UINT32_MAX))
        R.Correlation = N;
      break;
    case AExternalId:
      if (integer(V, N))
        R.ExternalId = N;
      break;
    default:
      // fieldOf<true> gives only the args keys above.
      break;
    }
    return true;
  });
}

bool decodeObject(object Obj, RawEvent &R) {
  return readFields<false>(Obj, R, [&R](KeyBit Bit, value V) {
    switch (Bit) {
    case KPh: {
      std::string_view P;
      if (!getString(V, P, R) && !P.empty())
        R.Ph = P[0];
      else
        ++R.BadFields;
      break;
    }
    case KTs: {
      std::string_view T;
      std::optional<int64_t> Ns;
      if (numberText(V, T) && (Ns = microsToNanos(T))) {
        R.Ts = *Ns;
        R.HasTs = true;
      }
      break;
    }
    case KId: {
      int64_t N;
      if (integer(V, N)) {
        R.Id = uint64_t(N);
        R.HasId = true;
        break;
      }
      std::string_view S;
      if (!getString(V, S, R)) {
        R.Id = llvm::hash_value(StringRef(S.data(), S.size()));
        R.HasId = true;
      }
      break;
    }
    case KBp: {
      std::string_view S;
      R.BindEnclosing = !getString(V, S, R) && S == "e";
      break;
    }
    case KCat:
      if (getString(V, R.Cat, R))
        ++R.BadFields;
      break;
    case KDur: {
      std::string_view T;
      std::optional<int64_t> Ns;
      // A duration too large for int64 ns is kept (saturated) so that the
      // builder flags and clamps it as absurd.
      if (numberText(V, T) && (Ns = microsToNanosSaturating(T))) {
        R.Dur = *Ns;
        R.HasDur = true;
      } else {
        ++R.BadFields;
      }
      break;
    }
    case KPid:
    case KTid: {
      bool IsPid = Bit == KPid;
      json_type T;
      if (V.type().get(T))
        return false;
      int64_t N;
      std::string_view S;
      bool Num = false;
      if (T == json_type::number) {
        Num = integer(V, N);
      } else if (T == json_type::string) {
        if (getString(V, S, R))
          return false;
      } else {
        ++R.BadFields;
      }
      (IsPid ? R.HasPid : R.HasTid) = true;
      (IsPid ? R.PidIsNum : R.TidIsNum) = Num;
      if (Num)
        (IsPid ? R.Pid : R.Tid) = N;
      else
        (IsPid ? R.PidStr : R.TidStr) = S;
      break;
    }
    case KName:
      if (getString(V, R.Name, R))
        ++R.BadFields;
      break;
    case KArgs: {
      json_type T;
      if (V.type().get(T))
        return false;
      if (T == json_type::object) {
        object Args;
        if (V.get_object().get(Args) || !decodeArgs(Args, R))
          return false;
      }
      break;
    }
    default:
      // fieldOf<false> gives only the event keys above.
      break;
    }
    return true;
  });
}

enum CategoryFlag : uint8_t {
  FlagsComputed = 1 << 0,
  CapitalisedCategory = 1 << 1, ///< 2020-2021 Kineto ("Operator", "Kernel")
  LowercaseCategory = 1 << 2,   ///< 2022+ Kineto ("cpu_op", "kernel")
  LaunchFlow = 1 << 3,
  ForwardBackwardFlow = 1 << 4,
  /// What `lint --annotate` added (report/Annotate.h): the findings of an
  /// earlier run, not the program's activity.
  TracelintAnnotation = 1 << 5,
};

uint8_t computeCategoryFlags(StringRef Cat) {
  uint8_t F = FlagsComputed;
  if (Cat == "Operator" || Cat == "Kernel" || Cat == "Runtime" ||
      Cat == "Memcpy")
    F |= CapitalisedCategory;
  else if (Cat == "cpu_op" || Cat == "kernel" || Cat == "cuda_runtime")
    F |= LowercaseCategory;
  if (equalsAny(Cat, {"ac2g", "async", "async_cpu_to_gpu", "async_gpu"}))
    F |= LaunchFlow;
  else if (equalsAny(Cat, {"fwdbwd"}))
    F |= ForwardBackwardFlow;
  if (Cat == "tracelint")
    F |= TracelintAnnotation;
  return F;
}

constexpr uint8_t DeviceBit = 0x40, KnownBit = 0x80;

uint8_t computeClass(StringRef Cat, StringRef Name,
                     const model::NameClassifier &Names) {
  bool Dev, Kn;
  EventKind K = classify(Cat, Name, Names, Dev, Kn);
  return uint8_t(unsigned(K) | (Dev ? DeviceBit : 0) | (Kn ? KnownBit : 0));
}

StringRef ref(std::string_view S) { return StringRef(S.data(), S.size()); }

/// True when a "Concrete Inputs" array records a value: an op whose
/// arguments are all tensors writes ["", ""], which says nothing and is not
/// kept (most ops of a trace).
bool namesAValue(std::string_view ConcreteInputs) {
  return ConcreteInputs.find_first_not_of("[]\", ") != std::string_view::npos;
}

// Everything the committer needs that follows from the event alone.
void derive(RawEvent &R, DecodeCache &C) {
  R.CatId = C.string(R.Cat);
  R.NameId = C.string(R.Name);
  R.CatFlags = C.categoryFlags(R.CatId, R.Cat);

  // Old traces write stream lanes as "stream 7"; ids may be strings.
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
  R.LanePid = Pid;
  R.LaneTid = Tid;
  R.LanePidNum = PidNum;
  R.LaneTidNum = TidNum;
  if (PidNum && TidNum)
    R.LaneId = C.lane(Pid, Tid);
  R.LegacyCpu = !PidNum && TidNum && R.PidStr == LegacyCpuProcess;

  switch (R.Ph) {
  case 'X':
  case 'B':
  case 'i':
  case 'I':
  case 'R':
  case 'C':
    break;
  default:
    return; // no model event, or an 'E' that only closes one
  }
  uint8_t Class = C.classify(R.CatId, R.NameId, R.Cat, R.Name);
  EventKind Kind = EventKind(Class & 0x3f);
  R.Device = Class & DeviceBit;
  R.Known = Class & KnownBit;
  if (R.Ph == 'C')
    Kind = EventKind::Counter;
  else if (R.Ph != 'X' && R.Ph != 'B')
    Kind = Kind == EventKind::Other ? EventKind::Marker : Kind;
  // The legacy exporter writes ops, record_function ranges and steps alike
  // without a category: its ranges are ops, as the 2020-2021 Kineto era
  // wrote them ("Operator"); ProfilerStep#N is classified by its name.
  if (R.LegacyCpu && R.Cat.empty() && Kind == EventKind::Other &&
      (R.Ph == 'X' || R.Ph == 'B'))
    Kind = EventKind::Op;
  R.Kind = Kind;

  R.WantArgs =
      R.HasArgs && (R.Device || Kind == EventKind::Marker ||
                    Kind == EventKind::Op || Kind == EventKind::Runtime ||
                    Kind == EventKind::Driver || Kind == EventKind::Annotation);
  // A copy whose kind argument is a unified one is a migration too (the
  // class, cached by category and name, cannot see arguments).
  if (Kind == EventKind::Memcpy && !R.CopyKindArg.empty() &&
      unifiedCopyKind(ref(R.CopyKindArg)))
    R.Kind = Kind = EventKind::Migration;
  if (Kind == EventKind::Memcpy || Kind == EventKind::Memset ||
      Kind == EventKind::Migration)
    R.WantArgs = true;
  if (!R.WantArgs)
    return;
  // A collective's payload: message elements times the element size.
  if (Kind == EventKind::Collective && R.MsgNelems >= 0 && R.A.Bytes < 0) {
    int64_t Size = model::scalarTypeSize(ref(R.Dtype));
    if (Size > 0 && R.MsgNelems <= INT64_MAX / Size)
      R.A.Bytes = R.MsgNelems * Size;
  }
  if (Kind == EventKind::Memcpy) {
    if (!R.CopyKindArg.empty())
      R.A.Copy = copyKind(ref(R.CopyKindArg));
    parseCopyName(ref(R.Name), R.A);
  } else if (Kind == EventKind::Migration) {
    // The direction from the kind argument, else from the name ("Memcpy
    // Unified HtoD (Managed -> Device)", or a unified_memory event's name).
    std::optional<model::CopyKind> Dir;
    if (!R.CopyKindArg.empty())
      Dir = unifiedCopyKind(ref(R.CopyKindArg));
    if (!Dir && !R.CopyKindArg.empty())
      Dir = copyKind(ref(R.CopyKindArg));
    StringRef Name = ref(R.Name);
    if (Name.size() > 7 && Name.take_front(7).equals_insensitive("Memcpy "))
      Name = Name.drop_front(7);
    if (!Dir || *Dir == model::CopyKind::Unknown)
      Dir = unifiedCopyKind(Name);
    if (!Dir) {
      // A unified_memory event named by its direction alone ("HtoD ...").
      StringRef First = Name.take_until([](char C) { return C == ' '; });
      Dir = copyKind(First);
    }
    R.A.Copy = *Dir;
    model::EventArgs Sides;
    parseCopyName(ref(R.Name), Sides);
    R.A.Src = Sides.Src;
    R.A.Dst = Sides.Dst;
  }
  if (!R.InputDims.empty())
    R.DimsId = C.string(R.InputDims);
  if (!R.InputTypes.empty())
    R.TypesId = C.string(R.InputTypes);
  if (!R.Collective.empty())
    R.CollectiveId = C.string(R.Collective);
  else if (Kind == EventKind::Op && namesAValue(R.ConcreteInputs))
    R.ConcreteId = C.string(R.ConcreteInputs);
  if (!R.ProcessGroup.empty())
    R.GroupId = C.string(R.ProcessGroup);
}

} // namespace

uint32_t DecodeCache::string(std::string_view S) {
  // Bounds the copy of a trace's strings kept here.
  constexpr size_t MaxStrings = 1 << 20;
  llvm::CachedHashStringRef Key(ref(S));
  auto It = Strings.find(Key);
  if (It != Strings.end())
    return It->second;
  if (Strings.size() >= MaxStrings)
    return None;
  char *Copy = Storage.Allocate<char>(S.size());
  if (!S.empty())
    std::memcpy(Copy, S.data(), S.size());
  uint32_t Id = uint32_t(Strings.size());
  Strings.try_emplace(
      llvm::CachedHashStringRef(StringRef(Copy, S.size()), Key.hash()), Id);
  return Id;
}

uint32_t DecodeCache::lane(int64_t Pid, int64_t Tid) {
  constexpr size_t MaxLanes = 1 << 16;
  auto It = Lanes.find({Pid, Tid});
  if (It != Lanes.end())
    return It->second;
  if (Lanes.size() >= MaxLanes)
    return None;
  uint32_t Id = uint32_t(Lanes.size());
  Lanes.try_emplace({Pid, Tid}, Id);
  return Id;
}

uint8_t DecodeCache::classify(uint32_t CatId, uint32_t NameId,
                              std::string_view Cat, std::string_view Name) {
  const model::NameClassifier &N =
      Names ? *Names : *model::NameClassifier::builtin();
  if (CatId == None || NameId == None)
    return computeClass(ref(Cat), ref(Name), N);
  // Categories and names repeat: classify each (category, name) pair once.
  auto [It, Inserted] = Classes.try_emplace((uint64_t(CatId) << 32) | NameId);
  if (Inserted)
    It->second = computeClass(ref(Cat), ref(Name), N);
  return It->second;
}

uint8_t DecodeCache::categoryFlags(uint32_t CatId, std::string_view Cat) {
  if (CatId == None)
    return computeCategoryFlags(ref(Cat));
  if (CatId >= CategoryFlagsById.size())
    CategoryFlagsById.resize(
        std::max<size_t>(CatId + 1, CategoryFlagsById.size() * 2));
  uint8_t &F = CategoryFlagsById[CatId];
  if (!F)
    F = computeCategoryFlags(ref(Cat));
  return F;
}

KinetoEventDecoder::KinetoEventDecoder(model::TraceBuilder &B,
                                       const std::string &Path)
    : B(B), Path(Path), Rocprof(std::make_unique<RocprofRows>(B)) {}

KinetoEventDecoder::~KinetoEventDecoder() = default;

void KinetoEventDecoder::setNames(const model::NameClassifier *N) {
  Rocprof->setNames(N);
}

size_t KinetoEventDecoder::pendingEvents() const { return Rocprof->pending(); }

// Called before anything else is counted as an unknown phase, and at the
// end: by then a rocprof file has named its processes.
void KinetoEventDecoder::countEmptyOpener() {
  if (EmptyOpener.empty())
    return;
  if (!Rocprof->active())
    B.stats().addAt(ImportStat::UnknownPhase, EmptyOpener);
  EmptyOpener.clear();
}

std::string KinetoEventDecoder::place(uint64_t Offset) const {
  return llvm::formatv("event {0} at byte {1}", ElementsRead - 1, Offset).str();
}

void KinetoEventDecoder::countMalformed(uint64_t Offset) {
  ++ElementsRead;
  B.stats().add(ImportStat::EventsRead);
  B.stats().addAt(ImportStat::MalformedEvent, place(Offset));
}

void KinetoEventDecoder::countRepairedUtf8(uint64_t Offset) {
  B.stats().addAt(ImportStat::InvalidUtf8, place(Offset));
}

void KinetoEventDecoder::countRepairedEscapes(uint64_t Offset) {
  B.stats().addAt(ImportStat::InvalidEscape, place(Offset));
}

// The model's id of a string the decoding thread gave id \p Id. The pool
// sees exactly the intern() calls of a serial import, in the same order, so
// ids come out the same whichever thread decoded what.
model::StringId KinetoEventDecoder::intern(uint32_t Id, std::string_view S,
                                           unsigned Cache) {
  if (Id == DecodeCache::None)
    return B.strings().intern(ref(S));
  std::vector<model::StringId> &Map = Maps[Cache].Strings;
  if (Id >= Map.size())
    Map.resize(std::max<size_t>(Id + 1, Map.size() * 2), model::NoIndex);
  model::StringId &Global = Map[Id];
  if (Global == model::NoIndex)
    Global = B.strings().intern(ref(S));
  return Global;
}

uint32_t KinetoEventDecoder::laneFor(RawEvent &R, unsigned Cache) {
  if (R.LegacyCpu)
    return B.namedProcessThread(ref(R.PidStr), R.LaneTid);
  if (R.LanePidNum && R.LaneTidNum) {
    if (R.LaneId == DecodeCache::None)
      return B.lane(R.LanePid, R.LaneTid);
    std::vector<uint32_t> &Map = Maps[Cache].Lanes;
    if (R.LaneId >= Map.size())
      Map.resize(std::max<size_t>(R.LaneId + 1, Map.size() * 2),
                 model::NoIndex);
    uint32_t &Global = Map[R.LaneId];
    if (Global == model::NoIndex)
      Global = B.lane(R.LanePid, R.LaneTid);
    return Global;
  }
  auto Text = [](bool Num, int64_t N, std::string_view S) {
    return Num ? std::to_string(N) : std::string(S);
  };
  return B.namedLane(Text(R.LanePidNum, R.LanePid, R.PidStr),
                     Text(R.LaneTidNum, R.LaneTid, R.TidStr));
}

void KinetoEventDecoder::commit(RawEvent &R, unsigned Cache) {
  uint64_t Offset = R.Offset;
  if (R.Ph)
    ++WithPhase;
  if (R.CatFlags & CapitalisedCategory)
    SawCapitalised = true;
  else if (R.CatFlags & LowercaseCategory)
    SawLowercase = true;
  else if (R.LegacyCpu && R.Cat.empty() && R.Ph == 'X')
    SawLegacyExport = true;
  StringRef Name = ref(R.Name);
  // An annotated trace lints to the findings of the original: the
  // annotations make no lane, event or flow.
  if (R.CatFlags & TracelintAnnotation)
    return;

  switch (R.Ph) {
  case 'M': {
    B.stats().add(ImportStat::MetadataEvents);
    StringRef Value = ref(R.ArgName);
    if (Name == "process_name" && R.HasPid) {
      int64_t Pid;
      bool Ignored;
      if (R.PidIsNum)
        Pid = R.Pid;
      else if (!numericId(R.PidStr, Pid, Ignored))
        return;
      B.setProcessName(Pid, Value);
      Rocprof->label(Pid, Value);
    } else if (Name == "thread_name") {
      B.setLaneName(laneFor(R, Cache), Value.rtrim());
    }
    return;
  }
  case 's':
  case 't':
  case 'f': {
    B.stats().add(ImportStat::FlowEvents);
    if (Rocprof->active() && R.LanePidNum &&
        Rocprof->roleOf(R.LanePid) != RocprofRole::None) {
      Rocprof->addFlow(R, ElementsRead - 1);
      return;
    }
    if (!R.HasTs || !R.HasId || R.Ph == 't')
      return;
    model::FlowKind K = R.CatFlags & LaunchFlow ? model::FlowKind::Launch
                        : R.CatFlags & ForwardBackwardFlow
                            ? model::FlowKind::ForwardBackward
                            : model::FlowKind::Other;
    B.addFlowPoint(K, R.Id, R.Ph == 's', laneFor(R, Cache), R.Ts,
                   R.BindEnclosing);
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
    if (!R.AnyField && ElementsRead == 1) {
      EmptyOpener = place(Offset);
      return;
    }
    countEmptyOpener();
    B.stats().addAt(ImportStat::UnknownPhase, place(Offset));
    return;
  }

  // A row of a process a legacy rocprof file names: rocprof writes no
  // categories, so its process says what it is.
  if (R.Ph == 'X' && R.Cat.empty() && R.LanePidNum && Rocprof->active() &&
      Rocprof->roleOf(R.LanePid) != RocprofRole::None) {
    model::StringId RowName = intern(R.NameId, R.Name, Cache);
    intern(R.CatId, R.Cat, Cache);
    Rocprof->addRow(R, RowName, ElementsRead - 1);
    return;
  }

  if (!R.HasTs) {
    B.stats().addAt(ImportStat::MissingTimestamp, place(Offset));
    return;
  }
  uint32_t Lane = laneFor(R, Cache);
  if (R.Ph == 'E') {
    B.endEvent(Lane, R.Ts);
    return;
  }

  model::Event E;
  E.Name = intern(R.NameId, R.Name, Cache);
  // Unused here, but interned as it always was: string ids stay the same.
  intern(R.CatId, R.Cat, Cache);
  if (!R.Known)
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
    B.stats().add(ImportStat::CounterEvents);
  } else if (R.Ph != 'B') {
    E.Flags |= model::FlagInstant;
    B.stats().add(ImportStat::InstantEvents);
  }
  E.Kind = R.Kind;

  if (R.Device) {
    int32_t Dev = R.A.Device >= 0 ? R.A.Device : -1;
    const model::Lane &L = B.laneInfo(Lane);
    if (Dev < 0)
      Dev = L.Pid >= 0 && L.Pid < (1 << 20) ? int32_t(L.Pid) : 0;
    int64_t Stream = R.A.Stream >= 0 ? R.A.Stream : L.Tid;
    if (L.Kind != model::LaneKind::DeviceStream)
      B.setDeviceLane(Lane, Dev, Stream);
  }

  if (R.WantArgs) {
    if (!R.InputDims.empty())
      R.A.InputDims = intern(R.DimsId, R.InputDims, Cache);
    if (!R.InputTypes.empty())
      R.A.InputTypes = intern(R.TypesId, R.InputTypes, Cache);
    if (!R.Collective.empty())
      R.A.Detail = intern(R.CollectiveId, R.Collective, Cache);
    else if (R.ConcreteId != DecodeCache::None)
      R.A.Detail = intern(R.ConcreteId, R.ConcreteInputs, Cache);
    if (!R.ProcessGroup.empty())
      R.A.Group = intern(R.GroupId, R.ProcessGroup, Cache);
  }

  if (R.Ph == 'B')
    B.beginEvent(E, R.WantArgs ? &R.A : nullptr);
  else
    B.addEvent(E, R.WantArgs ? &R.A : nullptr);
}

void tracelint::import::decodeEventArray(simdjson::ondemand::parser &Parser,
                                         DecodeCache &Cache, const char *Buf,
                                         size_t Len, size_t Allocated,
                                         uint64_t StreamOffset,
                                         DecodedBatch &Out) {
  Out.clear();
  Out.CacheIndex = Cache.index();
  simdjson::ondemand::document Doc;
  simdjson::ondemand::array Arr;
  if (Parser.iterate(Buf, Len, Allocated).get(Doc) ||
      Doc.get_array().get(Arr)) {
    Out.Failed = true;
    return;
  }
  for (auto ElemRes : Arr) {
    value Elem;
    const char *Loc = nullptr;
    json_type T;
    if (std::move(ElemRes).get(Elem) || Elem.current_location().get(Loc) ||
        Elem.type().get(T)) {
      Out.Failed = true;
      return;
    }
    // Decode in place: the vector keeps its capacity from batch to batch.
    RawEvent &R = Out.Events.emplace_back();
    R.Offset = StreamOffset + uint64_t(Loc - Buf);
    if (T != json_type::object) {
      // Skipped by the array iterator; the element is not an event.
      R.NotAnObject = true;
      continue;
    }
    object Obj;
    if (Elem.get_object().get(Obj) || !decodeObject(Obj, R)) {
      Out.PartialBadFields = R.BadFields;
      Out.Events.pop_back();
      Out.Failed = true;
      return;
    }
    if (R.BadEscape) {
      // Rejected like a syntax error, so that the importer re-decodes the
      // element with the escape repaired (KinetoImporter.cpp) rather than
      // losing the field.
      Out.Events.pop_back();
      Out.Failed = true;
      return;
    }
    derive(R, Cache);
  }
}

void KinetoEventDecoder::commit(DecodedBatch &Batch) {
  if (Batch.CacheIndex >= Maps.size())
    Maps.resize(Batch.CacheIndex + 1);
  for (RawEvent &R : Batch.Events) {
    if (R.NotAnObject) {
      countMalformed(R.Offset);
      continue;
    }
    if (R.BadFields)
      B.stats().add(ImportStat::BadFieldType, R.BadFields);
    ++ElementsRead;
    B.stats().add(ImportStat::EventsRead);
    if (R.DuplicateKey)
      B.stats().addAt(ImportStat::DuplicateKey, place(R.Offset));
    commit(R, Batch.CacheIndex);
  }
  if (Batch.PartialBadFields)
    B.stats().add(ImportStat::BadFieldType, Batch.PartialBadFields);
}

void KinetoEventDecoder::finish() {
  countEmptyOpener();
  model::Producer &P = B.producer();
  if (SawCapitalised && !SawLowercase)
    P.Era = "2020-2021 Kineto (capitalised categories)";
  else if (SawLowercase)
    P.Era = "2022+ Kineto (lower-case categories)";
  else if (SawLegacyExport)
    P.Era = "PyTorch legacy exporter without Kineto: CPU ops, no categories";
  Rocprof->finish();
}
