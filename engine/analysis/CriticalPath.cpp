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

std::optional<int64_t> CriticalPath::weightOf(uint32_t V, size_t EdgeIndex,
                                              WhatIfMatcher *M,
                                              int64_t S) const {
  const GraphEdge &Ed = G.edges()[EdgeIndex];
  const int64_t W = G.weight(V, Ed);
  if (!M)
    return W;
  return weightUnder(EdgeIndex, W, G.time(Ed.From), *M, S);
}

std::optional<int64_t> CriticalPath::weightUnder(size_t EdgeIndex, int64_t W,
                                                 int64_t From, WhatIfMatcher &M,
                                                 int64_t S) const {
  const GraphEdge &Ed = G.edges()[EdgeIndex];
  const DelaySplit *Split = G.delaySplit(EdgeIndex);
  EdgeFate F = M.fate(Ed, Split != nullptr);
  if (F == EdgeFate::Drop)
    return std::nullopt;
  // Time before the step's start is history: only the part of a stretch
  // inside the step can be removed.
  if (F == EdgeFate::Zero)
    return From < S ? std::min(W, S - From) : 0;
  if (Split) {
    int64_t Cut = 0;
    for (PathCategory Cat : {PathCategory::LaunchLatency, PathCategory::Queued,
                             PathCategory::UnrecordedDependency})
      if (M.removes(Cat))
        Cut += Split->of(Cat);
    W = std::max<int64_t>(0, W - Cut);
  }
  return W;
}

int64_t CriticalPath::run(const TargetInterval &X, const WhatIfQuery *Q) const {
  uint32_t Sink = G.endNodeOf(X.LastWork);
  if (Sink == NoIndex)
    return -1;
  const int64_t S = X.Range.Begin, E = G.time(Sink);
  if (E < S)
    return -1;
  Start = S;
  Memo.reset(G.numNodes());
  std::optional<WhatIfMatcher> M;
  if (Q && !Q->empty())
    M.emplace(C.trace(), *Q);

  // The weight edge K of V adds on this run, or nullopt when the query
  // drops the edge.
  auto WeightOf = [&](uint32_t V, llvm::ArrayRef<GraphEdge> In,
                      size_t K) -> std::optional<int64_t> {
    return weightOf(V, In.data() - G.edges().data() + K, M ? &*M : nullptr, S);
  };
  // Depth first over in-edges from \p Root: an instant is solved once every
  // predecessor in the step (at or after its start) is, which visits the
  // instants the path can pass through in an order that is topological
  // without sorting the whole graph. A predecessor before the step keeps
  // its recorded time, and so does one still being solved (a cycle of
  // zero-length edges between instants of equal time).
  std::vector<DfsFrame> &Stack = DfsStack;
  auto Reach = [&](uint32_t Root) {
    if (Memo.state(Root) != PathMemo::State::Unseen)
      return;
    Memo.open(Root);
    Stack.assign(1, DfsFrame{Root});
    while (!Stack.empty()) {
      DfsFrame &F = Stack.back();
      const uint32_t V = F.Node;
      llvm::ArrayRef<GraphEdge> In = G.inEdges(V);
      const uint32_t FirstEdge = uint32_t(In.data() - G.edges().data());
      int64_t &Best = Memo.dist(V);
      uint32_t &BestEdge = Memo.pred(V);
      bool Descended = false;
      for (; F.Next < In.size(); ++F.Next) {
        const GraphEdge &Ed = In[F.Next];
        const int64_t From = G.time(Ed.From);
        int64_t D = From;
        if (From >= S) {
          PathMemo::State St = Memo.state(Ed.From);
          if (St == PathMemo::State::Unseen) {
            Descended = true;
            break; // solve it first, then come back to this edge
          }
          if (St == PathMemo::State::Done)
            D = Memo.dist(Ed.From);
        }
        std::optional<int64_t> W = WeightOf(V, In, F.Next);
        if (!W)
          continue;
        if (D + *W > Best || (D + *W == Best && BestEdge != NoIndex &&
                              From > G.time(G.edges()[BestEdge].From))) {
          Best = D + *W;
          BestEdge = FirstEdge + F.Next;
        }
      }
      if (Descended) {
        const uint32_t Next = In[F.Next].From;
        Memo.open(Next);
        Stack.push_back(DfsFrame{Next});
        continue;
      }
      // A node without (remaining) predecessors keeps its recorded time,
      // unless it lies after the start of the step: then it cannot move
      // earlier than the step's start.
      if (BestEdge == NoIndex)
        Best = In.empty() ? G.time(V) : S;
      Memo.close(V);
      Stack.pop_back();
    }
  };
  Reach(Sink);
  // Without some time, other work of the step may end last.
  int64_t End = Memo.dist(Sink);
  for (uint32_t W : X.Work) {
    uint32_t N = G.endNodeOf(W);
    if (N == NoIndex || G.time(N) < S || G.time(N) > E)
      continue;
    Reach(N);
    End = std::max(End, Memo.dist(N));
  }
  return End - S;
}

