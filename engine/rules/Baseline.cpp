//===- rules/Baseline.cpp -------------------------------------------------===//
#include "rules/Baseline.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>

using namespace tracelint;
using namespace tracelint::rules;

llvm::StringRef rules::baselineStateName(BaselineState S) {
  switch (S) {
  case BaselineState::New:
    return "new";
  case BaselineState::NearFloor:
    return "near-floor";
  case BaselineState::Grew:
    return "grew";
  case BaselineState::Known:
    return "known";
  }
  return "new";
}

llvm::StringRef rules::baselineStateWords(BaselineState S) {
  switch (S) {
  case BaselineState::New:
    return "new";
  case BaselineState::NearFloor:
    return "new near its floor";
  case BaselineState::Grew:
    return "grew beyond noise";
  case BaselineState::Known:
    return "known";
  }
  return "new";
}

std::string BaselineTally::describe() const {
  std::vector<std::string> Parts;
  Parts.push_back(llvm::formatv("{0} new", New).str());
  Parts.push_back(llvm::formatv("{0} grew beyond noise", Grew).str());
  if (NearFloor)
    Parts.push_back(llvm::formatv("{0} new near {1} floor (not failing)",
                                  NearFloor, NearFloor == 1 ? "its" : "their")
                        .str());
  if (Known)
    Parts.push_back(llvm::formatv("{0} known (not shown)", Known).str());
  return llvm::join(Parts, ", ");
}

int64_t BaselineEntry::growthFloorNs(double Tolerance) const {
  const int64_t Q1 = std::min(ImpactQ1Ns, ImpactNs);
  const int64_t Q3 = std::max(ImpactQ3Ns, ImpactNs);
  const double Fence =
      double(Q3) + BaselineMargins::FenceIqrs * double(Q3 - Q1);
  return int64_t(std::max(Fence, double(ImpactNs) * (1.0 + Tolerance)));
}

static std::string utf8(llvm::StringRef S) {
  return llvm::json::isUTF8(S) ? S.str() : llvm::json::fixUTF8(S);
}

void Baseline::add(llvm::ArrayRef<Finding> Findings) {
  for (const Finding &F : Findings) {
    auto [It, Inserted] = Entries.try_emplace(F.Fingerprint);
    BaselineEntry &E = It->second;
    if (Inserted) {
      E.Code = F.Code;
      E.Name = F.Name;
      E.Subject = utf8(F.Subject);
      E.Fingerprint = F.Fingerprint;
      E.Sev = F.Sev;
    }
    // The entry's spread is the envelope of the recorded findings': every
    // capture of the workload is within its noise.
    const int64_t Q1 = std::min(F.impactQ1(), F.ImpactNs);
    E.ImpactQ1Ns = Inserted ? Q1 : std::min(E.ImpactQ1Ns, Q1);
    E.ImpactQ3Ns = std::max({E.ImpactQ3Ns, F.impactQ3(), F.ImpactNs});
    E.Steps += F.ImpactSteps;
    ++E.Count;
    E.ImpactNs = std::max(E.ImpactNs, F.ImpactNs);
    E.Sev = std::max(E.Sev, F.Sev);
  }
}

const BaselineEntry *Baseline::find(llvm::StringRef Fingerprint) const {
  auto It = Entries.find(Fingerprint.str());
  return It == Entries.end() ? nullptr : &It->second;
}

std::vector<BaselineEntry> Baseline::entries() const {
  std::vector<BaselineEntry> Out;
  for (const auto &[Key, E] : Entries)
    Out.push_back(E);
  std::stable_sort(Out.begin(), Out.end(),
                   [](const BaselineEntry &A, const BaselineEntry &B) {
                     if (A.Code != B.Code)
                       return A.Code < B.Code;
                     return A.Fingerprint < B.Fingerprint;
                   });
  return Out;
}

BaselineState Baseline::classify(const Finding &F, double Tolerance,
                                 int64_t TargetNs) const {
  const BaselineEntry *E = find(F.Fingerprint);
  if (!E)
    return F.GateMargin > 0 && F.GateMargin < 1.0 + BaselineMargins::NewShare
               ? BaselineState::NearFloor
               : BaselineState::New;
  // Most of the new capture's steps (its lower quartile) must lie beyond
  // the baseline's noise, and by more than can be measured.
  const int64_t Low = std::min(F.impactQ1(), F.ImpactNs);
  const int64_t Floor = E->growthFloorNs(Tolerance);
  const double Measurable =
      BaselineMargins::MeasurableShare * double(std::max<int64_t>(0, TargetNs));
  if (Low > Floor &&
      double(Low - std::max(E->ImpactQ3Ns, E->ImpactNs)) >= Measurable)
    return BaselineState::Grew;
  return BaselineState::Known;
}

BaselineTally rules::applyBaseline(const Baseline &Known, llvm::StringRef Path,
                                   double Tolerance, int64_t TargetNs,
                                   std::vector<Finding> &Findings) {
  BaselineTally T;
  T.File = Path.str();
  std::vector<Finding> Kept;
  for (Finding &F : Findings) {
    BaselineState S = Known.classify(F, Tolerance, TargetNs);
    T.count(S);
    if (S == BaselineState::Known)
      continue;
    F.BaselineMark = S;
    Kept.push_back(std::move(F));
  }
  Findings = std::move(Kept);
  return T;
}

