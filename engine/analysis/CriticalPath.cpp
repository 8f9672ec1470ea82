//===- analysis/CriticalPath.cpp ------------------------------------------===//
#include "analysis/CriticalPath.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <tuple>

using namespace tracelint;
using namespace tracelint::analysis;
using model::NoIndex;

CriticalPath::CriticalPath(const TraceIndex &Ctx, const DependencyGraph &Gr)
    : C(Ctx), G(Gr) {}

int64_t CriticalPath::run(const TargetInterval &X, const WhatIfQuery *Q,
                          bool KeepPred) const {
  uint32_t Sink = G.endNodeOf(X.LastWork);
  if (Sink == NoIndex)
    return -1;
  int64_t S = X.Range.Begin, E = G.time(Sink);
  First = G.orderLowerBound(S);
  Dist.clear();
  Pred.clear();
  std::optional<WhatIfMatcher> M;
  if (Q && !Q->empty())
    M.emplace(C.trace(), *Q);
  llvm::ArrayRef<uint32_t> Order = G.order();
  for (size_t P = First; P < Order.size(); ++P) {
    uint32_t V = Order[P];
    if (G.time(V) > E)
      break;
    int64_t Best = std::numeric_limits<int64_t>::min();
    uint32_t BestEdge = NoIndex;
    llvm::ArrayRef<GraphEdge> In = G.inEdges(V);
    for (size_t K = 0; K < In.size(); ++K) {
      const GraphEdge &Ed = In[K];
      int64_t From = G.time(Ed.From);
      // A predecessor before the step's first node keeps its recorded time.
      std::optional<size_t> Seen = visited(Ed.From);
      int64_t D = Seen ? Dist[*Seen] : From;
      int64_t W = Ed.Weight;
      if (M) {
        EdgeFate F = M->fate(Ed);
        if (F == EdgeFate::Drop)
          continue;
        // Time before the step's start is history: only the part of a
        // stretch inside the step can be removed.
        if (F == EdgeFate::Zero)
          W = From < S ? std::min(W, S - From) : 0;
      }
      if (D + W > Best || (D + W == Best && BestEdge != NoIndex &&
                           From > G.time(In[BestEdge].From))) {
        Best = D + W;
        BestEdge = uint32_t(K);
      }
    }
    // A node without (remaining) predecessors keeps its recorded time,
    // unless it lies after the start of the step: then it cannot move
    // earlier than the step's start.
    if (BestEdge == NoIndex)
      Best = In.empty() ? G.time(V) : S;
    Dist.push_back(Best);
    if (KeepPred)
      Pred.push_back(BestEdge == NoIndex
                         ? NoIndex
                         : G.inEdges(V).data() - G.edges().data() + BestEdge);
  }
  std::optional<size_t> SinkAt = visited(Sink);
  if (!SinkAt)
    return -1;
  // Without some time, other work of the step may end last.
  int64_t End = Dist[*SinkAt];
  for (uint32_t W : X.Work) {
    uint32_t N = G.endNodeOf(W);
    if (N == NoIndex)
      continue;
    if (std::optional<size_t> At = visited(N))
      End = std::max(End, Dist[*At]);
  }
  return End - S;
}

int64_t CriticalPath::lengthWithout(const TargetInterval &X,
                                    const WhatIfQuery &Q) const {
  return run(X, &Q, false);
}

model::StringId CriticalPath::innermostOp(uint32_t Event) const {
  const model::Trace &T = C.trace();
  for (unsigned Hops = 0; Event != NoIndex && Hops < 64; ++Hops) {
    const model::Event &E = T.Events[Event];
    if (E.Kind == model::EventKind::Op)
      return E.Name;
    Event = E.Parent;
  }
  return model::EmptyString;
}

StepPath CriticalPath::analyze(const TargetInterval &X) const {
  StepPath P;
  P.Target = X;
  int64_t Len = run(X, nullptr, true);
  if (Len < 0)
    return P;
  P.HasPath = true;
  P.LengthNs = Len;
  const model::Trace &T = C.trace();
  int64_t S = X.Range.Begin;
  llvm::ArrayRef<GraphEdge> Edges = G.edges();
  std::map<std::tuple<model::StringId, model::StringId, model::StringId>,
           PathChain>
      Chains;
  auto FirstWork = [&](uint32_t Call) -> model::StringId {
    for (uint32_t W : T.deviceWorkOf(T.Events[Call]))
      if (model::isDeviceWork(T.Events[W].Kind))
        return T.Events[W].Name;
    return model::EmptyString;
  };
  uint32_t V = G.endNodeOf(X.LastWork);
  while (G.time(V) > S) {
    std::optional<size_t> At = visited(V);
    uint32_t EI = At ? Pred[*At] : NoIndex;
    if (EI == NoIndex) {
      // Nothing recorded explains when this instant could start.
      P.ByCategory[unsigned(PathCategory::Unlinked)] += G.time(V) - S;
      P.Stretches.push_back(
          {{S, G.time(V)}, PathCategory::Unlinked, NoIndex, EdgeType::Work});
      break;
    }
    const GraphEdge &Ed = Edges[EI];
    int64_t From = std::max(S, G.time(Ed.From));
    int64_t Ns = G.time(V) - From;
    if (Ns > 0) {
      P.ByCategory[unsigned(Ed.Category)] += Ns;
      P.Stretches.push_back(
          {{From, G.time(V)}, Ed.Category, Ed.Subject, Ed.Type});
      if (Ed.Subject != NoIndex) {
        model::StringId Op = model::EmptyString, Call = model::EmptyString,
                        Work = model::EmptyString;
        const model::Event &Sub = T.Events[Ed.Subject];
        if (model::isDeviceWork(Sub.Kind)) {
          Work = Sub.Name;
          uint32_t L = T.launchOf(Sub);
          if (L != NoIndex) {
            Call = T.Events[L].Name;
            Op = innermostOp(L);
          }
        } else if (Sub.Kind == model::EventKind::Runtime ||
                   Sub.Kind == model::EventKind::Driver) {
          Call = Sub.Name;
          Op = innermostOp(Ed.Subject);
          Work = FirstWork(Ed.Subject);
        } else if (Sub.Kind != model::EventKind::Sync) {
          Op = Sub.Kind == model::EventKind::Op ? Sub.Name
                                                : innermostOp(Ed.Subject);
          if (Op == model::EmptyString)
            Op = Sub.Name;
        }
        PathChain &Ch = Chains[{Op, Call, Work}];
        Ch.Op = Op;
        Ch.Call = Call;
        Ch.Work = Work;
        if (isDeviceCategory(Ed.Category))
          Ch.DeviceNs += Ns;
        else if (Ed.Category == PathCategory::LaunchLatency ||
                 Ed.Category == PathCategory::DeviceGap)
          Ch.LatencyNs += Ns;
        else
          Ch.HostNs += Ns;
      }
    }
    V = Ed.From;
  }
  std::reverse(P.Stretches.begin(), P.Stretches.end());
  for (auto &Entry : Chains)
    if (Entry.first != std::make_tuple(model::EmptyString, model::EmptyString,
                                       model::EmptyString))
      P.Chains.push_back(Entry.second);
  llvm::stable_sort(P.Chains, [&](const PathChain &A, const PathChain &B) {
    return A.totalNs() > B.totalNs();
  });
  return P;
}
