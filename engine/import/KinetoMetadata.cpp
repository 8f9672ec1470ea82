//===- import/KinetoMetadata.cpp - Top-level keys of a Kineto trace -------===//
//
// Kineto writes its metadata around the event array (some of it after the
// array: baseTimeNanoseconds, traceName), so each top-level value is kept as
// text while streaming and decoded here on its own.
//
//===----------------------------------------------------------------------===//
#include "import/KinetoEvents.h"
#include "import/Numbers.h"

#include "llvm/ADT/StringRef.h"

#include <map>

using namespace tracelint;
using namespace tracelint::import;
using simdjson::ondemand::json_type;
using simdjson::ondemand::value;

namespace {

std::string scalarText(value V) {
  json_type T;
  if (V.type().get(T))
    return {};
  std::string_view S;
  if (T == json_type::string) {
    if (V.get_string().get(S))
      return {};
    return std::string(S);
  }
  if (T == json_type::number || T == json_type::boolean) {
    S = V.raw_json_token();
    return llvm::StringRef(S.data(), S.size()).trim().str();
  }
  return {};
}

int64_t integerOr(value V, int64_t Default) {
  std::string Text = scalarText(V);
  if (Text == "true")
    return 1;
  if (Text == "false")
    return 0;
  auto N = parseInteger(Text);
  return N ? *N : Default;
}

/// Calls \p Fn(key, value) for each field of \p Obj; stops at the first
/// malformed field (metadata is best effort).
template <typename FnT>
void forEachField(simdjson::ondemand::object Obj, FnT Fn) {
  for (auto FieldRes : Obj) {
    simdjson::ondemand::field F;
    if (std::move(FieldRes).get(F))
      return;
    std::string_view KeyView;
    if (F.unescaped_key().get(KeyView))
      return;
    Fn(llvm::StringRef(KeyView.data(), KeyView.size()), value(F.value()));
  }
}

void readDevices(simdjson::ondemand::array Arr, model::TraceBuilder &B) {
  for (auto ElemRes : Arr) {
    simdjson::ondemand::object Obj;
    if (ElemRes.get_object().get(Obj))
      return;
    model::DeviceInfo D;
    forEachField(Obj, [&](llvm::StringRef K, value V) {
      if (K == "id")
        D.Id = int32_t(integerOr(V, -1));
      else if (K == "name")
        D.Name = scalarText(V);
      else if (K == "totalGlobalMem")
        D.TotalGlobalMemory = integerOr(V, -1);
      else if (K == "computeMajor")
        D.ComputeMajor = int32_t(integerOr(V, -1));
      else if (K == "computeMinor")
        D.ComputeMinor = int32_t(integerOr(V, -1));
      else if (K == "numSms")
        D.NumSMs = int32_t(integerOr(V, -1));
      else if (K == "warpSize")
        D.WarpSize = int32_t(integerOr(V, -1));
      else if (K == "maxThreadsPerMultiprocessor" ||
               K == "maxThreadsPerMultiProcessor")
        D.MaxThreadsPerMultiprocessor = int32_t(integerOr(V, -1));
    });
    B.devices().push_back(std::move(D));
  }
}

void readDistributed(simdjson::ondemand::object Obj, model::Producer &P) {
  forEachField(Obj, [&](llvm::StringRef K, value V) {
    if (K == "rank")
      P.Rank = integerOr(V, -1);
    else if (K == "world_size")
      P.WorldSize = integerOr(V, -1);
    else if (K == "backend")
      P.DistributedBackend = scalarText(V);
  });
}

/// tracelint capture's record counts: what it dropped is data loss.
void readCaptureCounts(simdjson::ondemand::object Obj, model::TraceBuilder &B) {
  forEachField(Obj, [&](llvm::StringRef K, value V) {
    simdjson::ondemand::object Records;
    if (K != "records" || V.get_object().get(Records))
      return;
    forEachField(Records, [&](llvm::StringRef K2, value V2) {
      if (K2 != "dropped_max_events" && K2 != "dropped_by_cupti")
        return;
      int64_t N = integerOr(V2, 0);
      if (N > 0)
        B.stats().add(model::ImportStat::ProducerDropped, uint64_t(N));
    });
  });
}

/// Legacy rocprof's "otherData": rocminfo's lines of each HSA agent, as
/// "Agent <n> Name" ("gfx90a" for a GPU, the CPU's model for a CPU) and
/// "Agent <n> Marketing Name". The GPU agents, in agent order, are the
/// devices rocprof numbers from 0 (its "gpu-id" and "GPU<n>" sections).
void readRocprofAgents(simdjson::ondemand::object Obj, model::TraceBuilder &B) {
  struct Agent {
    std::string Name, Marketing;
  };
  std::map<unsigned, Agent> Agents;
  forEachField(Obj, [&](llvm::StringRef K, value V) {
    unsigned N;
    if (!K.consume_front("Agent ") || K.consumeInteger(10, N) ||
        !K.consume_front(" "))
      return;
    if (K == "Name")
      Agents[N].Name = scalarText(V);
    else if (K == "Marketing Name")
      Agents[N].Marketing = scalarText(V);
  });
  // A trace that lists its devices otherwise keeps that list.
  if (!B.devices().empty())
    return;
  int32_t Gpu = 0;
  for (auto &[N, A] : Agents) {
    if (!llvm::StringRef(A.Name).startswith("gfx"))
      continue;
    model::DeviceInfo D;
    D.Id = Gpu++;
    D.Arch = std::move(A.Name);
    D.Name = std::move(A.Marketing);
    B.devices().push_back(std::move(D));
  }
}

} // namespace

