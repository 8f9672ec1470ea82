//===- analysis/WhatIf.h - "What if this took no time?" ---------*- C++ -*-===//
//
// A what-if query names time to remove from the dependency graph: whole
// categories (all launch time, all waits) and/or events by exact name (an
// op, a runtime call or a kernel). The critical path recomputed without that
// time bounds what completion could gain by removing it: the gain can be
// smaller in practice, never larger, as long as the recorded dependencies
// are all the dependencies there are.
//
// What removing means, per edge:
//  - a matching stretch of host work or device work takes no time;
//  - a matching wait no longer waits: its dependency on the awaited work is
//    dropped (the host continues at once);
//  - the delay between a matching launch and its work vanishes;
//  - removing `queued` drops the queue edges (the work no longer waits for
//    other streams' work in front of it); a delay edge split by the
//    device's state loses the parts of the removed categories.
// An event matches a name when it, or an enclosing host event, has that
// name; device work also matches through the call that launched it, so
// naming an op removes its host time, its waits and the work it launched.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_ANALYSIS_WHATIF_H
#define TRACELINT_ANALYSIS_WHATIF_H

#include "analysis/DependencyGraph.h"
#include "analysis/PathCategory.h"

#include "llvm/ADT/BitVector.h"

#include <bitset>
#include <string>
#include <vector>

namespace tracelint::analysis {

struct WhatIfQuery {
  std::bitset<NumPathCategories> Categories;
  std::vector<std::string> Names;

  bool empty() const { return Categories.none() && Names.empty(); }
  /// "launch" / "aten::mm" / "wait + cudaStreamSynchronize".
  std::string describe() const;
  /// Whether parse() takes a term without a "category:" or "name:" prefix
  /// as an event name. Rule files refuse it (a misspelt prefix would
  /// silently match nothing); `path --what-if`, typed by people, takes
  /// "aten::mm" for "name:aten::mm" unless the term is also a category.
  enum class BareTerms : bool { Refuse, AsNames };
  /// Parses "category:NAME" or "name:NAME" (several with ','): the form of
  /// rule files and of `path --what-if`. Fails on an unknown category.
  static bool parse(llvm::StringRef Text, WhatIfQuery &Q, std::string &Error,
                    BareTerms Bare = BareTerms::Refuse);
};

/// How a query treats one graph edge.
enum class EdgeFate : uint8_t { Keep, Zero, Drop };

/// Decides the fate of edges for one query.
class WhatIfMatcher {
public:
  /// Whether the matcher remembers, per event, whether the query's names
  /// match it or an enclosing event: worth its two bits per event of the
  /// trace for a matcher that serves many steps, not for one step's run.
  enum class Remember : bool { No, Yes };
  WhatIfMatcher(const model::Trace &T, const WhatIfQuery &Q,
                Remember R = Remember::No);
  /// With \p IgnoreCategory, only names decide (for an edge whose time
  /// the caller splits by category, DependencyGraph::delaySplit()).
  EdgeFate fate(const GraphEdge &E, bool IgnoreCategory = false);
  bool removes(PathCategory C) const { return Q.Categories.test(unsigned(C)); }

private:
  const model::Trace &T;
  const WhatIfQuery &Q;
  std::vector<model::StringId> NameIds;
  /// With Remember::Yes and names: the events already decided, and which
  /// of them match.
  llvm::BitVector Known, Matches;
  bool hostMatches(uint32_t Event);
  bool eventMatches(uint32_t Event);
};

} // namespace tracelint::analysis

#endif
