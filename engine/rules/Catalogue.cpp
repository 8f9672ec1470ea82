//===- rules/Catalogue.cpp ------------------------------------------------===//
#include "rules/Catalogue.h"
#include "rules/BuiltinRules.h"
#include "rules/TomlSupport.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <map>

using namespace tracelint;
using namespace tracelint::rules;

static constexpr llvm::StringLiteral BuiltinPrefix = "builtin:";

static llvm::Error makeError(const llvm::Twine &Msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Msg.str());
}

/// Where a spec came from, for messages: the path without "builtin:".
static llvm::StringRef originPath(const RuleSpec &Spec) {
  llvm::StringRef O = Spec.Origin;
  O.consume_front(BuiltinPrefix);
  return O;
}

llvm::Expected<RuleSpec> Catalogue::parseRule(llvm::StringRef Text,
                                              llvm::StringRef Origin) {
  auto Table = toml_support::parse(Text, Origin);
  if (!Table)
    return Table.takeError();
  return toml_support::parseRuleTable(*Table, Origin);
}

llvm::Expected<Catalogue> Catalogue::builtin() {
  Catalogue C;
  for (const BuiltinRuleFile &F : builtinRuleFiles()) {
    auto Spec = parseRule(F.Text, F.Path);
    if (!Spec)
      return Spec.takeError();
    // rules/<family>/<CODE>-<name>.toml: the path must agree with the file.
    llvm::StringRef Dir =
        llvm::sys::path::filename(llvm::sys::path::parent_path(F.Path));
    std::string Expected = Spec->Code + "-" + Spec->Name + ".toml";
    if (llvm::sys::path::filename(F.Path) != Expected ||
        Dir != llvm::StringRef(&Spec->Code[0], 1))
      return makeError(llvm::formatv("{0}: a built-in rule file must be "
                                     "rules/{1}/{2} (its code and name)",
                                     F.Path, Spec->Code[0], Expected));
    Spec->Origin = (BuiltinPrefix + F.Path).str();
    if (C.find(Spec->Code))
      return makeError(llvm::formatv("{0}: code {1} is already used by {2}",
                                     F.Path, Spec->Code,
                                     originPath(*C.find(Spec->Code))));
    if (llvm::Error E = C.add(std::move(*Spec)))
      return E;
  }
  return C;
}

/// A user rule that names a built-in detector runs code written for the
/// built-in rule of that name: the detector reads that rule's options and
/// relies on the engine having checked that rule's needs. Options the user
/// rule does not declare keep the built-in defaults (a missing option would
/// read as 0, a silent wrong answer), and the built-in needs are added.
void Catalogue::inheritFromBuiltinDetector(RuleSpec &Spec) const {
  auto Owner = llvm::find_if(Rules, [&](const RuleSpec &R) {
    return R.Name == Spec.Sig.Detector &&
           llvm::StringRef(R.Origin).startswith(BuiltinPrefix);
  });
  if (Owner == Rules.end())
    return;
  for (const OptionSpec &O : Owner->Options)
    if (!Spec.option(O.Name))
      Spec.Options.push_back(O);
  for (Need N : Owner->Needs)
    if (!llvm::is_contained(Spec.Needs, N))
      Spec.Needs.push_back(N);
}

