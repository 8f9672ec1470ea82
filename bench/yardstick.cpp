// tracelint_yardstick: the performance yardstick Y.
//
// Y is the time simdjson's on-demand API takes to merely walk every event of
// a Chrome/Kineto trace: map the file, iterate the document, visit every
// field of every element of "traceEvents", sum "dur" over the "ph":"X"
// events and count events.  tracelint's import + stats is measured against
// it on the same file in the same run (see bench/run_bench.sh).
//
// Y is defined on the plain (uncompressed) file only.
//
// The file is mapped rather than read: simdjson needs SIMDJSON_PADDING
// readable bytes after the input, so we reserve len + padding bytes of
// anonymous, zero-filled, read-only memory (rounded up to whole pages) and
// map the file over the start of that reservation with MAP_FIXED.  The bytes
// after the end of the file therefore read as zeros.
//
// Usage: tracelint_yardstick FILE
// Output (stdout): events, x_events, dur_sum_us, bytes, elapsed_s; one
// "key value" pair per line.

#include <simdjson.h>

#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace {

namespace od = simdjson::ondemand;

struct Mapping {
  const char *data = nullptr;
  size_t len = 0;
  size_t reserved = 0;
};

[[noreturn]] void die(const char *what, const char *path) {
  std::fprintf(stderr, "tracelint_yardstick: %s: %s: %s\n", path, what,
               std::strerror(errno));
  std::exit(2);
}

Mapping mapPadded(const char *path) {
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    die("cannot open", path);
  struct stat st {};
  if (::fstat(fd, &st) != 0)
    die("cannot stat", path);
  if (!S_ISREG(st.st_mode)) {
    std::fprintf(stderr, "tracelint_yardstick: %s: not a regular file\n", path);
    std::exit(2);
  }
  Mapping m;
  m.len = static_cast<size_t>(st.st_size);
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  m.reserved = (m.len + simdjson::SIMDJSON_PADDING + page - 1) / page * page;
  void *base = ::mmap(nullptr, m.reserved, PROT_READ,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (base == MAP_FAILED)
    die("cannot reserve memory", path);
  if (m.len != 0) {
    void *file = ::mmap(base, m.len, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0);
    if (file == MAP_FAILED)
      die("cannot map", path);
  }
  ::close(fd);
  m.data = static_cast<const char *>(base);
  return m;
}

struct Totals {
  uint64_t events = 0;
  uint64_t xEvents = 0;
  double durSum = 0;
};

// Walks the document; returns an error code instead of throwing so that a
// malformed file gives a clean message.
simdjson::error_code walk(od::document &doc, Totals &t) {
  od::object root;
  if (auto e = doc.get_object().get(root))
    return e;
  bool sawEvents = false;
  for (auto field : root) {
    od::raw_json_string key;
    if (auto e = field.key().get(key))
      return e;
    if (!(key == "traceEvents"))
      continue; // the value is skipped by the iterator
    sawEvents = true;
    od::array events;
    if (auto e = field.value().get_array().get(events))
      return e;
    for (auto element : events) {
      od::object ev;
      if (auto e = element.get_object().get(ev))
        return e;
      ++t.events;
      bool isX = false;
      bool hasDur = false;
      double dur = 0;
      for (auto f : ev) {
        od::raw_json_string k;
        if (auto e = f.key().get(k))
          return e;
        if (k == "ph") {
          std::string_view ph;
          if (f.value().get_string().get(ph) == simdjson::SUCCESS)
            isX = ph == "X";
        } else if (k == "dur") {
          if (f.value().get_double().get(dur) == simdjson::SUCCESS)
            hasDur = true;
        }
        // every other field is skipped by advancing the iterator
      }
      if (isX) {
        ++t.xEvents;
        if (hasDur)
          t.durSum += dur;
      }
    }
  }
  if (!sawEvents)
    return simdjson::NO_SUCH_FIELD;
  return simdjson::SUCCESS;
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 2 || std::strcmp(argv[1], "-h") == 0 ||
      std::strcmp(argv[1], "--help") == 0) {
    std::fprintf(stderr,
                 "usage: tracelint_yardstick FILE\n"
                 "Walks every event of a plain (uncompressed) Chrome/Kineto "
                 "trace with simdjson on-demand\nand prints the event count, "
                 "the sum of dur over ph=X events and the elapsed time.\n");
    return argc == 2 ? 0 : 2;
  }
  const char *path = argv[1];
  const auto start = std::chrono::steady_clock::now();
  Mapping m = mapPadded(path);

  if (m.len > simdjson::SIMDJSON_MAXSIZE_BYTES) {
    std::fprintf(stderr,
                 "tracelint_yardstick: %s: %zu bytes is above simdjson's "
                 "single-document limit\n",
                 path, m.len);
    return 2;
  }
  od::parser parser;
  Totals t;
  od::document doc;
  simdjson::error_code err = parser.iterate(m.data, m.len, m.reserved).get(doc);
  if (!err)
    err = walk(doc, t);
  const auto stop = std::chrono::steady_clock::now();
  if (err) {
    std::fprintf(stderr, "tracelint_yardstick: %s: %s\n", path,
                 simdjson::error_message(err));
    return 1;
  }
  const double secs = std::chrono::duration<double>(stop - start).count();
  std::printf("events %" PRIu64 "\n", t.events);
  std::printf("x_events %" PRIu64 "\n", t.xEvents);
  std::printf("dur_sum_us %.3f\n", t.durSum);
  std::printf("bytes %zu\n", m.len);
  std::printf("elapsed_s %.6f\n", secs);
  std::printf("mb_per_s %.1f\n", secs > 0 ? m.len / 1e6 / secs : 0.0);
  ::munmap(const_cast<char *>(m.data), m.reserved);
  return 0;
}
