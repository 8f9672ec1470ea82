//===- JobTestSupport.h - Synthetic ranks of a job for tests ----*- C++ -*-===//
//
// Builds the ranks of a data-parallel job as traces, each with its own clock:
// four 20 ms steps; in each, a 6 ms compute kernel launched at +5 us, then
// an all-reduce on the communication stream that starts when the rank's own
// compute ends (its arrival) and ends for every rank together, 1 ms after
// the last rank arrived. A delayed rank runs a host op of D before it
// launches its compute, so it arrives D late and the others wait D inside
// the all-reduce; a rank with extra compute E runs a kernel of 6 ms + E and
// arrives E late. JobDelayNs is the largest lateness of any rank, either way.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_TESTS_UNIT_JOBTESTSUPPORT_H
#define TRACELINT_TESTS_UNIT_JOBTESTSUPPORT_H

#include "DetectorTestSupport.h"

#include "analysis/JobAnalysis.h"
#include "analysis/RankSummary.h"

#include <memory>

namespace tracelint::testing {

constexpr llvm::StringLiteral AllReduceKernel =
    "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, "
    "ncclWork*)";

struct RankLayout {
  int64_t Rank = 0, World = 4;
  int64_t ClockShiftNs = 0;   ///< this rank's clock reads this much more
  int64_t DelayNs = 0;        ///< this rank's host work before its compute
  int64_t ExtraComputeNs = 0; ///< this rank's compute runs this much longer
  int64_t JobDelayNs = 0;     ///< the largest delay of any rank in the job
  int Steps = 4;
  int Collectives = 1; ///< all-reduces per step
  bool Distributed = true;
  std::string Group; ///< the collectives' "Process Group Name", if any
};

inline model::Trace makeRankTrace(const RankLayout &L) {
  TraceMaker M;
  M.B.setBaseTimeNs(1'700'000'000'000'000'000 + L.ClockShiftNs);
  if (L.Distributed) {
    M.B.producer().Rank = L.Rank;
    M.B.producer().WorldSize = L.World;
    M.B.producer().DistributedBackend = "nccl";
  }
  uint32_t Compute = M.stream(0, 7), Comm = M.stream(0, 20);
  model::EventArgs GroupArgs;
  if (!L.Group.empty())
    GroupArgs.Group = M.B.strings().intern(L.Group);
  for (int K = 0; K < L.Steps; ++K) {
    const int64_t T0 = 1 * Ms + K * 20 * Ms;
    M.step(K + 1, T0, T0 + 20 * Ms);
    int64_t At = T0 + 5 * Us;
    if (L.DelayNs) {
      M.op("aten::index_select", At, At + L.DelayNs);
      At += L.DelayNs;
    }
    const int64_t Work = 6 * Ms + L.ExtraComputeNs;
    M.launch(Compute, "ampere_sgemm_128x64_tn", At, At + 5 * Us, At + 10 * Us,
             At + 10 * Us + Work);
    int64_t Arrive = At + 10 * Us + Work;
    const int64_t LastArrive = T0 + 5 * Us + L.JobDelayNs + 10 * Us + 6 * Ms;
    for (int C = 0; C < L.Collectives; ++C) {
      const int64_t End = LastArrive + (C + 1) * 1 * Ms;
      M.launch(Comm, AllReduceKernel, At + 20 * Us, At + 25 * Us, Arrive, End,
               "cudaLaunchKernel", model::EventKind::Collective,
               L.Group.empty() ? nullptr : &GroupArgs);
      Arrive = End;
    }
  }
  return M.finish();
}

/// The summary of one synthetic rank, as `summarize` makes it.
inline analysis::RankSummary summarizeRank(const RankLayout &L,
                                           llvm::StringRef Name = "") {
  model::Trace T = makeRankTrace(L);
  analysis::TraceIndex Ctx(T);
  std::string Input =
      Name.empty() ? "rank" + std::to_string(L.Rank) + ".json" : Name.str();
  return llvm::cantFail(
      analysis::summarizeTrace(Ctx, Input, analysis::DefaultRankPattern));
}

/// A job of \p World ranks, clocks shifted by tens of ms (a different
/// offset each), \p Late delayed by \p DelayNs (-1: none) of host work or,
/// with \p ByCompute, of longer compute.
inline std::vector<analysis::RankSummary> makeJob(int64_t World, int64_t Late,
                                                  int64_t DelayNs,
                                                  int Collectives = 1,
                                                  bool ByCompute = false) {
  static const int64_t Shifts[] = {13, 41, 27, 68, 35, 52, 19, 74};
  std::vector<analysis::RankSummary> Out;
  for (int64_t R = 0; R < World; ++R) {
    RankLayout L;
    L.Rank = R;
    L.World = World;
    L.ClockShiftNs = Shifts[R % 8] * Ms + R * 3 * Ms;
    (ByCompute ? L.ExtraComputeNs : L.DelayNs) = R == Late ? DelayNs : 0;
    L.JobDelayNs = Late >= 0 ? DelayNs : 0;
    L.Collectives = Collectives;
    Out.push_back(summarizeRank(L));
  }
  return Out;
}

} // namespace tracelint::testing

#endif
