//===- import/ByteSource.cpp ----------------------------------------------===//
#include "import/ByteSource.h"

#include "llvm/Support/FormatVariadic.h"

#include <zlib.h>
#ifdef TRACELINT_HAVE_ISAL
#include <isa-l/igzip_lib.h>
#endif

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

using namespace tracelint::import;
using llvm::Expected;

ByteSource::~ByteSource() = default;

namespace {

llvm::Error ioError(llvm::StringRef Path, llvm::StringRef What, int Errno) {
  return llvm::createStringError(
      std::error_code(Errno, std::generic_category()), "%s: %s: %s",
      Path.str().c_str(), What.str().c_str(), std::strerror(Errno));
}

/// Plain bytes from a file descriptor.
class FileSource final : public ByteSource {
public:
  /// \p WaitMs > 0: \p FD is a pipe, FIFO or device that may never deliver;
  /// each read waits at most that long for data.
  FileSource(int FD, std::string Path, unsigned WaitMs = 0)
      : FD(FD), Path(std::move(Path)), WaitMs(WaitMs) {}
  ~FileSource() override { ::close(FD); }

  Expected<size_t> read(char *Dst, size_t N) override {
    if (WaitMs)
      if (llvm::Error E = waitForData())
        return E;
    while (true) {
      ssize_t Got = ::read(FD, Dst, N);
      if (Got >= 0) {
        Offset += Got;
        return static_cast<size_t>(Got);
      }
      if (errno == EINTR)
        continue;
      return ioError(
          Path, llvm::formatv("read failed at byte {0}", Offset).str(), errno);
    }
  }

private:
  llvm::Error waitForData() {
    struct pollfd P = {FD, POLLIN, 0};
    while (true) {
      int Ready = ::poll(&P, 1, int(WaitMs));
      if (Ready > 0)
        return llvm::Error::success(); // data, end of input or an error
      if (Ready < 0 && errno == EINTR)
        continue;
      if (Ready < 0)
        return ioError(Path, "cannot wait for input", errno);
      return llvm::createStringError(
          std::make_error_code(std::errc::timed_out),
          "%s: no data for %u s at byte %llu (a pipe or FIFO whose writer is "
          "missing or stalled); expected a trace to arrive (--input-timeout "
          "sets the wait, 0 waits forever)",
          Path.c_str(), WaitMs / 1000, static_cast<unsigned long long>(Offset));
    }
  }

  int FD;
  std::string Path;
  unsigned WaitMs;
  uint64_t Offset = 0;
};

/// Replays bytes already read (for sniffing) before the rest of a source.
class PrefixedSource final : public ByteSource {
public:
  PrefixedSource(std::string Prefix, std::unique_ptr<ByteSource> Rest)
      : Prefix(std::move(Prefix)), Rest(std::move(Rest)) {}
  Expected<size_t> read(char *Dst, size_t N) override {
    if (Pos < Prefix.size()) {
      size_t Take = std::min(N, Prefix.size() - Pos);
      std::memcpy(Dst, Prefix.data() + Pos, Take);
      Pos += Take;
      return Take;
    }
    return Rest->read(Dst, N);
  }
  bool truncated() const override { return Rest->truncated(); }
  uint64_t trailingBytes() const override { return Rest->trailingBytes(); }
  std::string damage() const override { return Rest->damage(); }

private:
  std::string Prefix;
  size_t Pos = 0;
  std::unique_ptr<ByteSource> Rest;
};

/// Streaming gzip inflation (several members in sequence are one stream, as
/// gzip itself treats them). ISA-L when available, zlib otherwise.
class GzipSource final : public ByteSource {
public:
  GzipSource(std::unique_ptr<ByteSource> In, std::string Path)
      : In(std::move(In)), Path(std::move(Path)), InBuf(1 << 20) {
    initMember();
  }
  ~GzipSource() override {
#ifndef TRACELINT_HAVE_ISAL
    inflateEnd(&Z);
#endif
  }

  Expected<size_t> read(char *Dst, size_t N) override {
    size_t Produced = 0;
    while (Produced == 0 && !Done) {
      if (InAvail == 0 && !InEnd) {
        auto Got = In->read(InBuf.data(), InBuf.size());
        if (!Got)
          return Got.takeError();
        InPos = 0;
        InAvail = *Got;
        InEnd = *Got == 0;
      }
      if (InAvail == 0 && InEnd) {
        // Input exhausted inside a member: the stream was cut short.
        if (MemberStarted)
          Truncated = true;
        Done = true;
        break;
      }
      auto R = inflateSome(Dst, N);
      if (!R)
        return R.takeError();
      Produced = *R;
    }
    return Produced;
  }
  bool truncated() const override { return Truncated; }
  uint64_t trailingBytes() const override { return Trailing; }
  std::string damage() const override { return Damage; }

private:
  void initMember() {
    MemberStarted = false;
#ifdef TRACELINT_HAVE_ISAL
    isal_inflate_init(&S);
    S.crc_flag = ISAL_GZIP;
#else
    if (Initialised)
      inflateEnd(&Z);
    std::memset(&Z, 0, sizeof(Z));
    inflateInit2(&Z, 15 + 16);
    Initialised = true;
#endif
  }

