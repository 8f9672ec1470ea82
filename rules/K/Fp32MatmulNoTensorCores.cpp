//===- rules/K/Fp32MatmulNoTensorCores.cpp - K001 FP32 without tensor cores
//-===//
//
// Devices of compute capability 7.0 and later (and AMD CDNA parts) have
// matrix units, but a matrix product whose inputs are FP32 runs on them only
// when the framework allows a lower-precision mode (TF32, or autocast to
// fp16/bf16). Otherwise cuBLAS and cuDNN pick their SIMT kernels
// (`volta_sgemm_*`, `ampere_sgemm_*`, `implicit_convolve_sgemm`, xmma FFMA
// kernels) and Tensile picks tiles without MFMA. This detector finds those
// kernels by name (rules/detectors/KernelNames.h), checks that the device
// that ran them has matrix units (deviceProperties for NVIDIA; MFMA kernels
// in the same trace for AMD, whose properties do not tell CDNA from older
// parts), and reports their union against device busy time.
//
// The steps: classify every kernel once per name (scanKernels), keep the
// FP32 SIMT products on devices with matrix units (selectEligible), measure
// their union per steady window (workCostAbove), then group the measured
// kernels by name for the description.
//
//===----------------------------------------------------------------------===//
#include "rules/BuiltinDetectors.h"
#include "rules/detectors/DetectorSupport.h"
#include "rules/detectors/KernelNames.h"

#include "support/Count.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <map>
#include <set>

using namespace tracelint;
using namespace tracelint::rules;
using namespace tracelint::rules::detect;
using analysis::TraceIndex;
using model::Event;
using model::EventKind;

