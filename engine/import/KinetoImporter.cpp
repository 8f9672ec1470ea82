//===- import/KinetoImporter.cpp ------------------------------------------===//
#include "import/KinetoImporter.h"
#include "import/BatchPipeline.h"
#include "import/EventSplitter.h"
#include "import/KinetoEvents.h"

#include "model/TraceBuilder.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <simdjson.h>

#include <cstring>
#include <memory>

using namespace tracelint;
using namespace tracelint::import;
using llvm::Expected;
using llvm::StringRef;

namespace {

constexpr size_t InitialBufferSize = 1 << 20;
// Batches in flight: one being committed, one decoding on each thread, and
// one cut ahead so that the worker never waits for the reader.
constexpr unsigned PipelineSlots = 4;
// Top-level values other than the event array are metadata; anything larger
// than this is not kept (and is counted).
constexpr size_t MetadataLimit = 64 << 20;

class ChromeTraceReader {
public:
  ChromeTraceReader(OpenedSource Src, StringRef Path, const ImportOptions &Opts)
      : Source(std::move(Src)), Path(Path.str()), Opts(Opts),
        Events(Builder, this->Path) {
    Pipeline.setNames(&this->Opts.names());
    Events.setNames(&this->Opts.names());
  }

  Expected<model::Trace> read();

private:
  // --- Buffer -------------------------------------------------------------
  // Buf holds [Begin, End) of unconsumed input; byte Buf[0] is headroom so
  // that a batch can always be wrapped in '[' ... ']' in place.
  llvm::Error fill();
  size_t available() const { return End - Begin; }
  uint64_t offsetOf(size_t BufPos) const {
    return uint64_t(BufOffset + int64_t(BufPos));
  }
  Expected<int> peek();
  llvm::Error skipWhitespace();

  // --- Top level ----------------------------------------------------------
  llvm::Error readTopObject();
  llvm::Error readTopArray();
  Expected<std::string> readKey();
  /// Reads one JSON value as text into Out (unless it exceeds Limit, then
  /// it is skipped and Oversized is set).
  llvm::Error readValueText(std::string &Out, bool &Oversized);
  void applyMetadata(StringRef Key, const std::string &Value);

  // --- Events -------------------------------------------------------------
  llvm::Error readEventArray();
  /// Hands Buf[Pos, Pos + Size), whole events, to the pipeline; the reader
  /// continues at Pos + Size in another buffer.
  llvm::Error submitBatch(size_t Pos, size_t Size, bool Last,
                          BatchPipeline::CommitFn Commit);
  llvm::Error commitBatch(EventBatch &Batch);
  void recoverBatch(EventBatch &Batch);
  bool decodeRepaired(EventBatch &B, size_t From, size_t Len);

  llvm::Error error(uint64_t Offset, const llvm::Twine &What) const {
    return llvm::createStringError(
        std::make_error_code(std::errc::invalid_argument), "%s: byte %llu: %s",
        Path.c_str(), static_cast<unsigned long long>(Offset),
        What.str().c_str());
  }

  OpenedSource Source;
  std::string Path;
  ImportOptions Opts;
  model::TraceBuilder Builder;
  KinetoEventDecoder Events;

  // Buf holds input in [1, Capacity + 1); it comes from EventBatch::allocate.
  std::unique_ptr<char[]> Buf;
  size_t Capacity = 0;
  size_t Begin = 1, End = 1;
  // Stream offset of Buf[0]: -1 at first, since Buf[1] holds stream byte 0.
  int64_t BufOffset = -1;
  bool Eof = false;

  bool SawTraceEvents = false;
  std::vector<std::string> TopKeys;
  int64_t BaseTimeNs = 0;

