//===- rules/RuleSpec.cpp -------------------------------------------------===//
#include "rules/RuleSpec.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/ErrorHandling.h"

#include <algorithm>

using namespace tracelint;
using namespace tracelint::rules;

llvm::StringRef rules::severityName(Severity S) {
  switch (S) {
  case Severity::Info:
    return "info";
  case Severity::Warning:
    return "warning";
  case Severity::Error:
    return "error";
  }
  llvm_unreachable("covered switch");
}

Severity rules::severityForImpact(Severity Floor, double ImpactShare,
                                  double Confidence) {
  Severity Earned = Severity::Info;
  if (ImpactShare >= SeverityLevels::ErrorShare &&
      Confidence >= SeverityLevels::ErrorConfidence)
    Earned = Severity::Error;
  else if (ImpactShare >= SeverityLevels::WarningShare &&
           Confidence >= SeverityLevels::WarningConfidence)
    Earned = Severity::Warning;
  return std::max(Floor, Earned);
}

std::optional<Severity> rules::parseSeverity(llvm::StringRef S) {
  if (S == "info")
    return Severity::Info;
  if (S == "warning")
    return Severity::Warning;
  if (S == "error")
    return Severity::Error;
  return std::nullopt;
}

llvm::StringRef rules::needName(Need N) {
  switch (N) {
  case Need::DeviceActivity:
    return "device";
  case Need::Launches:
    return "launches";
  case Need::Correlation:
    return "correlation";
  case Need::Steps:
    return "steps";
  case Need::Shapes:
    return "shapes";
  case Need::Stacks:
    return "stacks";
  case Need::Memory:
    return "memory";
  case Need::SteadyState:
    return "steady-state";
  }
  llvm_unreachable("covered switch");
}

std::optional<Need> rules::parseNeed(llvm::StringRef S) {
  for (Need N :
       {Need::DeviceActivity, Need::Launches, Need::Correlation, Need::Steps,
        Need::Shapes, Need::Stacks, Need::Memory, Need::SteadyState})
    if (needName(N) == S)
      return N;
  return std::nullopt;
}

const OptionSpec *RuleSpec::option(llvm::StringRef OptName) const {
  for (const OptionSpec &O : Options)
    if (O.Name == OptName)
      return &O;
  return nullptr;
}

const ProducerTexts *RuleSpec::overridesFor(analysis::ProducerKind P) const {
  for (const ProducerTexts &O : ByProducer)
    if (O.Producer == P)
      return &O;
  return nullptr;
}

RuleTexts RuleSpec::textsFor(analysis::ProducerKind P) const {
  RuleTexts R{Hypothesis, Evidence, Alternatives, Next};
  // The chain from the most specific texts to the defaults: P's own, then
  // its fallback's (an offload program's are the CUDA ones).
  std::vector<const ProducerTexts *> Chain;
  for (std::optional<analysis::ProducerKind> K = P; K;
       K = analysis::producerFallback(*K))
    if (const ProducerTexts *O = overridesFor(*K))
      Chain.push_back(O);
  // Apply the least specific first, so that the most specific wins.
  for (auto It = Chain.rbegin(); It != Chain.rend(); ++It) {
    const ProducerTexts &O = **It;
    auto Set = [](auto &To, const auto &From) {
      if (From)
        To = *From;
    };
    Set(R.Hypothesis, O.Hypothesis);
    Set(R.Evidence, O.Evidence);
    Set(R.Alternatives, O.Alternatives);
    Set(R.Next.Change, O.Change);
    Set(R.Next.PredictTrace, O.PredictTrace);
    Set(R.Next.PredictMetric, O.PredictMetric);
    Set(R.Next.Verify, O.Verify);
    Set(R.Next.RefutedIf, O.RefutedIf);
  }
  return R;
}

RuleOptions::RuleOptions(const RuleSpec &Spec) {
  for (const OptionSpec &O : Spec.Options)
    Values[O.Name] = O.Default;
}

double RuleOptions::number(llvm::StringRef Name) const {
  auto It = Values.find(Name.str());
  if (It == Values.end())
    return 0;
  if (const double *D = std::get_if<double>(&It->second))
    return *D;
  if (const bool *B = std::get_if<bool>(&It->second))
    return *B ? 1 : 0;
  return 0;
}

std::string RuleOptions::string(llvm::StringRef Name) const {
  auto It = Values.find(Name.str());
  if (It == Values.end())
    return "";
  if (const std::string *S = std::get_if<std::string>(&It->second))
    return *S;
  return "";
}

bool RuleOptions::flag(llvm::StringRef Name) const {
  auto It = Values.find(Name.str());
  if (It == Values.end())
    return false;
  if (const bool *B = std::get_if<bool>(&It->second))
    return *B;
  if (const double *D = std::get_if<double>(&It->second))
    return *D != 0;
  return false;
}

llvm::StringRef rules::familyName(char Family) {
  switch (Family) {
  case 'S':
    return "synchronization";
  case 'M':
    return "memory and transfers";
  case 'L':
    return "launch and host overhead";
  case 'D':
    return "input pipeline";
  case 'K':
    return "kernel choice";
  case 'C':
    return "compilation and graphs";
  case 'N':
    return "communication and ranks";
  case 'U':
    return "start-up and teardown";
  case 'T':
    return "trace quality";
  case 'X':
    return "user signatures";
  default:
    return "";
  }
}

bool rules::isValidCode(llvm::StringRef Code) {
  return Code.size() == 4 && !familyName(Code[0]).empty() &&
         llvm::all_of(Code.drop_front(), llvm::isDigit);
}

static bool isLowerAscii(char C) { return C >= 'a' && C <= 'z'; }

bool rules::isValidRuleName(llvm::StringRef Name) {
  // kebab-case: lower-case words of letters and digits joined by single
  // hyphens, starting with a letter.
  if (Name.empty() || Name.size() > 64 || !isLowerAscii(Name.front()) ||
      Name.back() == '-')
    return false;
  char Prev = 0;
  for (char C : Name) {
    if (C == '-' ? Prev == '-' : !(isLowerAscii(C) || llvm::isDigit(C)))
      return false;
    Prev = C;
  }
  return true;
}
