//===- analysis/CriticalPath.h - The longest path of a step -----*- C++ -*-===//
//
// The longest path through the dependency graph from a step's host start to
// the end of the last work the step submitted is the chain of dependencies
// that set the step's completion time: shortening anything off the path
// does not finish the step earlier. With the graph's weights the path's
// length equals the step's target interval (TargetInterval.h); its length is
// split into categories and into the ops, launch calls and device work on
// it (op -> launch -> kernel chains).
//
// A what-if (WhatIf.h) recomputes the longest path with some time removed;
// the difference to the recorded length bounds the gain. Each computation
// walks the step's part of the graph once, depth first from the step's last
// work backwards, visiting only the instants a path to it can pass through.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_ANALYSIS_CRITICALPATH_H
#define TRACELINT_ANALYSIS_CRITICALPATH_H

#include "analysis/DependencyGraph.h"
#include "analysis/PathMemo.h"
#include "analysis/TargetInterval.h"
#include "analysis/WhatIf.h"

#include <array>
#include <deque>
#include <optional>
#include <string>
#include <vector>

namespace tracelint::analysis {

/// One op -> launch -> work chain on the path, with the path time in it.
struct PathChain {
  model::StringId Op = model::EmptyString;   ///< innermost framework op
  model::StringId Call = model::EmptyString; ///< runtime call (or wait)
  model::StringId Work = model::EmptyString; ///< device work
  int64_t HostNs = 0;    ///< host time: submitting, waiting, other work
  int64_t LatencyNs = 0; ///< launch latency and unexplained device delays
  int64_t DeviceNs = 0;  ///< device work
  int64_t totalNs() const { return HostNs + LatencyNs + DeviceNs; }
};

/// One stretch of the path, in time order.
struct PathStretch {
  model::Interval Range;
  PathCategory Category = PathCategory::Unlinked;
  uint32_t Subject = model::NoIndex;
  EdgeType Type = EdgeType::Work;
};

struct StepPath {
  TargetInterval Target;
  /// False when the step submitted no device work: no path to take.
  bool HasPath = false;
  int64_t LengthNs = 0; ///< equals Target.length() when HasPath
  std::array<int64_t, NumPathCategories> ByCategory{};
  std::vector<PathChain> Chains; ///< longest total first
  std::vector<PathStretch> Stretches;
};

class CriticalPath {
public:
  CriticalPath(const TraceIndex &C, const DependencyGraph &G);
  /// Not copied: its matchers refer to its own copies of their queries.
  CriticalPath(const CriticalPath &) = delete;
  CriticalPath &operator=(const CriticalPath &) = delete;

  /// The path of one target, attributed.
  StepPath analyze(const TargetInterval &X) const;
  /// The length the path of \p X would have without what \p Q names (the
  /// recorded length for an empty query); -1 without a path.
  int64_t lengthWithout(const TargetInterval &X, const WhatIfQuery &Q) const;
  /// lengthWithout() of each of \p Qs, from one walk of the step's part of
  /// the graph: which instants a path can pass through, and in which order
  /// they are solved, do not depend on the query, only the edges' weights
  /// do. Each further query costs one pass over the reached instants' edges
  /// in that order, a fraction of a walk.
  std::vector<int64_t> lengthsWithout(const TargetInterval &X,
                                      llvm::ArrayRef<WhatIfQuery> Qs) const;

private:
  const TraceIndex &C;
  const DependencyGraph &G;
  /// The last run's instants (PathMemo.h): the ones it reached backwards
  /// from the step's last work, not arrays over the whole graph, and no
  /// order of the whole graph to walk them in.
  mutable PathMemo Memo;
  /// An instant being solved and its next in-edge to look at (its best
  /// path so far is in Memo).
  struct DfsFrame {
    uint32_t Node;
    uint32_t Next = 0;
  };
  mutable std::vector<DfsFrame> DfsStack;
  /// lengthsWithout()'s scratch: the solved instants in order, their
  /// in-edges (the source's place in the order, or -1, and the edge) from
  /// WalkEdgesFrom[P], and the longest path into each.
  mutable std::vector<uint32_t> WalkOrder;
  mutable std::vector<std::pair<int32_t, uint32_t>> WalkEdges;
  mutable std::vector<uint32_t> WalkEdgesFrom;
  mutable std::vector<int64_t> WalkDist;
  /// lengthsWithout()'s in-edges' recorded weights and sources' times.
  mutable std::vector<std::pair<int64_t, int64_t>> WalkRecorded;
  /// lengthsWithout()'s matchers, one per query seen (a deque: a matcher
  /// refers to its query, which must not move). Which events a query's
  /// names match does not depend on the step, so the next step reuses it.
  mutable std::deque<std::pair<WhatIfQuery, std::optional<WhatIfMatcher>>>
      Matchers;
  WhatIfMatcher &matcherFor(const WhatIfQuery &Q) const;
  /// The weight edge \p EdgeIndex into \p V adds in a run from step start
  /// \p S under \p M's query (none: every recorded weight), or nullopt when
  /// the query drops the edge.
  std::optional<int64_t> weightOf(uint32_t V, size_t EdgeIndex,
                                  WhatIfMatcher *M, int64_t S) const;
  /// The same for the edge's recorded weight \p W and its source's recorded
  /// time \p From, under \p M's query.
  std::optional<int64_t> weightUnder(size_t EdgeIndex, int64_t W, int64_t From,
                                     WhatIfMatcher &M, int64_t S) const;
  mutable int64_t Start = 0;
  /// The in-edge of the last run's path into \p Node, or NoIndex: only
  /// instants at or after the step's start have one (earlier ones keep
  /// their recorded time).
  uint32_t predOf(uint32_t Node) const {
    if (G.time(Node) < Start || Memo.state(Node) != PathMemo::State::Done)
      return model::NoIndex;
    return Memo.pred(Node);
  }

  /// Longest-path pass; returns the sink's distance, or -1. Memo keeps
  /// each reached instant's best in-edge for analyze().
  int64_t run(const TargetInterval &X, const WhatIfQuery *Q) const;
  model::StringId innermostOp(uint32_t Event) const;
};

} // namespace tracelint::analysis

#endif
