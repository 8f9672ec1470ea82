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
#include "rules/Catalogue.h"
#include "rules/Detector.h"
#include "rules/Engine.h"
#include "rules/Finding.h"
#include "rules/RuleSpec.h"

#include "llvm/ADT/StringExtras.h"

#include "gtest/gtest.h"

#include "UnitTestTimes.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tracelint::testing {

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

/// The built-in catalogue, parsed once.
inline const rules::Catalogue &builtinRules() {
  static const rules::Catalogue Cat =
      llvm::cantFail(rules::Catalogue::builtin());
  return Cat;
}

/// \p Spec's options: its rule file's defaults with \p Opts over them
/// (each must be an option of the rule).
inline rules::RuleOptions
optionsOf(const rules::RuleSpec &Spec, llvm::StringRef Code,
          const std::vector<std::pair<std::string, double>> &Opts) {
  rules::RuleOptions O(Spec);
  for (auto &[K, V] : Opts) {
    if (!Spec.option(K))
      ADD_FAILURE() << Code.str() << " has no option " << K;
    O.set(K, V);
  }
  return O;
}

/// "" when a rule judged its input, else "cannot judge: WHY" or "not
/// applicable: WHY".
inline std::string outcomeText(const rules::Outcome &R) {
  if (R.judged())
    return "";
  return (rules::skipKindName(R.kind()) + ": " + R.reason()).str();
}

/// Runs the built-in rule \p Code on \p Ctx as the engine does: its needs
/// are checked first, and its options are its rule file's defaults with
/// \p Opts over them (each must be an option of the rule). Returns "" when
/// the rule judged the trace, else "cannot judge: WHY" or "not applicable:
/// WHY".
inline std::string run(llvm::StringRef Code, const analysis::TraceIndex &Ctx,
                       std::vector<rules::Detection> &Out,
                       std::vector<std::pair<std::string, double>> Opts = {}) {
  const rules::RuleSpec *Spec = builtinRules().find(Code);
  if (!Spec) {
    ADD_FAILURE() << "no built-in rule " << Code.str();
    return "no such rule";
  }
  rules::RuleOptions O = optionsOf(*Spec, Code, Opts);
  std::vector<std::string> Missing;
  for (rules::Need N : Spec->Needs)
    if (std::string Why = rules::missingNeed(Ctx, N); !Why.empty())
      Missing.push_back(Why);
  if (!Missing.empty())
    return "cannot judge: " + llvm::join(Missing, "; ");
  rules::DetectorFn Fn = rules::findDetector(Spec->Sig.Detector);
  if (!Fn) {
    ADD_FAILURE() << Code.str() << ": no detector " << Spec->Sig.Detector;
    return "no detector";
  }
  rules::Outcome R = Fn(Ctx, O, Out);
  return outcomeText(R);
}

/// Runs the built-in job rule \p Code on \p Job with its rule file's
/// option defaults and \p Opts over them; "" when it judged the job.
inline std::string run(llvm::StringRef Code, const analysis::JobAnalysis &Job,
                       std::vector<rules::Detection> &Out,
                       std::vector<std::pair<std::string, double>> Opts = {}) {
  const rules::RuleSpec *Spec = builtinRules().find(Code);
  if (!Spec || !Spec->Sig.JobInput) {
    ADD_FAILURE() << "no built-in job rule " << Code.str();
    return "no such rule";
  }
  rules::RuleOptions O = optionsOf(*Spec, Code, Opts);
  rules::JobDetectorFn Fn = rules::findJobDetector(Spec->Sig.Detector);
  if (!Fn) {
    ADD_FAILURE() << Code.str() << ": no job detector " << Spec->Sig.Detector;
    return "no detector";
  }
  rules::Outcome R = Fn(Job, O, Out);
  return outcomeText(R);
}

} // namespace tracelint::testing

#endif
