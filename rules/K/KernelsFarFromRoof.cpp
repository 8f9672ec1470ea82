//===- rules/K/KernelsFarFromRoof.cpp - K005 kernels far from roof --------===//
//
// When the device is busy, completion waits on kernels, and the question
// is which kernel is furthest from what the device can do for it. Each op
// with recorded shapes whose FLOPs and bytes are modelled (detect::opRates)
// has an achieved rate over the kernel time it launched; the device's
// roofline (detect::peaksFor) says what the op could reach at its
// arithmetic intensity. The op's gap is its kernel time times (1 - its
// share of that roof): the time a kernel at the roof would not take.
//
// The steps: the op rates and the device's peaks (cannot judge without
// shapes or peaks), each op's share of its roof and its kernels' union per
// steady window (scoreOps), the largest gaps (at most max-ops ops below
// max-share-of-roof), then the top op's category picks the experiment, and
// K001-K003 are named where they describe the same op.
//
// The impact is the median over the windows of the listed ops' gaps; the
// engine caps it by the critical path without those kernels, so ops off the
// path cost nothing.
//
//===----------------------------------------------------------------------===//
#include "rules/BuiltinDetectors.h"
#include "rules/detectors/DetectorSupport.h"
#include "rules/detectors/DevicePeaks.h"
#include "rules/detectors/OpRates.h"
#include "rules/detectors/OpRoofs.h"
#include "rules/detectors/Shapes.h"
#include "support/Format.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

using namespace tracelint;
using namespace tracelint::rules;
using namespace tracelint::rules::detect;
using analysis::TraceIndex;
using model::Event;
using model::EventKind;

