//===- rules/detectors/GemmRates.cpp - Achieved rates of matrix products --===//
#include "rules/detectors/GemmRates.h"
#include "rules/detectors/DetectorSupport.h"
#include "rules/detectors/Shapes.h"

#include "support/Statistics.h"

#include "llvm/ADT/STLExtras.h"

#include <map>
#include <tuple>

using namespace tracelint;
using namespace tracelint::rules;
using namespace tracelint::rules::detect;

namespace {

/// Which argument holds the bias, A and B (-1: none), and whether A and B
/// are batched (rank 3).
struct GemmForm {
  int Bias, A, Bm;
  bool Batched;
};

bool gemmForm(llvm::StringRef Name, GemmForm &F) {
  if (Name == "aten::mm")
    F = {-1, 0, 1, false};
  else if (Name == "aten::addmm")
    F = {0, 1, 2, false};
  else if (Name == "aten::bmm")
    F = {-1, 0, 1, true};
  else if (Name == "aten::baddbmm")
    F = {0, 1, 2, true};
  else
    return false;
  return true;
}

struct Key {
  std::string Op, Dims, Types;
  bool operator<(const Key &O) const {
    return std::tie(Op, Dims, Types) < std::tie(O.Op, O.Dims, O.Types);
  }
};

struct Group {
  GemmRate R;
  std::vector<int64_t> KernelNs;
  std::vector<double> Tflops, Tbps;
};

} // namespace

std::vector<GemmRate> detect::gemmRates(const model::Trace &T) {
  std::map<Key, Group> Groups;
  for (uint32_t I = 0; I < T.Events.size(); ++I) {
    const model::Event &E = T.Events[I];
    GemmForm Form;
    if (E.Kind != model::EventKind::Op || E.Args == model::NoIndex ||
        !gemmForm(T.name(E), Form))
      continue;
    const model::EventArgs &A = T.Args[E.Args];
    std::optional<std::vector<ArgShapes>> Dims = inputDims(T, E);
    if (!Dims || int(Dims->size()) <= std::max(Form.A, Form.Bm))
      continue;
    const Shape *X = (*Dims)[Form.A].tensor(), *Y = (*Dims)[Form.Bm].tensor();
    const size_t Rank = Form.Batched ? 3 : 2;
    if (!X || !Y || X->size() != Rank || Y->size() != Rank)
      continue;
    GemmRate R;
    R.Op = T.name(E).str();
    R.B = Form.Batched ? (*X)[0] : 1;
    R.M = (*X)[Rank - 2];
    R.K = (*X)[Rank - 1];
    R.N = (*Y)[Rank - 1];
    int64_t BiasElements = 0;
    if (Form.Bias >= 0)
      if (const Shape *Bs = (*Dims)[Form.Bias].tensor()) {
        R.Bias = true;
        BiasElements = elementCount(*Bs);
      }
    std::vector<std::string> Types = parseInputTypes(
        A.InputTypes != model::EmptyString ? T.Strings.get(A.InputTypes)
                                           : llvm::StringRef());
    R.Dtype = Types.size() > size_t(Form.A) ? Types[Form.A] : "";
    const int64_t Size = model::scalarTypeSize(R.Dtype);
    const double BMN = double(R.B) * double(R.M) * double(R.N);
    R.Flops = 2 * BMN * double(R.K) + (R.Bias ? BMN : 0);
    R.Bytes = Size > 0
                  ? double(Size) * (double(R.B) * double(R.M) * double(R.K) +
                                    double(R.B) * double(R.K) * double(R.N) +
                                    BMN + double(BiasElements))
                  : 0;
    int64_t KernelNs = 0;
    for (uint32_t W : workLaunchedWithin(T, I))
      if (T.Events[W].Kind == model::EventKind::Kernel)
        KernelNs += T.Events[W].Duration;
    if (KernelNs <= 0)
      continue;
    Key K{R.Op,
          A.InputDims != model::EmptyString ? T.Strings.get(A.InputDims).str()
                                            : "",
          A.InputTypes != model::EmptyString ? T.Strings.get(A.InputTypes).str()
                                             : ""};
    Group &G = Groups[K];
    if (!G.R.Calls)
      G.R = R;
    ++G.R.Calls;
    G.R.KernelNsTotal += KernelNs;
    G.KernelNs.push_back(KernelNs);
    // FLOPs per ns are GFLOP/s; a thousandth of that is TFLOP/s.
    G.Tflops.push_back(R.Flops / double(KernelNs) / 1e3);
    G.Tbps.push_back(R.Bytes / double(KernelNs) / 1e3);
  }
  std::vector<GemmRate> Out;
  for (auto &[K, G] : Groups) {
    G.R.KernelNsMedian = support::median(G.KernelNs);
    G.R.TflopsMedian = support::median(G.Tflops);
    G.R.TbpsMedian = support::median(G.Tbps);
    Out.push_back(std::move(G.R));
  }
  llvm::stable_sort(Out, [](const GemmRate &A, const GemmRate &B) {
    return A.KernelNsTotal > B.KernelNsTotal;
  });
  return Out;
}
