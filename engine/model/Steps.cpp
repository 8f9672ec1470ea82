//===- model/Steps.cpp ----------------------------------------------------===//
#include "model/Steps.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"

#include <algorithm>

using namespace tracelint::model;

size_t tracelint::model::defineStepsFromRanges(Trace &T, llvm::StringRef Name) {
  auto Id = T.Strings.find(Name);
  if (!Id)
    return 0;
  auto IsRange = [&](const Event &E) {
    return E.Kind == EventKind::Annotation && E.Name == *Id &&
           !E.hasFlag(FlagInstant);
  };
  uint32_t Best = NoIndex;
  size_t BestCount = 0;
  for (uint32_t L = 0; L < T.Lanes.size(); ++L) {
    const Lane &Ln = T.Lanes[L];
    if (Ln.Kind != LaneKind::HostThread)
      continue;
    size_t Count = llvm::count_if(T.events(Ln), IsRange);
    if (Count > BestCount) {
      Best = L;
      BestCount = Count;
    }
  }
  if (Best == NoIndex)
    return 0;

  std::vector<Step> Steps;
  const Lane &L = T.Lanes[Best];
  int64_t OpenEnd = INT64_MIN;
  for (uint32_t I = L.Begin; I < L.End; ++I) {
    const Event &E = T.Events[I];
    if (!IsRange(E))
      continue;
    // Events are sorted by start, enclosing ones first: a range that starts
    // before the current step ends is nested in it (or overlaps it).
    if (E.Start < OpenEnd)
      continue;
    Steps.push_back({int64_t(Steps.size()), E.Start, E.end(), I});
    OpenEnd = E.end();
  }
  T.Steps = std::move(Steps);
  T.StepsFrom = StepSource::Named;
  T.StepRangeName = Name.str();
  T.StepRangesChosen = false;
  return T.Steps.size();
}

namespace {

/// One range name's top-level ranges on one host thread.
struct Candidate {
  StringId Name;
  size_t Count = 0;
  int64_t Covered = 0;
};

} // namespace

std::string tracelint::model::iterationRanges(const Trace &T) {
  if (!T.Steps.empty())
    return "";
  const int64_t Window = T.WindowEnd - T.WindowStart;
  if (Window <= 0)
    return "";
  std::vector<Candidate> Best;
  for (const Lane &L : T.Lanes) {
    if (L.Kind != LaneKind::HostThread)
      continue;
    // Per name on this lane: the ranges that start after the previous one
    // of the name ended (a nested one belongs to its parent).
    llvm::DenseMap<StringId, std::pair<int64_t, std::vector<int64_t>>> ByName;
    for (const Event &E : T.events(L)) {
      if (E.Kind != EventKind::Annotation || E.hasFlag(FlagInstant) ||
          E.Duration <= 0)
        continue;
      auto &[OpenEnd, Lengths] = ByName[E.Name];
      if (!Lengths.empty() && E.Start < OpenEnd)
        continue;
      Lengths.push_back(E.Duration);
      OpenEnd = E.end();
    }
    for (auto &[Name, Entry] : ByName) {
      std::vector<int64_t> &Lengths = Entry.second;
      if (Lengths.size() < 3)
        continue;
      std::vector<int64_t> Sorted = Lengths;
      std::nth_element(Sorted.begin(), Sorted.begin() + Sorted.size() / 2,
                       Sorted.end());
      const int64_t Median = Sorted[Sorted.size() / 2];
      size_t Similar = llvm::count_if(Lengths, [&](int64_t D) {
        return 2 * D >= Median && D <= 2 * Median;
      });
      int64_t Covered = 0;
      for (int64_t D : Lengths)
        Covered += D;
      if (4 * Similar < 3 * Lengths.size() || 4 * Covered < Window)
        continue;
      Best.push_back({Name, Lengths.size(), Covered});
    }
  }
  if (Best.empty())
    return "";
  const Candidate &Win = *std::min_element(
      Best.begin(), Best.end(), [](const Candidate &A, const Candidate &B) {
        if (A.Covered != B.Covered)
          return A.Covered > B.Covered;
        return A.Count < B.Count;
      });
  return T.Strings.get(Win.Name).str();
}

std::vector<std::pair<std::string, size_t>>
tracelint::model::frequentRangeNames(const Trace &T, size_t Max) {
  llvm::DenseMap<StringId, size_t> Counts;
  for (const Lane &L : T.Lanes) {
    if (L.Kind != LaneKind::HostThread)
      continue;
    for (const Event &E : T.events(L))
      if (E.Kind == EventKind::Annotation && !E.hasFlag(FlagInstant))
        ++Counts[E.Name];
  }
  std::vector<std::pair<std::string, size_t>> Out;
  Out.reserve(Counts.size());
  for (auto &[Id, N] : Counts)
    Out.emplace_back(T.Strings.get(Id).str(), N);
  llvm::sort(Out, [](const auto &A, const auto &B) {
    if (A.second != B.second)
      return A.second > B.second;
    return A.first < B.first;
  });
  if (Out.size() > Max)
    Out.resize(Max);
  return Out;
}
