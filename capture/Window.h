//===- capture/Window.h - When collection starts and stops ------*- C++ -*-===//
//
// The capture window as a state machine over an injected clock: the caller
// passes every time it observes (CUPTI's timestamp in the library, plain
// numbers in tests), so the logic runs without a GPU and without sleeping.
//
// Waiting -> Active -> Finished, each step at most once. The window opens
//  - at launch + delay (time mode: no range and no profiler API),
//  - at the first NVTX range named RangeName that begins after the delay, or
//  - at the first cudaProfilerStart after the delay;
// and closes at the first of: duration elapsed (when one is set), the end of
// the RangeCount-th matching range, cudaProfilerStop, or process exit. A
// finished window never reopens: the application keeps running untraced.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_CAPTURE_WINDOW_H
#define TRACELINT_CAPTURE_WINDOW_H

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tracelint::capture {

struct WindowConfig {
  uint64_t DelayNs = 0;
  uint64_t DurationNs = 0; ///< 0: no time limit
  std::string RangeName;   ///< "": no range trigger
  uint32_t RangeCount = 1;
  bool ProfilerApi = false;
};

enum class WindowPhase { Waiting, Active, Finished };
enum class WindowAction { None, Start, Stop };
enum class WindowMode { Time, Range, ProfilerApi };

class CaptureWindow {
public:
  /// \p OriginNs is the program's launch on the caller's clock.
  CaptureWindow(WindowConfig Config, uint64_t OriginNs);

  WindowMode mode() const { return Mode; }
  WindowPhase phase() const { return Phase; }
  /// Valid once the window has opened / closed.
  uint64_t startNs() const { return Start; }
  uint64_t endNs() const { return End; }
  /// Why the window closed ("" while it has not).
  const std::string &stopReason() const { return Reason; }
  /// Matching ranges that ended inside the window.
  uint32_t rangesEnded() const { return Ended; }

  /// Time passes: opens a time-mode window after the delay, closes any
  /// window whose duration has elapsed.
  WindowAction tick(uint64_t NowNs);
  /// An NVTX range begins / ends. \p Key identifies the range instance (the
  /// caller derives it from a push/pop depth or a start/end id).
  WindowAction rangeBegin(std::string_view Name, uint64_t Key, uint64_t NowNs);
  WindowAction rangeEnd(uint64_t Key, uint64_t NowNs);
  WindowAction profilerStart(uint64_t NowNs);
  WindowAction profilerStop(uint64_t NowNs);
  /// The process is exiting: an open window closes, a waiting one finishes
  /// without having opened.
  WindowAction finish(uint64_t NowNs);

  /// When tick() should next be called to act (none: only events act).
  std::optional<uint64_t> nextDeadline() const;

private:
  WindowAction open(uint64_t NowNs);
  WindowAction close(uint64_t NowNs, std::string Why);
  bool delayElapsed(uint64_t NowNs) const { return NowNs >= Origin + Delay; }

  WindowConfig Config;
  WindowMode Mode;
  uint64_t Origin, Delay;
  WindowPhase Phase = WindowPhase::Waiting;
  uint64_t Start = 0, End = 0;
  std::string Reason;
  std::vector<uint64_t> OpenKeys;
  uint32_t Ended = 0;
};

} // namespace tracelint::capture

#endif
