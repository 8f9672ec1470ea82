//===- capture/Injection.cpp - The CUPTI injection library ----------------===//
//
// Loaded by the CUDA driver through CUDA_INJECTION64_PATH, which calls
// InitializeInjection() once at cuInit. Everything else here is glue between
// CUPTI and the testable parts: the window (Window.h), the buffers
// (Buffers.h), the translation (Translate.h), the collector and the writer.
//
// Rules this file keeps:
//  - No CUDA call inside InitializeInjection (the driver forbids it); only
//    CUPTI calls.
//  - No CUPTI call while holding the state mutex: CUPTI may complete buffers
//    synchronously, and buffer completion takes that mutex.
//  - Nothing throws (built with -fno-exceptions) and nothing kills, restarts
//    or signals the application: when the window closes, collection stops
//    and the program runs on untraced.
//  - The state is allocated once and never freed, so that exit handlers and
//    CUPTI's threads never see a destroyed object.
//  - Every CUPTI result is checked (check()). A failure is logged with what
//    it costs the trace; only a CUPTI that cannot be set up at all (no
//    buffers, no subscriber) stops the capture.
//
//===----------------------------------------------------------------------===//
#include "Buffers.h"
#include "CaptureOptions.h"
#include "Collector.h"
#include "TraceWriter.h"
#include "Translate.h"
#include "Window.h"

#include <cupti.h>
#include <generated_nvtx_meta.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <mutex>
#include <pthread.h>
#include <sys/syscall.h>
#include <thread>
#include <time.h>
#include <unistd.h>

#ifndef TRACELINT_VERSION
#define TRACELINT_VERSION "unknown"
#endif

using namespace tracelint::capture;

