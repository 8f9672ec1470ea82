//===- support/CpuTime.cpp ------------------------------------------------===//
#include "support/CpuTime.h"

#include <chrono>
#include <ctime>

using namespace tracelint;

static int64_t clockNs(clockid_t Id) {
  timespec T;
  if (clock_gettime(Id, &T) != 0)
    return 0;
  return int64_t(T.tv_sec) * 1'000'000'000 + T.tv_nsec;
}

int64_t support::threadCpuNs() { return clockNs(CLOCK_THREAD_CPUTIME_ID); }

int64_t support::processCpuNs() { return clockNs(CLOCK_PROCESS_CPUTIME_ID); }

int64_t support::wallNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
