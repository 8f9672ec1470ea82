//===- rules/detectors/OpRates.cpp - Achieved rates per op and shapes -----===//
#include "rules/detectors/OpRates.h"
#include "rules/detectors/DetectorSupport.h"
#include "rules/detectors/OpModels.h"
#include "rules/detectors/Shapes.h"

#include "support/Statistics.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"

using namespace tracelint;
using namespace tracelint::rules;
using namespace tracelint::rules::detect;

namespace {

/// One call of a modelled op.
struct Call {
  uint32_t Event;
  /// The nearest enclosing modelled call (an index into the calls), or
  /// model::NoIndex.
  uint32_t Above = model::NoIndex;
  /// Its argument set (an index into the sets), or -1 when its arguments
  /// do not fit its model.
  int32_t Set = -1;
  /// A call below it fits its model.
  bool FittingBelow = false;
  /// Its kernels are counted (as its own, or inside a counted call).
  bool Counted = false, Covered = false;
};

/// One op and argument set, and its counted calls' figures.
struct ArgumentSet {
  const OpModel *Model;
  uint32_t FirstEvent;
  OpWork Work;
  std::vector<int64_t> KernelNs;
  std::vector<double> Tflops, Tbps;
  std::vector<uint32_t> CallOps;
};

llvm::StringRef text(const model::Trace &T, model::StringId Id) {
  return Id == model::EmptyString ? llvm::StringRef() : T.Strings.get(Id);
}

/// The arguments of op event \p E; std::nullopt without "Input Dims".
std::optional<OpArgs> readArgs(const model::Trace &T, const model::Event &E) {
  const model::EventArgs *A = T.args(E);
  std::optional<std::vector<ArgShapes>> Dims = inputDims(T, E);
  if (!A || !Dims)
    return std::nullopt;
  llvm::StringRef Values = text(T, A->Detail);
  return OpArgs(std::move(*Dims), parseInputTypes(text(T, A->InputTypes)),
                Values.empty() ? std::vector<std::string>()
                               : parseInputTypes(Values));
}

/// The modelled ops that occur in \p T, by name.
llvm::DenseMap<model::StringId, const OpModel *>
modelsByName(const model::Trace &T) {
  llvm::DenseMap<model::StringId, const OpModel *> Out;
  for (const OpModel &M : opModels())
    if (std::optional<model::StringId> Id = T.Strings.find(M.Name))
      Out[*Id] = &M;
  return Out;
}

/// Whether device event \p E works on the device's own memory: a kernel,
/// a memset, or a copy within the device. Copies to or from the host are
/// transfers (the copies table), not work to rate against the device.
bool onDevice(const model::Trace &T, const model::Event &E) {
  switch (E.Kind) {
  case model::EventKind::Kernel:
  case model::EventKind::Memset:
    return true;
  case model::EventKind::Memcpy: {
    const model::EventArgs *A = T.args(E);
    return A && A->Copy == model::CopyKind::DtoD;
  }
  default:
    return false;
  }
}

/// The time of the device work that op event \p Op launched.
int64_t kernelTime(const model::Trace &T, uint32_t Op) {
  int64_t Ns = 0;
  for (uint32_t W : workLaunchedWithin(T, Op))
    if (onDevice(T, T.Events[W]))
      Ns += T.Events[W].Duration;
  return Ns;
}

} // namespace

int64_t OpRate::param(llvm::StringRef Key, int64_t Default) const {
  for (const auto &[K, V] : Params)
    if (K == Key)
      return V;
  return Default;
}

