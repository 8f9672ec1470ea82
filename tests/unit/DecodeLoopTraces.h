//===- DecodeLoopTraces.h - Decode loops laid out by hand -------*- C++ -*-===//
//
// The token loop that the tests of the decode-loop finder (DecodeLoopTest)
// and of L004 (rules/StaticDecodeLaunchBoundTest) share: one layout whose
// figures the tests work out from the event times.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_TESTS_UNIT_DECODELOOPTRACES_H
#define TRACELINT_TESTS_UNIT_DECODELOOPTRACES_H

#include "DetectorTestSupport.h"

#include <string>

namespace tracelint::testing {

inline const char *const DecodeKernels[] = {
    "embed", "norm", "qkv", "attn", "oproj", "mlp_up", "down", "sample"};

/// \p Prefill kernels with distinct names (100 us each, back to back from
/// time 0, each launched by a 5 us call that returns as it starts), then
/// \p Tokens tokens from \p T0: token k launches the 8 kernels above one
/// every 20 us (10 us calls), each running \p KernelUs from its call's end.
/// After each token's launches the host reads the token back (a 1 us
/// cudaStreamSynchronize at 155 us into the token) unless \p Reads is false.
inline model::Trace decodeTrace(int Tokens, int64_t KernelUs, int Prefill = 0,
                                int64_t T0 = 0, bool Reads = true) {
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  for (int P = 0; P < Prefill; ++P) {
    int64_t C = P * 100 * Us;
    M.launch(S, "prefill_" + std::to_string(P), C, C + 5 * Us, C + 5 * Us,
             C + 105 * Us);
  }
  for (int K = 0; K < Tokens; ++K) {
    for (int I = 0; I < 8; ++I) {
      int64_t C = T0 + (160 * K + 20 * I) * Us;
      M.launch(S, DecodeKernels[I], C, C + 10 * Us, C + 10 * Us,
               C + (10 + KernelUs) * Us);
    }
    int64_t R = T0 + (160 * K + 155) * Us;
    if (Reads)
      M.runtime("cudaStreamSynchronize", R, R + Us);
  }
  return M.finish();
}

} // namespace tracelint::testing

#endif
