//===- import/Import.cpp - Format sniffing and dispatch -------------------===//
#include "import/Import.h"
#include "import/ByteSource.h"
#include "import/KinetoImporter.h"
#include "import/SqliteImport.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <iterator>

using namespace tracelint;
using namespace tracelint::import;
using llvm::StringRef;

namespace {

llvm::Error notATrace(StringRef Path, const llvm::Twine &Why) {
  return llvm::createStringError(
      std::make_error_code(std::errc::invalid_argument), "%s: %s",
      Path.str().c_str(), Why.str().c_str());
}

std::string printableStart(StringRef Head) {
  std::string Out;
  for (char C : Head.take_front(16))
    Out += llvm::isPrint(C)
               ? std::string(1, C)
               : llvm::formatv("\\x{0:x-2}", unsigned(uint8_t(C))).str();
  return Out;
}

/// Sniffs and imports an opened input. \p Memory holds the whole input when
/// it comes from memory rather than from the file \p Path.
llvm::Expected<model::Trace> importOpened(llvm::Expected<OpenedSource> Opened,
                                          StringRef Path,
                                          const ImportOptions &Opts,
                                          const StringRef *Memory) {
  if (!Opened)
    return Opened.takeError();
  StringRef Head = Opened->Head;
  const char *Wrapped = Opened->Gzip ? "gzip-compressed data: " : "";

  if (Head.empty())
    return notATrace(Path, llvm::Twine(Wrapped) +
                               "empty input; expected a Chrome trace JSON "
                               "object or array");
  if (Head.startswith(StringRef("SQLite format 3\0", 16))) {
    // SQLite reads the file itself; a compressed database cannot be opened.
    if (Opened->Gzip)
      return notATrace(Path, "gzip-compressed data: an SQLite database inside "
                             "(an Nsight Systems export or a rocprofv3 "
                             "database?); decompress it first");
    if (!Opened->Regular)
      return notATrace(Path, "an SQLite database from a pipe or device; "
                             "SQLite reads files in place: save it to a "
                             "file first");
    Opened->Source.reset(); // SQLite opens and reads the file itself
    // Its tables tell which profiler wrote it: rocprofv3 or nsys.
    if (Memory)
      return importSqliteBytes(Path, *Memory, Opts);
    return importSqliteFile(Path, Opts);
  }
  if (Head.startswith("NSYS") || Path.endswith(".nsys-rep") ||
      Path.endswith(".qdrep"))
    return notATrace(
        Path, "an Nsight Systems report, which tracelint cannot read directly: "
              "export it with `nsys export --type sqlite REPORT.nsys-rep` and "
              "pass the .sqlite file");
  if (Path.endswith(".qdstrm"))
    return notATrace(
        Path, "an Nsight Systems raw stream (.qdstrm): the report may simply "
              "not have been generated from it yet; this does not show that "
              "the application was interrupted. Keep the file, generate the "
              "report from it (import or finalize it with nsys's "
              "QdstrmImporter), then export that with `nsys export --type "
              "sqlite`");

  // JSON: skip a byte-order mark and whitespace; a trace starts with { or [.
  StringRef Body = Head;
  if (Body.startswith("\xEF\xBB\xBF"))
    Body = Body.drop_front(3);
  Body = Body.ltrim(" \t\r\n");
  if (Body.empty() && Head.size() < 4096)
    return notATrace(Path, llvm::Twine(Wrapped) +
                               "only whitespace; expected a Chrome trace JSON "
                               "object or array");
  if (!Body.empty() && (llvm::isDigit(Body.front()) || Body.front() == '-' ||
                        Body.front() == '"' || Body.startswith("null") ||
                        Body.startswith("true") || Body.startswith("false")))
    return notATrace(Path, llvm::formatv("{0}a JSON scalar (starts with "
                                         "\"{1}\"), not a Chrome trace; "
                                         "expected an object with "
                                         "\"traceEvents\" or an array of "
                                         "events",
                                         Wrapped, printableStart(Body)));
  if (!Body.empty() && Body.front() != '{' && Body.front() != '[')
    return notATrace(Path, llvm::formatv("{0}not JSON (starts with \"{1}\"); "
                                         "expected a Chrome trace JSON object "
                                         "or array",
                                         Wrapped, printableStart(Body)));
  return importChromeTrace(std::move(*Opened), Path, Opts);
}

} // namespace

llvm::Expected<model::Trace>
tracelint::import::importTraceFile(StringRef Path, const ImportOptions &Opts) {
  return importOpened(openSource(Path, Opts.InputTimeoutMs), Path, Opts,
                      nullptr);
}

llvm::Expected<model::Trace>
tracelint::import::importTraceBytes(StringRef Name, StringRef Bytes,
                                    const ImportOptions &Opts) {
  return importOpened(openMemorySource(Name, Bytes), Name, Opts, &Bytes);
}

std::string tracelint::import::formatByteCount(uint64_t Bytes) {
  static const char *const Units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double V = double(Bytes);
  unsigned U = 0;
  while (V >= 1024 && U + 1 < std::size(Units)) {
    V /= 1024;
    ++U;
  }
  if (U == 0 || V >= 100 || V == std::floor(V))
    return llvm::formatv("{0} {1}", uint64_t(std::llround(V)), Units[U]).str();
  return llvm::formatv("{0:F1} {1}", V, Units[U]).str();
}

llvm::Error tracelint::import::checkLimits(const ImportOptions &Opts,
                                           uint64_t Events, uint64_t PeakBytes,
                                           StringRef Path, StringRef Where) {
  if (Opts.MaxEvents && Events > Opts.MaxEvents)
    return llvm::createStringError(
        std::make_error_code(std::errc::file_too_large),
        "%s: %s: the trace has more than %llu events (the --max-events "
        "limit); raise the limit to read it",
        Path.str().c_str(), Where.str().c_str(),
        static_cast<unsigned long long>(Opts.MaxEvents));
  if (Opts.MemoryBudget && PeakBytes > Opts.MemoryBudget)
    return llvm::createStringError(
        std::make_error_code(std::errc::not_enough_memory),
        "%s: %s: the trace needs more memory than the --memory-budget of %s: "
        "about %s for the %llu events read so far (about 256 bytes per event "
        "at peak, plus names); raise --memory-budget, or profile a shorter "
        "window",
        Path.str().c_str(), Where.str().c_str(),
        formatByteCount(Opts.MemoryBudget).c_str(),
        formatByteCount(PeakBytes).c_str(),
        static_cast<unsigned long long>(Events));
  return llvm::Error::success();
}