std::string OpRate::shapeText() const {
  auto List = [](std::initializer_list<int64_t> V) {
    return detect::shapeText(llvm::ArrayRef<int64_t>(V.begin(), V.end()));
  };
  switch (Category) {
  case OpCategory::Gemm:
    return List({param("B", 1), param("M"), param("N"), param("K")});
  case OpCategory::Attention: {
    std::string Out = List(
        {param("B"), param("H_Q"), param("N_Q"), param("N_KV"), param("d_qk")});
    if (param("causal"))
      Out += " causal";
    if (param("H_KV") != param("H_Q"))
      Out += " H_KV " + std::to_string(param("H_KV"));
    if (param("d_v") != param("d_qk"))
      Out += " d_v " + std::to_string(param("d_v"));
    return Out;
  }
  case OpCategory::Conv: {
    // The input and weight shapes, from the parameters.
    Shape In{param("N"), param("C_in")}, Weight, Stride;
    const bool Transposed = param("transposed");
    const int64_t Groups = std::max<int64_t>(1, param("groups", 1));
    Weight = Transposed ? Shape{param("C_in"), param("C_out") / Groups}
                        : Shape{param("C_out"), param("C_in") / Groups};
    for (const auto &[K, V] : Params) {
      llvm::StringRef Key(K);
      if (Key == "L" || Key == "D" || Key == "H" || Key == "W")
        In.push_back(V);
      else if (Key.startswith("kernel_"))
        Weight.push_back(V);
      else if (Key.startswith("stride_"))
        Stride.push_back(V);
    }
    std::string Out = detect::shapeText(In) + " * " + detect::shapeText(Weight);
    if (llvm::any_of(Stride, [](int64_t S) { return S != 1; }))
      Out += " stride " + (llvm::is_splat(Stride) ? std::to_string(Stride[0])
                                                  : detect::shapeText(Stride));
    if (Groups != 1)
      Out += " groups " + std::to_string(Groups);
    if (Transposed)
      Out += " transposed";
    return Out;
  }
  case OpCategory::Elementwise:
  case OpCategory::Normalization:
  case OpCategory::Reduction:
    break;
  }
  // The tensor inputs as recorded.
  std::string Out;
  if (std::optional<std::vector<ArgShapes>> Dims = parseInputDims(InputDims)) {
    std::vector<std::string> Types = parseInputTypes(InputTypes);
    for (size_t I = 0; I < Dims->size(); ++I) {
      const Shape *S = (*Dims)[I].tensor();
      const bool NoDimensions = !S && !(*Dims)[I].IsList && I < Types.size() &&
                                model::scalarTypeSize(Types[I]) > 0;
      if (!S && !NoDimensions)
        continue;
      Out += (Out.empty() ? "" : ", ") +
             (S ? detect::shapeText(*S) : std::string("[]"));
    }
  }
  return Out;
}

