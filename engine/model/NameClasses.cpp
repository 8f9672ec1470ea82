//===- model/NameClasses.cpp ----------------------------------------------===//
#include "model/NameClasses.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <cassert>

using namespace tracelint;
using namespace tracelint::model;
using llvm::StringRef;

namespace {

// The CUDA runtime (cuda*), HIP (hip*) and the CUDA driver API (cu*) name
// the same operations with three prefixes; the patterns below write them
// once as "{cuda,hip,cu}". A pattern that starts with "(?i)" ignores case.

const StringRef StepMarkers[] = {"ProfilerStep#*"};

// PyTorch records "enumerate(DataLoader)#<Iter>.__next__" around each next()
// of a loader (and "enumerate(DataPipe)#..." for DataPipes); with_stack=True
// adds the Python frame of the iterator's __next__.
const StringRef DataLoaders[] = {"enumerate(DataLoader)#*",
                                 "enumerate(DataPipe)#*",
                                 "*dataloader.py(*): __next__"};

// Device kernels that move data between devices (demangled names may start
// with "void " and carry template arguments). Their grids are sized for
// links and their time is mostly waiting for peers, so they are neither
// compute nor small-grid kernels.
//  - NCCL and RCCL (a fork of NCCL that keeps its kernel names), and the
//    MSCCL/MSCCL++ kernels RCCL and others ship;
//  - NVSHMEM's own kernels (nvshmem*, nvshmemi_* inside namespaces);
//  - DeepEP's expert-parallel dispatch and combine (deep_ep::, and the
//    dpsk::ep:: namespace of its forks), which run on few SMs on purpose
//    beside the GEMMs;
//  - custom all-reduce kernels that bypass NCCL over NVLink or xGMI:
//    vLLM and SGLang (cross_device_reduce_1stage/2stage, custom_all_reduce,
//    quick all-reduce), TensorRT-LLM and FlashInfer (oneShotAllReduce,
//    twoShotAllReduce, allreduce_fusion, tensorrt_llm ... allreduce) and
//    PyTorch's symmetric memory (one_shot_all_reduce, two_shot_all_reduce,
//    multimem_all_reduce).
const StringRef CommunicationKernels[] = {"(?i){,void }{nccl,rccl}*",
                                          "*ncclKernel*",
                                          "*ncclDevKernel*",
                                          "*mscclKernel*",
                                          "*mscclpp::*",
                                          "(?i){,void }nvshmem*",
                                          "*nvshmemi_*",
                                          "*deep_ep::*",
                                          "*dpsk::ep::*",
                                          "*cross_device_reduce_*",
                                          "(?i)*custom_all_reduce*",
                                          "(?i)*custom_allreduce*",
                                          "*quickreduce::*",
                                          "(?i)*oneshotallreduce*",
                                          "(?i)*twoshotallreduce*",
                                          "(?i)*one_shot_all_reduce*",
                                          "(?i)*two_shot_all_reduce*",
                                          "*multimem_all_reduce*",
                                          "(?i)*allreduce_fusion*",
                                          "(?i)*allreducefusion*",
                                          "*tensorrt_llm::*allreduce*",
                                          "*tensorrt_llm::*AllReduce*"};
const StringRef CommunicationRanges[] = {"nccl:*", "rccl:*"};

const StringRef LaunchCalls[] = {"*Launch*", "*launch*"};

const StringRef SyncCalls[] = {
    "{cuda,hip,cu}{Stream,Device,Event,Ctx,Thread}Synchronize{,_v*}"};
const StringRef CopyCalls[] = {"{cuda,hip,cu}Memcpy*"};
// The Async forms return at once, unless their memory is pageable (which
// only the device copy's record tells): the trace index decides those.
const StringRef Asyncs[] = {"*Async*"};

// Ops that read a device value on the host, so that they wait for all the
// work queued before them: item() and the ops whose output size depends on
// the data.
const StringRef DeviceReadOps[] = {
    "aten::item",          "aten::_local_scalar_dense",
    "aten::nonzero",       "aten::is_nonzero",
    "aten::masked_select", "aten::unique",
    "aten::_unique",       "aten::_unique2",
    "aten::unique_dim",    "aten::unique_consecutive",
    "aten::equal",         "aten::tolist"};

// Device memory only: pinned host, managed and pitched allocations are
// other designs.
const StringRef AllocatorMallocs[] = {
    "{cuda,hip,cu}{Malloc,MallocAsync,MemAlloc,MemAllocAsync,"
    "ExtMallocWithFlags,MallocFromPoolAsync,MemAllocFromPoolAsync}{,_*}"};
const StringRef AllocatorFrees[] = {
    "{cuda,hip,cu}{Free,FreeAsync,MemFree,MemFreeAsync}{,_*}"};
const StringRef EmptyCaches[] = {"*empty_cache*", "*emptyCache*"};

const StringRef ContextSetups[] = {
    "{cuda,hip,cu}{Init,DevicePrimaryCtx*,CtxCreate*,ModuleLoad*,"
    "ModuleGetLoadingMode*,LibraryLoad*}"};
const StringRef DeviceQueries[] = {
    "{cuda,hip,cu}{GetDeviceProperties*,DeviceGetAttribute*,GetDeviceCount,"
    "DriverGetVersion,RuntimeGetVersion,FuncGetAttributes*,SetDevice}"};
const StringRef StartupAllocations[] = {
    "{cuda,hip,cu}{Malloc,Free,MallocHost*,HostAlloc*,HostMalloc*,FreeHost*,"
    "HostFree*,HostRegister*,HostUnregister*,MallocManaged*,MallocPitch*,"
    "MemAlloc*,MemFree*}"};
const StringRef HandleLifetimes[] = {
    "{cuda,hip,cu}{StreamCreate*,EventCreate*,StreamDestroy*,EventDestroy*}"};
// Not cudaThreadExchangeStreamCaptureMode: the runtime calls it around
// allocations and replays too, so it says nothing about capture.
const StringRef GraphCaptures[] = {
    "{cuda,hip,cu}{StreamBeginCapture*,StreamEndCapture*,GraphInstantiate*,"
    "GraphGetNodes*,GraphDestroy*,GraphExecDestroy*,GraphUpload*}"};
// The runtime calls, and torch.cuda.graph's capture_begin/capture_end as
// with_stack=True records them ("torch/cuda/graphs.py(..): capture_begin",
// "<built-in method capture_begin of CUDAGraph object at 0x..>").
const StringRef CaptureBegins[] = {"{cuda,hip,cu}StreamBeginCapture*",
                                   "*graphs.py(*): capture_begin",
                                   "<built-in method capture_begin of *"};
const StringRef CaptureEnds[] = {"{cuda,hip,cu}StreamEndCapture*",
                                 "*graphs.py(*): capture_end",
                                 "<built-in method capture_end of *"};

// Only the modules that run when compiling: compile_fx.py and
// convert_frame.py also hold the wrappers every compiled call passes
// through.
const StringRef CompilationFrames[] = {
    "*(dynamo_timed)*", "*_inductor/codecache.py*",
    "*_inductor/async_compile.py*", "*_inductor/select_algorithm.py*",
    "*triton/compiler/*"};
const StringRef CompilationRanges[] = {"*(dynamo_timed)*", "(?i)*compile*",
                                       "(?i)*autotun*", "(?i)*inductor*",
                                       "(?i)*torchdynamo*"};
// Generated-kernel launchers ("triton_poi_fused_..."), the compiled-region
// wrappers and Dynamo's guard check run on every call in steady state.
const StringRef SteadyCompiledCalls[] = {"triton_*", "*Compiled*",
                                         "*Cache Lookup*"};

const StringRef ModuleUnloads[] = {
    "{cuda,hip,cu}{ModuleUnload*,LibraryUnload*}"};
const StringRef Deallocations[] = {
    "{cuda,hip,cu}{Free,FreeHost*,HostFree*,FreeArray*,FreeMipmappedArray*,"
    "HostUnregister*,MemFree*,MemHostUnregister*,MemRelease*,MemUnmap*}"};
const StringRef ContextDestructions[] = {
    "{cuda,hip,cu}{CtxDestroy*,DevicePrimaryCtxRelease*,"
    "DevicePrimaryCtxReset*,DeviceReset,ThreadExit}"};
const StringRef HandleDestructions[] = {
    "{cuda,hip,cu}{StreamDestroy*,EventDestroy*,GraphDestroy*,"
    "GraphExecDestroy*}"};

const StringRef ProfilerFrames[] = {"torch/profiler/*",
                                    "torch/autograd/profiler.py(*"};
const StringRef OptimizerSteps[] = {"Optimizer.step#*"};
const StringRef OptimizerWorks[] = {"Optimizer.*", "*_single_tensor_*",
                                    "*_multi_tensor_*", "aten::_foreach_*",
                                    "aten::_fused_*"};
const StringRef MultiTensorKernels[] = {
    "(?i)*multi_tensor_apply*", "(?i)*multitensorapply*", "(?i)*fused_adam*",
    "(?i)*fusedadam*",          "(?i)*fused_sgd*",        "(?i)*fusedsgd*",
    "(?i)*fused_adagrad*",      "(?i)*fused_lamb*"};
const StringRef CopyKernels[] = {"(?i)*copy*"};

const NameClassInfo Catalogue[] = {
    {NameClass::StepMarker,
     "step-marker",
     "the range of one training or inference step",
     StepMarkers,
     {}},
    {NameClass::DataLoader,
     "data-loader",
     "a range or Python frame of the input pipeline producing a batch",
     DataLoaders,
     {}},
    {NameClass::CommunicationKernel,
     "communication-kernel",
     "a device kernel of a collective or a peer transfer (NCCL, RCCL, "
     "MSCCL, NVSHMEM, DeepEP, custom all-reduce kernels)",
     CommunicationKernels,
     {}},
    {NameClass::CommunicationRange,
     "communication-range",
     "the host range a collective is recorded in",
     CommunicationRanges,
     {}},
    {NameClass::LaunchCall,
     "launch-call",
     "a host API call that launches device work (kernels, graphs)",
     LaunchCalls,
     {}},
    {NameClass::SyncCall,
     "sync-call",
     "an explicit synchronization call: the host waits for the device",
     SyncCalls,
     {}},
    {NameClass::CopyCall,
     "copy-call",
     "a copy call, blocking or async",
     CopyCalls,
     {}},
    {NameClass::BlockingCopyCall, "blocking-copy-call",
     "a copy call that returns only when the copy is done", CopyCalls, Asyncs},
    {NameClass::DeviceReadOp,
     "device-read-op",
     "a framework op that reads a device value on the host, so it waits for "
     "the work queued before it",
     DeviceReadOps,
     {}},
    {NameClass::AllocatorMalloc,
     "allocator-malloc",
     "a device-memory allocation call",
     AllocatorMallocs,
     {}},
    {NameClass::AllocatorFree,
     "allocator-free",
     "a device-memory release call",
     AllocatorFrees,
     {}},
    {NameClass::EmptyCache,
     "empty-cache",
     "the caching allocator returning its memory to the driver",
     EmptyCaches,
     {}},
    {NameClass::ContextSetup,
     "context-setup",
     "start-up: context creation, module and library loading",
     ContextSetups,
     {}},
    {NameClass::DeviceQuery,
     "device-query",
     "a device or version query: start-up evidence only when slow (the "
     "first call creates the context)",
     DeviceQueries,
     {}},
    {NameClass::StartupAllocation, "startup-allocation",
     "start-up: allocating, pinning or releasing memory outside the "
     "stream-ordered allocator",
     StartupAllocations, Asyncs},
    {NameClass::HandleLifetime,
     "handle-lifetime",
     "start-up: creating or destroying streams and events",
     HandleLifetimes,
     {}},
    {NameClass::GraphCapture,
     "graph-capture",
     "start-up: capturing, instantiating or uploading a graph",
     GraphCaptures,
     {}},
    {NameClass::CaptureBegin,
     "capture-begin",
     "the call (or torch.cuda.graph's capture_begin frame) that begins a "
     "capture",
     CaptureBegins,
     {}},
    {NameClass::CaptureEnd,
     "capture-end",
     "the call (or capture_end frame) that ends it",
     CaptureEnds,
     {}},
    {NameClass::CompilationFrame,
     "compilation-frame",
     "a Python frame that runs only while compiling or autotuning",
     CompilationFrames,
     {}},
    {NameClass::CompilationRange, "compilation-range",
     "an op or range of compilation or autotuning", CompilationRanges,
     SteadyCompiledCalls},
    {NameClass::ModuleUnload, "module-unload",
     "teardown: unloading modules and libraries", ModuleUnloads, Asyncs},
    {NameClass::Deallocation, "deallocation",
     "teardown: releasing memory outside the stream-ordered allocator",
     Deallocations, Asyncs},
    {NameClass::ContextDestruction,
     "context-destruction",
     "teardown: destroying the context or resetting the device",
     ContextDestructions,
     {}},
    {NameClass::HandleDestruction,
     "handle-destruction",
     "teardown: destroying streams, events and graphs",
     HandleDestructions,
     {}},
    {NameClass::ProfilerFrame,
     "profiler-frame",
     "a Python frame of the profiler itself (schedule, start, stop, export)",
     ProfilerFrames,
     {}},
    {NameClass::OptimizerStep,
     "optimizer-step",
     "the range torch.optim records around an optimizer's step",
     OptimizerSteps,
     {}},
    {NameClass::OptimizerWork,
     "optimizer-work",
     "an optimizer's own host work: its step range, its per-parameter and "
     "multi-tensor implementations (torch.optim's _single_tensor_ and "
     "_multi_tensor_ functions) and its foreach and fused ops",
     OptimizerWorks,
     {}},
    {NameClass::MultiTensorKernel,
     "multi-tensor-kernel",
     "a fused or multi-tensor optimizer kernel (one launch for many "
     "parameters)",
     MultiTensorKernels,
     {}},
    {NameClass::CopyKernel,
     "copy-kernel",
     "a device kernel that copies memory on the device (direct_copy_kernel, "
     "elementwise copy instantiations, batched copies)",
     CopyKernels,
     {}},
};
static_assert(std::size(Catalogue) == NumNameClasses,
              "one catalogue entry per NameClass");

constexpr StringRef IgnoreCaseMark = "(?i)";

} // namespace