namespace {

/// Record kinds collected inside the window.
const CUpti_ActivityKind WindowKinds[] = {
    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
    CUPTI_ACTIVITY_KIND_MEMCPY,
    CUPTI_ACTIVITY_KIND_MEMCPY2,
    CUPTI_ACTIVITY_KIND_MEMSET,
    CUPTI_ACTIVITY_KIND_RUNTIME,
    CUPTI_ACTIVITY_KIND_DRIVER,
    CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,
    CUPTI_ACTIVITY_KIND_OVERHEAD,
    CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION,
};

/// Record kinds collected from the start: devices and contexts are reported
/// when they appear, and NVTX ranges that straddle the window start need
/// their start record.
const CUpti_ActivityKind SetupKinds[] = {
    CUPTI_ACTIVITY_KIND_DEVICE,
    CUPTI_ACTIVITY_KIND_CONTEXT,
    CUPTI_ACTIVITY_KIND_MARKER,
};

/// Queries called constantly by frameworks that say nothing about the
/// program's behaviour and would crowd the trace.
const CUpti_CallbackId NoisyRuntime[] = {
    CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaSetDevice_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaGetLastError_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaPeekAtLastError_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaGetDeviceCount_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaDeviceGetAttribute_v5000,
    CUPTI_RUNTIME_TRACE_CBID_cudaGetDeviceProperties_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaGetDeviceProperties_v12000,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamIsCapturing_v10000,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamIsCapturing_ptsz_v10000,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamGetCaptureInfo_v10010,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamGetCaptureInfo_ptsz_v10010,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamGetCaptureInfo_v2_v11030,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamGetCaptureInfo_v2_ptsz_v11030,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamGetCaptureInfo_v12030,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamGetCaptureInfo_ptsz_v12030,
    CUPTI_RUNTIME_TRACE_CBID_cudaThreadExchangeStreamCaptureMode_v10010,
    CUPTI_RUNTIME_TRACE_CBID_cudaGetDriverEntryPoint_v11030,
    CUPTI_RUNTIME_TRACE_CBID_cudaGetDriverEntryPoint_ptsz_v11030,
    CUPTI_RUNTIME_TRACE_CBID_cudaGetDriverEntryPointByVersion_v12050,
    CUPTI_RUNTIME_TRACE_CBID_cudaGetDriverEntryPointByVersion_ptsz_v12050,
    CUPTI_RUNTIME_TRACE_CBID_cudaDriverGetVersion_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaRuntimeGetVersion_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaPointerGetAttributes_v4000,
    CUPTI_RUNTIME_TRACE_CBID_cudaFuncGetAttributes_v3020,
};
const CUpti_CallbackId NoisyDriver[] = {
    CUPTI_DRIVER_TRACE_CBID_cuGetProcAddress,
    CUPTI_DRIVER_TRACE_CBID_cuGetProcAddress_v2,
    CUPTI_DRIVER_TRACE_CBID_cuCtxGetCurrent,
    CUPTI_DRIVER_TRACE_CBID_cuCtxSetCurrent,
    CUPTI_DRIVER_TRACE_CBID_cuCtxGetDevice,
    CUPTI_DRIVER_TRACE_CBID_cuCtxPushCurrent_v2,
    CUPTI_DRIVER_TRACE_CBID_cuCtxPopCurrent_v2,
    CUPTI_DRIVER_TRACE_CBID_cuDeviceGet,
    CUPTI_DRIVER_TRACE_CBID_cuDeviceGetCount,
    CUPTI_DRIVER_TRACE_CBID_cuDeviceGetAttribute,
    CUPTI_DRIVER_TRACE_CBID_cuDevicePrimaryCtxGetState,
    CUPTI_DRIVER_TRACE_CBID_cuDriverGetVersion,
    CUPTI_DRIVER_TRACE_CBID_cuGetErrorName,
    CUPTI_DRIVER_TRACE_CBID_cuGetErrorString,
    CUPTI_DRIVER_TRACE_CBID_cuPointerGetAttribute,
    CUPTI_DRIVER_TRACE_CBID_cuPointerGetAttributes,
    CUPTI_DRIVER_TRACE_CBID_cuStreamIsCapturing,
    CUPTI_DRIVER_TRACE_CBID_cuStreamIsCapturing_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuStreamGetCaptureInfo,
    CUPTI_DRIVER_TRACE_CBID_cuStreamGetCaptureInfo_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuStreamGetCaptureInfo_v2,
    CUPTI_DRIVER_TRACE_CBID_cuStreamGetCaptureInfo_v2_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuStreamGetCaptureInfo_v3,
    CUPTI_DRIVER_TRACE_CBID_cuStreamGetCaptureInfo_v3_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuModuleGetLoadingMode,
};

/// The names of the record kinds above, for messages.
const char *kindName(CUpti_ActivityKind K) {
  switch (K) {
  case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    return "CONCURRENT_KERNEL";
  case CUPTI_ACTIVITY_KIND_MEMCPY:
    return "MEMCPY";
  case CUPTI_ACTIVITY_KIND_MEMCPY2:
    return "MEMCPY2";
  case CUPTI_ACTIVITY_KIND_MEMSET:
    return "MEMSET";
  case CUPTI_ACTIVITY_KIND_RUNTIME:
    return "RUNTIME";
  case CUPTI_ACTIVITY_KIND_DRIVER:
    return "DRIVER";
  case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
    return "SYNCHRONIZATION";
  case CUPTI_ACTIVITY_KIND_OVERHEAD:
    return "OVERHEAD";
  case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION:
    return "EXTERNAL_CORRELATION";
  case CUPTI_ACTIVITY_KIND_DEVICE:
    return "DEVICE";
  case CUPTI_ACTIVITY_KIND_CONTEXT:
    return "CONTEXT";
  case CUPTI_ACTIVITY_KIND_MARKER:
    return "MARKER";
  default:
    return "another kind";
  }
}

/// NVTX callbacks that can open or close a range window.
const CUpti_CallbackId NvtxRangeCallbacks[] = {
    CUPTI_CBID_NVTX_nvtxRangePushA,         CUPTI_CBID_NVTX_nvtxRangePushEx,
    CUPTI_CBID_NVTX_nvtxRangePop,           CUPTI_CBID_NVTX_nvtxRangeStartA,
    CUPTI_CBID_NVTX_nvtxRangeStartEx,       CUPTI_CBID_NVTX_nvtxRangeEnd,
    CUPTI_CBID_NVTX_nvtxDomainRangePushEx,  CUPTI_CBID_NVTX_nvtxDomainRangePop,
    CUPTI_CBID_NVTX_nvtxDomainRangeStartEx, CUPTI_CBID_NVTX_nvtxDomainRangeEnd,
};

struct State {
  CaptureOptions Opts;
  std::string Path;
  pid_t Pid = 0;
  CUpti_SubscriberHandle Subscriber = nullptr;
  BufferPool Pool;

