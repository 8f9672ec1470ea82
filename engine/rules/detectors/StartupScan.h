//===- rules/detectors/StartupScan.h - Start-up work in a window -*- C++
//-*-===//
//
// Finds the start-up work inside a trace's window: context creation and
// module loading, allocator calls, stream/event/handle creation, compilation
// and autotuning, and graph capture. U001 reports it; the steady-state rules
// (L001, S001, M001) use it to say "cannot judge" on a window that is
// start-up rather than steady state. Also finds the teardown work at the end
// of a window (U003), so that deallocation at exit is not taken for
// start-up allocation.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_RULES_DETECTORS_STARTUPSCAN_H
#define TRACELINT_RULES_DETECTORS_STARTUPSCAN_H

#include "analysis/TraceIndex.h"
#include "analysis/Teardown.h"

#include "llvm/ADT/StringRef.h"

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

namespace tracelint::rules::detect {

enum StartupCategory : unsigned {
  ContextAndModules,
  Allocation,
  Handles,
  Compilation,
  GraphCapture,
  NumStartupCategories
};
const char *startupCategoryName(unsigned C);

struct StartupEvent {
  uint32_t Index = model::NoIndex; ///< the call, op or capture end
  StartupCategory Cat = ContextAndModules;
  model::Interval Range; ///< a capture span runs from BeginCapture
};

/// U001's default share of a window without steps above which start-up
/// work is reported (the window then mixes start-up with steady state).
constexpr double DefaultMinStartupShare = 0.05;
/// U001's default share of a window without steps above which the window
/// is start-up rather than steady state; the steady-state rules (L001, S001,
/// M001) use the same figure to say that they cannot judge it.
constexpr double DefaultStartupWindowShare = 0.5;

struct StartupScan {
  /// One-off start-up work, after dropping names that recur in most later
  /// steps (steady-state costs that other rules own).
  std::vector<StartupEvent> Found;
  std::array<std::vector<model::Interval>, NumStartupCategories> ByCategory;
  /// Host time in start-up work (a union over threads) inside the window.
  int64_t StartupNs = 0;
  bool HasCapture = false;
  /// No steps, and start-up work takes at least MinShare of the window: the
  /// window mixes start-up with whatever else it holds.
  bool WindowMixed = false;
  /// No steps, and the window captures graphs or start-up work takes at
  /// least WindowShare of it: the window measures start-up.
  bool WindowIsStartup = false;
};

StartupScan scanStartup(const analysis::TraceIndex &Ctx,
                        double MinShare = DefaultMinStartupShare,
                        double WindowShare = DefaultStartupWindowShare);

/// The "cannot judge" reason for a steady-state rule on a start-up window,
/// or "" when the window is not start-up.
std::string startupWindowReason(const analysis::TraceIndex &Ctx);

struct TeardownEvent {
  uint32_t Index = model::NoIndex;
  analysis::TeardownCategory Cat = analysis::ModuleUnload;
  model::Interval Range;
};

struct TeardownScan {
  /// When teardown can begin: the end of the window's last submission (a
  /// launch or copy call on any host thread); INT64_MAX without one.
  int64_t Begin = INT64_MAX;
  /// Teardown calls (analysis::teardownCategory) that start at or after Begin.
  std::vector<TeardownEvent> Found;
  std::array<std::vector<model::Interval>, analysis::NumTeardownCategories>
      ByCategory;
  /// Host time in teardown calls (a union over threads) inside the window.
  int64_t TeardownNs = 0;
};

TeardownScan scanTeardown(const analysis::TraceIndex &Ctx);

} // namespace tracelint::rules::detect

#endif