void Baseline::write(llvm::raw_ostream &OS) const {
  // llvm::json::Object prints its keys sorted, so every line is stable.
  OS << "{\n  \"findings\": [";
  std::vector<BaselineEntry> List = entries();
  for (size_t I = 0; I < List.size(); ++I) {
    const BaselineEntry &E = List[I];
    llvm::json::Object O{{"code", E.Code},
                         {"count", int64_t(E.Count)},
                         {"fingerprint", E.Fingerprint},
                         {"impact_ns", E.ImpactNs},
                         {"impact_q1_ns", E.ImpactQ1Ns},
                         {"impact_q3_ns", E.ImpactQ3Ns},
                         {"name", E.Name},
                         {"severity", severityName(E.Sev)},
                         {"steps", int64_t(E.Steps)},
                         {"subject", utf8(E.Subject)}};
    OS << (I ? ",\n    " : "\n    ")
       << llvm::formatv("{0}", llvm::json::Value(std::move(O)));
  }
  OS << (List.empty() ? "],\n" : "\n  ],\n");
  OS << "  \"tool\": \"tracelint\",\n";
  OS << "  \"version\": " << FormatVersion << "\n}\n";
}

static llvm::Error bad(llvm::StringRef Path, const llvm::Twine &What) {
  return llvm::createStringError(std::errc::invalid_argument,
                                 "%s: not a tracelint baseline: %s",
                                 Path.str().c_str(), What.str().c_str());
}

llvm::Expected<Baseline> Baseline::parse(llvm::StringRef Text,
                                         llvm::StringRef Path) {
  llvm::Expected<llvm::json::Value> Doc = llvm::json::parse(Text);
  if (!Doc)
    return bad(Path, "invalid JSON: " + llvm::toString(Doc.takeError()));
  const llvm::json::Object *Root = Doc->getAsObject();
  if (!Root)
    return bad(Path, "expected a JSON object at the top level");
  auto Version = Root->getInteger("version");
  if (!Version)
    return bad(Path, "expected an integer \"version\"");
  // Version 1 has no spread; it reads as a spread of one value.
  if (*Version != FormatVersion && *Version != 1)
    return bad(Path, llvm::formatv("format version {0} is not supported "
                                   "(this tracelint reads versions 1 to {1}); "
                                   "record it again with `tracelint baseline`",
                                   *Version, FormatVersion));
  const llvm::json::Array *List = Root->getArray("findings");
  if (!List)
    return bad(Path, "expected an array \"findings\"");
  Baseline B;
  for (size_t I = 0; I < List->size(); ++I) {
    const llvm::json::Object *O = (*List)[I].getAsObject();
    auto Where = llvm::formatv("findings[{0}]", I).str();
    if (!O)
      return bad(Path, Where + ": expected an object");
    BaselineEntry E;
    auto Str = [&](llvm::StringRef Key, std::string &Out,
                   bool Required) -> llvm::Error {
      if (auto S = O->getString(Key)) {
        Out = S->str();
        return llvm::Error::success();
      }
      if (!Required && !O->get(Key))
        return llvm::Error::success();
      return bad(Path, Where + ": expected a string \"" + Key + "\"");
    };
    if (llvm::Error Err = Str("code", E.Code, true))
      return Err;
    if (llvm::Error Err = Str("fingerprint", E.Fingerprint, true))
      return Err;
    if (llvm::Error Err = Str("name", E.Name, false))
      return Err;
    if (llvm::Error Err = Str("subject", E.Subject, false))
      return Err;
    std::string Sev = "warning";
    if (llvm::Error Err = Str("severity", Sev, false))
      return Err;
    std::optional<Severity> S = parseSeverity(Sev);
    if (!S)
      return bad(Path, Where + ": unknown severity \"" + Sev + "\"");
    E.Sev = *S;
    if (E.Fingerprint.size() != 16 ||
        !llvm::all_of(E.Fingerprint, llvm::isHexDigit))
      return bad(Path, Where + ": \"fingerprint\" must be 16 hex digits");
    auto Count = O->getInteger("count");
    auto Impact = O->getInteger("impact_ns");
    if (!Count || *Count < 1)
      return bad(Path, Where + ": expected a positive integer \"count\"");
    if (!Impact || *Impact < 0)
      return bad(Path, Where + ": expected an integer \"impact_ns\" >= 0");
    E.Count = uint64_t(*Count);
    E.ImpactNs = *Impact;
    E.ImpactQ1Ns = E.ImpactQ3Ns = E.ImpactNs;
    if (*Version >= 2) {
      auto Q1 = O->getInteger("impact_q1_ns");
      auto Q3 = O->getInteger("impact_q3_ns");
      auto Steps = O->getInteger("steps");
      if (!Q1 || !Q3 || *Q1 < 0 || *Q1 > *Q3)
        return bad(Path, Where + ": expected integers \"impact_q1_ns\" <= "
                                 "\"impact_q3_ns\", both >= 0");
      if (!Steps || *Steps < 0)
        return bad(Path, Where + ": expected an integer \"steps\" >= 0");
      E.ImpactQ1Ns = *Q1;
      E.ImpactQ3Ns = *Q3;
      E.Steps = uint64_t(*Steps);
    }
    if (B.Entries.count(E.Fingerprint))
      return bad(Path,
                 Where + ": fingerprint " + E.Fingerprint + " is listed twice");
    std::string Key = E.Fingerprint;
    B.Entries.emplace(std::move(Key), std::move(E));
  }
  return B;
}

llvm::Expected<Baseline> Baseline::load(llvm::StringRef Path) {
  auto Buf = llvm::MemoryBuffer::getFile(Path, /*IsText=*/true);
  if (!Buf)
    return llvm::createStringError(Buf.getError(),
                                   "%s: cannot read the "
                                   "baseline: %s",
                                   Path.str().c_str(),
                                   Buf.getError().message().c_str());
  return parse((*Buf)->getBuffer(), Path);
}