  std::mutex M; ///< guards everything below up to Exiting
  std::condition_variable Wake;
  CaptureWindow *Window = nullptr;
  TraceCollector *Collector = nullptr;
  RecordTranslator *Translator = nullptr;
  bool StopPending = false; ///< the window closed; the trace is not written
  bool Done = false;        ///< the trace is written; records are ignored
  bool Exiting = false;

  std::mutex KindsM; ///< serialises enabling and disabling
  bool KindsOn = false;

  std::mutex WriteM; ///< one writer at a time
};

State *S = nullptr;
std::atomic<bool> Disabled{false}; ///< set in a forked child

void log(const std::string &Line) {
  if (S && S->Opts.Quiet)
    return;
  std::fprintf(stderr, "tracelint capture: %s\n", Line.c_str());
}

const char *cuptiError(CUptiResult R) {
  // Checked here, not with check(), which calls this.
  const char *Msg = nullptr;
  if (cuptiGetResultString(R, &Msg) != CUPTI_SUCCESS || !Msg)
    return "unknown CUPTI error";
  return Msg;
}

/// Logs a failed CUPTI call: "\p What failed: <CUPTI's reason>[; \p Then]",
/// \p Then saying what the failure costs. True on success.
bool check(CUptiResult R, const std::string &What, const char *Then = "") {
  if (R == CUPTI_SUCCESS)
    return true;
  log(What + " failed: " + cuptiError(R) + (*Then ? "; " : "") + Then);
  return false;
}

/// check() for a call made over and over (for every callback or buffer):
/// only its first failure is logged, so that a call that keeps failing
/// does not flood the program's stderr.
bool checkFirst(CUptiResult R, std::atomic<bool> &Logged, const char *What,
                const char *Then) {
  if (R == CUPTI_SUCCESS)
    return true;
  if (!Logged.exchange(true))
    check(R, What, Then);
  return false;
}

uint64_t monotonicNs() {
  timespec Ts;
  clock_gettime(CLOCK_MONOTONIC, &Ts);
  return uint64_t(Ts.tv_sec) * 1000000000ull + uint64_t(Ts.tv_nsec);
}

uint64_t now() {
  static std::atomic<bool> Logged{false};
  uint64_t T = 0;
  if (checkFirst(cuptiGetTimestamp(&T), Logged, "cuptiGetTimestamp",
                 "using CLOCK_MONOTONIC, which may not match the records' "
                 "clock"))
    return T;
  return monotonicNs();
}

const char *apiName(bool Runtime, uint32_t Cbid) {
  // Not logged: this runs for every API record, and a callback id without a
  // name already shows in the trace ("cudaRuntimeApi#<cbid>").
  const char *Name = nullptr;
  if (cuptiGetCallbackName(Runtime ? CUPTI_CB_DOMAIN_RUNTIME_API
                                   : CUPTI_CB_DOMAIN_DRIVER_API,
                           Cbid, &Name) != CUPTI_SUCCESS)
    return nullptr;
  return Name;
}

void enableWindowKinds() {
  std::lock_guard<std::mutex> L(S->KindsM);
  if (S->KindsOn)
    return;
  S->KindsOn = true;
  // A kind that cannot be enabled is missing from the trace; the others are
  // still worth collecting.
  for (CUpti_ActivityKind K : WindowKinds)
    check(cuptiActivityEnable(K),
          std::string("cuptiActivityEnable(") + kindName(K) + ")",
          "the trace has no such records");
  // A noisy call left on only makes the trace larger. The only error these
  // calls document is CUPTI_ERROR_NOT_INITIALIZED, which the rest of the
  // list would repeat: the first failure of each list is logged and the
  // rest is not tried.
  for (CUpti_CallbackId Id : NoisyRuntime)
    if (!check(cuptiActivityEnableRuntimeApi(Id, 0),
               "cuptiActivityEnableRuntimeApi(cbid " + std::to_string(Id) +
                   ", 0)",
               "the trace keeps the records of frequent runtime queries"))
      break;
  for (CUpti_CallbackId Id : NoisyDriver)
    if (!check(cuptiActivityEnableDriverApi(Id, 0),
               "cuptiActivityEnableDriverApi(cbid " + std::to_string(Id) +
                   ", 0)",
               "the trace keeps the records of frequent driver queries"))
      break;
}

void disableKinds(bool Setup) {
  // A kind left on costs the program time, not the trace: its records end
  // after the window (counted, not kept) or after the trace is written
  // (ignored).
  auto Disable = [](CUpti_ActivityKind K) {
    check(cuptiActivityDisable(K),
          std::string("cuptiActivityDisable(") + kindName(K) + ")",
          "CUPTI keeps recording it");
  };
  std::lock_guard<std::mutex> L(S->KindsM);
  if (S->KindsOn)
    for (CUpti_ActivityKind K : WindowKinds)
      Disable(K);
  S->KindsOn = false;
  if (Setup)
    for (CUpti_ActivityKind K : SetupKinds)
      Disable(K);
}

/// Applies a window transition decided under the mutex (\p A) with the
/// mutex released.
void apply(WindowAction A) {
  if (A == WindowAction::Start) {
    enableWindowKinds();
  } else if (A == WindowAction::Stop) {
    disableKinds(false);
    S->Wake.notify_all();
  }
}

/// Records the transition in the collector; call with the mutex held.
void noteTransition(WindowAction A) {
  if (A == WindowAction::Start)
    S->Collector->windowStarted(S->Window->startNs());
  else if (A == WindowAction::Stop) {
    S->Collector->windowEnded(S->Window->endNs());
    S->StopPending = true;
  }
}

std::string readFirstLine(const std::string &Path) {
  std::string Line;
  if (FILE *F = std::fopen(Path.c_str(), "r")) {
    char Buf[256];
    if (std::fgets(Buf, sizeof(Buf), F))
      Line = Buf;
    std::fclose(F);
  }
  while (!Line.empty() && (Line.back() == '\n' || Line.back() == '\r'))
    Line.pop_back();
  return Line;
}

int64_t envInt(const char *Name) {
  const char *V = std::getenv(Name);
  if (!V || !*V)
    return -1;
  char *End = nullptr;
  long long N = std::strtoll(V, &End, 10);
  return *End ? -1 : N;
}

const char *modeName(WindowMode M) {
  switch (M) {
  case WindowMode::Time:
    return "time";
  case WindowMode::Range:
    return "nvtx-range";
  case WindowMode::ProfilerApi:
    return "profiler-api";
  }
  return "time";
}

/// Flushes CUPTI, writes the trace and stops listening. Runs once.
void flushAndWrite() {
  std::lock_guard<std::mutex> W(S->WriteM);
  {
    std::lock_guard<std::mutex> L(S->M);
    if (S->Done)
      return;
  }
  // The trace is written even so: without the records still in CUPTI's
  // buffers it is shorter, not wrong.
  check(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED),
        "cuptiActivityFlushAll",
        "the records still in CUPTI's buffers are missing from the trace");

