//===- rules/detectors/Fp32SimtMatmul.cpp - K001 FP32 without tensor cores ===//
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
//===----------------------------------------------------------------------===//
#include "rules/BuiltinDetectors.h"
#include "rules/detectors/DetectorSupport.h"
#include "rules/detectors/KernelNames.h"

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

const model::DeviceInfo *deviceInfo(const model::Trace &T, int32_t Id) {
  for (const model::DeviceInfo &D : T.Devices)
    if (D.Id == Id)
      return &D;
  return nullptr;
}

/// The lower-precision mode to try on this device.
std::string precisionChange(const model::DeviceInfo *Info, bool Amd,
                            bool AllConvolutions) {
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

struct NameGroup {
  uint64_t Count = 0;
  int64_t Ns = 0; ///< summed durations (shown; shares use unions)
  uint32_t Longest = model::NoIndex;
};

} // namespace

Outcome rules::runFp32MatmulNoTensorCores(const TraceIndex &Ctx,
                                          const RuleOptions &Opts,
                                          std::vector<Detection> &Out) {
  const model::Trace &T = Ctx.trace();
  const double MinShare = Opts.number("min-share-of-busy");
  const double MinTargetShare = Opts.number("min-share-of-step");

  // Classify every kernel once per distinct name.
  llvm::DenseMap<uint32_t, MatmulKernel> ByName;
  auto Classify = [&](const Event &E) -> const MatmulKernel & {
    auto [It, New] = ByName.try_emplace(E.Name);
    if (New)
      It->second = classifyMatmulKernel(T.name(E));
    return It->second;
  };
  struct Candidate {
    uint32_t Index;
    int32_t Device;
    bool Amd, Convolution;
  };
  std::vector<Candidate> Cands;
  bool AmdMatrixUnits = false, Tf32Products = false;
  for (int32_t D : Ctx.devices()) {
    for (uint32_t I : Ctx.deviceWork(D)) {
      const Event &E = T.Events[I];
      if (E.Kind != EventKind::Kernel)
        continue;
      const MatmulKernel &K = Classify(E);
      if (K.Engine == MatmulEngine::MatrixUnit) {
        AmdMatrixUnits |= K.Vendor == KernelVendor::Amd;
        Tf32Products |= K.Tf32 && !K.Convolution;
      } else if (K.Engine == MatmulEngine::Fp32Simt) {
        Cands.push_back({I, D, K.Vendor == KernelVendor::Amd, K.Convolution});
      }
    }
  }
  if (Cands.empty())
    return Outcome::ran();
  // A steady-state share means nothing in a start-up window.

  // Only devices with matrix units can do better.
  std::vector<uint32_t> Eligible;
  std::map<int32_t, int64_t> NsByDevice;
  uint64_t Unknown = 0, UnknownAmd = 0;
  bool AllConvolutions = true;
  for (const Candidate &C : Cands) {
    const model::DeviceInfo *Info = deviceInfo(T, C.Device);
    bool Has;
    if (C.Amd) {
      Has = AmdMatrixUnits;
      UnknownAmd += !Has;
    } else if (!Info || Info->ComputeMajor < 0) {
      ++Unknown;
      continue;
    } else {
      Has = Info->ComputeMajor >= 7;
    }
    if (!Has)
      continue;
    Eligible.push_back(C.Index);
    NsByDevice[C.Device] += T.Events[C.Index].Duration;
    AllConvolutions &= C.Convolution;
  }
  if (Eligible.empty()) {
    if (Unknown)
      return Outcome::cannotJudge(
          llvm::formatv("{0} FP32 SIMT matrix-product kernels ran "
                        "(such as {1}), but the trace has no device properties "
                        "(compute capability) to tell whether the device has "
                        "tensor cores; PyTorch profiler traces carry "
                        "deviceProperties from Kineto, Nsight Systems exports "
                        "from TARGET_INFO_GPU",
                        Unknown,
                        shortKernelName(T.name(T.Events[Cands.front().Index])))
              .str());
    if (UnknownAmd)
      return Outcome::cannotJudge(
          llvm::formatv(
              "{0} FP32 Tensile kernels without MFMA tiles "
              "ran, but no kernel in the trace uses MFMA, and the device "
              "properties do not say whether the device has matrix units",
              UnknownAmd)
              .str());
    return Outcome::ran(); // devices without matrix units: nothing faster to
                           // switch to
  }

  const MeasureWindows &Win = Ctx.measureWindows();
  WorkMeasure M = measureWork(Ctx, Win, Eligible);
  if (M.Count == 0 || M.BusyNs <= 0)
    return Outcome::ran();
  double Share = M.shareOfBusy();
  if (Share < MinShare)
    return Outcome::ran();
  const int64_t Target = Ctx.targetNs();
  int64_t Impact = std::min(M.medianPerWindow(), Target);
  if (double(Impact) < MinTargetShare * double(Target))
    return Outcome::ran();

  // Group the kernels inside the windows by name.
  std::map<std::string, NameGroup> Groups;
  std::set<std::string> FullNames; // exact names, for the path's what-if
  uint64_t Convs = 0;
  for (uint32_t I : Eligible) {
    const Event &E = T.Events[I];
    if (!llvm::any_of(Win.Ranges, [&](const model::Interval &R) {
          return E.Start >= R.Begin && E.Start < R.End;
        }))
      continue;
    NameGroup &G = Groups[shortKernelName(T.name(E))];
    FullNames.insert(T.name(E).str());
    ++G.Count;
    G.Ns += E.Duration;
    if (G.Longest == model::NoIndex ||
        E.Duration > T.Events[G.Longest].Duration)
      G.Longest = I;
    Convs += ByName.lookup(E.Name).Convolution;
  }
  std::vector<std::pair<const std::string *, const NameGroup *>> Sorted;
  for (const auto &G : Groups)
    Sorted.push_back({&G.first, &G.second});
  llvm::sort(Sorted, [](const auto &A, const auto &B) {
    return A.second->Ns > B.second->Ns ||
           (A.second->Ns == B.second->Ns && *A.first < *B.first);
  });
  std::vector<std::string> Names;
  for (const auto &S : Sorted)
    Names.push_back(*S.first);

  // The device that ran most of them names the advice.
  int32_t TopDevice = NsByDevice.begin()->first;
  for (const auto &[D, Ns] : NsByDevice)
    if (Ns > NsByDevice[TopDevice])
      TopDevice = D;
  const model::DeviceInfo *Info = deviceInfo(T, TopDevice);
  const Event &Longest = T.Events[Sorted.front().second->Longest];
  bool Amd = ByName.lookup(Longest.Name).Vendor == KernelVendor::Amd;

  Detection Det;
  auto &V = Det.Values;
  std::string Device = llvm::formatv("device {0}", TopDevice).str();
  if (Info && !Info->Name.empty())
    Device += " (" + Info->Name + ")";
  V["device"] = Device;
  V["capability"] =
      Amd    ? "MFMA matrix units (MFMA kernels run elsewhere in this trace)"
      : Info ? llvm::formatv("compute capability {0}.{1}", Info->ComputeMajor,
                             std::max(Info->ComputeMinor, 0))
                   .str()
             : "tensor cores";
  V["value"] = pct(Share);
  V["share"] = pct(Share);
  V["threshold"] = pct(MinShare);
  V["simt_time"] = dur(M.UnionNs);
  V["busy"] = dur(M.BusyNs);
  V["count"] = std::to_string(M.Count);
  V["convolutions"] = std::to_string(Convs);
  V["products"] = std::to_string(M.Count - Convs);
  V["per_step"] = dur(M.medianPerWindow());
  V["top_names"] = joinNames(Names, 3);
  V["top_kernel"] = *Sorted.front().first;
  V["top_count"] = std::to_string(Sorted.front().second->Count);
  V["top_time"] = dur(Sorted.front().second->Ns);
  V["change"] = precisionChange(Info, Amd, AllConvolutions);
  uint32_t L = T.launchOf(Longest);
  const Event *Op = L == model::NoIndex ? nullptr : enclosingOp(T, T.Events[L]);
  V["top_op"] = Op ? Ctx.opPath(*Op) : "(no op recorded)";
  V["example"] =
      llvm::formatv("{0} at {1:f3} us", shortKernelName(T.name(Longest)),
                    Ctx.traceTimestampUs(Longest))
          .str();
  V["impact"] = dur(Impact);
  V["target"] = Ctx.describeTarget();
  describeWindows(Win, V);
  Det.Examples.push_back(example(Ctx, Longest));
  if (L != model::NoIndex)
    Det.Examples.push_back(example(Ctx, T.Events[L]));
  for (size_t G = 1; G < Sorted.size() && G < 4; ++G)
    Det.ExtraEvidence.push_back(
        llvm::formatv("also {0}: {1} kernels, {2}", *Sorted[G].first,
                      Sorted[G].second->Count, dur(Sorted[G].second->Ns))
            .str());
  if (NsByDevice.size() > 1)
    Det.ExtraEvidence.push_back(
        llvm::formatv("{0} devices run FP32 SIMT matrix products; the "
                      "figures cover all of them",
                      NsByDevice.size())
            .str());
  Det.ImpactNs = Impact;
  // On the critical path: these kernels taking no time (tensor cores make
  // them faster, not free, so this bound is loose but safe).
  Det.PathQuery.Names.assign(FullNames.begin(), FullNames.end());
  Det.Window = Win.describe();
  Det.Subject = "FP32 SIMT matrix products on " +
                (Info && !Info->Name.empty() ? Info->Name : Device);
  Det.Confidence = 0.6;
  if (Tf32Products && !AllConvolutions) {
    // TF32 is already on for some products: the SIMT ones are shapes or
    // layouts the libraries chose not to run on tensor cores.
    Det.Confidence = 0.4;
    Det.ConfidenceNotes.push_back(
        "TF32 tensor-core matrix products also run in this trace, so TF32 is "
        "already allowed; the SIMT kernels may be shapes or alignments the "
        "library keeps off tensor cores");
  }
  Out.push_back(std::move(Det));
  return Outcome::ran();
}