  // After a member ends: another member follows, or the stream is over.
  void memberFinished() {
    // Skip zero padding some writers add after the last member.
    while (InAvail && InBuf[InPos] == 0) {
      ++InPos;
      --InAvail;
      ++Trailing;
    }
    if (InAvail >= 2 && uint8_t(InBuf[InPos]) == 0x1f &&
        uint8_t(InBuf[InPos + 1]) == 0x8b) {
      Trailing = 0;
      initMember();
      return;
    }
    Trailing += InAvail;
    InAvail = 0;
    Done = true;
  }

  Expected<size_t> inflateSome(char *Dst, size_t N) {
    MemberStarted = true;
#ifdef TRACELINT_HAVE_ISAL
    S.next_in = reinterpret_cast<uint8_t *>(InBuf.data() + InPos);
    S.avail_in = static_cast<uint32_t>(InAvail);
    S.next_out = reinterpret_cast<uint8_t *>(Dst);
    S.avail_out = static_cast<uint32_t>(std::min<size_t>(N, 1u << 30));
    int Ret = isal_inflate(&S);
    size_t Used = InAvail - S.avail_in;
    size_t Produced = std::min<size_t>(N, 1u << 30) - S.avail_out;
    advance(Used);
    TotalOut += Produced;
    if (Ret < 0)
      return corrupt(isalError(Ret), Produced);
    if (S.block_state == ISAL_BLOCK_FINISH)
      memberFinished();
    return Produced;
#else
    Z.next_in = reinterpret_cast<Bytef *>(InBuf.data() + InPos);
    Z.avail_in = static_cast<uInt>(InAvail);
    Z.next_out = reinterpret_cast<Bytef *>(Dst);
    Z.avail_out = static_cast<uInt>(std::min<size_t>(N, 1u << 30));
    int Ret = inflate(&Z, Z_NO_FLUSH);
    size_t Used = InAvail - Z.avail_in;
    size_t Produced = std::min<size_t>(N, 1u << 30) - Z.avail_out;
    advance(Used);
    TotalOut += Produced;
    if (Ret == Z_STREAM_END) {
      memberFinished();
    } else if (Ret != Z_OK && Ret != Z_BUF_ERROR) {
      return corrupt(Z.msg ? Z.msg : "zlib error", Produced);
    }
    return Produced;
#endif
  }

  void advance(size_t Used) {
    InPos += Used;
    InAvail -= Used;
    CompressedOffset += Used;
  }

#ifdef TRACELINT_HAVE_ISAL
  static std::string isalError(int Ret) {
    switch (Ret) {
    case ISAL_INVALID_BLOCK:
      return "invalid deflate block";
    case ISAL_INVALID_SYMBOL:
      return "invalid deflate symbol";
    case ISAL_INVALID_LOOKBACK:
      return "invalid back-reference distance";
    case ISAL_INVALID_WRAPPER:
      return "invalid gzip header";
    case ISAL_UNSUPPORTED_METHOD:
      return "unsupported compression method";
    case ISAL_INCORRECT_CHECKSUM:
      return "incorrect checksum";
    default:
      return llvm::formatv("ISA-L error {0}", Ret).str();
    }
  }
#endif

  /// Damaged data. Once content has come out, what came out is kept and the
  /// stream ends there as if cut (the importer keeps every complete event
  /// and reports the damage); before that, it is an error.
  Expected<size_t> corrupt(const std::string &Why, size_t Produced) {
    if (TotalOut > 0) {
      Damage = llvm::formatv("gzip data corrupt near compressed byte {0} "
                             "({1})",
                             CompressedOffset, Why)
                   .str();
      Truncated = true;
      Done = true;
      return Produced;
    }
    return llvm::createStringError(
        std::make_error_code(std::errc::illegal_byte_sequence),
        "%s: gzip data is corrupt near compressed byte %llu (%s); expected a "
        "valid gzip stream",
        Path.c_str(), static_cast<unsigned long long>(CompressedOffset),
        Why.c_str());
  }

