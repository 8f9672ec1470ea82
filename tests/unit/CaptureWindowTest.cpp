//===- CaptureWindowTest.cpp - The capture window with a fake clock -------===//
#include "Window.h"

#include "gtest/gtest.h"

using namespace tracelint::capture;

namespace {

constexpr uint64_t Sec = 1000000000ull;

WindowConfig timeWindow(double Delay, double Duration) {
  WindowConfig C;
  C.DelayNs = uint64_t(Delay * Sec);
  C.DurationNs = uint64_t(Duration * Sec);
  return C;
}

TEST(CaptureWindowTest, TimeWindowOpensAfterDelayAndClosesAfterDuration) {
  CaptureWindow W(timeWindow(2, 3), 100 * Sec);
  EXPECT_EQ(W.mode(), WindowMode::Time);
  EXPECT_EQ(W.nextDeadline(), 102 * Sec);
  EXPECT_EQ(W.tick(101 * Sec), WindowAction::None);
  EXPECT_EQ(W.phase(), WindowPhase::Waiting);
  EXPECT_EQ(W.tick(102 * Sec + 5), WindowAction::Start);
  EXPECT_EQ(W.startNs(), 102 * Sec + 5);
  EXPECT_EQ(W.nextDeadline(), 105 * Sec + 5);
  EXPECT_EQ(W.tick(105 * Sec), WindowAction::None);
  EXPECT_EQ(W.tick(105 * Sec + 5), WindowAction::Stop);
  EXPECT_EQ(W.phase(), WindowPhase::Finished);
  EXPECT_EQ(W.endNs(), 105 * Sec + 5);
  EXPECT_EQ(W.stopReason(), "duration elapsed");
  // A finished window never reopens and asks for no more ticks.
  EXPECT_EQ(W.tick(200 * Sec), WindowAction::None);
  EXPECT_FALSE(W.nextDeadline());
}

TEST(CaptureWindowTest, NoDelayOpensAtOnceAndOpenEndedRunsUntilExit) {
  CaptureWindow W(timeWindow(0, 0), 7);
  EXPECT_EQ(W.tick(7), WindowAction::Start);
  EXPECT_FALSE(W.nextDeadline());
  EXPECT_EQ(W.tick(UINT64_MAX / 2), WindowAction::None);
  EXPECT_EQ(W.finish(50), WindowAction::Stop);
  EXPECT_EQ(W.stopReason(), "process exit");
  EXPECT_EQ(W.endNs(), 50u);
}

TEST(CaptureWindowTest, ExitBeforeTheWindowOpensCapturesNothing) {
  CaptureWindow W(timeWindow(10, 1), 0);
  EXPECT_EQ(W.finish(3 * Sec), WindowAction::None);
  EXPECT_EQ(W.phase(), WindowPhase::Finished);
  EXPECT_EQ(W.stopReason(), "process exit before the window opened");
  EXPECT_EQ(W.tick(20 * Sec), WindowAction::None);
}

TEST(CaptureWindowTest, RangeWindowFollowsTheNamedRange) {
  WindowConfig C;
  C.RangeName = "train_step";
  CaptureWindow W(C, 0);
  EXPECT_EQ(W.mode(), WindowMode::Range);
  EXPECT_FALSE(W.nextDeadline());
  EXPECT_EQ(W.tick(10), WindowAction::None); // time alone does not open it
  EXPECT_EQ(W.rangeBegin("forward", 1, 20), WindowAction::None);
  EXPECT_EQ(W.rangeBegin("train_step", 2, 30), WindowAction::Start);
  EXPECT_EQ(W.startNs(), 30u);
  // The end of another range, even one opened earlier, does not close it.
  EXPECT_EQ(W.rangeEnd(1, 40), WindowAction::None);
  EXPECT_EQ(W.rangeEnd(2, 90), WindowAction::Stop);
  EXPECT_EQ(W.endNs(), 90u);
  EXPECT_EQ(W.stopReason(), "range 'train_step' ended");
  EXPECT_EQ(W.rangeBegin("train_step", 3, 100), WindowAction::None);
}

TEST(CaptureWindowTest, RangeCountAndDelay) {
  WindowConfig C;
  C.RangeName = "step";
  C.RangeCount = 2;
  C.DelayNs = 100;
  CaptureWindow W(C, 1000);
  // Before the delay: ignored, and its end is not counted.
  EXPECT_EQ(W.rangeBegin("step", 1, 1050), WindowAction::None);
  EXPECT_EQ(W.rangeEnd(1, 1090), WindowAction::None);
  EXPECT_EQ(W.rangeBegin("step", 2, 1100), WindowAction::Start);
  EXPECT_EQ(W.rangeEnd(2, 1200), WindowAction::None);
  EXPECT_EQ(W.rangesEnded(), 1u);
  EXPECT_EQ(W.rangeBegin("step", 3, 1210), WindowAction::None);
  EXPECT_EQ(W.rangeEnd(3, 1300), WindowAction::Stop);
  EXPECT_EQ(W.stopReason(), "2 ranges 'step' ended");
}

TEST(CaptureWindowTest, DurationCapsARangeWindow) {
  WindowConfig C;
  C.RangeName = "step";
  C.DurationNs = 50;
  CaptureWindow W(C, 0);
  EXPECT_EQ(W.rangeBegin("step", 1, 10), WindowAction::Start);
  EXPECT_EQ(W.nextDeadline(), 60u);
  EXPECT_EQ(W.tick(60), WindowAction::Stop);
  EXPECT_EQ(W.stopReason(), "duration elapsed");
  EXPECT_EQ(W.rangeEnd(1, 70), WindowAction::None);
}

TEST(CaptureWindowTest, ProfilerApiWindow) {
  WindowConfig C;
  C.ProfilerApi = true;
  CaptureWindow W(C, 0);
  EXPECT_EQ(W.mode(), WindowMode::ProfilerApi);
  EXPECT_EQ(W.tick(5), WindowAction::None);
  EXPECT_EQ(W.profilerStop(6), WindowAction::None); // stop before start
  EXPECT_EQ(W.rangeBegin("x", 1, 7), WindowAction::None);
  EXPECT_EQ(W.profilerStart(8), WindowAction::Start);
  EXPECT_EQ(W.profilerStart(9), WindowAction::None);
  EXPECT_EQ(W.profilerStop(20), WindowAction::Stop);
  EXPECT_EQ(W.stopReason(), "cudaProfilerStop");
  // Only the first start/stop pair is captured.
  EXPECT_EQ(W.profilerStart(30), WindowAction::None);
}

} // namespace
