//===- analysis/Startup.h - What is not steady state ------------*- C++ -*-===//
//
// Start-up is not steady state (principle 4): context creation and module
// loading, allocator calls, stream and event creation, compilation and
// autotuning, and graph capture happen once. Teardown at the end of a window
// (deallocation, module unloading, context and handle destruction after the
// last submission) is not steady state either. The trace index finds both
// once per trace; U001 and U003 report them, the steady-state rules say that
// they cannot judge a window that is start-up, and `tracelint diff` measures
// teardown time. The names of each category are model::NameClass lists.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_ANALYSIS_STARTUP_H
#define TRACELINT_ANALYSIS_STARTUP_H

#include "model/Intervals.h"
#include "model/Trace.h"

#include <array>
#include <cstdint>
#include <vector>

namespace tracelint::analysis {

class TraceIndex;

enum StartupCategory : unsigned {
  ContextAndModules,
  Allocation,
  Handles,
  Compilation,
  GraphCapture,
  /// A call or op whose first run takes far longer than its later runs:
  /// library handle creation, lazy loading, autotuning on first use.
  FirstCall,
  NumStartupCategories
};
const char *startupCategoryName(unsigned C);

struct StartupEvent {
  uint32_t Index = model::NoIndex; ///< the call, op or capture end
  StartupCategory Cat = ContextAndModules;
  model::Interval Range; ///< a capture span runs from BeginCapture
  /// Found by its length against its own later runs, not by its name: it
  /// stays start-up even though its name recurs in every step.
  bool ByLength = false;
};

/// U001's default share of a window without steps above which start-up
/// work is reported (the window then mixes start-up with steady state).
constexpr double DefaultMinStartupShare = 0.05;
/// U001's default share of a window without steps above which the window
/// is start-up rather than steady state; the steady-state rules use the
/// same figure to say that they cannot judge it.
constexpr double DefaultStartupWindowShare = 0.5;

/// A start-up query or launch call only counts as start-up when it is slow:
/// the first call creates the context or loads the kernel's module; later
/// ones take microseconds. A slow launch must also be its kernel's first
/// and stand out among the kernel's other launches (Startup.cpp).
constexpr int64_t SlowStartupCallNs = 1'000'000;

/// The steady-state rules judge what start-up leaves of the target when it
/// is at least this share of it; under it they say that they cannot judge
/// (docs/path.md, "Start-up and steady state").
constexpr double SteadyRemainderShare = 0.1;

/// One host thread's stream capture: from the call that began it to the
/// call that ended it (or the thread's last event when the window cut it).
struct CaptureSpan {
  uint32_t Lane = model::NoIndex;
  model::Interval Range;
};

struct StartupWork {
  /// One-off start-up work, after dropping names that recur in most later
  /// steps (steady-state costs that other rules own).
  std::vector<StartupEvent> Found;
  std::array<std::vector<model::Interval>, NumStartupCategories> ByCategory;
  /// Host time in start-up work (a union over threads) inside the window.
  int64_t StartupNs = 0;
  /// The window captures graphs: a stream captures between BeginCapture
  /// and EndCapture (work is recorded, not run). Graph instantiation or
  /// replay alone is not capture.
  bool HasCapture = false;
  bool HasSteps = false;
  int64_t WindowNs = 0;
  /// Stream captures, by lane then start.
  std::vector<CaptureSpan> Captures;
  /// Launch calls inside a capture span of their own thread that have no
  /// device work: they recorded into a graph and ran nothing, which is
  /// what capture means, not lost device records.
  uint64_t CapturedLaunches = 0;
  /// Start-up host time inside each step (parallel to TraceIndex::steps()),
  /// and in the target: the median over the steady steps, or StartupNs
  /// without steps. TargetNs is the target's length (TraceIndex::targetNs).
  std::vector<int64_t> StepStartupNs;
  int64_t TargetStartupNs = 0;
  int64_t TargetNs = 0;

  /// Start-up work's share of the window.
  double windowShare() const {
    return WindowNs > 0 ? double(StartupNs) / double(WindowNs) : 0.0;
  }
  /// No steps, and start-up work takes at least \p MinShare of the window:
  /// the window mixes start-up with whatever else it holds.
  bool windowMixed(double MinShare = DefaultMinStartupShare) const {
    return !HasSteps && WindowNs > 0 && windowShare() >= MinShare;
  }
  /// No steps, and the window captures graphs or start-up work takes at
  /// least \p WindowShare of it: the window measures start-up.
  bool windowIsStartup(double WindowShare = DefaultStartupWindowShare) const {
    return !HasSteps &&
           (HasCapture || (WindowNs > 0 && windowShare() >= WindowShare));
  }
  /// Start-up work's share of the target (the median steady step, or the
  /// window).
  double targetShare() const {
    return TargetNs > 0 ? double(TargetStartupNs) / double(TargetNs) : 0.0;
  }
  /// Steps, and start-up work (graph capture, compilation, warm-up calls)
  /// takes at least \p WindowShare of the median steady step: the steps
  /// measure start-up, not steady state.
  bool stepsAreStartup(double WindowShare = DefaultStartupWindowShare) const {
    return HasSteps && TargetNs > 0 && targetShare() >= WindowShare;
  }
  /// The target measures start-up: a start-up window, or start-up steps.
  bool targetIsStartup(double WindowShare = DefaultStartupWindowShare) const {
    return windowIsStartup(WindowShare) || stepsAreStartup(WindowShare);
  }
  /// Start-up work leaves less than SteadyRemainderShare of the target
  /// (the window without steps, the median steady step with them): too
  /// little steady time for the steady-state rules to judge. Any more, and
  /// they judge the rest, beside the start-up that U001 reports.
  bool tooLittleSteadyTime() const {
    const double Share = HasSteps ? targetShare() : windowShare();
    return (HasSteps ? TargetNs : WindowNs) > 0 &&
           Share >= 1.0 - SteadyRemainderShare;
  }
};

enum TeardownCategory : unsigned {
  ModuleUnload,
  Deallocation,
  ContextDestruction,
  HandleDestruction,
  NumTeardownCategories
};
const char *teardownCategoryName(unsigned C);

struct TeardownEvent {
  uint32_t Index = model::NoIndex;
  TeardownCategory Cat = ModuleUnload;
  model::Interval Range;
};

struct TeardownWork {
  /// When teardown can begin: the end of the window's last submission (a
  /// launch or copy call on any host thread); INT64_MAX without one.
  int64_t Begin = INT64_MAX;
  /// Teardown calls that start at or after Begin, in lane order.
  std::vector<TeardownEvent> Found;
  std::array<std::vector<model::Interval>, NumTeardownCategories> ByCategory;
  /// Host time in teardown calls (a union over threads) inside the window.
  int64_t TeardownNs = 0;
};

/// The builders behind TraceIndex::startup() and TraceIndex::teardown();
/// read those, which compute each once.
StartupWork findStartupWork(const TraceIndex &Ctx);
TeardownWork findTeardownWork(const TraceIndex &Ctx);

} // namespace tracelint::analysis

#endif
