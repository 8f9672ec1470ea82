//===- rules/detectors/DecodeLoop.h - Repeated static decode steps -*- C++ -*-//
//
// A batch-1 autoregressive decode runs the same kernel sequence once per
// token. findDecodeLoop finds, on one device, the longest stretch of device
// work whose name sequence repeats with a constant period (one token), and
// splits the device's idle time inside that stretch by cause. L004 reports
// such a loop when its idle time is mostly the launch path; L001 leaves the
// launch idle inside a reported loop to L004, so the time is claimed once.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_RULES_DETECTORS_DECODELOOP_H
#define TRACELINT_RULES_DETECTORS_DECODELOOP_H

#include "analysis/TraceIndex.h"
#include "rules/Detector.h"

#include <optional>

namespace tracelint::rules::detect {

/// The defaults are L004's rule file (DecodeLoopTest checks it): L001 finds
/// the loops it leaves to L004 with them.
struct DecodeLoopOptions {
  /// Device operations per token at least (a single repeated kernel is a
  /// loop, not a model step).
  size_t MinKernels = 8;
  /// Tokens (repeats of the sequence) at least.
  size_t MinRepeats = 8;
  /// Launch-attributed idle, as a share of the loop's span, at least.
  double MinLaunchShare = 0.30;
  /// Launch-attributed idle, as a share of the loop's idle time, at least.
  double MinLaunchOfIdle = 0.50;
  /// The loop's span, as a share of the target (median step or window), at
  /// least: decode dominates a generation call, while a short repeating
  /// stretch inside a larger step is a per-tensor loop.
  double MinLoopShare = 0.50;
  /// Host waits on the device inside the loop, per token boundary, at
  /// least: autoregressive decode reads each sampled token (or a stopping
  /// test) on the host, while a stack of identical layers inside one
  /// forward pass never synchronizes.
  double MinTokenReads = 0.50;
  analysis::IdleOptions Idle;
};

/// Reads the options of L004's rule file.
DecodeLoopOptions decodeLoopOptions(const RuleOptions &Opts);

struct DecodeLoop {
  int32_t Device = -1;
  /// From the first operation of the first token to the end of the last
  /// token's last operation.
  model::Interval Range;
  size_t Period = 0;  ///< device operations per token
  size_t Repeats = 0; ///< whole tokens
  uint32_t FirstWork = model::NoIndex;
  /// Start-to-start token time and device busy time per token (medians).
  int64_t TokenNs = 0, TokenBusyNs = 0;
  /// Host waits that start inside Range.
  size_t Reads = 0;
  analysis::IdleBreakdown Idle; ///< inside Range
  /// The idle time is mostly the launch path and the loop is long enough.
  bool LaunchBound = false;
  /// The launch-path idle of the loop inside each measured window (step, or
  /// the whole window), parallel to Ctx.measureWindows().Ranges, its median
  /// capped at the target, and whether L004 reports it (LaunchBound and
  /// GainNs > 0). L001 leaves exactly the reported loops out.
  std::vector<int64_t> PerWindowNs;
  int64_t GainNs = 0;
  bool Reported = false;
};

/// The longest repeated static sequence of device work on \p Device (most
/// operations covered; ties: the shorter period), or none when no sequence
/// of at least MinKernels operations repeats MinRepeats times in a row.
std::optional<DecodeLoop> findDecodeLoop(const analysis::TraceIndex &Ctx,
                                         int32_t Device,
                                         const DecodeLoopOptions &Opts);

/// findDecodeLoop, plus the gain on the measured windows (PerWindowNs,
/// GainNs, Reported).
std::optional<DecodeLoop>
findReportedDecodeLoop(const analysis::TraceIndex &Ctx, int32_t Device,
                       const DecodeLoopOptions &Opts);

/// The parts of \p R outside \p Cut (zero, one or two intervals).
std::vector<model::Interval> intervalMinus(model::Interval R,
                                           model::Interval Cut);

} // namespace tracelint::rules::detect

#endif