namespace {

/// An FP32 SIMT matrix product and the device that ran it.
struct Candidate {
  uint32_t Index;
  int32_t Device;
  bool Amd, Convolution;
};

/// Every kernel of the trace, classified once per distinct name.
struct KernelScan {
  llvm::DenseMap<uint32_t, MatmulKernel> ByName;
  std::vector<Candidate> Candidates; ///< the FP32 SIMT products
  bool AmdMatrixUnits = false;       ///< an AMD kernel in the trace uses MFMA
  bool Tf32Products = false;         ///< a TF32 tensor-core product ran
};

KernelScan scanKernels(const TraceIndex &Ctx) {
  const model::Trace &T = Ctx.trace();
  KernelScan S;
  for (int32_t D : Ctx.devices()) {
    for (uint32_t I : Ctx.deviceWork(D)) {
      const Event &E = T.Events[I];
      if (E.Kind != EventKind::Kernel)
        continue;
      auto [It, New] = S.ByName.try_emplace(E.Name);
      if (New)
        It->second = classifyMatmulKernel(T.name(E));
      const MatmulKernel &K = It->second;
      if (K.Engine == MatmulEngine::MatrixUnit) {
        S.AmdMatrixUnits |= K.Vendor == KernelVendor::Amd;
        S.Tf32Products |= K.Tf32 && !K.Convolution;
      } else if (K.Engine == MatmulEngine::Fp32Simt) {
        S.Candidates.push_back(
            {I, D, K.Vendor == KernelVendor::Amd, K.Convolution});
      }
    }
  }
  return S;
}

/// The candidates that ran on devices with matrix units: only those can do
/// better.
struct EligibleWork {
  std::vector<uint32_t> Events;
  std::map<int32_t, int64_t> NsByDevice; ///< summed durations
  uint64_t Unknown = 0;    ///< NVIDIA kernels without a compute capability
  uint64_t UnknownAmd = 0; ///< AMD kernels without MFMA evidence
  bool AllConvolutions = true;
};

EligibleWork selectEligible(const model::Trace &T, const KernelScan &S) {
  EligibleWork W;
  for (const Candidate &C : S.Candidates) {
    const model::DeviceInfo *Info = deviceInfo(T, C.Device);
    bool Has;
    if (C.Amd) {
      Has = S.AmdMatrixUnits;
      W.UnknownAmd += !Has;
    } else if (!Info || Info->ComputeMajor < 0) {
      ++W.Unknown;
      continue;
    } else {
      Has = Info->ComputeMajor >= 7;
    }
    if (!Has)
      continue;
    W.Events.push_back(C.Index);
    W.NsByDevice[C.Device] += T.Events[C.Index].Duration;
    W.AllConvolutions &= C.Convolution;
  }
  return W;
}

/// Why no candidate is eligible: the device properties or the MFMA
/// evidence are missing, or the devices have no matrix units at all.
Outcome noEligibleWork(const model::Trace &T, const KernelScan &S,
                       const EligibleWork &W) {
  if (W.Unknown)
    return Outcome::cannotJudge(
        llvm::formatv(
            "{0} FP32 SIMT matrix-product kernels ran "
            "(such as {1}), but the trace has no device properties "
            "(compute capability) to tell whether the device has "
            "tensor cores; PyTorch profiler traces carry "
            "deviceProperties from Kineto, Nsight Systems exports "
            "from TARGET_INFO_GPU",
            W.Unknown,
            shortKernelName(T.name(T.Events[S.Candidates.front().Index])))
            .str());
  if (W.UnknownAmd)
    return Outcome::cannotJudge(
        llvm::formatv(
            "{0} FP32 Tensile kernels without MFMA tiles "
            "ran, but no kernel in the trace uses MFMA, and the device "
            "properties do not say whether the device has matrix units",
            W.UnknownAmd)
            .str());
  return Outcome::ran(); // no matrix units: nothing faster to switch to
}

struct NameGroup {
  uint64_t Count = 0;
  int64_t Ns = 0; ///< summed durations (shown; shares use unions)
  uint32_t Longest = model::NoIndex;
};

/// The eligible kernels that start inside a window, by short name.
struct KernelGroups {
  std::map<std::string, NameGroup> ByName;
  std::set<std::string> FullNames; ///< exact names, for the path's what-if
  uint64_t Convolutions = 0;
};

KernelGroups groupInWindows(const TraceIndex &Ctx, const KernelScan &S,
                            llvm::ArrayRef<uint32_t> Eligible) {
  const model::Trace &T = Ctx.trace();
  const MeasureWindows &Win = Ctx.measureWindows();
  KernelGroups K;
  for (uint32_t I : Eligible) {
    const Event &E = T.Events[I];
    if (Ctx.windowOf(I) == Win.Ranges.size())
      continue;
    NameGroup &G = K.ByName[shortKernelName(T.name(E))];
    K.FullNames.insert(T.name(E).str());
    ++G.Count;
    G.Ns += E.Duration;
    if (G.Longest == model::NoIndex ||
        E.Duration > T.Events[G.Longest].Duration)
      G.Longest = I;
    K.Convolutions += S.ByName.lookup(E.Name).Convolution;
  }
  return K;
}

/// The device that ran the most SIMT time (the lowest id on a tie): it
/// names the advice.
int32_t topDevice(const std::map<int32_t, int64_t> &NsByDevice) {
  int32_t Top = NsByDevice.begin()->first;
  for (const auto &[D, Ns] : NsByDevice)
    if (Ns > NsByDevice.at(Top))
      Top = D;
  return Top;
}

/// The lower-precision mode to try on this device.
std::string precisionChange(const model::DeviceInfo *Info, bool Amd,
                            bool AllConvolutions, bool Torch) {
  // A C/C++ program calls the math libraries itself: the switch is theirs.
  if (!Torch)
    return Amd ? "give the matrix products bf16 operands (rocblas_gemm_ex or "
                 "hipblasLtMatmul with bf16 inputs and fp32 accumulation), so "
                 "that they run on the MFMA units"
           : Info && Info->ComputeMajor >= 8
               ? "enable TF32 tensor-core math for the FP32 products "
                 "(cublasSetMathMode(handle, CUBLAS_TF32_TENSOR_OP_MATH), or "
                 "CUBLAS_COMPUTE_32F_FAST_TF32 in cublasGemmEx; "
                 "CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION for cuDNN "
                 "convolutions), or pass bf16 operands"
               : "pass fp16 operands with fp32 accumulation (cublasGemmEx "
                 "with CUDA_R_16F inputs and CUBLAS_COMPUTE_32F): tensor "
                 "cores of compute capability 7.x take fp16 only; TF32 and "
                 "bf16 need 8.0";
  if (Amd)
    return "run the region under torch.autocast(\"cuda\", "
           "dtype=torch.bfloat16), so that its matrix products run as bf16 "
           "on the MFMA units";
  if (Info && Info->ComputeMajor >= 8)
    return AllConvolutions
               ? "allow TF32 in convolutions (torch.backends.cudnn.allow_tf32 "
                 "= True), or run the region under torch.autocast(\"cuda\", "
                 "dtype=torch.bfloat16)"
               : "allow TF32 in FP32 matrix products "
                 "(torch.set_float32_matmul_precision(\"high\") or "
                 "torch.backends.cuda.matmul.allow_tf32 = True; convolutions "
                 "follow torch.backends.cudnn.allow_tf32), or run the region "
                 "under torch.autocast(\"cuda\", dtype=torch.bfloat16)";
  return "run the region under torch.autocast(\"cuda\", dtype=torch.float16) "
         "(with torch.cuda.amp.GradScaler when training): tensor cores of "
         "compute capability 7.x take fp16 only; TF32 and bf16 need 8.0";
}

/// {device}, {capability} and {change}: the device and the precision
/// mode its matrix units take.
void describeDevice(int32_t Device, const model::DeviceInfo *Info, bool Amd,
                    bool AllConvolutions, bool Torch, Detection &Det) {
  auto &V = Det.Values;
  std::string Name = llvm::formatv("device {0}", Device).str();
  if (Info && !Info->Name.empty())
    Name += " (" + Info->Name + ")";
  V["device"] = Name;
  V["capability"] =
      Amd    ? "MFMA matrix units (MFMA kernels run elsewhere in this trace)"
      : Info ? llvm::formatv("compute capability {0}.{1}", Info->ComputeMajor,
                             std::max(Info->ComputeMinor, 0))
                   .str()
             : "tensor cores";
  V["change"] = precisionChange(Info, Amd, AllConvolutions, Torch);
  Det.Subject = "FP32 SIMT matrix products on " +
                (Info && !Info->Name.empty() ? Info->Name : Name);
}

/// The figures, the kernels by name, and the longest kernel of the top
/// name as the example (with its launch call, when recorded); returns that
/// kernel.
const Event &describeKernels(const TraceIndex &Ctx, const WorkCost &C,
                             const KernelGroups &K, double MinShare,
                             Detection &Det) {
  const model::Trace &T = Ctx.trace();
  auto Ranked = rankByKey(K.ByName, [](const NameGroup &G) { return G.Ns; });
  std::vector<std::string> Names;
  for (const auto *G : Ranked)
    Names.push_back(G->first);
  const NameGroup &Top = Ranked.front()->second;
  const Event &Longest = T.Events[Top.Longest];
  auto &V = Det.Values;
  V["value"] = pct(C.Share);
  V["share"] = pct(C.Share);
  V["threshold"] = pct(MinShare);
  V["simt_time"] = dur(C.Measure.UnionNs);
  V["busy"] = dur(C.Measure.BusyNs);
  V["count"] = count(int64_t(C.Measure.Count));
  V["convolutions"] = count(int64_t(K.Convolutions));
  V["products"] = count(int64_t(C.Measure.Count - K.Convolutions));
  V["per_step"] = dur(C.Measure.medianPerWindow());
  V["top_names"] = joinNames(Names, 3);
  V["top_kernel"] = Ranked.front()->first;
  V["top_count"] = count(int64_t(Top.Count));
  V["top_time"] = dur(Top.Ns);
  uint32_t L = T.launchOf(Longest);
  const Event *Op = L == model::NoIndex ? nullptr : enclosingOp(T, T.Events[L]);
  V["top_op"] = Op ? Ctx.opPath(*Op) : "(no op recorded)";
  V["example"] = nameAt(Ctx, shortKernelName(T.name(Longest)), Longest);
  Det.Examples.push_back(example(Ctx, Longest));
  if (L != model::NoIndex)
    Det.Examples.push_back(example(Ctx, T.Events[L]));
  addRunnersUp(Det, Ranked, [](const auto &G) {
    return llvm::formatv("also {0}: {1}, {2}", G.first,
                         support::formatCount(G.second.Count, "kernel"),
                         dur(G.second.Ns))
        .str();
  });
  // On the critical path: these kernels taking no time (tensor cores make
  // them faster, not free, so this bound is loose but safe).
  Det.PathQuery.Names.assign(K.FullNames.begin(), K.FullNames.end());
  return Longest;
}

} // namespace