  TraceMetadata Meta;
  Meta.ProducerVersion = TRACELINT_VERSION;
  Meta.CuptiHeaderVersion = CUPTI_API_VERSION;
  check(cuptiGetVersion(&Meta.CuptiRuntimeVersion), "cuptiGetVersion",
        "the trace does not record the CUPTI version");
  using VersionFn = int (*)(int *);
  if (auto *F = reinterpret_cast<VersionFn>(
          dlsym(RTLD_DEFAULT, "cuDriverGetVersion"))) {
    int V = 0;
    if (F(&V) == 0)
      Meta.CudaDriverVersion = V;
  }
  if (auto *F = reinterpret_cast<VersionFn>(
          dlsym(RTLD_DEFAULT, "cudaRuntimeGetVersion"))) {
    int V = 0;
    if (F(&V) == 0)
      Meta.CudaRuntimeVersion = V;
  }
  Meta.Pid = S->Pid;
  Meta.ProcessName = readFirstLine("/proc/self/comm");
  char Host[256] = {0};
  if (gethostname(Host, sizeof(Host) - 1) == 0)
    Meta.Hostname = Host;
  Meta.Rank = envInt("RANK");
  Meta.LocalRank = envInt("LOCAL_RANK");
  Meta.WorldSize = envInt("WORLD_SIZE");
  Meta.RangeName = S->Opts.RangeName;
  Meta.DelaySec = S->Opts.DelaySec;
  Meta.DurationSec = S->Opts.DurationSec;

