//===- cli/AnnotateOutput.cpp - `lint --annotate OUT.json[.gz]` -----------===//
#include "AnnotateOutput.h"
#include "Output.h"
#include "TraceInput.h"

#include "import/ByteSource.h"
#include "import/EventSplitter.h"
#include "report/Annotate.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <zlib.h>

#include <cstring>

using namespace tracelint;
using namespace tracelint::cli;

namespace {

llvm::Error failure(const llvm::Twine &Message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 Message.str().c_str());
}

/// The file \p Arg, or for "-" standard input as the lint read it.
llvm::Expected<import::OpenedSource> openInput(llvm::StringRef Arg) {
  if (!isStdinArg(Arg))
    return import::openSource(Arg);
  auto Bytes = stdinBytes(0);
  if (!Bytes)
    return Bytes.takeError();
  return import::openMemorySource(StdinName, *Bytes);
}

/// The whole decompressed input \p Arg.
llvm::Expected<std::string> readAll(llvm::StringRef Arg) {
  llvm::StringRef Path = inputName(Arg);
  auto Opened = openInput(Arg);
  if (!Opened)
    return Opened.takeError();
  if (!Opened->Regular)
    return failure(Path + ": not a regular file");
  std::string Out;
  constexpr size_t Chunk = 1 << 20;
  for (;;) {
    size_t Old = Out.size();
    Out.resize(Old + Chunk);
    auto N = Opened->Source->read(Out.data() + Old, Chunk);
    if (!N)
      return N.takeError();
    Out.resize(Old + *N);
    if (*N == 0)
      break;
  }
  if (Opened->Source->truncated())
    return failure(Path + ": the compressed input is cut short");
  return Out;
}

size_t skipSpace(llvm::StringRef S, size_t I) {
  while (I < S.size() &&
         (S[I] == ' ' || S[I] == '\t' || S[I] == '\n' || S[I] == '\r'))
    ++I;
  return I;
}

/// Where the event array opens (just past its '['): the document itself
/// when it is an array, else the value of the top-level "traceEvents" key.
/// npos when there is none.
size_t eventArrayStart(llvm::StringRef Doc) {
  size_t I = skipSpace(Doc, Doc.startswith("\xEF\xBB\xBF") ? 3 : 0);
  if (I < Doc.size() && Doc[I] == '[')
    return I + 1;
  // Walk the top-level object: strings (with escapes) and nesting depth,
  // so that a "traceEvents" inside a value is not taken for the key.
  unsigned Depth = 0;
  for (; I < Doc.size(); ++I) {
    char C = Doc[I];
    if (C == '"') {
      size_t Begin = I + 1;
      for (++I; I < Doc.size() && Doc[I] != '"'; ++I)
        if (Doc[I] == '\\')
          ++I;
      if (Depth == 1 && Doc.slice(Begin, I) == "traceEvents") {
        size_t J = skipSpace(Doc, I + 1);
        if (J < Doc.size() && Doc[J] == ':') {
          J = skipSpace(Doc, J + 1);
          if (J < Doc.size() && Doc[J] == '[')
            return J + 1;
        }
      }
    } else if (C == '{' || C == '[') {
      ++Depth;
    } else if (C == '}' || C == ']') {
      if (Depth-- == 0)
        break;
    }
  }
  return llvm::StringRef::npos;
}

/// True for an element of the event array that an earlier --annotate
/// added.
bool isAnnotation(llvm::StringRef Element) {
  if (!Element.contains("\"tracelint\""))
    return false; // the common case, without parsing
  auto V = llvm::json::parse(Element);
  if (!V) {
    llvm::consumeError(V.takeError());
    return false;
  }
  const llvm::json::Object *O = V->getAsObject();
  return O && O->getString("cat") ==
                  llvm::Optional<llvm::StringRef>(report::AnnotationCategory);
}