Outcome rules::runFp32MatmulNoTensorCores(const TraceIndex &Ctx,
                                          const RuleOptions &Opts,
                                          std::vector<Detection> &Out) {
  const model::Trace &T = Ctx.trace();
  const double MinShare = Opts.number("min-share-of-busy");
  const double MinTargetShare = Opts.number("min-share-of-step");

  KernelScan Scan = scanKernels(Ctx);
  if (Scan.Candidates.empty())
    return Outcome::ran();
  EligibleWork Eligible = selectEligible(T, Scan);
  if (Eligible.Events.empty())
    return noEligibleWork(T, Scan, Eligible);
  std::optional<WorkCost> Cost =
      workCostAbove(Ctx, Eligible.Events, MinShare, MinTargetShare);
  if (!Cost)
    return Outcome::ran();
  KernelGroups Groups = groupInWindows(Ctx, Scan, Eligible.Events);

  Detection Det;
  const Event &Longest = describeKernels(Ctx, *Cost, Groups, MinShare, Det);
  const bool Amd = Scan.ByName.lookup(Longest.Name).Vendor == KernelVendor::Amd;
  const int32_t Device = topDevice(Eligible.NsByDevice);
  const bool Torch = analysis::speaksPyTorch(Ctx.producer().Kind);
  describeDevice(Device, deviceInfo(T, Device), Amd, Eligible.AllConvolutions,
                 Torch, Det);
  const MeasureWindows &Win = Ctx.measureWindows();
  Det.Values["impact"] = dur(Cost->Impact);
  Det.Values["target"] = Ctx.describeTarget();
  describeWindows(Win, Det.Values);
  if (Eligible.NsByDevice.size() > 1)
    Det.ExtraEvidence.push_back(
        llvm::formatv("{0} devices run FP32 SIMT matrix products; the "
                      "figures cover all of them",
                      Eligible.NsByDevice.size())
            .str());
  Det.ImpactNs = Cost->Impact;
  Det.PerWindowNs = Cost->Measure.PerWindow;
  Det.Window = Win.describe();
  Det.Confidence = 0.6;
  if (Scan.Tf32Products && !Eligible.AllConvolutions) {
    // TF32 is already on for some products: the SIMT ones are shapes or
    // layouts the libraries chose not to run on tensor cores.
    Det.Confidence = 0.4;
    Det.ConfidenceNotes.emplace_back(
        "TF32 tensor-core matrix products also run in this trace, so TF32 is "
        "already allowed; the SIMT kernels may be shapes or alignments the "
        "library keeps off tensor cores");
  }
  Out.push_back(std::move(Det));
  return Outcome::ran();
}