  std::string Text;
  CollectorCounts Counts;
  bool Opened;
  {
    std::lock_guard<std::mutex> L(S->M);
    Meta.WindowMode = modeName(S->Window->mode());
    Meta.StopReason = S->Window->stopReason();
    Opened = S->Collector->hasWindowStart();
    S->Collector->closeOpenMarkers();
    // Host threads of this process get their names from /proc.
    for (const TraceEvent &E : S->Collector->events())
      if (!E.OnDevice && E.Pid == S->Pid &&
          !S->Collector->threadNames().count({E.Pid, E.Tid})) {
        std::string Name =
            readFirstLine("/proc/self/task/" + std::to_string(E.Tid) + "/comm");
        S->Collector->setThreadName(
            E.Pid, E.Tid,
            Name.empty() ? "thread " + std::to_string(E.Tid) : Name);
      }
    Text = renderTraceJson(*S->Collector, Meta);
    Counts = S->Collector->counts();
    S->Done = true;
    S->StopPending = false;
    // The events are in Text now; free them while the program runs on.
    delete S->Translator;
    delete S->Collector;
    S->Collector = new TraceCollector(0);
    S->Translator = new RecordTranslator(*S->Collector, apiName, S->Pid);
  }
  disableKinds(true);
  if (S->Subscriber) {
    // Callbacks that still come find the trace written and change nothing.
    check(cuptiUnsubscribe(S->Subscriber), "cuptiUnsubscribe",
          "CUPTI keeps calling back");
    S->Subscriber = nullptr;
  }
  if (!Opened) {
    log("no window opened (" + Meta.StopReason + "); writing an empty trace");
  }
  std::string Err = writeFileAtomically(S->Path, Text);
  if (!Err.empty()) {
    log("error: " + Err);
    return;
  }
  log("wrote " + S->Path + ": " + std::to_string(Counts.Kept) +
      " events; window " + Meta.WindowMode + ", closed by " +
      (Meta.StopReason.empty() ? "-" : Meta.StopReason) + "; " +
      std::to_string(Counts.DroppedByCap) +
      " records dropped over --max-events, " +
      std::to_string(Counts.CuptiDropped) + " dropped by CUPTI");
}

void worker() {
  std::unique_lock<std::mutex> L(S->M);
  while (!S->Exiting && !S->Done) {
    uint64_t T = now();
    WindowAction A = S->Window->tick(T);
    noteTransition(A);
    if (A != WindowAction::None) {
      L.unlock();
      apply(A);
      L.lock();
      continue;
    }
    if (S->StopPending) {
      L.unlock();
      flushAndWrite();
      L.lock();
      continue;
    }
    std::optional<uint64_t> D = S->Window->nextDeadline();
    if (D)
      S->Wake.wait_for(L, std::chrono::nanoseconds(*D > T ? *D - T : 0) +
                              std::chrono::microseconds(100));
    else
      S->Wake.wait(L);
  }
}

void CUPTIAPI bufferRequested(uint8_t **Buffer, size_t *Size,
                              size_t *MaxNumRecords) {
  *MaxNumRecords = 0;
  *Buffer = S->Pool.request(*Size);
}

void CUPTIAPI bufferCompleted(CUcontext Ctx, uint32_t StreamId, uint8_t *Buffer,
                              size_t, size_t ValidSize) {
  // The walk ends at CUPTI_ERROR_MAX_LIMIT_REACHED, the end of the buffer;
  // any other code ends it early, losing the buffer's remaining records.
  CUptiResult WalkEnd = CUPTI_ERROR_MAX_LIMIT_REACHED;
  {
    std::lock_guard<std::mutex> L(S->M);
    if (!S->Done && !Disabled.load())
      S->Pool.walk<CUpti_Activity>(
          Buffer, ValidSize,
          [&WalkEnd](uint8_t *B, size_t V, CUpti_Activity **R) {
            WalkEnd = cuptiActivityGetNextRecord(B, V, R);
            return WalkEnd == CUPTI_SUCCESS;
          },
          [](CUpti_Activity *R) { S->Translator->translate(R); });
  }
  // Logged with the mutex released: check() calls into CUPTI.
  static std::atomic<bool> WalkLogged{false}, DroppedLogged{false};
  if (WalkEnd != CUPTI_ERROR_MAX_LIMIT_REACHED)
    checkFirst(WalkEnd, WalkLogged, "cuptiActivityGetNextRecord",
               "the rest of a buffer of records is missing from the trace");
  size_t Dropped = 0;
  if (checkFirst(cuptiActivityGetNumDroppedRecords(Ctx, StreamId, &Dropped),
                 DroppedLogged, "cuptiActivityGetNumDroppedRecords",
                 "records CUPTI dropped may not all be counted") &&
      Dropped) {
    std::lock_guard<std::mutex> L(S->M);
    S->Collector->addCuptiDropped(Dropped);
  }
  S->Pool.release(Buffer);
}

