//===- analysis/Producer.cpp - What program produced a trace --------------===//
//
// One pass over the events; a name is classified once per distinct string
// (traces repeat a few thousand names millions of times). PyTorch signals
// win over the others: a PyTorch program may call an offload library, and
// its user still changes Python code. Offload kernels win over plain CUDA,
// because the OpenMP/OpenACC program's user writes pragmas, not CUDA calls.
//
//===----------------------------------------------------------------------===//
#include "analysis/Producer.h"

#include "support/Count.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <vector>

using namespace tracelint;
using namespace tracelint::analysis;
using model::EventKind;

llvm::StringRef analysis::producerName(ProducerKind K) {
  switch (K) {
  case ProducerKind::Unknown:
    return "unknown";
  case ProducerKind::PyTorch:
    return "pytorch";
  case ProducerKind::Cuda:
    return "cuda";
  case ProducerKind::OpenMpOffload:
    return "openmp-offload";
  case ProducerKind::OpenAcc:
    return "openacc";
  }
  return "unknown";
}

llvm::StringRef analysis::producerTitle(ProducerKind K) {
  switch (K) {
  case ProducerKind::Unknown:
    return "unknown";
  case ProducerKind::PyTorch:
    return "PyTorch";
  case ProducerKind::Cuda:
    return "CUDA/HIP";
  case ProducerKind::OpenMpOffload:
    return "OpenMP offload";
  case ProducerKind::OpenAcc:
    return "OpenACC";
  }
  return "unknown";
}

std::optional<ProducerKind> analysis::parseProducer(llvm::StringRef Name) {
  for (unsigned I = 0; I < NumProducerKinds; ++I)
    if (producerName(ProducerKind(I)) == Name)
      return ProducerKind(I);
  return std::nullopt;
}

llvm::ArrayRef<ProducerKind> analysis::textProducers() {
  static const ProducerKind Kinds[] = {
      ProducerKind::PyTorch, ProducerKind::Cuda, ProducerKind::OpenMpOffload,
      ProducerKind::OpenAcc};
  return Kinds;
}

std::optional<ProducerKind> analysis::producerFallback(ProducerKind K) {
  if (K == ProducerKind::OpenMpOffload || K == ProducerKind::OpenAcc)
    return ProducerKind::Cuda;
  return std::nullopt;
}

namespace {

/// What a name says about its program, by the kind of event it names.
enum NameSignal : uint8_t {
  None = 0,
  Aten = 1 << 0,       ///< an ATen/c10d/autograd op
  TorchRange = 1 << 1, ///< a torch annotation (compiled region, optimizer)
  OmpKernel = 1 << 2,  ///< an OpenMP offload kernel name
  OmpCall = 1 << 3,    ///< a libomptarget / omp_target_* host call
  AccKernel = 1 << 4,  ///< an nvhpc OpenACC kernel name
  AccCall = 1 << 5,    ///< an OpenACC API call or region
  StepMarker = 1 << 6, ///< ProfilerStep#N
};

bool allDigits(llvm::StringRef S) {
  return !S.empty() && llvm::all_of(S, llvm::isDigit);
}

/// nvhpc names an OpenMP target region's kernel nvkernel_<func>_F<n>L<l>_<k>.
bool isNvhpcOmpKernel(llvm::StringRef N) {
  if (!N.consume_front("nvkernel_"))
    return false;
  size_t U = N.rfind('_');
  if (U == llvm::StringRef::npos || !allDigits(N.substr(U + 1)))
    return false;
  N = N.take_front(U);
  size_t F = N.rfind("_F");
  if (F == llvm::StringRef::npos)
    return false;
  llvm::StringRef Tail = N.substr(F + 2); // <n>L<l>
  auto [Num, Line] = Tail.split('L');
  return allDigits(Num) && allDigits(Line);
}

/// nvhpc names an OpenACC compute region's kernel <func>_<line>_gpu (and
/// <func>_<line>_gpu__red for its reduction).
bool isNvhpcAccKernel(llvm::StringRef N) {
  if (!N.consume_back("_gpu") && !N.consume_back("_gpu__red"))
    return false;
  size_t U = N.rfind('_');
  return U != llvm::StringRef::npos && U > 0 && allDigits(N.substr(U + 1));
}

/// \p K is Kernel for device kernels, Op for any host event.
uint8_t classify(llvm::StringRef N, EventKind K) {
  uint8_t S = None;
  if (K == EventKind::Kernel) {
    if (N.startswith("__omp_offloading_") || isNvhpcOmpKernel(N))
      S |= OmpKernel;
    if (isNvhpcAccKernel(N))
      S |= AccKernel;
    return S;
  }
  if ((N.startswith("aten::") || N.startswith("c10d::") ||
       N.startswith("autograd::") || N.startswith("torch::")))
    S |= Aten;
  if (N.startswith("ProfilerStep#"))
    S |= StepMarker;
  if (N.startswith("Torch-Compiled Region") || N.startswith("torch/") ||
      N.startswith("Optimizer.step#") || N.startswith("Optimizer.zero_grad#") ||
      N.startswith("enumerate(DataLoader)"))
    S |= TorchRange;
  if (N.startswith("__tgt_") || N.startswith("omp_target_") ||
      N.startswith("__kmpc_"))
    S |= OmpCall;
  if (N.startswith("__pgi_uacc_") || N.startswith("acc_") ||
      N.startswith("__nvc_acc") || N.startswith("OpenACC"))
    S |= AccCall;
  return S;
}

std::string plural(uint64_t N, llvm::StringRef Noun) {
  return support::formatCount(int64_t(N), Noun);
}

} // namespace