llvm::Error Catalogue::add(RuleSpec Spec) {
  if (!isValidCode(Spec.Code))
    return makeError(
        llvm::formatv("{0}: invalid code '{1}'", originPath(Spec), Spec.Code));
  if (!isValidRuleName(Spec.Name))
    return makeError(
        llvm::formatv("{0}: invalid name '{1}'", originPath(Spec), Spec.Name));
  bool IsBuiltin = llvm::StringRef(Spec.Origin).startswith(BuiltinPrefix);
  auto Same = llvm::find_if(
      Rules, [&](const RuleSpec &R) { return R.Code == Spec.Code; });
  if (!IsBuiltin && Spec.family() != 'X' && Same == Rules.end())
    return makeError(llvm::formatv(
        "{0}: user rule {1}: family '{2}' ({3}) is reserved for built-in "
        "rules; give a user rule an X code (X001..X999), or the code of a "
        "built-in rule to replace it",
        originPath(Spec), Spec.Code, Spec.family(), familyName(Spec.family())));
  for (const RuleSpec &R : Rules)
    if (R.Name == Spec.Name && R.Code != Spec.Code)
      return makeError(llvm::formatv("{0}: rule {1}: name '{2}' already "
                                     "belongs to {3} ({4})",
                                     originPath(Spec), Spec.Code, Spec.Name,
                                     R.Code, originPath(R)));
  if (!IsBuiltin && !Spec.Sig.Detector.empty())
    inheritFromBuiltinDetector(Spec);
  if (Same != Rules.end()) {
    *Same = std::move(Spec);
    return llvm::Error::success();
  }
  auto Pos = llvm::partition_point(
      Rules, [&](const RuleSpec &R) { return R.Code < Spec.Code; });
  Rules.insert(Pos, std::move(Spec));
  return llvm::Error::success();
}

llvm::Error Catalogue::addDirectory(llvm::StringRef Dir) {
  bool IsDir = false;
  if (std::error_code EC = llvm::sys::fs::is_directory(Dir, IsDir))
    return makeError(llvm::formatv("{0}: cannot read the rule directory: {1}",
                                   Dir, EC.message()));
  if (!IsDir)
    return makeError(
        llvm::formatv("{0}: not a directory (--rules and rule-dirs name "
                      "directories of *.toml rule files)",
                      Dir));
  std::vector<std::string> Files;
  std::error_code EC;
  for (llvm::sys::fs::recursive_directory_iterator It(Dir, EC), End;
       It != End && !EC; It.increment(EC)) {
    if (llvm::sys::path::extension(It->path()) != ".toml")
      continue;
    llvm::ErrorOr<llvm::sys::fs::basic_file_status> St = It->status();
    if (St && St->type() == llvm::sys::fs::file_type::regular_file)
      Files.push_back(It->path());
  }
  if (EC)
    return makeError(llvm::formatv("{0}: cannot read the rule directory: {1}",
                                   Dir, EC.message()));
  llvm::sort(Files);
  // Report every bad file, not only the first.
  llvm::Error All = llvm::Error::success();
  std::map<std::string, std::string> CodesHere; // code -> file, this call
  for (const std::string &Path : Files) {
    auto Buf = llvm::MemoryBuffer::getFile(Path, /*IsText=*/true);
    if (!Buf) {
      All = llvm::joinErrors(
          std::move(All), makeError(llvm::formatv("{0}: cannot read: {1}", Path,
                                                  Buf.getError().message())));
      continue;
    }
    auto Spec = parseRule((*Buf)->getBuffer(), Path);
    if (!Spec) {
      All = llvm::joinErrors(std::move(All), Spec.takeError());
      continue;
    }
    auto [It, New] = CodesHere.emplace(Spec->Code, Path);
    if (!New) {
      All = llvm::joinErrors(
          std::move(All),
          makeError(llvm::formatv("{0}: code {1} is already defined by {2}",
                                  Path, Spec->Code, It->second)));
      continue;
    }
    if (llvm::Error E = add(std::move(*Spec)))
      All = llvm::joinErrors(std::move(All), std::move(E));
  }
  return All;
}

const RuleSpec *Catalogue::find(llvm::StringRef CodeOrName) const {
  for (const RuleSpec &R : Rules)
    if (R.Code == CodeOrName || R.Name == CodeOrName)
      return &R;
  return nullptr;
}

const RuleSpec *Catalogue::lookup(llvm::StringRef CodeOrName) const {
  CodeOrName = CodeOrName.trim();
  for (const RuleSpec &R : Rules)
    if (CodeOrName.equals_insensitive(R.Code) ||
        CodeOrName.equals_insensitive(R.Name))
      return &R;
  return nullptr;
}