thread_local uint32_t NvtxDepth = 0;

uint64_t threadKey(uint32_t Depth) {
  return (uint64_t(uint32_t(syscall(SYS_gettid))) << 32) | Depth;
}

const char *attribMessage(const nvtxEventAttributes_t *A) {
  if (A && A->messageType == NVTX_MESSAGE_TYPE_ASCII)
    return A->message.ascii;
  return nullptr;
}

void onNvtx(CUpti_CallbackId Cbid, const CUpti_NvtxData *D) {
  const void *P = D ? D->functionParams : nullptr;
  if (!P)
    return;
  uint64_t T = now();
  WindowAction A = WindowAction::None;
  std::unique_lock<std::mutex> L(S->M);
  switch (Cbid) {
  case CUPTI_CBID_NVTX_nvtxRangePushA:
  case CUPTI_CBID_NVTX_nvtxRangePushEx:
  case CUPTI_CBID_NVTX_nvtxDomainRangePushEx: {
    const char *Name =
        Cbid == CUPTI_CBID_NVTX_nvtxRangePushA
            ? static_cast<const nvtxRangePushA_params *>(P)->message
        : Cbid == CUPTI_CBID_NVTX_nvtxRangePushEx
            ? attribMessage(
                  static_cast<const nvtxRangePushEx_params *>(P)->eventAttrib)
            : attribMessage(static_cast<const nvtxDomainRangePushEx_params *>(P)
                                ->core.eventAttrib);
    ++NvtxDepth;
    if (Name)
      A = S->Window->rangeBegin(Name, threadKey(NvtxDepth), T);
    break;
  }
  case CUPTI_CBID_NVTX_nvtxRangePop:
  case CUPTI_CBID_NVTX_nvtxDomainRangePop:
    if (NvtxDepth) {
      A = S->Window->rangeEnd(threadKey(NvtxDepth), T);
      --NvtxDepth;
    }
    break;
  case CUPTI_CBID_NVTX_nvtxRangeStartA:
  case CUPTI_CBID_NVTX_nvtxRangeStartEx:
  case CUPTI_CBID_NVTX_nvtxDomainRangeStartEx: {
    const char *Name =
        Cbid == CUPTI_CBID_NVTX_nvtxRangeStartA
            ? static_cast<const nvtxRangeStartA_params *>(P)->message
        : Cbid == CUPTI_CBID_NVTX_nvtxRangeStartEx
            ? attribMessage(
                  static_cast<const nvtxRangeStartEx_params *>(P)->eventAttrib)
            : attribMessage(
                  static_cast<const nvtxDomainRangeStartEx_params *>(P)
                      ->core.eventAttrib);
    const auto *Id = static_cast<const nvtxRangeId_t *>(D->functionReturnValue);
    if (Name && Id)
      A = S->Window->rangeBegin(Name, (1ull << 63) | *Id, T);
    break;
  }
  case CUPTI_CBID_NVTX_nvtxRangeEnd:
    A = S->Window->rangeEnd(
        (1ull << 63) | static_cast<const nvtxRangeEnd_params *>(P)->id, T);
    break;
  case CUPTI_CBID_NVTX_nvtxDomainRangeEnd:
    A = S->Window->rangeEnd(
        (1ull << 63) |
            static_cast<const nvtxDomainRangeEnd_params *>(P)->core.id,
        T);
    break;
  default:
    break;
  }
  noteTransition(A);
  L.unlock();
  apply(A);
}

void CUPTIAPI onCallback(void *, CUpti_CallbackDomain Domain,
                         CUpti_CallbackId Cbid, const void *Data) {
  if (Disabled.load() || !S)
    return;
  if (Domain == CUPTI_CB_DOMAIN_NVTX) {
    onNvtx(Cbid, static_cast<const CUpti_NvtxData *>(Data));
    return;
  }
  if (Domain != CUPTI_CB_DOMAIN_DRIVER_API)
    return;
  const auto *Info = static_cast<const CUpti_CallbackData *>(Data);
  if (!Info || Info->callbackSite != CUPTI_API_ENTER)
    return;
  uint64_t T = now();
  WindowAction A = WindowAction::None;
  {
    std::lock_guard<std::mutex> L(S->M);
    if (Cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStart)
      A = S->Window->profilerStart(T);
    else if (Cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStop)
      A = S->Window->profilerStop(T);
    noteTransition(A);
  }
  apply(A);
}

