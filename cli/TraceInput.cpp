//===- cli/TraceInput.cpp -------------------------------------------------===//
#include "TraceInput.h"

#include "import/ByteSource.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Process.h"

#include <mutex>
#include <optional>
#include <unistd.h>

using namespace tracelint;
using namespace tracelint::cli;

llvm::Expected<llvm::StringRef> tracelint::cli::stdinBytes(unsigned WaitMs) {
  // `lint --job` may ask from its worker threads; the first caller reads.
  static std::mutex Lock;
  static std::optional<std::string> Bytes;
  std::lock_guard<std::mutex> Guard(Lock);
  if (Bytes)
    return llvm::StringRef(*Bytes);
  if (llvm::sys::Process::StandardInIsUserInput())
    return llvm::createStringError(
        std::make_error_code(std::errc::invalid_argument),
        "%s: standard input is a terminal; '-' reads a trace piped or "
        "redirected into tracelint (`tracelint lint - < trace.json`)",
        StdinName.data());
  auto Read = import::readDescriptor(STDIN_FILENO, StdinName, WaitMs);
  if (!Read)
    return Read.takeError();
  Bytes = std::move(*Read);
  return llvm::StringRef(*Bytes);
}

llvm::Expected<model::Trace>
tracelint::cli::importInput(llvm::StringRef Arg,
                            const import::ImportOptions &Opts) {
  if (!isStdinArg(Arg))
    return import::importTraceFile(Arg, Opts);
  auto Bytes = stdinBytes(Opts.InputTimeoutMs);
  if (!Bytes)
    return Bytes.takeError();
  return import::importTraceBytes(StdinName, *Bytes, Opts);
}

llvm::Error tracelint::cli::checkStdinOnce(llvm::ArrayRef<std::string> Args) {
  if (llvm::count_if(Args, isStdinArg) > 1)
    return llvm::createStringError(
        std::make_error_code(std::errc::invalid_argument),
        "'-' (standard input) is given more than once; it holds one trace");
  return llvm::Error::success();
}
