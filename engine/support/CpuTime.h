//===- support/CpuTime.h - CPU and wall clocks for phase times --*- C++ -*-===//
//
// lint reports where its time went when TRACELINT_TIMES is set (bench/
// rule_cost.py reads it): the CPU time of a task on a thread pool is its
// thread's CPU clock, that of a phase on several threads the process's.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_SUPPORT_CPUTIME_H
#define TRACELINT_SUPPORT_CPUTIME_H

#include <cstdint>

namespace tracelint::support {

/// CPU time of the calling thread, in ns (0 where there is no such clock).
int64_t threadCpuNs();
/// CPU time of the whole process (every thread), in ns.
int64_t processCpuNs();
/// A monotonic wall clock, in ns.
int64_t wallNs();

/// Wall and process CPU time from construction to a reading.
class PhaseClock {
public:
  PhaseClock() : Wall(wallNs()), Cpu(processCpuNs()) {}
  int64_t wallSinceNs() const { return wallNs() - Wall; }
  int64_t cpuSinceNs() const { return processCpuNs() - Cpu; }

private:
  int64_t Wall, Cpu;
};

} // namespace tracelint::support

#endif