void atExit() {
  if (Disabled.load() || !S || getpid() != S->Pid)
    return;
  WindowAction A;
  {
    std::lock_guard<std::mutex> L(S->M);
    A = S->Window->finish(now());
    noteTransition(A);
    S->Exiting = true;
    if (S->Done)
      return;
  }
  S->Wake.notify_all();
  apply(A);
  flushAndWrite();
}

void onForkChild() {
  // CUDA does not work in a forked child, and the child's exit must not
  // write the parent's trace under its own pid.
  Disabled.store(true);
}

/// Fatal signals whose default action would skip atexit: write the trace,
/// then let the signal do what it would have done. Installed only where the
/// program left the default in place. Best effort: the writer is not
/// async-signal-safe, which is acceptable for a process that is about to
/// die anyway.
const int FlushSignals[] = {SIGTERM, SIGHUP, SIGINT, SIGQUIT};

void onFatalSignal(int Sig) {
  static std::atomic<bool> Once{false};
  if (!Once.exchange(true))
    atExit();
  std::signal(Sig, SIG_DFL);
  std::raise(Sig);
}

void installSignalHandlers() {
  for (int Sig : FlushSignals) {
    struct sigaction Old;
    if (sigaction(Sig, nullptr, &Old) != 0)
      continue;
    if (!(Old.sa_flags & SA_SIGINFO) && Old.sa_handler == SIG_DFL)
      std::signal(Sig, onFatalSignal);
  }
}

/// CUPTI records NVTX only when NVTX's injection hook leads to it. The hook
/// names this library, which forwards to the libcupti it is bound to (see
/// InitializeInjectionNvtx2 below); a program started without the launcher
/// gets the same here, unless it chose its own NVTX injection.
void pointNvtxAtThisLibrary() {
  if (std::getenv("NVTX_INJECTION64_PATH"))
    return;
  Dl_info Info;
  if (dladdr(reinterpret_cast<void *>(&pointNvtxAtThisLibrary), &Info) &&
      Info.dli_fname)
    setenv("NVTX_INJECTION64_PATH", Info.dli_fname, 0);
}