void tracelint::import::applyTopLevelValue(model::TraceBuilder &B,
                                           llvm::StringRef Key,
                                           const std::string &Json,
                                           int64_t &BaseTimeNs) {
  static const llvm::StringRef Known[] = {
      "schemaVersion",     "deviceProperties",     "distributedInfo",
      "traceName",         "displayTimeUnit",      "baseTimeNanoseconds",
      "cupti_version",     "cuda_runtime_version", "cuda_driver_version",
      "roctracer_version", "hip_runtime_version",  "hip_driver_version",
      "record_shapes",     "profile_memory",       "with_stack",
      "with_flops",        "with_modules",         "tracelint_capture",
      "otherData"};
  if (llvm::find(Known, Key) == std::end(Known))
    return;
  llvm::StringRef Trimmed = llvm::StringRef(Json).trim();
  if (!Trimmed.startswith("{") && !Trimmed.startswith("[")) {
    std::string Text = Trimmed.trim('"').str();
    model::Producer &P = B.producer();
    auto N = parseInteger(Text);
    if (Key == "schemaVersion" && N)
      P.SchemaVersion = *N;
    else if (Key == "baseTimeNanoseconds" && N)
      BaseTimeNs = *N;
    else if (Key == "traceName")
      P.TraceName = Text;
    else if (Key == "displayTimeUnit")
      P.DisplayTimeUnit = Text;
    else if (Key == "cupti_version")
      P.CuptiVersion = Text;
    else if (Key == "cuda_runtime_version")
      P.CudaRuntimeVersion = Text;
    else if (Key == "cuda_driver_version")
      P.CudaDriverVersion = Text;
    else if (Key == "roctracer_version")
      P.RoctracerVersion = Text;
    else if (Key == "hip_runtime_version")
      P.HipRuntimeVersion = Text;
    else if (Key == "hip_driver_version")
      P.HipDriverVersion = Text;
    else {
      int8_t Flag = Text == "true"    ? 1
                    : Text == "false" ? 0
                    : N               ? int8_t(*N != 0)
                                      : int8_t(-1);
      if (Key == "record_shapes")
        P.RecordShapes = Flag;
      else if (Key == "profile_memory")
        P.ProfileMemory = Flag;
      else if (Key == "with_stack")
        P.WithStack = Flag;
      else if (Key == "with_flops")
        P.WithFlops = Flag;
      else if (Key == "with_modules")
        P.WithModules = Flag;
    }
    return;
  }
  simdjson::padded_string Padded(Json);
  simdjson::ondemand::parser Parser;
  simdjson::ondemand::document Doc;
  value V;
  if (Parser.iterate(Padded).get(Doc) || Doc.get_value().get(V))
    return;
  if (Key == "deviceProperties") {
    simdjson::ondemand::array Arr;
    if (!V.get_array().get(Arr))
      readDevices(Arr, B);
  } else if (Key == "distributedInfo") {
    simdjson::ondemand::object Obj;
    if (!V.get_object().get(Obj))
      readDistributed(Obj, B.producer());
  } else if (Key == "tracelint_capture") {
    B.producer().TracelintCapture = true;
    simdjson::ondemand::object Obj;
    if (!V.get_object().get(Obj))
      readCaptureCounts(Obj, B);
  } else if (Key == "otherData") {
    simdjson::ondemand::object Obj;
    if (!V.get_object().get(Obj))
      readRocprofAgents(Obj, B);
  }
}