namespace {

/// One op and argument set, measured against its roof.
struct ScoredOp {
  const OpRate *Rate = nullptr;
  RoofPosition Roof;
  std::vector<uint32_t> Kernels;
  WorkMeasure Measure;
  std::vector<int64_t> GapPerWindow; ///< parallel to the windows
  int64_t medianGap() const { return median(GapPerWindow); }
};

/// Every op below \p MaxShare of its roof with kernels in the windows, the
/// largest gap first.
std::vector<ScoredOp> scoreOps(const TraceIndex &Ctx,
                               llvm::ArrayRef<OpRate> Rates,
                               const OpRoofs &Roofs, double MaxShare) {
  const model::Trace &T = Ctx.trace();
  const MeasureWindows &Win = Ctx.measureWindows();
  std::vector<ScoredOp> Out;
  for (size_t I = 0; I < Rates.size(); ++I) {
    const std::optional<RoofPosition> &Pos = Roofs.Positions[I];
    if (!Pos || Pos->Share >= MaxShare)
      continue;
    ScoredOp S;
    S.Rate = &Rates[I];
    S.Roof = *Pos;
    S.Kernels = kernelsOf(T, Rates[I]);
    llvm::erase_if(S.Kernels, [&](uint32_t K) {
      return T.Lanes[T.Events[K].Lane].Device != Roofs.Device;
    });
    S.Measure = measureWork(Ctx, Win, S.Kernels);
    if (S.Measure.Count == 0)
      continue;
    const double Left = 1.0 - std::clamp(Pos->Share, 0.0, 1.0);
    for (int64_t Ns : S.Measure.PerWindow)
      S.GapPerWindow.push_back(int64_t(double(Ns) * Left));
    if (S.medianGap() > 0)
      Out.push_back(std::move(S));
  }
  llvm::stable_sort(Out, [](const ScoredOp &A, const ScoredOp &B) {
    return A.medianGap() > B.medianGap();
  });
  return Out;
}

/// The value of parameter \p Key of \p R, or -1.
int64_t paramOf(const OpRate &R, llvm::StringRef Key) {
  for (const auto &[K, V] : R.Params)
    if (K == Key)
      return V;
  return -1;
}

/// The last two dimensions of the first recorded input of \p R.
std::optional<std::pair<int64_t, int64_t>> lastTwoDims(const OpRate &R) {
  std::optional<std::vector<ArgShapes>> Dims = parseInputDims(R.InputDims);
  if (!Dims || Dims->empty())
    return std::nullopt;
  const Shape *S = Dims->front().tensor();
  if (!S || S->size() < 2)
    return std::nullopt;
  return std::make_pair((*S)[S->size() - 2], (*S)[S->size() - 1]);
}

/// Whether \p R is a piece of attention computed as separate ops (K002's
/// subject): a product whose [M, N] output a softmax of the trace reads as
/// its last two dimensions, or such a softmax.
bool partOfUnfusedAttention(llvm::ArrayRef<OpRate> Rates, const OpRate &R) {
  auto Scores = [](const OpRate &Product, const OpRate &Softmax) {
    auto Dims = lastTwoDims(Softmax);
    return Product.Category == OpCategory::Gemm && isSoftmaxOp(Softmax.Op) &&
           Dims && Dims->first == Product.param("M") &&
           Dims->second == Product.param("N");
  };
  return llvm::any_of(
      Rates, [&](const OpRate &O) { return Scores(R, O) || Scores(O, R); });
}

/// The rules that describe the same op better, named rather than repeated.
std::vector<std::string> cooperatingRules(llvm::ArrayRef<OpRate> Rates,
                                          const ScoredOp &S) {
  const OpRate &R = *S.Rate;
  std::vector<std::string> Out;
  if (R.Category == OpCategory::Gemm || R.Category == OpCategory::Conv) {
    if (R.Dtype == "float")
      Out.push_back("K001 (FP32 products on the scalar pipeline)");
    if (isReducedPrecision(R.Dtype) && R.Category == OpCategory::Gemm) {
      const int64_t N = paramOf(R, "N"), K = paramOf(R, "K");
      if ((N > 0 && N % 8) || (K > 0 && K % 8))
        Out.push_back("K003 (product dimensions not multiples of 8)");
    }
  }
  if (partOfUnfusedAttention(Rates, R))
    Out.push_back("K002 (attention as separate products and a softmax)");
  return Out;
}

/// A product with M or N under this is skinny: a matrix-vector product in
/// all but name, memory-bound however it is tiled.
constexpr int64_t SkinnyDimension = 64;

/// The one change to try for the top op, by category.
std::string changeFor(const TraceIndex &Ctx, const ScoredOp &S, bool Unfused) {
  const OpRate &R = *S.Rate;
  const bool Rocm = Ctx.producer().isRocm();
  switch (R.Category) {
  case OpCategory::Attention:
    return Rocm ? "run the attention on another fused backend (with "
                  "torch.nn.attention.sdpa_kernel: FLASH_ATTENTION against "
                  "EFFICIENT_ATTENTION, or a Composable Kernel build of "
                  "FlashAttention), keeping the head size a multiple of 8"
                : "run the attention on another fused backend (with "
                  "torch.nn.attention.sdpa_kernel: FLASH_ATTENTION, "
                  "EFFICIENT_ATTENTION or CUDNN_ATTENTION), keeping the head "
                  "size a multiple of 8";
  case OpCategory::Conv:
    return Rocm ? "switch the model and its inputs to channels-last "
                  "(memory_format=torch.channels_last) and let MIOpen "
                  "search its solutions (MIOPEN_FIND_MODE=NORMAL)"
                : "switch the model and its inputs to channels-last "
                  "(memory_format=torch.channels_last) and set "
                  "torch.backends.cudnn.benchmark = True";
  case OpCategory::Gemm:
    if (S.Roof.MemoryBound &&
        std::min(R.param("M"), R.param("N")) < SkinnyDimension)
      return "batch these skinny products into fewer, larger ones (stack "
             "the small operands), or let torch.compile fuse them into their "
             "neighbours";
    if (S.Roof.MemoryBound && Unfused)
      return "compute the attention with "
             "torch.nn.functional.scaled_dot_product_attention, whose fused "
             "kernels never write the score matrix this product makes";
    if (S.Roof.MemoryBound)
      return llvm::formatv(
          "fuse the product with the op that consumes its output, so that "
          "the large result of a short reduction (K = {0}) never goes "
          "through memory: a fused attention kernel when it computes "
          "attention scores, torch.compile otherwise",
          R.param("K"));
    return "let PyTorch tune the product's kernel for this shape "
           "(PYTORCH_TUNABLEOP_ENABLED=1, or "
           "torch.compile(mode=\"max-autotune\")), and pad M, N and K to "
           "multiples of 64 if they are not";
  case OpCategory::Elementwise:
  case OpCategory::Normalization:
  case OpCategory::Reduction:
    if (isSoftmaxOp(R.Op) && Unfused)
      return "compute the attention with "
             "torch.nn.functional.scaled_dot_product_attention, whose fused "
             "kernels keep the score matrix this softmax reads on chip";
    if (R.Op == "aten::copy_" || R.Op == "aten::contiguous" ||
        R.Op == "aten::clone")
      return "keep the tensor in the layout its consumer reads (drop the "
             "transpose-and-copy, or produce it contiguous), so the copy "
             "disappears";
    return "fuse this memory-bound op with its neighbours (torch.compile "
           "of the module around it), so the tensor is read and written "
           "once";
  }
  return "";
}

/// "bf16" for "c10::BFloat16": the class the roofs are quoted in.
std::string dtypeWords(llvm::StringRef Dtype) {
  llvm::StringRef Class = dtypeClass(Dtype);
  return !Class.empty()  ? Class.str()
         : Dtype.empty() ? std::string("unknown type")
                         : Dtype.str();
}

std::string rate(const ScoredOp &S) {
  const OpRate &R = *S.Rate;
  return S.Roof.MemoryBound || R.Flops <= 0
             ? llvm::formatv("{0:f2} TB/s", R.TbpsMedian).str()
             : llvm::formatv("{0:f1} TFLOP/s", R.TflopsMedian).str();
}

std::string roofName(const ScoredOp &S, const DevicePeaks &P) {
  const OpRate &R = *S.Rate;
  if (S.Roof.MemoryBound || R.Flops <= 0)
    return llvm::formatv("{0} ({1:f2} TB/s)", roofWords(R, S.Roof),
                         P.MemoryTBps);
  return llvm::formatv("{0} ({1:f0} TFLOP/s)", roofWords(R, S.Roof),
                       S.Roof.RoofTflops);
}

/// "bf16 989 TFLOP/s (matrix), fp32 67 TFLOP/s (vector), 3.35 TB/s".
std::string roofsText(const DevicePeaks &P, const OpRate &R) {
  std::string Out;
  const std::string Class = dtypeClass(R.Dtype).str();
  if (auto It = P.MatrixTflops.find(Class); It != P.MatrixTflops.end())
    Out += llvm::formatv("{0} {1:f0} TFLOP/s on matrix units, ", Class,
                         It->second);
  if (auto It = P.VectorTflops.find(Class); It != P.VectorTflops.end())
    Out += llvm::formatv("{0} {1:f1} TFLOP/s on vector units, ", Class,
                         It->second);
  Out += llvm::formatv("memory {0:f2} TB/s", P.MemoryTBps);
  return Out;
}

} // namespace

