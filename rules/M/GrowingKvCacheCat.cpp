//===- rules/M/GrowingKvCacheCat.cpp - M007 growing concatenated cache ----===//
//
// An autoregressive decode that keeps its key/value cache as a tensor and
// appends each token with torch.cat([past, new], dim=seq) copies the whole
// cache at every token, in every layer: the copying per token grows with
// the sequence, the total with its square, and every token allocates a new,
// larger cache. A preallocated (static) cache writes one token in place.
//
// The detector reads the recorded input shapes of aten::cat (and its
// aliases concat and concatenate). A call whose inputs differ in exactly one
// dimension concatenates along it; its output is their sum there. Calls are
// grouped by thread, op, input count, rank, that dimension and the output's
// other dimensions. Within a group, the output sizes along the
// concatenated dimension, with runs of equal sizes merged (the layers of one
// token, the key and the value), form levels; a run of at least
// `min-growth-steps` levels that each grow by the same small step is a
// growing cache. The device work those calls launched, as a union per
// measured window, is the impact: the most that making the appends free
// could save.
//
//===----------------------------------------------------------------------===//
#include "rules/BuiltinDetectors.h"
#include "rules/detectors/DetectorSupport.h"
#include "rules/detectors/Shapes.h"

#include "support/Count.h"
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

bool isCatName(llvm::StringRef N) {
  return N == "aten::cat" || N == "aten::concat" || N == "aten::concatenate";
}

/// True when an enclosing op of \p E is a cat too (aten::concat calls
/// aten::cat): each logical call is read once, at its outermost op.
bool insideCat(const model::Trace &T, const Event &E) {
  return anyEnclosing(T, E, [&](const Event &Up) {
    return Up.Kind == EventKind::Op && isCatName(T.name(Up));
  });
}

/// A cat call whose concatenated dimension is known.
struct CatCall {
  uint32_t Op = model::NoIndex;
  std::vector<std::vector<int64_t>> Inputs;
  std::vector<int64_t> Output;
};

enum class Reading { Known, Ambiguous, NoListShapes, Unreadable };

/// The dimension in which the inputs \p Inputs differ (all of rank
/// \p Rank), when there is exactly one.
Reading concatenatedDim(const std::vector<std::vector<int64_t>> &Inputs,
                        size_t Rank, size_t &Dim) {
  std::vector<size_t> Differ;
  for (size_t D = 0; D < Rank; ++D)
    if (llvm::any_of(Inputs, [&](const std::vector<int64_t> &S) {
          return S[D] != Inputs.front()[D];
        }))
      Differ.push_back(D);
  if (Differ.empty())
    return Reading::Ambiguous; // equal shapes: any dimension could be it
  if (Differ.size() > 1)
    return Reading::Unreadable; // no valid cat differs in two dimensions
  Dim = Differ.front();
  return Reading::Known;
}

/// Reads the inputs of a cat from its parsed "Input Dims": the first
/// tensor-list argument, less the legacy empty 1-D tensors that cat skips.
/// Known: the inputs differ in exactly one dimension, \p Dim.
Reading readCat(const std::vector<ArgShapes> &Args, CatCall &C, size_t &Dim) {
  auto It = llvm::find_if(Args, [](const ArgShapes &A) { return A.IsList; });
  if (It == Args.end())
    // Older profilers record a list argument as [] ("[[], []]" for a cat):
    // the call has no tensor shapes to read. Anything else is not a cat's.
    return llvm::all_of(Args,
                        [](const ArgShapes &A) { return A.Tensors.empty(); })
               ? Reading::NoListShapes
               : Reading::Unreadable;
  for (const Shape &S : It->Tensors)
    if (!(S.size() == 1 && S[0] == 0))
      C.Inputs.emplace_back(S.begin(), S.end());
  if (C.Inputs.size() < 2)
    return Reading::Ambiguous; // a copy of one tensor: nothing is appended
  const size_t Rank = C.Inputs.front().size();
  if (Rank == 0)
    return Reading::Unreadable; // cat needs at least 1-D tensors
  for (const std::vector<int64_t> &S : C.Inputs)
    if (S.size() != Rank)
      return Reading::Unreadable;
  Reading R = concatenatedDim(C.Inputs, Rank, Dim);
  if (R != Reading::Known)
    return R;
  C.Output = C.Inputs.front();
  C.Output[Dim] = 0;
  for (const std::vector<int64_t> &S : C.Inputs)
    C.Output[Dim] += S[Dim];
  return Reading::Known;
}

