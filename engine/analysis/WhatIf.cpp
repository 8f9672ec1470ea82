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

WhatIfMatcher::WhatIfMatcher(const model::Trace &Tr, const WhatIfQuery &Qu,
                             Remember R)
    : T(Tr), Q(Qu) {
  for (const std::string &N : Q.Names)
    if (auto Id = T.Strings.find(N))
      NameIds.push_back(*Id);
  if (R == Remember::Yes && !NameIds.empty()) {
    Known.resize(T.Events.size());
    Matches.resize(T.Events.size());
  }
}

bool WhatIfMatcher::hostMatches(uint32_t Event) {
  if (NameIds.empty())
    return false;
  // Up the nesting: a host event matches when it or an enclosing event has
  // one of the names. Remembered, the walk stops at the first ancestor
  // already decided, and decides every event it passed.
  llvm::SmallVector<uint32_t, 16> Passed;
  bool M = false;
  for (uint32_t I = Event; I != model::NoIndex; I = T.Events[I].Parent) {
    if (!Known.empty() && Known.test(I)) {
      M = Matches.test(I);
      break;
    }
    if (llvm::is_contained(NameIds, T.Events[I].Name)) {
      M = true;
      break;
    }
    Passed.push_back(I);
  }
  if (!Known.empty())
    for (uint32_t I : Passed) {
      Known.set(I);
      if (M)
        Matches.set(I);
    }
  return M;
}

bool WhatIfMatcher::eventMatches(uint32_t Event) {
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
