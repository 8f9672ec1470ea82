//===- cli/Output.cpp -----------------------------------------------------===//
#include "Output.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/WithColor.h"

#include <cstdlib>

using namespace tracelint::cli;

llvm::Error tracelint::cli::writeOutput(
    llvm::StringRef Path, llvm::function_ref<void(llvm::raw_ostream &)> Write) {
  if (Path.empty() || Path == "-") {
    Write(llvm::outs());
    llvm::outs().flush();
    return llvm::Error::success();
  }
  auto Temp = llvm::sys::fs::TempFile::create(Path + ".tmp-%%%%%%%%");
  if (!Temp)
    return llvm::createStringError(llvm::errorToErrorCode(Temp.takeError()),
                                   "%s: cannot create a temporary file beside "
                                   "the output",
                                   Path.str().c_str());
  {
    llvm::raw_fd_ostream OS(Temp->FD, /*shouldClose=*/false);
    Write(OS);
    OS.flush();
    if (OS.has_error()) {
      std::error_code EC = OS.error();
      OS.clear_error();
      llvm::consumeError(Temp->discard());
      return llvm::createStringError(EC, "%s: write failed: %s",
                                     Path.str().c_str(), EC.message().c_str());
    }
  }
  if (llvm::Error E = Temp->keep(Path)) {
    std::error_code EC = llvm::errorToErrorCode(std::move(E));
    return llvm::createStringError(EC, "%s: cannot rename into place: %s",
                                   Path.str().c_str(), EC.message().c_str());
  }
  return llvm::Error::success();
}

bool tracelint::cli::useColor(ColorMode Mode, llvm::StringRef OutputPath) {
  if (Mode == ColorMode::Always)
    return true;
  if (Mode == ColorMode::Never)
    return false;
  if (!OutputPath.empty() && OutputPath != "-")
    return false;
  if (const char *NoColor = std::getenv("NO_COLOR"); NoColor && *NoColor)
    return false;
  return llvm::sys::Process::StandardOutIsDisplayed() &&
         llvm::sys::Process::StandardOutHasColors();
}

void tracelint::cli::reportError(const llvm::Twine &Message) {
  llvm::WithColor::error(llvm::errs(), "tracelint") << Message << "\n";
}