  // Last: its destructor stops the worker before the buffers and the model
  // it may still refer to are gone.
  BatchPipeline Pipeline{PipelineSlots};
};

llvm::Error ChromeTraceReader::fill() {
  if (Eof)
    return llvm::Error::success();
  if (!Buf) {
    Capacity = InitialBufferSize;
    Buf = EventBatch::allocate(Capacity);
  }
  // Move the unconsumed tail to the front (after the headroom byte).
  if (Begin > 1) {
    size_t Keep = End - Begin;
    std::memmove(Buf.get() + 1, Buf.get() + Begin, Keep);
    BufOffset += int64_t(Begin - 1);
    Begin = 1;
    End = 1 + Keep;
  }
  // A single element larger than the buffer: grow it.
  if (End >= Capacity + 1) {
    std::unique_ptr<char[]> Bigger = EventBatch::allocate(Capacity * 2);
    std::memcpy(Bigger.get(), Buf.get(), End);
    Buf = std::move(Bigger);
    Capacity *= 2;
  }
  while (End < Capacity + 1) {
    auto Got = Source.Source->read(Buf.get() + End, Capacity + 1 - End);
    if (!Got)
      return Got.takeError();
    if (*Got == 0) {
      Eof = true;
      break;
    }
    End += *Got;
  }
  return llvm::Error::success();
}

Expected<int> ChromeTraceReader::peek() {
  if (Begin == End) {
    if (auto E = fill())
      return E;
    if (Begin == End)
      return -1;
  }
  return static_cast<unsigned char>(Buf[Begin]);
}

llvm::Error ChromeTraceReader::skipWhitespace() {
  while (true) {
    auto C = peek();
    if (!C)
      return C.takeError();
    if (*C != ' ' && *C != '\n' && *C != '\r' && *C != '\t')
      return llvm::Error::success();
    ++Begin;
  }
}

Expected<std::string> ChromeTraceReader::readKey() {
  auto C = peek();
  if (!C)
    return C.takeError();
  if (*C != '"')
    return error(offsetOf(Begin),
                 llvm::formatv("expected a quoted key in the top-level object, "
                               "found {0}",
                               *C < 0 ? std::string("end of input")
                                      : std::string{'\'', char(*C), '\''}));
  ++Begin;
  std::string Key;
  bool Escaped = false;
  while (true) {
    auto D = peek();
    if (!D)
      return D.takeError();
    if (*D < 0)
      return error(offsetOf(Begin), "input ends inside a top-level key");
    ++Begin;
    if (Escaped) {
      Escaped = false;
    } else if (*D == '\\') {
      Escaped = true;
      continue;
    } else if (*D == '"') {
      return Key;
    }
    Key.push_back(char(*D));
    if (Key.size() > 4096)
      return error(offsetOf(Begin), "top-level key longer than 4096 bytes");
  }
}

llvm::Error ChromeTraceReader::readValueText(std::string &Out,
                                             bool &Oversized) {
  Out.clear();
  Oversized = false;
  int64_t Depth = 0;
  bool InString = false, Escaped = false;
  uint64_t StartOffset = offsetOf(Begin);
  while (true) {
    auto C = peek();
    if (!C)
      return C.takeError();
    if (*C < 0)
      return error(StartOffset, "input ends inside a top-level value");
    char Ch = char(*C);
    if (!InString && Depth == 0 &&
        (Ch == ',' || Ch == '}' || Ch == ']' || Ch == ' ' || Ch == '\n' ||
         Ch == '\r' || Ch == '\t') &&
        !Out.empty())
      return llvm::Error::success();
    if (!InString && Depth == 0 && (Ch == ',' || Ch == '}' || Ch == ']') &&
        Out.empty() && !Oversized)
      return error(offsetOf(Begin), "expected a value after ':'");
    ++Begin;
    if (!Oversized) {
      Out.push_back(Ch);
      if (Out.size() > MetadataLimit) {
        Oversized = true;
        Out.clear();
        Out.push_back('x'); // keep "not empty" for the end test above
      }
    }
    if (InString) {
      if (Escaped)
        Escaped = false;
      else if (Ch == '\\')
        Escaped = true;
      else if (Ch == '"') {
        InString = false;
        if (Depth == 0)
          return llvm::Error::success();
      }
      continue;
    }
    if (Ch == '"')
      InString = true;
    else if (Ch == '{' || Ch == '[')
      ++Depth;
    else if (Ch == '}' || Ch == ']') {
      if (--Depth == 0)
        return llvm::Error::success();
    }
  }
}

llvm::Error ChromeTraceReader::readTopObject() {
  ++Begin; // '{'
  while (true) {
    if (auto E = skipWhitespace())
      return E;
    auto C = peek();
    if (!C)
      return C.takeError();
    if (*C == '}') {
      ++Begin;
      return llvm::Error::success();
    }
    if (*C < 0) {
      Builder.stats().add(model::ImportStat::Truncated);
      if (Builder.stats().TruncatedAtByte < 0)
        Builder.stats().TruncatedAtByte = int64_t(offsetOf(Begin));
      return llvm::Error::success();
    }
    auto Key = readKey();
    if (!Key)
      return Key.takeError();
    if (auto E = skipWhitespace())
      return E;
    auto Colon = peek();
    if (!Colon)
      return Colon.takeError();
    if (*Colon != ':')
      return error(
          offsetOf(Begin),
          llvm::formatv("expected ':' after top-level key \"{0}\"", *Key));
    ++Begin;
    if (auto E = skipWhitespace())
      return E;
    if (TopKeys.size() < 64)
      TopKeys.push_back(*Key);

    auto First = peek();
    if (!First)
      return First.takeError();
    if (*Key == "traceEvents" && *First == '[') {
      SawTraceEvents = true;
      ++Begin;
      if (auto E = readEventArray())
        return E;
      if (Builder.stats().TruncatedAtByte >= 0)
        return llvm::Error::success();
    } else {
      std::string Value;
      bool Oversized;
      if (auto E = readValueText(Value, Oversized)) {
        // A value cut off by the end of input after the events: keep them.
        if (SawTraceEvents && Eof && Begin == End) {
          llvm::consumeError(std::move(E));
          Builder.stats().add(model::ImportStat::Truncated);
          Builder.stats().TruncatedAtByte = int64_t(offsetOf(Begin));
          return llvm::Error::success();
        }
        return E;
      }
      if (Oversized)
        Builder.stats().add(model::ImportStat::OversizedMetadata);
      else
        applyMetadata(*Key, Value);
    }
    if (auto E = skipWhitespace())
      return E;
    auto Sep = peek();
    if (!Sep)
      return Sep.takeError();
    if (*Sep == ',') {
      ++Begin;
      continue;
    }
    if (*Sep == '}') {
      ++Begin;
      return llvm::Error::success();
    }
    if (*Sep < 0 && SawTraceEvents) {
      Builder.stats().add(model::ImportStat::Truncated);
      Builder.stats().TruncatedAtByte = int64_t(offsetOf(Begin));
      return llvm::Error::success();
    }
    return error(offsetOf(Begin),
                 "expected ',' or '}' after a top-level value");
  }
}

llvm::Error ChromeTraceReader::readTopArray() {
  ++Begin; // '['
  if (auto E = skipWhitespace())
    return E;
  auto C = peek();
  if (!C)
    return C.takeError();
  if (*C >= 0 && *C != '{' && *C != ']')
    return error(
        offsetOf(Begin),
        llvm::formatv("the top-level array's first element starts with '{0}', "
                      "not an event object: {1}; tracelint expects a Chrome "
                      "trace (an object with \"traceEvents\" or an array of "
                      "event objects)",
                      char(*C),
                      *C == '[' ? "an array of arrays, as in a PyTorch memory "
                                  "timeline export"
                                : "not a trace"));
  SawTraceEvents = true;
  return readEventArray();
}

llvm::Error ChromeTraceReader::readEventArray() {
  auto Commit = [this](EventBatch &B) { return commitBatch(B); };
  while (true) {
    if (available() == 0 || !Eof) {
      // Keep the buffer full so that batches are large.
      if (available() < Capacity / 2 || !Buf)
        if (auto E = fill())
          return E;
    }
    EventSplitter::Result R = EventSplitter::scan(
        Buf.get() + Begin, available(), std::numeric_limits<size_t>::max());
    if (R.ArrayClosed) {
      if (R.ArrayEnd > 0)
        if (auto E = submitBatch(Begin, R.ArrayEnd, /*Last=*/true, Commit))
          return E;
      ++Begin; // ']'
      return Pipeline.drain(Commit);
    }
    if (R.Elements > 0) {
      if (auto E = submitBatch(Begin, R.LastElementEnd, /*Last=*/false, Commit))
        return E;
      continue;
    }
    if (Eof) {
      if (auto E = Pipeline.drain(Commit))
        return E;
      // The input ends inside the event array: a profiler killed mid-write.
      // Every complete event has been imported.
      Builder.stats().add(model::ImportStat::Truncated);
      Builder.stats().TruncatedAtByte = int64_t(offsetOf(Begin));
      Begin = End;
      return llvm::Error::success();
    }
    if (auto E = fill())
      return E;
  }
}

static bool isSeparator(char C) {
  return C == ',' || C == ' ' || C == '\n' || C == '\r' || C == '\t';
}

static bool isWhitespace(char C) {
  return C == ' ' || C == '\n' || C == '\r' || C == '\t';
}

llvm::Error ChromeTraceReader::submitBatch(size_t Pos, size_t Size, bool Last,
                                           BatchPipeline::CommitFn Commit) {
  size_t Cut = Pos + Size;
  // A batch after the first starts with the ',' that followed the previous
  // batch's last event.
  while (Size > 0 && isSeparator(Buf[Pos])) {
    ++Pos;
    --Size;
  }
  auto Slot = Pipeline.acquire(Commit);
  if (!Slot)
    return Slot.takeError();
  EventBatch &B = *Slot;
  // The batch takes this buffer; reading goes on in the one the slot held
  // (a batch's buffer since committed), starting with the bytes after the
  // batch. Swapping, rather than copying the batch, keeps memory warm.
  if (!B.Buf || B.Capacity < Capacity) {
    B.Buf = EventBatch::allocate(Capacity);
    B.Capacity = Capacity;
  }
  size_t Tail = End - Cut;
  std::memcpy(B.Buf.get() + 1, Buf.get() + Cut, Tail);
  std::swap(Buf, B.Buf);
  std::swap(Capacity, B.Capacity);
  B.Pos = Pos;
  B.Size = Size;
  B.BufOffset = BufOffset;
  BufOffset += int64_t(Cut - 1);
  Begin = 1;
  End = 1 + Tail;
  // A trace whose events fit in one batch is decoded on this thread alone:
  // small inputs start no thread.
  Pipeline.submit(/*UseWorker=*/!Last && !Eof);
  return llvm::Error::success();
}

llvm::Error ChromeTraceReader::commitBatch(EventBatch &B) {
  Events.commit(B.Decoded);
  if (B.Decoded.Failed)
    recoverBatch(B);
  if (!Opts.MaxEvents && !Opts.MemoryBudget)
    return llvm::Error::success();
  // A legacy rocprof file's rows wait for their links outside the builder
  // (RocprofRows.h) and count as much.
  uint64_t Pending = Events.pendingEvents();
  return checkLimits(
      Opts, Builder.numEvents() + Pending,
      Builder.estimatedPeakBytes() + Pending * 256, Path,
      llvm::formatv("byte {0}", B.offsetOf(B.Pos + B.Size)).str());
}

// simdjson rejected an element of the batch; the elements before it are
// committed. The rejected one is parsed alone (and counted if it fails
// again), then so is each later one. (The rest of the batch is not retried
// as a whole: it would start with the ',' after the element, which simdjson
// rejects before any element, and retrying the rest after each element took
// time quadratic in the batch size.)
void ChromeTraceReader::recoverBatch(EventBatch &B) {
  const char *Data = B.Buf.get();
  DecodeCache &Cache = Pipeline.callerCache();
  size_t Pos = B.Pos, End = B.Pos + B.Size;
  size_t Done = B.Decoded.Events.size();
  while (true) {
    std::vector<size_t> Ends;
    EventSplitter::scan(Data + Pos, End - Pos,
                        std::numeric_limits<size_t>::max(), &Ends);
    while (true) {
      size_t BadStart = Done == 0 || Done > Ends.size() ? 0 : Ends[Done - 1];
      while (Pos + BadStart < End && isSeparator(Data[Pos + BadStart]))
        ++BadStart;
      if (Done >= Ends.size()) {
        // The failure is after the last complete element: garbage or scalars.
        Events.countMalformed(B.offsetOf(Pos + BadStart));
        return;
      }
      size_t BadEnd = Ends[Done];
      B.decodeRange(Pos + BadStart, BadEnd - BadStart, Cache);
      Events.commit(B.Decoded);
      if (B.Decoded.Failed &&
          !decodeRepaired(B, Pos + BadStart, BadEnd - BadStart))
        Events.countMalformed(B.offsetOf(Pos + BadStart));
      size_t Next = Pos + BadEnd;
      while (Next < End && isWhitespace(Data[Next]))
        ++Next;
      if (Next == End)
        return;
      if (Data[Next] != ',')
        break;
      ++Done;
    }
    // No ',' after the element: the rest may parse as a batch after all.
    Pos += Ends[Done];
    B.decodeRange(Pos, End - Pos, Cache);
    Events.commit(B.Decoded);
    if (!B.Decoded.Failed)
      return;
    Done = B.Decoded.Events.size();
  }
}

/// \p S with each ill-formed UTF-8 subsequence (a stray continuation byte, a
/// cut sequence, an overlong form, a surrogate, a code point past U+10FFFF)
/// replaced by one U+FFFD, following Unicode's "maximal subpart" practice.
static std::string repairUtf8(StringRef S) {
  std::string Out;
  Out.reserve(S.size() + 16);
  size_t I = 0, N = S.size();
  while (I < N) {
    uint8_t C = uint8_t(S[I]);
    if (C < 0x80) {
      Out += char(C);
      ++I;
      continue;
    }
    unsigned Len = C >= 0xC2 && C <= 0xDF   ? 2
                   : C >= 0xE0 && C <= 0xEF ? 3
                   : C >= 0xF0 && C <= 0xF4 ? 4
                                            : 0;
    // The second byte's range depends on the lead (no overlongs, no
    // surrogates, nothing past U+10FFFF); later bytes are 80..BF.
    uint8_t Lo = C == 0xE0 ? 0xA0 : C == 0xF0 ? 0x90 : 0x80;
    uint8_t Hi = C == 0xED ? 0x9F : C == 0xF4 ? 0x8F : 0xBF;
    unsigned Valid = Len ? 1 : 0;
    while (Valid < Len && I + Valid < N) {
      uint8_t B = uint8_t(S[I + Valid]);
      if (Valid == 1 ? (B < Lo || B > Hi) : (B & 0xC0) != 0x80)
        break;
      ++Valid;
    }
    if (Len && Valid == Len) {
      Out.append(S.data() + I, Len);
      I += Len;
      continue;
    }
    Out += "\xEF\xBF\xBD";
    I += std::max(Valid, 1u);
  }
  return Out;
}

/// \p S with every JSON string escape simdjson cannot decode replaced: a
/// lone surrogate (`\ud800` without a low surrogate after it, or a low one
/// without a high one before it) becomes `\ufffd`, and the backslash of an
/// escape that is not JSON (`\x`, `\u` without four hex digits) becomes
/// `\ufffd` with the characters after it kept as text. Returns whether
/// anything was replaced. A backslash can only start an escape in JSON that
/// parses, so the string boundaries need not be tracked.
static bool repairEscapes(StringRef S, std::string &Out) {
  constexpr llvm::StringLiteral Replacement = "\\ufffd";
  Out.clear();
  Out.reserve(S.size() + 16);
  auto Hex4 = [&](size_t At, unsigned &V) {
    if (At + 4 > S.size())
      return false;
    V = 0;
    for (size_t I = At; I < At + 4; ++I) {
      if (!llvm::isHexDigit(S[I]))
        return false;
      V = V * 16 + llvm::hexDigitValue(S[I]);
    }
    return true;
  };
  bool Changed = false;
  size_t I = 0;
  while (I < S.size()) {
    if (S[I] != '\\' || I + 1 == S.size()) {
      Out += S[I++];
      continue;
    }
    char E = S[I + 1];
    unsigned V = 0, Low = 0;
    if (E != 'u') {
      if (llvm::StringRef("\"\\/bfnrt").contains(E)) {
        Out.append(S.data() + I, 2);
        I += 2;
      } else {
        Out += Replacement;
        Changed = true;
        ++I;
      }
    } else if (!Hex4(I + 2, V)) {
      Out += Replacement;
      Changed = true;
      ++I;
    } else if (V >= 0xD800 && V <= 0xDBFF) {
      if (I + 12 <= S.size() && S[I + 6] == '\\' && S[I + 7] == 'u' &&
          Hex4(I + 8, Low) && Low >= 0xDC00 && Low <= 0xDFFF) {
        Out.append(S.data() + I, 12);
        I += 12;
      } else {
        Out += Replacement;
        Changed = true;
        I += 6;
      }
    } else if (V >= 0xDC00 && V <= 0xDFFF) {
      Out += Replacement;
      Changed = true;
      I += 6;
    } else {
      Out.append(S.data() + I, 6);
      I += 6;
    }
  }
  return Changed;
}

// An element simdjson rejected alone. When its bytes are not valid UTF-8 (a
// name written by a tool that cut a multi-byte character, or a binary
// string), or a string holds an escape that decodes to no character (a lone
// surrogate, as written by tools that cut UTF-16 strings), decode a copy
// with those replaced by U+FFFD, and count each kind of repair.
bool ChromeTraceReader::decodeRepaired(EventBatch &B, size_t From, size_t Len) {
  StringRef Element(B.Buf.get() + From, Len);
  bool BadUtf8 = !simdjson::validate_utf8(Element.data(), Element.size());
  std::string Utf8Fixed = BadUtf8 ? repairUtf8(Element) : std::string();
  std::string Fixed;
  bool BadEscapes = repairEscapes(BadUtf8 ? Utf8Fixed : Element, Fixed);
  if (!BadUtf8 && !BadEscapes)
    return false;
  if (!BadEscapes)
    Fixed = std::move(Utf8Fixed);
  Fixed.insert(Fixed.begin(), '[');
  Fixed += ']';
  size_t Size = Fixed.size();
  Fixed.resize(Size + simdjson::SIMDJSON_PADDING, '\0');
  decodeEventArray(B.Parser, Pipeline.callerCache(), Fixed.data(), Size,
                   Fixed.size(), B.offsetOf(From) - 1, B.Decoded);
  if (B.Decoded.Failed || B.Decoded.Events.size() != 1)
    return false;
  Events.commit(B.Decoded);
  if (BadUtf8)
    Events.countRepairedUtf8(B.offsetOf(From));
  if (BadEscapes)
    Events.countRepairedEscapes(B.offsetOf(From));
  return true;
}

void ChromeTraceReader::applyMetadata(StringRef Key, const std::string &Value) {
  applyTopLevelValue(Builder, Key, Value, BaseTimeNs);
}

Expected<model::Trace> ChromeTraceReader::read() {
  // Real Kineto events take 220-340 bytes; gzip compresses them 13-29 times.
  // Reserve for small events so that the tables rarely regrow, but keep the
  // (virtual) reservation bounded.
  uint64_t Expected = Source.FileSize * (Source.Gzip ? 30 : 1) / 150;
  Builder.reserve(
      static_cast<size_t>(std::min<uint64_t>(Expected, 80'000'000)));
  if (auto E = fill())
    return E;
  // A UTF-8 byte-order mark is tolerated.
  if (available() >= 3 && uint8_t(Buf[Begin]) == 0xEF &&
      uint8_t(Buf[Begin + 1]) == 0xBB && uint8_t(Buf[Begin + 2]) == 0xBF)
    Begin += 3;
  if (auto E = skipWhitespace())
    return E;
  auto C = peek();
  if (!C)
    return C.takeError();
  if (*C == '{') {
    if (auto E = readTopObject())
      return E;
  } else if (*C == '[') {
    if (auto E = readTopArray())
      return E;
  } else {
    return error(offsetOf(Begin),
                 "expected '{' or '[' at the start of a Chrome trace");
  }

  if (!SawTraceEvents) {
    if (TopKeys.empty())
      return llvm::createStringError(
          std::make_error_code(std::errc::invalid_argument),
          "%s: the top-level JSON object is empty; expected a Chrome trace "
          "with a \"traceEvents\" array",
          Path.c_str());
    std::vector<std::string> Shown(
        TopKeys.begin(), TopKeys.begin() + std::min<size_t>(TopKeys.size(), 8));
    std::string Keys = llvm::join(Shown, "\", \"");
    if (TopKeys.size() > Shown.size())
      Keys += "\", ...";
    std::string Guess;
    auto Has = [&](StringRef K) { return llvm::is_contained(TopKeys, K); };
    if (Has("nodes") && (Has("schema") || Has("pid")))
      Guess = "this looks like a PyTorch execution trace "
              "(ExecutionTraceObserver output), which records operators but "
              "not their timing; give tracelint the Kineto trace captured "
              "alongside it";
    else if (Has("rocprofiler-sdk-tool"))
      Guess = "this looks like a rocprofiler-sdk JSON export; export a Chrome "
              "trace (Perfetto/PyTorch profiler) instead";
    else
      Guess = "this JSON object is not a Chrome trace";
    return llvm::createStringError(
        std::make_error_code(std::errc::invalid_argument),
        "%s: no \"traceEvents\" array at the top level (keys: \"%s\"): %s",
        Path.c_str(), Keys.c_str(), Guess.c_str());
  }

  // Trailing bytes after the document (other than whitespace).
  if (Builder.stats().TruncatedAtByte < 0) {
    if (auto E = skipWhitespace())
      return E;
    uint64_t Extra = available();
    while (!Eof) {
      Begin = End;
      if (auto E = fill())
        return E;
      Extra += available();
    }
    if (Extra)
      Builder.stats().addAt(model::ImportStat::TrailingGarbage,
                            llvm::formatv("byte {0}", offsetOf(Begin)).str());
  }
  // A gzip stream cut short whose JSON happened to end cleanly.
  if (Source.Source->truncated() && Builder.stats().TruncatedAtByte < 0) {
    Builder.stats().add(model::ImportStat::Truncated);
    Builder.stats().TruncatedAtByte = int64_t(offsetOf(End));
  }
  if (std::string Damage = Source.Source->damage(); !Damage.empty())
    Builder.stats().addAt(model::ImportStat::DamagedCompression, Damage);

  if (Events.eventsRead() > 0 && Events.eventsWithPhase() == 0)
    return llvm::createStringError(
        std::make_error_code(std::errc::invalid_argument),
        "%s: none of the %zu elements of the event array has a \"ph\" field: "
        "this is JSON, but not a Chrome trace",
        Path.c_str(), Events.eventsRead());

  Events.finish();
  Builder.setBaseTimeNs(BaseTimeNs);
  // A legacy rocprof file names its producer (RocprofRows.h).
  if (Builder.producer().Format.empty())
    Builder.producer().Format = "chrome-trace";
  return Builder.finish();
}

} // namespace

Expected<model::Trace>
tracelint::import::importChromeTrace(OpenedSource Source, StringRef Path,
                                     const ImportOptions &Opts) {
  ChromeTraceReader Reader(std::move(Source), Path, Opts);
  return Reader.read();
}