llvm::ArrayRef<NameClassInfo> model::nameClassCatalogue() { return Catalogue; }

const NameClassInfo &model::nameClassInfo(NameClass C) {
  const NameClassInfo &I = Catalogue[unsigned(C)];
  assert(I.Class == C && "catalogue out of enum order");
  return I;
}

std::optional<NameClass> model::parseNameClass(StringRef Key) {
  for (const NameClassInfo &I : Catalogue)
    if (I.Key == Key)
      return I.Class;
  return std::nullopt;
}

bool NameClassChanges::empty() const {
  for (unsigned C = 0; C < NumNameClasses; ++C)
    if (!Include[C].empty() || !Exclude[C].empty())
      return false;
  return true;
}

std::vector<std::string> model::expandAlternatives(StringRef Pattern) {
  size_t Open = Pattern.find('{');
  size_t Close = Open == StringRef::npos ? Open : Pattern.find('}', Open);
  if (Close == StringRef::npos)
    return {Pattern.str()};
  StringRef Head = Pattern.take_front(Open);
  llvm::SmallVector<StringRef, 8> Alternatives;
  Pattern.slice(Open + 1, Close).split(Alternatives, ',');
  std::vector<std::string> Out;
  for (const std::string &Tail :
       expandAlternatives(Pattern.drop_front(Close + 1)))
    for (StringRef A : Alternatives)
      Out.push_back((Head + A + Tail).str());
  return Out;
}