Outcome rules::runKernelsFarFromRoof(const TraceIndex &Ctx,
                                     const RuleOptions &Opts,
                                     std::vector<Detection> &Out) {
  const model::Trace &T = Ctx.trace();
  if (Ctx.eventsOfKind(EventKind::Op).empty())
    return Outcome::cannotJudge(
        "the trace records no framework ops (cpu_op), and an op's FLOPs "
        "and bytes come from its recorded shapes");
  std::vector<OpRate> Rates = opRates(T);
  if (Rates.empty())
    return Outcome::cannotJudge(
        "no modelled op has recorded input shapes and launched kernels: "
        "profile with record_shapes=True to measure ops against the "
        "device's roofs");
  OpRoofs Roofs = opRoofs(T, Rates, Opts.devicePeaks());
  if (!Roofs.Peaks)
    return Outcome::cannotJudge(
        Roofs.Device < 0
            ? std::string("no modelled op launched kernels")
            : "the device's roofs are not known: " + Roofs.Unknown);
  const model::DeviceInfo *Info = Roofs.Info;
  const DevicePeaks *Peaks = &*Roofs.Peaks;

  const int64_t Target = Ctx.targetNs();
  std::vector<ScoredOp> Scored =
      scoreOps(Ctx, Rates, Roofs, Opts.number("max-share-of-roof"));
  if (Scored.empty() || Target <= 0)
    return Outcome::ran();
  Scored.resize(std::min<size_t>(Scored.size(), Opts.number("max-ops")));

  const MeasureWindows &Win = Ctx.measureWindows();
  std::vector<int64_t> Gap(Win.Ranges.size(), 0), Time(Win.Ranges.size(), 0);
  std::vector<uint32_t> Kernels;
  for (const ScoredOp &S : Scored) {
    for (size_t W = 0; W < Gap.size(); ++W) {
      Gap[W] += S.GapPerWindow[W];
      Time[W] += S.Measure.PerWindow[W];
    }
    llvm::append_range(Kernels, S.Kernels);
  }
  const int64_t Impact = std::min(median(Gap), Target);
  if (!reachesShareOfTarget(Impact, Target, Opts.number("min-share-of-step")))
    return quietUnderFloor(Impact, Target, Opts.number("min-share-of-step"));

  const ScoredOp &Top = Scored.front();
  const OpRate &R = *Top.Rate;
  Detection Det =
      impactDetection(Ctx, Impact, Opts.number("min-share-of-step"));
  auto &V = Det.Values;
  V["device"] = Info->Name;
  V["peaks_name"] = Peaks->Name;
  V["roofs"] = roofsText(*Peaks, R);
  V["ridge"] = llvm::formatv("{0:f0}", Top.Roof.RidgeFlopsPerByte).str();
  V["count"] = count(int64_t(Scored.size()));
  V["listed"] = Scored.size() == 1
                    ? std::string("this op")
                    : llvm::formatv("the {0} ops listed", Scored.size()).str();
  V["ops_time"] = dur(median(Time));
  V["per_step"] = dur(Impact);
  V["top_op"] = R.Op;
  V["top_shape"] = R.shapeText();
  V["top_dtype"] = dtypeWords(R.Dtype);
  V["top_rate"] = rate(Top);
  V["top_share"] = pct(Top.Roof.Share);
  V["top_roof"] = roofName(Top, *Peaks);
  V["top_bound"] = Top.Roof.MemoryBound ? "memory-bound" : "compute-bound";
  V["top_intensity"] = llvm::formatv("{0:f1}", R.flopsPerByte()).str();
  V["top_calls"] = count(int64_t(R.Calls));
  V["top_kernel"] = dur(R.KernelNsMedian);
  V["top_time"] = dur(Top.Measure.medianPerWindow());
  V["top_share_of_step"] =
      pct(double(Top.Measure.medianPerWindow()) / double(Target));
  std::vector<std::string> Others = cooperatingRules(Rates, Top);
  // Empty, or "; see K002 (...) for that part of the advice".
  V["top_cooperation"] = Others.empty()
                             ? std::string()
                             : "; see " + llvm::join(Others, " and ") +
                                   " for that part of the advice";
  // Where another K rule explains the op, its experiment comes first:
  // this card does not repeat that advice.
  std::vector<std::string> Codes;
  for (const std::string &O : Others)
    Codes.push_back(O.substr(0, 4));
  V["change"] =
      Others.empty()
          ? changeFor(Ctx, Top, partOfUnfusedAttention(Rates, R))
          : "make the change that " + llvm::join(Codes, " and ") +
                " proposes for this op first, then measure its share of "
                "the roof again";
  for (size_t I = 1; I < Scored.size(); ++I) {
    const ScoredOp &S = Scored[I];
    Det.ExtraEvidence.push_back(llvm::formatv(
        "{0} {1} ({2}): {3}, {4} of {5}; {6} per step, a gap of {7}",
        S.Rate->Op, S.Rate->shapeText(), dtypeWords(S.Rate->Dtype), rate(S),
        support::formatShare(S.Roof.Share), roofName(S, *Peaks),
        support::formatDuration(S.Measure.medianPerWindow()),
        support::formatDuration(S.medianGap())));
  }
  Det.Examples.push_back(example(Ctx, T.Events[R.CallOps.front()]));
  Det.PerWindowNs = Gap;
  Det.PathQuery = namesQuery(T, Kernels);
  Det.Subject = R.Op + " " + R.shapeText();
  // The FLOP and byte models are conventions and the peaks a datasheet's:
  // a share is an estimate, so the finding is a hypothesis to time.
  Det.Confidence = Others.empty() ? 0.55 : 0.5;
  Out.push_back(std::move(Det));
  return Outcome::ran();
}