llvm::StringRef analysis::platformName(Platform P) {
  switch (P) {
  case Platform::Cuda:
    return "cuda";
  case Platform::Rocm:
    return "rocm";
  case Platform::Unknown:
    break;
  }
  return "unknown";
}

/// AMD parts run 64-wide wavefronts (CDNA) and are named "AMD ...";
/// NVIDIA's warps are 32 wide.
Platform analysis::devicePlatform(const model::DeviceInfo &D) {
  llvm::StringRef N(D.Name);
  if (N.startswith("AMD") || N.contains("Instinct") || N.contains("Radeon") ||
      llvm::StringRef(D.Arch).startswith("gfx"))
    return Platform::Rocm;
  if (N.startswith("NVIDIA") || N.startswith("Tesla") ||
      N.startswith("Quadro") || N.startswith("GeForce"))
    return Platform::Cuda;
  if (D.WarpSize == 64)
    return Platform::Rocm;
  if (D.WarpSize == 32)
    return Platform::Cuda;
  return Platform::Unknown;
}

static Platform platformOf(const model::DeviceInfo &D, Platform Trace) {
  Platform P = devicePlatform(D);
  return P == Platform::Unknown ? Trace : P;
}

std::string analysis::archName(const model::DeviceInfo &D, Platform Trace) {
  if (!D.Arch.empty())
    return D.Arch;
  if (D.ComputeMajor < 0)
    return "";
  const int Major = D.ComputeMajor, Minor = std::max(D.ComputeMinor, 0);
  if (platformOf(D, Trace) != Platform::Rocm)
    return llvm::formatv("compute {0}.{1}", Major, Minor).str();
  // HIP reports gfx90a (MI200) and gfx908 (MI100) both as 9.0; their CU
  // counts tell them apart. 9.4 is gfx940-942 (MI300), of which only
  // gfx942 shipped widely; 9.5 is gfx950 (MI350).
  const int CUs = D.NumSMs;
  if (Major == 9 && Minor == 0) {
    if (CUs == 104 || CUs == 110)
      return "gfx90a";
    if (CUs == 120)
      return "gfx908";
    if (CUs == 60 || CUs == 64)
      return "gfx906";
  }
  if (Major == 9 && Minor == 4)
    return "gfx942";
  if (Major == 9 && Minor == 5)
    return "gfx950";
  return llvm::formatv("gfx{0}.{1} family", Major, Minor).str();
}

llvm::StringRef analysis::computeUnitsWord(const model::DeviceInfo &D,
                                           Platform Trace) {
  return platformOf(D, Trace) == Platform::Rocm ? "CUs" : "SMs";
}

namespace {

Platform decidePlatform(const model::Trace &T, const ProducerInfo &P) {
  const model::Producer &Src = T.Source;
  if (!Src.HipRuntimeVersion.empty() || !Src.RoctracerVersion.empty() ||
      !Src.HipDriverVersion.empty() ||
      llvm::StringRef(Src.Format).startswith("rocp"))
    return Platform::Rocm;
  if (!Src.CuptiVersion.empty() || !Src.CudaRuntimeVersion.empty() ||
      !Src.CudaDriverVersion.empty())
    return Platform::Cuda;
  for (const model::DeviceInfo &D : T.Devices)
    if (Platform Pl = devicePlatform(D); Pl != Platform::Unknown)
      return Pl;
  if (P.HipCalls > P.CudaCalls)
    return Platform::Rocm;
  if (P.CudaCalls)
    return Platform::Cuda;
  return Platform::Unknown;
}

} // namespace