/// \p Doc with \p Events (comma-separated elements) appended to its event
/// array. The document is copied byte for byte, except that the events of
/// an earlier --annotate are left out: annotating an annotated trace
/// replaces its findings instead of adding a second tracelint process.
llvm::Expected<std::string> splice(llvm::StringRef Path, llvm::StringRef Doc,
                                   llvm::StringRef Events) {
  size_t Open = eventArrayStart(Doc);
  if (Open == llvm::StringRef::npos)
    return failure(Path + ": no traceEvents array to add the findings to");
  std::vector<size_t> Ends;
  auto R = import::EventSplitter::scan(Doc.data() + Open, Doc.size() - Open,
                                       Doc.size(), &Ends);
  if (!R.ArrayClosed)
    return failure(Path + ": the event array does not end (a truncated "
                          "trace cannot be annotated in place)");
  size_t Close = Open + R.ArrayEnd;
  // The elements, [begin, end) in Doc.
  std::vector<std::pair<size_t, size_t>> Elements;
  bool Earlier = false;
  size_t Prev = Open;
  for (size_t End : Ends) {
    size_t Begin = Prev;
    while (Begin < Open + End && Doc[Begin] != '{' && Doc[Begin] != '[')
      ++Begin; // the separating comma and white space
    Elements.push_back({Begin, Open + End});
    Earlier |= isAnnotation(Doc.slice(Begin, Open + End));
    Prev = Open + End;
  }
  std::string Out;
  Out.reserve(Doc.size() + Events.size() + 4);
  if (!Earlier) {
    Out += Doc.take_front(Close);
    if (!Elements.empty())
      Out += ",\n";
  } else {
    Out += Doc.take_front(Open);
    for (auto [Begin, End] : Elements) {
      llvm::StringRef E = Doc.slice(Begin, End);
      if (!isAnnotation(E))
        (Out += E) += ",\n";
    }
  }
  Out += Events;
  Out += Doc.drop_front(Close);
  return Out;
}

/// \p Data as one gzip member.
llvm::Expected<std::string> gzip(llvm::StringRef Data) {
  z_stream Z;
  std::memset(&Z, 0, sizeof(Z));
  if (deflateInit2(&Z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
                   Z_DEFAULT_STRATEGY) != Z_OK)
    return failure("gzip: cannot start the compressor");
  std::string Out;
  Out.resize(deflateBound(&Z, Data.size()));
  Z.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(Data.data()));
  Z.avail_in = Data.size();
  Z.next_out = reinterpret_cast<Bytef *>(Out.data());
  Z.avail_out = Out.size();
  int Rc = deflate(&Z, Z_FINISH);
  Out.resize(Z.total_out);
  deflateEnd(&Z);
  if (Rc != Z_STREAM_END)
    return failure("gzip: compression failed");
  return Out;
}

} // namespace

llvm::Error cli::checkAnnotateTarget(llvm::StringRef OutPath,
                                     llvm::StringRef InputArg) {
  if (isStdinArg(InputArg) || isStdinArg(OutPath))
    return llvm::Error::success();
  // Same device and inode: a hard or symbolic link, "./t.json" for "t.json".
  bool Same = false;
  if (llvm::sys::fs::equivalent(OutPath, InputArg, Same) || !Same)
    return llvm::Error::success();
  return failure("--annotate " + OutPath + ": this is the input trace " +
                 InputArg +
                 " itself, which the annotated copy would replace; write it "
                 "to another file (such as NAME.annotated.json)");
}

llvm::Error cli::writeAnnotatedTrace(llvm::StringRef OutPath,
                                     llvm::StringRef InputArg,
                                     const report::LintedTrace &L,
                                     const analysis::TraceIndex &Ctx) {
  const model::Trace &T = Ctx.trace();
  int64_t Pid = report::unusedPid(T);
  std::string Events;
  {
    llvm::raw_string_ostream OS(Events);
    llvm::json::OStream J(OS);
    J.array([&] { report::writeAnnotationEvents(J, L, Ctx, Pid); });
  }
  // The elements alone, to go into an existing array.
  llvm::StringRef Inner = llvm::StringRef(Events).drop_front().drop_back();

  std::string Doc;
  if (T.Source.Format != "nsys-sqlite") {
    auto Original = readAll(InputArg);
    if (!Original)
      return Original.takeError();
    auto Spliced = splice(L.Input, *Original, Inner);
    if (!Spliced)
      return Spliced.takeError();
    Doc = std::move(*Spliced);
  } else {
    llvm::raw_string_ostream OS(Doc);
    llvm::json::OStream J(OS);
    J.object([&] {
      J.attributeArray("traceEvents", [&] {
        report::writeModelEvents(J, Ctx);
        report::writeAnnotationEvents(J, L, Ctx, Pid);
      });
      J.attribute("displayTimeUnit", "ns");
    });
  }
  if (OutPath.endswith(".gz")) {
    auto Z = gzip(Doc);
    if (!Z)
      return Z.takeError();
    Doc = std::move(*Z);
  }
  return writeOutput(OutPath, [&](llvm::raw_ostream &OS) { OS << Doc; });
}