/// "[1, 8, *, 64]": the output shape with the concatenated dimension open.
std::string keyShape(const std::vector<int64_t> &Out, size_t Dim) {
  std::string S = "[";
  for (size_t I = 0; I < Out.size(); ++I)
    S += (I ? ", " : "") +
         (I == Dim ? std::string("*") : std::to_string(Out[I]));
  return S + "]";
}

std::string inputsText(const std::vector<std::vector<int64_t>> &In) {
  std::string S;
  for (size_t I = 0; I < In.size(); ++I)
    S += (I ? " + " : "") + shapeText(In[I]);
  return S;
}

struct Group {
  std::string Op, Shape;
  size_t Dim = 0;
  std::vector<CatCall> Calls; ///< in time order (one thread)
};

/// The trace's cat calls, read once and grouped by thread, op, input
/// count, and output shape with the concatenated dimension open.
struct CatCalls {
  std::map<std::string, Group> Groups;
  uint64_t Cats = 0, WithShapes = 0, Unreadable = 0, NoListShapes = 0;
};

/// Reads the outermost cat \p I on host lane \p Lane.
void readCatCall(const model::Trace &T, uint32_t Lane, uint32_t I,
                 CatCalls &S) {
  const Event &E = T.Events[I];
  ++S.Cats;
  const model::EventArgs *A = T.args(E);
  if (!A || A->InputDims == model::EmptyString)
    return;
  ++S.WithShapes;
  std::optional<std::vector<ArgShapes>> Args =
      parseInputDims(T.Strings.get(A->InputDims));
  CatCall C;
  C.Op = I;
  size_t Dim = 0;
  Reading R = Args ? readCat(*Args, C, Dim) : Reading::Unreadable;
  S.Unreadable += R == Reading::Unreadable;
  S.NoListShapes += R == Reading::NoListShapes;
  if (R != Reading::Known)
    return;
  std::string Shape = keyShape(C.Output, Dim);
  std::string Key =
      llvm::formatv("{0}|{1}|{2}|{3}", Lane, T.name(E), C.Inputs.size(), Shape)
          .str();
  Group &G = S.Groups[Key];
  G.Op = T.name(E).str();
  G.Shape = Shape;
  G.Dim = Dim;
  G.Calls.push_back(std::move(C));
}

CatCalls collectCats(const model::Trace &T) {
  CatCalls S;
  for (uint32_t LI = 0; LI < T.Lanes.size(); ++LI) {
    const model::Lane &L = T.Lanes[LI];
    if (L.Kind != model::LaneKind::HostThread)
      continue;
    for (uint32_t I = L.Begin; I < L.End; ++I) {
      const Event &E = T.Events[I];
      if (E.Kind == EventKind::Op && isCatName(T.name(E)) && !insideCat(T, E))
        readCatCall(T, LI, I, S);
    }
  }
  return S;
}

/// Calls of a group with one output size along the concatenated dimension.
struct Level {
  int64_t Size = 0;
  std::vector<size_t> Calls; ///< indices into Group::Calls
};

/// A run of levels that grow by Step each.
struct Chain {
  const Group *G = nullptr;
  std::vector<Level> Levels;
  int64_t Step = 0;
  size_t calls() const {
    size_t N = 0;
    for (const Level &L : Levels)
      N += L.Calls.size();
    return N;
  }
};

/// The group's calls with runs of equal output sizes merged (the layers of
/// one token, the key and the value).
std::vector<Level> levelsOf(const Group &G) {
  std::vector<Level> Levels;
  for (size_t I = 0; I < G.Calls.size(); ++I) {
    int64_t Size = G.Calls[I].Output[G.Dim];
    if (Levels.empty() || Levels.back().Size != Size)
      Levels.push_back({Size, {}});
    Levels.back().Calls.push_back(I);
  }
  return Levels;
}

/// The runs of at least \p MinLevels levels in each group that each grow by
/// the same step, at most \p MaxStep.
std::vector<Chain> findChains(const CatCalls &S, size_t MinLevels,
                              int64_t MaxStep) {
  std::vector<Chain> Chains;
  for (const auto &[Key, G] : S.Groups) {
    std::vector<Level> Levels = levelsOf(G);
    size_t K = 0;
    while (K + 1 < Levels.size()) {
      int64_t Step = Levels[K + 1].Size - Levels[K].Size;
      if (Step <= 0 || Step > MaxStep) {
        ++K;
        continue;
      }
      size_t J = K + 1;
      while (J + 1 < Levels.size() &&
             Levels[J + 1].Size - Levels[J].Size == Step)
        ++J;
      if (J - K + 1 >= MinLevels) {
        Chain Ch;
        Ch.G = &G;
        Ch.Step = Step;
        Ch.Levels.assign(Levels.begin() + K, Levels.begin() + J + 1);
        Chains.push_back(std::move(Ch));
      }
      K = J;
    }
  }
  return Chains;
}

