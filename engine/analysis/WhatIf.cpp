//===- analysis/WhatIf.cpp ------------------------------------------------===//
#include "analysis/WhatIf.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

using namespace tracelint;
using namespace tracelint::analysis;

std::string WhatIfQuery::describe() const {
  std::string S;
  for (unsigned I = 0; I < NumPathCategories; ++I)
    if (Categories.test(I)) {
      if (!S.empty())
        S += " + ";
      S += pathCategoryName(PathCategory(I)).str();
    }
  for (const std::string &N : Names) {
    if (!S.empty())
      S += " + ";
    S += N;
  }
  return S;
}

bool WhatIfQuery::parse(llvm::StringRef Text, WhatIfQuery &Q,
                        std::string &Error, BareTerms Bare) {
  llvm::SmallVector<llvm::StringRef, 4> Parts;
  Text.split(Parts, ',', -1, false);
  if (Parts.empty()) {
    Error = "empty what-if query; expected 'category:NAME' or 'name:NAME'";
    return false;
  }
  for (llvm::StringRef P : Parts) {
    P = P.trim();
    auto [Kind, Value] = P.split(':');
    if (Kind == "category") {
      PathCategory C;
      if (!parsePathCategory(Value, C)) {
        Error = "unknown path category '" + Value.str() + "'; expected one of";
        for (unsigned I = 0; I < NumPathCategories; ++I)
          Error += (I ? ", " : " ") + pathCategoryName(PathCategory(I)).str();
        return false;
      }
      Q.Categories.set(unsigned(C));
    } else if (Kind == "name" && !Value.empty()) {
      Q.Names.push_back(Value.str());
    } else if (Bare == BareTerms::AsNames && Kind != "name" && !P.empty()) {
      // A term that is also a category could mean either.
      PathCategory C;
      if (parsePathCategory(P, C)) {
        Error = "what-if term '" + P.str() +
                "' is a path category and could be an event name: write "
                "'category:" +
                P.str() + "' or 'name:" + P.str() + "'";
        return false;
      }
      Q.Names.push_back(P.str());
    } else {
      Error = "what-if term '" + P.str() +
              "' is neither 'category:NAME' nor 'name:NAME'";
      return false;
    }
  }
  return true;
}

WhatIfMatcher::WhatIfMatcher(const model::Trace &Tr, const WhatIfQuery &Qu)
    : T(Tr), Q(Qu) {
  for (const std::string &N : Q.Names)
    if (auto Id = T.Strings.find(N))
      NameIds.push_back(*Id);
}

bool WhatIfMatcher::hostMatches(uint32_t Event) const {
  if (NameIds.empty())
    return false;
  // Up the nesting: a host event matches when it or an enclosing event has
  // one of the names. The parents are a few events earlier on the same
  // lane; a memo of every event asked about cost more (a hash table that
  // grows with the steps walked) than walking them again.
  for (uint32_t I = Event; I != model::NoIndex; I = T.Events[I].Parent)
    if (llvm::is_contained(NameIds, T.Events[I].Name))
      return true;
  return false;
}

bool WhatIfMatcher::eventMatches(uint32_t Event) const {
  if (NameIds.empty() || Event == model::NoIndex)
    return false;
  const model::Event &E = T.Events[Event];
  if (!model::isDeviceWork(E.Kind))
    return hostMatches(Event);
  if (llvm::is_contained(NameIds, E.Name))
    return true;
  return hostMatches(T.launchOf(E));
}

EdgeFate WhatIfMatcher::fate(const GraphEdge &E, bool IgnoreCategory) {
  bool ByCategory = !IgnoreCategory && Q.Categories.test(unsigned(E.Category));
  switch (E.Type) {
  case EdgeType::Work:
    return ByCategory || eventMatches(E.Subject) ? EdgeFate::Zero
                                                 : EdgeFate::Keep;
  case EdgeType::HostWait:
    return ByCategory || hostMatches(E.Subject) ? EdgeFate::Drop
                                                : EdgeFate::Keep;
  case EdgeType::Launch:
    return ByCategory || hostMatches(E.Subject) ? EdgeFate::Zero
                                                : EdgeFate::Keep;
  case EdgeType::Stream:
  case EdgeType::EventWait:
    // Device order stays; only the unexplained delay can be removed.
    return ByCategory ? EdgeFate::Zero : EdgeFate::Keep;
  case EdgeType::Queue:
    return ByCategory ? EdgeFate::Drop : EdgeFate::Keep;
  }
  return EdgeFate::Keep;
}