  std::unique_ptr<ByteSource> In;
  std::string Path;
  std::vector<char> InBuf;
  size_t InPos = 0, InAvail = 0;
  uint64_t CompressedOffset = 0;
  uint64_t Trailing = 0;
  uint64_t TotalOut = 0;
  std::string Damage;
  bool InEnd = false, Done = false, Truncated = false, MemberStarted = false;
#ifdef TRACELINT_HAVE_ISAL
  inflate_state S;
#else
  z_stream Z;
  bool Initialised = false;
#endif
};

// Reads until \p Want bytes or the end of input.
Expected<std::string> readHead(ByteSource &S, size_t Want) {
  std::string Head(Want, '\0');
  size_t Filled = 0;
  while (Filled < Want) {
    auto Got = S.read(Head.data() + Filled, Want - Filled);
    if (!Got)
      return Got.takeError();
    if (*Got == 0)
      break;
    Filled += *Got;
  }
  Head.resize(Filled);
  return Head;
}

/// Bytes already in memory (owned by the caller).
class MemorySource final : public ByteSource {
public:
  explicit MemorySource(llvm::StringRef Bytes) : Bytes(Bytes) {}
  Expected<size_t> read(char *Dst, size_t N) override {
    size_t Take = std::min(N, Bytes.size() - Pos);
    std::memcpy(Dst, Bytes.data() + Pos, Take);
    Pos += Take;
    return Take;
  }

private:
  llvm::StringRef Bytes;
  size_t Pos = 0;
};

/// Detects gzip in \p Raw and returns the source of the content, with its
/// first bytes read for sniffing.
Expected<OpenedSource> wrapSource(std::unique_ptr<ByteSource> Raw,
                                  const std::string &Path, uint64_t FileSize) {
  auto Magic = readHead(*Raw, 2);
  if (!Magic)
    return Magic.takeError();
  OpenedSource Out;
  Out.FileSize = FileSize;
  Out.Gzip = Magic->size() == 2 && uint8_t((*Magic)[0]) == 0x1f &&
             uint8_t((*Magic)[1]) == 0x8b;
  std::unique_ptr<ByteSource> Content =
      std::make_unique<PrefixedSource>(std::move(*Magic), std::move(Raw));
  if (Out.Gzip)
    Content = std::make_unique<GzipSource>(std::move(Content), Path);

  auto Head = readHead(*Content, 4096);
  if (!Head)
    return Head.takeError();
  Out.Head = *Head;
  Out.Source = std::make_unique<PrefixedSource>(*Head, std::move(Content));
  return Out;
}

} // namespace

Expected<OpenedSource> tracelint::import::openSource(llvm::StringRef Path,
                                                     unsigned WaitMs) {
  std::string P = Path.str();
  // O_NONBLOCK: opening a FIFO that no writer has opened would otherwise
  // block forever, before any timeout could apply.
  int FD;
  do {
    FD = ::open(P.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  } while (FD < 0 && errno == EINTR);
  if (FD < 0)
    return ioError(Path, "cannot open", errno);
  struct stat St;
  if (::fstat(FD, &St) != 0) {
    int Errno = errno;
    ::close(FD);
    return ioError(Path, "cannot stat", Errno);
  }
  if (S_ISDIR(St.st_mode)) {
    ::close(FD);
    return llvm::createStringError(
        std::make_error_code(std::errc::is_a_directory),
        "%s: is a directory; expected a trace file (.json, .json.gz)",
        P.c_str());
  }
  // Reads block from here on; streams wait for data with a timeout.
  int Flags = ::fcntl(FD, F_GETFL);
  if (Flags >= 0)
    ::fcntl(FD, F_SETFL, Flags & ~O_NONBLOCK);
  bool Regular = S_ISREG(St.st_mode);
  uint64_t FileSize = Regular ? uint64_t(St.st_size) : 0;
  auto Out = wrapSource(
      std::make_unique<FileSource>(FD, P, Regular ? 0 : WaitMs), P, FileSize);
  if (Out)
    Out->Regular = Regular;
  return Out;
}

Expected<OpenedSource>
tracelint::import::openMemorySource(llvm::StringRef Name,
                                    llvm::StringRef Bytes) {
  return wrapSource(std::make_unique<MemorySource>(Bytes), Name.str(),
                    Bytes.size());
}

Expected<std::string> tracelint::import::readDescriptor(int FD,
                                                        llvm::StringRef Name,
                                                        unsigned WaitMs) {
  int Own = ::fcntl(FD, F_DUPFD_CLOEXEC, 0);
  if (Own < 0)
    return ioError(Name, "cannot read", errno);
  struct stat St;
  bool Regular = ::fstat(Own, &St) == 0 && S_ISREG(St.st_mode);
  FileSource Source(Own, Name.str(), Regular ? 0 : WaitMs);
  std::string Out;
  constexpr size_t Chunk = 1 << 20;
  for (;;) {
    size_t Old = Out.size();
    Out.resize(Old + Chunk);
    auto Got = Source.read(Out.data() + Old, Chunk);
    if (!Got)
      return Got.takeError();
    Out.resize(Old + *Got);
    if (*Got == 0)
      return Out;
  }
}