bool initialize() {
  CaptureOptions Opts;
  std::string Error;
  if (!readCaptureOptions([](const char *Name, void *)
                              -> const char * { return std::getenv(Name); },
                          nullptr, Opts, Error)) {
    std::fprintf(stderr, "tracelint capture: error: %s; not capturing\n",
                 Error.c_str());
    return false;
  }
  S = new State();
  S->Opts = Opts;
  S->Pid = getpid();
  std::string Rank =
      rankTag([](const char *Name,
                 void *) -> const char * { return std::getenv(Name); },
              nullptr);
  S->Path = traceFilePath(Opts, Rank, S->Pid);

  uint64_t T = now();
  uint64_t Origin = T;
  if (Opts.LaunchMonotonicNs) {
    uint64_t Mono = monotonicNs();
    uint64_t Since =
        Mono > Opts.LaunchMonotonicNs ? Mono - Opts.LaunchMonotonicNs : 0;
    Origin = T > Since ? T - Since : 0;
  }
  WindowConfig WC;
  WC.DelayNs = uint64_t(Opts.DelaySec * 1e9);
  WC.DurationNs = uint64_t(Opts.DurationSec * 1e9);
  WC.RangeName = Opts.RangeName;
  WC.RangeCount = Opts.RangeCount;
  WC.ProfilerApi = Opts.ProfilerApi;
  S->Window = new CaptureWindow(WC, Origin);
  S->Collector = new TraceCollector(Opts.MaxEvents);
  S->Translator = new RecordTranslator(*S->Collector, apiName, S->Pid);

  pointNvtxAtThisLibrary();
  // CUPTI takes one subscriber per process: another profiler inside the
  // program (torch.profiler running, Nsight) is the usual reason for a no.
  if (!check(cuptiActivityRegisterCallbacks(bufferRequested, bufferCompleted),
             "cuptiActivityRegisterCallbacks") ||
      !check(cuptiSubscribe(&S->Subscriber, onCallback, nullptr),
             "cuptiSubscribe")) {
    log("CUPTI could not be set up (is another profiler active in the "
        "program?); not capturing, the program runs on untraced");
    return false;
  }
  // Before any kind is enabled, so that every record has system thread ids,
  // and after subscribing, which says first where CUPTI cannot start at all
  // (this call then fails too). On its own, a failure gives records with
  // CUPTI's own thread ids, which do not match the thread names from /proc:
  // host lanes are unnamed, but times and links stay right, so the capture
  // goes on.
  check(cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM),
        "cuptiSetThreadIdType(SYSTEM)",
        "host threads in the trace carry CUPTI's thread ids");
  // A window trigger that cannot be watched is logged and the capture goes
  // on, as for every call after subscribing: the window then closes at the
  // end of the program (or never opens), and the trace that is written says
  // why it closed.
  if (Opts.ProfilerApi) {
    check(cuptiEnableCallback(1, S->Subscriber, CUPTI_CB_DOMAIN_DRIVER_API,
                              CUPTI_DRIVER_TRACE_CBID_cuProfilerStart),
          "cuptiEnableCallback(cuProfilerStart)",
          "cudaProfilerStart cannot open the window");
    check(cuptiEnableCallback(1, S->Subscriber, CUPTI_CB_DOMAIN_DRIVER_API,
                              CUPTI_DRIVER_TRACE_CBID_cuProfilerStop),
          "cuptiEnableCallback(cuProfilerStop)",
          "cudaProfilerStop cannot close the window");
  }
  if (!Opts.RangeName.empty())
    for (CUpti_CallbackId Id : NvtxRangeCallbacks)
      check(cuptiEnableCallback(1, S->Subscriber, CUPTI_CB_DOMAIN_NVTX, Id),
            "cuptiEnableCallback(NVTX, cbid " + std::to_string(Id) + ")",
            "those NVTX ranges cannot open or close the window");
  for (CUpti_ActivityKind K : SetupKinds)
    check(cuptiActivityEnable(K),
          std::string("cuptiActivityEnable(") + kindName(K) + ")",
          "the trace has no such records");

  // A time window with no delay opens now, before the first kernel.
  WindowAction A;
  {
    std::lock_guard<std::mutex> L(S->M);
    A = S->Window->tick(T);
    noteTransition(A);
  }
  apply(A);

  std::atexit(atExit);
  pthread_atfork(nullptr, nullptr, onForkChild);
  installSignalHandlers();
  std::thread(worker).detach();
  return true;
}

} // namespace

extern "C" __attribute__((visibility("default"))) int
InitializeInjection(void) {
  static std::once_flag Once;
  std::call_once(Once, [] {
    if (!initialize())
      Disabled.store(true);
  });
  return 1;
}

/// NVTX's entry point (NVTX_INJECTION64_PATH names this library). It hands
/// NVTX to the libcupti instance this library was bound to when it loaded.
/// Naming libcupti's own path in the variable instead could load a second
/// copy of CUPTI: PyTorch brings its libcupti in a Python wheel, which the
/// loader shares with this library by soname, while a path to another file
/// (the CUDA toolkit's) loads that file too, and its NVTX callbacks would
/// never reach the subscriber registered here. Returns 0 (NVTX then runs
/// untraced) when libcupti's entry point cannot be found.
extern "C" __attribute__((visibility("default"))) int
InitializeInjectionNvtx2(const void *(*GetExportTable)(uint32_t)) {
  using NvtxInit = int (*)(const void *(*)(uint32_t));
  Dl_info Info;
  if (!dladdr(reinterpret_cast<void *>(&cuptiGetVersion), &Info) ||
      !Info.dli_fname)
    return 0;
  // RTLD_NOLOAD: the handle of the copy already mapped, never a new one.
  void *Cupti = dlopen(Info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
  if (!Cupti)
    return 0;
  // A lookup through libcupti's handle searches libcupti first, so it finds
  // libcupti's definition even where a libcupti loaded globally interposes
  // on this library's exported name.
  void *Init = dlsym(Cupti, "InitializeInjectionNvtx2");
  dlclose(Cupti); // drops only the reference RTLD_NOLOAD added
  Dl_info Found;
  if (!Init || !dladdr(Init, &Found) || Found.dli_fbase != Info.dli_fbase)
    return 0;
  return reinterpret_cast<NvtxInit>(Init)(GetExportTable);
}
