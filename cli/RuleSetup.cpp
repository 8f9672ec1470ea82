//===- cli/RuleSetup.cpp --------------------------------------------------===//
#include "RuleSetup.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace tracelint;
using namespace tracelint::cli;

llvm::Expected<RuleSetup>
cli::loadRuleSetup(llvm::StringRef ConfigPath, bool Isolated,
                   llvm::ArrayRef<std::string> RuleDirs) {
  auto Builtin = rules::Catalogue::builtin();
  if (!Builtin)
    return Builtin.takeError();

  // What the configuration may name: the built-in rules and those of the
  // command line's --rules directories (the file adds its own).
  rules::Catalogue Known = *Builtin;
  for (const std::string &Dir : RuleDirs)
    if (llvm::Error E = Known.addDirectory(Dir))
      return E;

  RuleSetup Setup;
  std::string Path = ConfigPath.str();
  if (Path.empty() && !Isolated) {
    llvm::SmallString<256> Cwd;
    if (!llvm::sys::fs::current_path(Cwd))
      if (std::optional<std::string> Found = rules::Config::findUpward(Cwd))
        Path = *Found;
  }
  if (!Path.empty()) {
    auto Buf = llvm::MemoryBuffer::getFile(Path, /*IsText=*/true);
    if (!Buf)
      return llvm::createStringError(
          Buf.getError(), "%s: cannot read the configuration: %s", Path.c_str(),
          Buf.getError().message().c_str());
    auto Cfg = rules::Config::parse((*Buf)->getBuffer(), Path, Known);
    if (!Cfg)
      return Cfg.takeError();
    Setup.Cfg = std::move(*Cfg);
  }

  Setup.Rules = std::move(*Builtin);
  if (llvm::Error E = Setup.Cfg.addRulesTo(Setup.Rules))
    return E;
  for (const std::string &Dir : RuleDirs)
    if (llvm::Error E = Setup.Rules.addDirectory(Dir))
      return E;
  return Setup;
}

llvm::Expected<std::shared_ptr<const model::NameClassifier>>
cli::loadNameClasses(llvm::StringRef ConfigPath, bool Isolated) {
  auto Setup = loadRuleSetup(ConfigPath, Isolated, {});
  if (!Setup)
    return Setup.takeError();
  return Setup->Cfg.Names;
}