std::vector<OpRate> detect::opRates(const model::Trace &T) {
  llvm::DenseMap<model::StringId, const OpModel *> ByName = modelsByName(T);
  if (ByName.empty())
    return {};
  // One pass over the events: the modelled calls, how they nest and
  // which argument set each has. Events are in lane order with enclosing
  // events first, so a call's enclosing calls come before it.
  std::vector<Call> Calls; // by ascending event
  // The call of event \p Event, or NoIndex. An enclosing call is one of the
  // last few found, so the search gallops back from the newest (a hash of
  // every call cost more at millions of calls).
  auto CallOfEvent = [&](uint32_t Event) -> uint32_t {
    size_t Hi = Calls.size(), Step = 1;
    while (Hi > 0 && Calls[Hi - 1].Event > Event) {
      const size_t Lo = Hi > Step ? Hi - Step : 0;
      if (Calls[Lo].Event <= Event) {
        auto It = std::partition_point(
            Calls.begin() + Lo, Calls.begin() + Hi,
            [&](const Call &C) { return C.Event <= Event; });
        Hi = size_t(It - Calls.begin());
        break;
      }
      Hi = Lo;
      Step *= 2;
    }
    return Hi > 0 && Calls[Hi - 1].Event == Event ? uint32_t(Hi - 1)
                                                  : model::NoIndex;
  };
  std::vector<ArgumentSet> Sets;
  // (name, dims) and (types, values) string ids -> argument set, or -1.
  llvm::DenseMap<std::pair<uint64_t, uint64_t>, int32_t> SetOfArgs;
  for (uint32_t I = 0; I < T.Events.size(); ++I) {
    const model::Event &E = T.Events[I];
    if (E.Kind != model::EventKind::Op)
      continue;
    auto Found = ByName.find(E.Name);
    if (Found == ByName.end())
      continue;
    const OpModel &M = *Found->second;
    Call C{I};
    for (uint32_t P = E.Parent; P != model::NoIndex; P = T.Events[P].Parent)
      if (ByName.count(T.Events[P].Name))
        if (uint32_t Above = CallOfEvent(P); Above != model::NoIndex) {
          C.Above = Above;
          break;
        }
    const model::EventArgs *A = T.args(E);
    auto Key = std::make_pair(
        uint64_t(E.Name) << 32 | (A ? A->InputDims : model::EmptyString),
        A ? uint64_t(A->InputTypes) << 32 | A->Detail : 0);
    auto [Cached, New] = SetOfArgs.try_emplace(Key, -1);
    if (New)
      if (std::optional<OpArgs> Args = readArgs(T, E))
        if (std::optional<OpWork> W = modelOp(M, *Args)) {
          Cached->second = int32_t(Sets.size());
          Sets.push_back({&M, I, std::move(*W), {}, {}, {}, {}});
        }
    C.Set = Cached->second;
    if (C.Set >= 0)
      for (uint32_t Up = C.Above;
           Up != model::NoIndex && !Calls[Up].FittingBelow;
           Up = Calls[Up].Above)
        Calls[Up].FittingBelow = true;
    Calls.push_back(C);
  }

  // Which calls count: each kernel set once, in the outermost counted call.
  for (Call &C : Calls) {
    if (C.Above != model::NoIndex)
      C.Covered = Calls[C.Above].Counted || Calls[C.Above].Covered;
    if (C.Covered || C.Set < 0)
      continue;
    ArgumentSet &S = Sets[C.Set];
    if (S.Model->Role == OpRole::Composite && C.FittingBelow)
      continue;
    C.Counted = true;
    const int64_t Ns = kernelTime(T, C.Event);
    if (Ns <= 0)
      continue; // no kernels recorded: nothing to rate
    S.KernelNs.push_back(Ns);
    // FLOPs per ns are GFLOP/s; a thousandth of that is TFLOP/s.
    S.Tflops.push_back(S.Work.Flops / double(Ns) / 1e3);
    S.Tbps.push_back(S.Work.Bytes / double(Ns) / 1e3);
    S.CallOps.push_back(C.Event);
  }

  std::vector<OpRate> Out;
  for (ArgumentSet &S : Sets) {
    if (S.KernelNs.empty())
      continue;
    OpRate R;
    R.Category = S.Work.Category;
    R.Op = S.Model->Name.str();
    R.Dtype = std::move(S.Work.Dtype);
    R.Params = std::move(S.Work.Params);
    R.MatrixUnits = R.Category == OpCategory::Gemm ||
                    R.Category == OpCategory::Conv ||
                    R.Category == OpCategory::Attention;
    R.Flops = S.Work.Flops;
    R.Bytes = S.Work.Bytes;
    R.Calls = S.KernelNs.size();
    for (int64_t Ns : S.KernelNs)
      R.KernelNsTotal += Ns;
    R.KernelNsMedian = support::median(S.KernelNs);
    R.TflopsMedian = support::median(S.Tflops);
    R.TbpsMedian = support::median(S.Tbps);
    R.CallOps = std::move(S.CallOps);
    if (const model::EventArgs *A = T.args(T.Events[S.FirstEvent])) {
      R.InputDims = text(T, A->InputDims).str();
      R.InputTypes = text(T, A->InputTypes).str();
      R.ConcreteInputs = text(T, A->Detail).str();
    }
    Out.push_back(std::move(R));
  }
  llvm::stable_sort(Out, [](const OpRate &A, const OpRate &B) {
    return A.KernelNsTotal > B.KernelNsTotal;
  });
  return Out;
}
