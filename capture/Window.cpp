//===- capture/Window.cpp - When collection starts and stops --------------===//
#include "Window.h"

#include <algorithm>

using namespace tracelint::capture;

CaptureWindow::CaptureWindow(WindowConfig C, uint64_t OriginNs)
    : Config(std::move(C)), Origin(OriginNs), Delay(Config.DelayNs) {
  Mode = !Config.RangeName.empty() ? WindowMode::Range
         : Config.ProfilerApi      ? WindowMode::ProfilerApi
                                   : WindowMode::Time;
  if (Config.RangeCount == 0)
    Config.RangeCount = 1;
}

WindowAction CaptureWindow::open(uint64_t NowNs) {
  Phase = WindowPhase::Active;
  Start = NowNs;
  return WindowAction::Start;
}

WindowAction CaptureWindow::close(uint64_t NowNs, std::string Why) {
  Phase = WindowPhase::Finished;
  End = std::max(NowNs, Start);
  Reason = std::move(Why);
  return WindowAction::Stop;
}

WindowAction CaptureWindow::tick(uint64_t NowNs) {
  switch (Phase) {
  case WindowPhase::Waiting:
    if (Mode == WindowMode::Time && delayElapsed(NowNs))
      return open(NowNs);
    return WindowAction::None;
  case WindowPhase::Active:
    if (Config.DurationNs && NowNs >= Start + Config.DurationNs)
      return close(NowNs, "duration elapsed");
    return WindowAction::None;
  case WindowPhase::Finished:
    return WindowAction::None;
  }
  return WindowAction::None;
}

WindowAction CaptureWindow::rangeBegin(std::string_view Name, uint64_t Key,
                                       uint64_t NowNs) {
  if (Mode != WindowMode::Range || Name != Config.RangeName)
    return WindowAction::None;
  if (Phase == WindowPhase::Waiting) {
    if (!delayElapsed(NowNs))
      return WindowAction::None;
    OpenKeys.push_back(Key);
    return open(NowNs);
  }
  if (Phase == WindowPhase::Active)
    OpenKeys.push_back(Key);
  return WindowAction::None;
}

WindowAction CaptureWindow::rangeEnd(uint64_t Key, uint64_t NowNs) {
  if (Phase != WindowPhase::Active)
    return WindowAction::None;
  auto It = std::find(OpenKeys.begin(), OpenKeys.end(), Key);
  if (It == OpenKeys.end())
    return WindowAction::None;
  OpenKeys.erase(It);
  if (++Ended < Config.RangeCount)
    return WindowAction::None;
  return close(NowNs, Config.RangeCount == 1
                          ? "range '" + Config.RangeName + "' ended"
                          : std::to_string(Ended) + " ranges '" +
                                Config.RangeName + "' ended");
}

WindowAction CaptureWindow::profilerStart(uint64_t NowNs) {
  if (Mode != WindowMode::ProfilerApi || Phase != WindowPhase::Waiting ||
      !delayElapsed(NowNs))
    return WindowAction::None;
  return open(NowNs);
}

WindowAction CaptureWindow::profilerStop(uint64_t NowNs) {
  if (Mode != WindowMode::ProfilerApi || Phase != WindowPhase::Active)
    return WindowAction::None;
  return close(NowNs, "cudaProfilerStop");
}

WindowAction CaptureWindow::finish(uint64_t NowNs) {
  if (Phase == WindowPhase::Active)
    return close(NowNs, "process exit");
  if (Phase == WindowPhase::Waiting) {
    Phase = WindowPhase::Finished;
    Start = End = NowNs;
    Reason = "process exit before the window opened";
  }
  return WindowAction::None;
}

std::optional<uint64_t> CaptureWindow::nextDeadline() const {
  if (Phase == WindowPhase::Waiting && Mode == WindowMode::Time)
    return Origin + Delay;
  if (Phase == WindowPhase::Active && Config.DurationNs)
    return Start + Config.DurationNs;
  return std::nullopt;
}