ProducerInfo analysis::detectProducer(const model::Trace &T) {
  ProducerInfo P;
  const model::Producer &Src = T.Source;
  // Only the PyTorch profiler writes its options into the trace.
  P.TorchMetadata = Src.RecordShapes >= 0 || Src.ProfileMemory >= 0 ||
                    Src.WithStack >= 0 || Src.WithFlops >= 0 ||
                    Src.WithModules >= 0;
  // Per string and kind group: bit 7 set once classified.
  constexpr uint8_t Known = 1 << 7;
  std::vector<uint8_t> KernelNames(T.Strings.size()),
      HostNames(T.Strings.size());
  for (const model::Event &E : T.Events) {
    if (E.Kind == EventKind::Python) {
      ++P.PythonFrames;
      continue;
    }
    if (E.Kind == EventKind::Runtime || E.Kind == EventKind::Driver) {
      ++P.RuntimeCalls;
      if (E.Name < T.Strings.size()) {
        llvm::StringRef N = T.Strings.get(E.Name);
        if (N.startswith("hip") || N.startswith("hsa_"))
          ++P.HipCalls;
        else if (N.startswith("cu"))
          ++P.CudaCalls;
      }
    }
    if (model::isDeviceWork(E.Kind))
      ++P.DeviceWork;
    if (E.Kind == EventKind::Counter || E.Kind == EventKind::Marker ||
        E.Kind == EventKind::Memcpy || E.Kind == EventKind::Memset ||
        E.Kind == EventKind::Collective || E.Name >= T.Strings.size())
      continue;
    bool Kernel = E.Kind == EventKind::Kernel;
    uint8_t &Memo = (Kernel ? KernelNames : HostNames)[E.Name];
    if (!(Memo & Known))
      Memo = Known | classify(T.Strings.get(E.Name),
                              Kernel ? EventKind::Kernel : EventKind::Op);
    // An ATen name counts on an op, or on an annotation (nsys records ops
    // as NVTX ranges with --pytorch=autograd-nvtx), not on a runtime call.
    uint8_t S = Memo;
    if (E.Kind != EventKind::Op && E.Kind != EventKind::Annotation)
      S &= ~Aten;
    P.AtenOps += bool(S & Aten);
    P.StepMarkers += bool(S & StepMarker);
    P.TorchRanges += bool(S & TorchRange);
    P.OmpKernels += bool(S & OmpKernel);
    P.OmpCalls += bool(S & OmpCall);
    P.AccKernels += bool(S & AccKernel);
    P.AccCalls += bool(S & AccCall);
  }

  std::vector<std::string> Seen;
  auto Note = [&](uint64_t N, llvm::StringRef Noun) {
    if (N)
      Seen.push_back(plural(N, Noun));
  };
  if (P.AtenOps || P.PythonFrames || P.StepMarkers || P.TorchRanges ||
      P.TorchMetadata) {
    P.Kind = ProducerKind::PyTorch;
    Note(P.AtenOps, "ATen op");
    Note(P.PythonFrames, "Python frame");
    Note(P.StepMarkers, "ProfilerStep# range");
    Note(P.TorchRanges, "torch range");
    if (P.TorchMetadata)
      Seen.emplace_back("torch.profiler options in the metadata");
  } else if (P.OmpKernels || P.OmpCalls) {
    P.Kind = ProducerKind::OpenMpOffload;
    Note(P.OmpKernels, "OpenMP offload kernel");
    Note(P.OmpCalls, "OpenMP offload runtime call");
  } else if (P.AccKernels || P.AccCalls) {
    P.Kind = ProducerKind::OpenAcc;
    Note(P.AccKernels, "OpenACC kernel");
    Note(P.AccCalls, "OpenACC call");
  } else if (Src.SchemaVersion >= 0 && !Src.TracelintCapture) {
    // libkineto writes schemaVersion, and libkineto is the PyTorch
    // profiler's: a Kineto trace without framework events was recorded
    // with CPU activity off, and its user still changes Python. tracelint
    // capture writes the same schema for any CUDA program, so it is left
    // to the kernels and calls below.
    P.Kind = ProducerKind::PyTorch;
    Seen.push_back(llvm::formatv("a Kineto trace (schemaVersion {0}) without "
                                 "CPU ops: the PyTorch profiler with CPU "
                                 "activity off",
                                 Src.SchemaVersion)
                       .str());
    Note(P.RuntimeCalls, "runtime call");
    Note(P.DeviceWork, "device event");
  } else if (P.RuntimeCalls || P.DeviceWork) {
    P.Kind = ProducerKind::Cuda;
    Note(P.RuntimeCalls, "runtime call");
    Note(P.DeviceWork, "device event");
    Seen.emplace_back("no Python or ATen events");
  }
  P.Plat = decidePlatform(T, P);
  P.Signals = Seen.empty() ? std::string("no framework, runtime or device "
                                         "events")
                           : llvm::join(Seen, ", ");
  return P;
}
