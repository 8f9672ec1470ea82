//===- DetectorTestSupport.h - Building traces for detector tests -*- C++
//-*-===//
//
// A small layer over model::TraceBuilder for the detector tests: lanes by
// role, events in microseconds, and a launch helper that links a host call
// to its device work by correlation id, so that each test can lay out its
// timeline in a few lines and work out the expected figures by hand.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_TESTS_UNIT_DETECTORTESTSUPPORT_H
#define TRACELINT_TESTS_UNIT_DETECTORTESTSUPPORT_H

#include "analysis/TraceIndex.h"
#include "model/TraceBuilder.h"
#include "rules/Detector.h"
#include "rules/Finding.h"
#include "rules/RuleSpec.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tracelint::testing {

constexpr int64_t Us = 1000;
constexpr int64_t Ms = 1000 * Us;

class TraceMaker {
public:
  TraceMaker() {
    // Each trace starts at time 0 so that model times equal the times below.
    Host = B.lane(1, 1);
  }
  uint32_t Host;

  uint32_t host(int64_t Tid) { return B.lane(1, Tid); }
  uint32_t stream(int32_t Device, int64_t Stream) {
    uint32_t L = B.lane(100 + Device, Stream);
    B.setDeviceLane(L, Device, Stream);
    return L;
  }

  /// Any event; times in ns.
  void add(uint32_t Lane, model::EventKind Kind, llvm::StringRef Name,
           int64_t Start, int64_t End, uint32_t Correlation = 0,
           const model::EventArgs *A = nullptr) {
    model::Event E;
    E.Lane = Lane;
    E.Kind = Kind;
    E.Name = B.strings().intern(Name);
    E.Start = Start;
    E.Duration = End - Start;
    E.Correlation = Correlation;
    B.addEvent(E, A);
  }
  void op(llvm::StringRef Name, int64_t Start, int64_t End) {
    add(Host, model::EventKind::Op, Name, Start, End);
  }
  void runtime(llvm::StringRef Name, int64_t Start, int64_t End,
               uint32_t Lane = ~0u) {
    add(Lane == ~0u ? Host : Lane, model::EventKind::Runtime, Name, Start, End);
  }
  void step(int64_t Number, int64_t Start, int64_t End) {
    add(Host, model::EventKind::Annotation,
        ("ProfilerStep#" + std::to_string(Number)), Start, End);
  }
  /// A launch call [CallStart, CallEnd) on the main thread and the kernel it
  /// submitted, [KStart, KEnd) on \p Stream, linked by a fresh correlation.
  void launch(uint32_t Stream, llvm::StringRef Kernel, int64_t CallStart,
              int64_t CallEnd, int64_t KStart, int64_t KEnd,
              llvm::StringRef Call = "cudaLaunchKernel",
              model::EventKind Kind = model::EventKind::Kernel,
              const model::EventArgs *A = nullptr, uint32_t Lane = ~0u) {
    uint32_t C = ++Correlation;
    add(Lane == ~0u ? Host : Lane, model::EventKind::Runtime, Call, CallStart,
        CallEnd, C);
    add(Stream, Kind, Kernel, KStart, KEnd, C, A);
  }

  model::Trace finish() {
    // Pin the origin at 0: an instant at time 0 on an otherwise unused lane.
    model::Event Origin;
    Origin.Lane = B.lane(999, 999);
    Origin.Kind = model::EventKind::Marker;
    Origin.Name = B.strings().intern("origin");
    Origin.Flags = model::FlagInstant;
    B.addEvent(Origin);
    return B.finish();
  }

  model::TraceBuilder B;
  uint32_t Correlation = 0;
};

/// Runs a detector with the options given (others take the detector's
/// fallbacks, which equal the TOML defaults).
inline std::string run(rules::DetectorFn Fn, const analysis::TraceIndex &Ctx,
                       std::vector<rules::Detection> &Out,
                       std::vector<std::pair<std::string, double>> Opts = {}) {
  rules::RuleSpec Spec;
  rules::RuleOptions O;
  for (auto &[K, V] : Opts)
    O.set(K, V);
  return Fn(Ctx, Spec, O, Out);
}

} // namespace tracelint::testing

#endif
