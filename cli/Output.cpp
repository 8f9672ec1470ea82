//===- cli/Output.cpp -----------------------------------------------------===//
#include "Output.h"

#include "support/Format.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/WithColor.h"

#include <algorithm>
#include <cstdlib>

using namespace tracelint::cli;

llvm::Error tracelint::cli::writeOutput(
    llvm::StringRef Path, llvm::function_ref<void(llvm::raw_ostream &)> Write) {
  if (Path.empty() || Path == "-") {
    llvm::raw_fd_ostream &OS = llvm::outs();
    Write(OS);
    OS.flush();
    if (OS.has_error()) {
      // Reported here; cleared so that the stream's destructor does not
      // abort the process at exit.
      std::error_code EC = OS.error();
      OS.clear_error();
      return llvm::createStringError(EC, "cannot write to standard output: %s",
                                     EC.message().c_str());
    }
    return llvm::Error::success();
  }
  auto Temp = llvm::sys::fs::TempFile::create(Path + ".tmp-%%%%%%%%");
  if (!Temp) {
    // Say why: most often the folder does not exist or is not writable.
    std::error_code EC = llvm::errorToErrorCode(Temp.takeError());
    return llvm::createStringError(EC,
                                   "%s: cannot create a temporary file beside "
                                   "the output: %s",
                                   Path.str().c_str(), EC.message().c_str());
  }
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

llvm::Error tracelint::cli::writeJsonOutput(
    llvm::StringRef Path, llvm::function_ref<void(llvm::raw_ostream &)> Write) {
  std::string Json;
  llvm::raw_string_ostream OS(Json);
  Write(OS);
  OS.flush();
  std::string Safe = support::escapeInvisibleInJson(Json);
  return writeOutput(Path, [&](llvm::raw_ostream &Out) { Out << Safe; });
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

size_t tracelint::cli::textWidth(llvm::StringRef OutputPath, size_t Default,
                                 size_t Max) {
  if (!OutputPath.empty() && OutputPath != "-")
    return Default;
  if (!llvm::sys::Process::StandardOutIsDisplayed())
    return Default;
  unsigned Columns = llvm::sys::Process::StandardOutColumns();
  if (!Columns)
    return Default;
  return std::clamp<size_t>(Columns, 80, Max);
}

std::string tracelint::cli::sanitizeMessage(llvm::StringRef Message) {
  llvm::SmallVector<llvm::StringRef, 4> Lines;
  Message.split(Lines, '\n');
  std::string Out;
  for (size_t I = 0; I < Lines.size(); ++I) {
    if (I)
      Out += '\n';
    Out += support::sanitize(Lines[I]);
  }
  return Out;
}

void tracelint::cli::reportError(const llvm::Twine &Message) {
  llvm::WithColor::error(llvm::errs(), "tracelint")
      << sanitizeMessage(Message.str()) << "\n";
}