/// Without a growing run: why the rule cannot judge, or "" to stay quiet
/// (when most calls could be read).
std::string whyNoChains(const CatCalls &S) {
  const uint64_t Unread = S.Unreadable + S.NoListShapes;
  if (Unread <= S.WithShapes - Unread)
    return "";
  if (S.NoListShapes >= S.Unreadable)
    return llvm::formatv(
               "{0} of {1} concatenation ops (aten::cat) "
               "recorded no shapes for their tensor-list input (\"[]\": "
               "older PyTorch profilers do not record the shapes inside a "
               "list); profile with record_shapes=True on a PyTorch "
               "release that records one shape per listed tensor",
               Unread, S.WithShapes)
        .str();
  return llvm::formatv("{0} of {1} concatenation ops "
                       "(aten::cat) recorded input shapes that could not "
                       "be read as a list of tensor shapes",
                       Unread, S.WithShapes)
      .str();
}

/// The growing calls and their device work (a call at the boundary of two
/// chains is counted once).
struct Appends {
  std::set<uint32_t> Ops;
  std::vector<uint32_t> Work;
};

Appends appendsOf(const model::Trace &T, const std::vector<Chain> &Chains) {
  Appends A;
  for (const Chain &Ch : Chains)
    for (const Level &L : Ch.Levels)
      for (size_t I : L.Calls)
        if (A.Ops.insert(Ch.G->Calls[I].Op).second)
          for (uint32_t D : workLaunchedWithin(T, Ch.G->Calls[I].Op))
            A.Work.push_back(D);
  return A;
}

/// The longest chain speaks for the finding (ties: more calls, then the
/// group key, for a stable choice).
const Chain &longestChain(const std::vector<Chain> &Chains) {
  return *std::max_element(Chains.begin(), Chains.end(),
                           [](const Chain &X, const Chain &Y) {
                             if (X.Levels.size() != Y.Levels.size())
                               return X.Levels.size() < Y.Levels.size();
                             if (X.calls() != Y.calls())
                               return X.calls() < Y.calls();
                             return X.G->Shape > Y.G->Shape;
                           });
}

/// The summed duration of the device work of each call (for the per-call
/// figures of the evidence; the impact uses unions).
int64_t callDeviceNs(const model::Trace &T, const CatCall &C) {
  int64_t Ns = 0;
  for (uint32_t D : workLaunchedWithin(T, C.Op))
    Ns += T.Events[D].Duration;
  return Ns;
}

int64_t levelDeviceNs(const model::Trace &T, const Chain &Ch, const Level &L) {
  std::vector<int64_t> V;
  for (size_t I : L.Calls)
    V.push_back(callDeviceNs(T, Ch.G->Calls[I]));
  return median(std::move(V));
}

/// The longest call of the chain's last level: the largest copy.
const CatCall &longestLastCall(const model::Trace &T, const Chain &Ch) {
  const Group &G = *Ch.G;
  const CatCall *Longest = &G.Calls[Ch.Levels.back().Calls.front()];
  for (size_t I : Ch.Levels.back().Calls)
    if (T.Events[G.Calls[I].Op].Duration > T.Events[Longest->Op].Duration)
      Longest = &G.Calls[I];
  return *Longest;
}

/// The placeholders that describe the chain \p Top: its op, shapes, growth
/// and the device time of its first and last appends.
void describeChain(const model::Trace &T, const Chain &Top,
                   std::map<std::string, Value> &V) {
  const Group &G = *Top.G;
  const CatCall &First = G.Calls[Top.Levels.front().Calls.front()];
  const CatCall &Last = G.Calls[Top.Levels.back().Calls.front()];
  V["op"] = G.Op;
  V["levels"] = count(int64_t(Top.Levels.size()));
  V["growth"] = count(Top.Step);
  V["dim"] = Value::number(double(G.Dim), 0);
  V["key_shape"] = G.Shape;
  V["first_shape"] = shapeText(First.Output);
  V["last_shape"] = shapeText(Last.Output);
  V["first_inputs"] = inputsText(First.Inputs);
  V["last_inputs"] = inputsText(Last.Inputs);
  V["per_level"] = count(int64_t(Top.Levels.front().Calls.size()));
  V["first_call_time"] = dur(levelDeviceNs(T, Top, Top.Levels.front()));
  V["last_call_time"] = dur(levelDeviceNs(T, Top, Top.Levels.back()));
}