int64_t CriticalPath::lengthWithout(const TargetInterval &X,
                                    const WhatIfQuery &Q) const {
  return run(X, &Q);
}

WhatIfMatcher &CriticalPath::matcherFor(const WhatIfQuery &Q) const {
  for (auto &[Kept, M] : Matchers)
    if (Kept.Categories == Q.Categories && Kept.Names == Q.Names)
      return *M;
  Matchers.emplace_back(Q, std::nullopt);
  auto &[Kept, M] = Matchers.back();
  return M.emplace(C.trace(), Kept, WhatIfMatcher::Remember::Yes);
}

std::vector<int64_t>
CriticalPath::lengthsWithout(const TargetInterval &X,
                             llvm::ArrayRef<WhatIfQuery> Qs) const {
  std::vector<int64_t> Out(Qs.size(), -1);
  uint32_t Sink = G.endNodeOf(X.LastWork);
  if (Sink == NoIndex)
    return Out;
  const int64_t S = X.Range.Begin, E = G.time(Sink);
  if (E < S)
    return Out;
  Start = S;
  Memo.reset(G.numNodes());

  // The walk of run(), without weights: which instants it reaches, and the
  // order in which it solves them (Memo.dist holds each one's place in
  // Order). An in-edge's source counts with its longest path when it was
  // solved before the edge's target, and with its recorded time when it lies
  // before the step or was still open (a cycle), as in run().
  std::vector<uint32_t> &Order = WalkOrder;
  Order.clear();
  std::vector<DfsFrame> &Stack = DfsStack;
  auto Walk = [&](uint32_t Root) {
    if (Memo.state(Root) != PathMemo::State::Unseen)
      return;
    Memo.open(Root);
    Stack.assign(1, DfsFrame{Root});
    while (!Stack.empty()) {
      DfsFrame &F = Stack.back();
      llvm::ArrayRef<GraphEdge> In = G.inEdges(F.Node);
      for (; F.Next < In.size(); ++F.Next) {
        const uint32_t From = In[F.Next].From;
        if (G.time(From) >= S && Memo.state(From) == PathMemo::State::Unseen)
          break;
      }
      if (F.Next < In.size()) {
        const uint32_t Next = In[F.Next].From;
        Memo.open(Next);
        Stack.push_back(DfsFrame{Next});
        continue;
      }
      Memo.dist(F.Node) = int64_t(Order.size());
      Order.push_back(F.Node);
      Memo.close(F.Node);
      Stack.pop_back();
    }
  };
  std::vector<uint32_t> Roots = {Sink};
  Walk(Sink);
  for (uint32_t W : X.Work) {
    uint32_t N = G.endNodeOf(W);
    if (N == NoIndex || G.time(N) < S || G.time(N) > E)
      continue;
    Walk(N);
    Roots.push_back(N);
  }

  // Each solved instant's in-edges with where their source's time comes
  // from: a place in Order, or -1 for its recorded time.
  std::vector<std::pair<int32_t, uint32_t>> &Edges = WalkEdges;
  std::vector<uint32_t> &EdgesFrom = WalkEdgesFrom;
  Edges.clear();
  EdgesFrom.assign(1, 0);
  // With each, what every query reads: the edge's recorded weight and its
  // source's recorded time (looked up once here, not once per query).
  std::vector<std::pair<int64_t, int64_t>> &Recorded = WalkRecorded;
  Recorded.clear();
  for (size_t P = 0; P < Order.size(); ++P) {
    const uint32_t V = Order[P];
    llvm::ArrayRef<GraphEdge> In = G.inEdges(V);
    const uint32_t First = uint32_t(In.data() - G.edges().data());
    for (size_t K = 0; K < In.size(); ++K) {
      const uint32_t From = In[K].From;
      const int64_t FromTime = G.time(From);
      int32_t Place = -1;
      if (FromTime >= S && size_t(Memo.dist(From)) < P)
        Place = int32_t(Memo.dist(From));
      Edges.push_back({Place, First + uint32_t(K)});
      Recorded.push_back({G.weight(V, In[K]), FromTime});
    }
    EdgesFrom.push_back(uint32_t(Edges.size()));
  }

  // One pass over the solved instants in order per query: the longest path
  // into each, as run() finds it.
  std::vector<int64_t> &Dist = WalkDist;
  Dist.resize(Order.size());
  for (size_t Q = 0; Q < Qs.size(); ++Q) {
    WhatIfMatcher *M = Qs[Q].empty() ? nullptr : &matcherFor(Qs[Q]);
    for (size_t P = 0; P < Order.size(); ++P) {
      const uint32_t V = Order[P];
      int64_t Best = std::numeric_limits<int64_t>::min();
      bool Bound = false;
      for (uint32_t K = EdgesFrom[P]; K < EdgesFrom[P + 1]; ++K) {
        const auto [Place, EdgeIndex] = Edges[K];
        const auto [Weight, FromTime] = Recorded[K];
        int64_t W = Weight;
        if (M) {
          std::optional<int64_t> Kept =
              weightUnder(EdgeIndex, Weight, FromTime, *M, S);
          if (!Kept)
            continue;
          W = *Kept;
        }
        const int64_t D = Place >= 0 ? Dist[size_t(Place)] : FromTime;
        Best = Bound ? std::max(Best, D + W) : D + W;
        Bound = true;
      }
      // As in run(): an instant whose in-edges all dropped keeps its
      // recorded time without any, else the step's start.
      if (!Bound)
        Best = EdgesFrom[P] == EdgesFrom[P + 1] ? G.time(V) : S;
      Dist[P] = Best;
    }
    int64_t End = Dist[size_t(Memo.dist(Sink))];
    for (uint32_t N : llvm::ArrayRef<uint32_t>(Roots).drop_front())
      End = std::max(End, Dist[size_t(Memo.dist(N))]);
    Out[Q] = End - S;
  }
  return Out;
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
  int64_t Len = run(X, nullptr);
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
  // Once the path has entered ready work through a queue edge, its time
  // after that work was ready is time the work waited on a full device:
  // queued, whatever ran in front of it.
  int64_t QueuedAfter = std::numeric_limits<int64_t>::max();
  auto Add = [&](PathCategory Cat, int64_t Lo, int64_t Hi, uint32_t Subject,
                 EdgeType Type) {
    if (Hi <= Lo)
      return;
    if (Hi > QueuedAfter && Cat != PathCategory::Queued) {
      int64_t Cut = std::max(Lo, QueuedAfter);
      P.ByCategory[unsigned(PathCategory::Queued)] += Hi - Cut;
      P.Stretches.push_back({{Cut, Hi}, PathCategory::Queued, Subject, Type});
      Hi = Cut;
      if (Hi <= Lo)
        return;
    }
    P.ByCategory[unsigned(Cat)] += Hi - Lo;
    P.Stretches.push_back({{Lo, Hi}, Cat, Subject, Type});
  };
  uint32_t V = G.endNodeOf(X.LastWork);
  while (G.time(V) > S) {
    uint32_t EI = predOf(V);
    if (EI == NoIndex) {
      // Nothing recorded explains when this instant could start.
      Add(PathCategory::Unlinked, S, G.time(V), NoIndex, EdgeType::Work);
      break;
    }
    const GraphEdge &Ed = Edges[EI];
    int64_t From = std::max(S, G.time(Ed.From));
    int64_t Ns = G.time(V) - From;
    if (Ns > 0) {
      // A delay split by the device's state, in time order: latency,
      // then queued and unrecorded in proportion (the step's start may
      // cut the delay's beginning).
      if (const DelaySplit *Sp = G.delaySplit(EI)) {
        // Stretches are collected backwards: the latest part first.
        int64_t T0 = G.time(Ed.From), T1 = G.time(V);
        int64_t LatEnd = std::min(T1, T0 + Sp->LatencyNs);
        int64_t Lo = std::max(From, LatEnd);
        int64_t Rest = Sp->QueuedNs + Sp->UnrecordedNs;
        int64_t Q =
            Rest > 0
                ? int64_t(double(T1 - Lo) * double(Sp->QueuedNs) / double(Rest))
                : 0;
        Add(PathCategory::Queued, T1 - Q, T1, Ed.Subject, Ed.Type);
        Add(PathCategory::UnrecordedDependency, Lo, T1 - Q, Ed.Subject,
            Ed.Type);
        Add(PathCategory::LaunchLatency, From, Lo, Ed.Subject, Ed.Type);
      } else {
        Add(Ed.Category, From, G.time(V), Ed.Subject, Ed.Type);
      }
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
        else if (isDelayCategory(Ed.Category))
          Ch.LatencyNs += Ns;
        else
          Ch.HostNs += Ns;
      }
    }
    if (Ed.Type == EdgeType::Queue) {
      int64_t Ready = G.readyTime(V);
      if (Ready >= 0)
        QueuedAfter = std::min(QueuedAfter, std::max(S, Ready));
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