llvm::Error NameClassifier::add(NameClass C, StringRef Pattern, bool Exclude) {
  Compiled &K = Classes[unsigned(C)];
  bool IgnoreCase = Pattern.consume_front(IgnoreCaseMark);
  for (std::string &Text : expandAlternatives(Pattern)) {
    if (IgnoreCase)
      Text = StringRef(Text).lower();
    K.Texts.push_back(std::make_unique<std::string>(std::move(Text)));
    auto G = llvm::GlobPattern::create(*K.Texts.back());
    if (!G)
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(), "name class '%s': pattern '%s': %s",
          nameClassInfo(C).Key.str().c_str(), Pattern.str().c_str(),
          llvm::toString(G.takeError()).c_str());
    (Exclude ? K.Exclude : K.Include).push_back({std::move(*G), IgnoreCase});
  }
  return llvm::Error::success();
}

NameClassifier::NameClassifier() {
  for (const NameClassInfo &I : Catalogue) {
    for (StringRef P : I.Include)
      llvm::cantFail(add(I.Class, P, /*Exclude=*/false));
    for (StringRef P : I.Exclude)
      llvm::cantFail(add(I.Class, P, /*Exclude=*/true));
  }
}

llvm::Expected<std::shared_ptr<const NameClassifier>>
NameClassifier::create(const NameClassChanges &Changes) {
  auto Out = std::make_shared<NameClassifier>();
  for (unsigned C = 0; C < NumNameClasses; ++C) {
    for (const std::string &P : Changes.Include[C])
      if (llvm::Error E = Out->add(NameClass(C), P, /*Exclude=*/false))
        return E;
    for (const std::string &P : Changes.Exclude[C])
      if (llvm::Error E = Out->add(NameClass(C), P, /*Exclude=*/true))
        return E;
  }
  return std::shared_ptr<const NameClassifier>(std::move(Out));
}

std::shared_ptr<const NameClassifier> NameClassifier::builtin() {
  static const std::shared_ptr<const NameClassifier> Builtin =
      std::make_shared<NameClassifier>();
  return Builtin;
}

bool NameClassifier::matches(StringRef Name, NameClass C) const {
  const Compiled &K = Classes[unsigned(C)];
  // The lowered name, made on first need.
  std::optional<std::string> Lower;
  auto AnyMatch = [&](llvm::ArrayRef<Pattern> Patterns) {
    for (const Pattern &P : Patterns) {
      if (!P.IgnoreCase) {
        if (P.Glob.match(Name))
          return true;
        continue;
      }
      if (!Lower)
        Lower = Name.lower();
      if (P.Glob.match(*Lower))
        return true;
    }
    return false;
  };
  return AnyMatch(K.Include) && !AnyMatch(K.Exclude);
}
