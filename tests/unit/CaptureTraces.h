//===- CaptureTraces.h - A graph-capture step for start-up tests -*- C++
//-*-===//
//
// The shape of a HIP-graph capture trace: one 34 ms step, of which 32 ms
// is stream capture. Shared by the trace index's start-up test, U001 and
// T003, which must agree that it is start-up and not damage.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_TESTS_UNIT_CAPTURETRACES_H
#define TRACELINT_TESTS_UNIT_CAPTURETRACES_H

#include "DetectorTestSupport.h"

namespace tracelint::testing {

/// One step [0, 34) ms. Ten ordinary launches with their kernels in the
/// first millisecond; hipStreamBeginCapture at 1 ms; 100 hipLaunchKernel
/// calls every 300 us from 1.1 ms that record into the graph (no device
/// work: the importer counts them as launches without device work);
/// hipStreamEndCapture ending at 32 ms; hipGraphInstantiate [32, 33) ms;
/// hipGraphLaunch at 33 ms and its kernel [33.01, 33.9) ms. Start-up in the
/// step: [1, 33) ms = 32 ms of 34 (94.1 %).
inline model::Trace hipCaptureStep() {
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  M.step(1, 0, 34 * Ms);
  for (int K = 0; K < 10; ++K)
    M.launch(S, "warmup_kernel", K * 90 * Us, K * 90 * Us + 5 * Us,
             K * 90 * Us + 10 * Us, K * 90 * Us + 60 * Us, "hipLaunchKernel");
  M.runtime("hipStreamBeginCapture", 1 * Ms, 1010 * Us);
  for (int K = 0; K < 100; ++K)
    M.runtime("hipLaunchKernel", 1100 * Us + K * 300 * Us,
              1105 * Us + K * 300 * Us);
  M.runtime("hipStreamEndCapture", 31990 * Us, 32 * Ms);
  M.runtime("hipGraphInstantiate", 32 * Ms, 33 * Ms);
  M.launch(S, "graph_kernel", 33 * Ms, 33005 * Us, 33010 * Us, 33900 * Us,
           "hipGraphLaunch");
  M.B.stats().add(model::ImportStat::LaunchWithoutDevice, 100);
  return M.finish();
}

} // namespace tracelint::testing

#endif