/// The placeholders of the appends' device work, measured in the windows.
void describeAppends(const TraceIndex &Ctx, const Appends &A,
                     const WorkMeasure &M, size_t Sites, int64_t Impact,
                     std::map<std::string, Value> &V) {
  V["value"] = dur(Impact);
  V["calls"] = count(int64_t(A.Ops.size()));
  V["sites"] = count(int64_t(Sites));
  V["cat_time"] = dur(M.UnionNs);
  V["busy"] = dur(M.BusyNs);
  V["share"] = pct(M.shareOfBusy());
  V["kernels"] = count(int64_t(M.Count));
  V["per_step"] = dur(M.medianPerWindow());
  V["top_names"] = joinNames(namesByCount(Ctx.trace(), A.Work), 2);
  V["impact"] = dur(Impact);
  V["target"] = Ctx.describeTarget();
  describeWindows(Ctx.measureWindows(), V);
}

/// The other runs, and the calls whose shapes could not be read.
void addChainEvidence(const CatCalls &S, const std::vector<Chain> &Chains,
                      const Appends &A, Detection &Det) {
  if (Chains.size() > 1)
    Det.ExtraEvidence.push_back(
        llvm::formatv("{0} growing runs in all (call sites or separate "
                      "generations), {1}; the run shown is the longest",
                      Chains.size(),
                      support::formatCount(int64_t(A.Ops.size()), "call"))
            .str());
  if (S.Unreadable + S.NoListShapes)
    Det.ExtraEvidence.push_back(
        llvm::formatv("{0} more concatenation calls recorded shapes that "
                      "could not be read and are not counted",
                      S.Unreadable + S.NoListShapes)
            .str());
}

} // namespace

Outcome rules::runGrowingKvCacheCat(const TraceIndex &Ctx,
                                    const RuleOptions &Opts,
                                    std::vector<Detection> &Out) {
  const model::Trace &T = Ctx.trace();
  const size_t MinLevels =
      size_t(std::max(2.0, Opts.number("min-growth-steps")));
  const int64_t MaxStep =
      std::max<int64_t>(1, int64_t(Opts.number("max-step")));
  const double MinTargetShare = Opts.number("min-share-of-step");

  CatCalls S = collectCats(T);
  if (S.Cats > 0 && S.WithShapes == 0)
    return Outcome::cannotJudge(
        llvm::formatv("{0} concatenation ops (aten::cat) "
                      "ran, but the trace has no input shapes for them; "
                      "profile with record_shapes=True",
                      S.Cats)
            .str());
  std::vector<Chain> Chains = findChains(S, MinLevels, MaxStep);
  if (Chains.empty()) {
    std::string Why = whyNoChains(S);
    return Why.empty() ? Outcome::ran() : Outcome::cannotJudge(Why);
  }
  Appends A = appendsOf(T, Chains);
  if (A.Work.empty())
    return Outcome::ran(); // host-side tensors: no device time to gain
  WorkMeasure M = measureWork(Ctx, Ctx.measureWindows(), A.Work);
  if (M.Count == 0 || M.BusyNs <= 0)
    return Outcome::ran();
  const int64_t Target = Ctx.targetNs();
  const int64_t Impact = std::min(M.medianPerWindow(), Target);
  if (Impact <= 0 || double(Impact) < MinTargetShare * double(Target))
    return Outcome::ran();

  const Chain &Top = longestChain(Chains);
  const Event &Ex = T.Events[longestLastCall(T, Top).Op];
  Detection Det;
  describeChain(T, Top, Det.Values);
  describeAppends(Ctx, A, M, Chains.size(), Impact, Det.Values);
  Det.Values["example"] = eventAt(Ctx, Ex);
  Det.Examples.push_back(example(Ctx, Ex));
  std::vector<uint32_t> ExWork = workLaunchedWithin(T, T.indexOf(Ex));
  if (!ExWork.empty())
    Det.Examples.push_back(example(Ctx, T.Events[ExWork.front()]));
  addChainEvidence(S, Chains, A, Det);
  Det.ImpactNs = Impact;
  Det.PerWindowNs = M.PerWindow;
  // On the critical path: the appends' kernels taking no time. Other calls
  // sharing those kernel names are removed too: a looser, still safe cap.
  Det.PathQuery = namesQuery(T, A.Work);
  Det.Window = Ctx.measureWindows().describe();
  Det.Subject = Top.G->Op + " " + Top.G->Shape;
  // The growth is read from the shapes themselves; what a static cache
  // gains depends on what replaces the copies.
  Det.Confidence = 0.7;
  Out.push_back(std::move(Det));
  return Outcome::ran();
}
