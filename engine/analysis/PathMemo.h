//===- analysis/PathMemo.h - Per-instant scratch of a path run --*- C++ -*-===//
//
// What one longest-path run (CriticalPath) knows about each instant it has
// reached: whether it is still being solved or done, the longest path into
// it (the best so far while open) and the in-edge that path takes. Kept in
// pages of 4096 nodes made on first touch and reused by the next run: a
// step's path touches a few pages per lane, and a trace without steps (one
// target over the whole window) costs 13 bytes per node, where a hash map
// would cost two to three times that.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_ANALYSIS_PATHMEMO_H
#define TRACELINT_ANALYSIS_PATHMEMO_H

#include "model/Event.h"

#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

namespace tracelint::analysis {

class PathMemo {
public:
  enum class State : uint8_t { Unseen, Open, Done };

  /// Forgets the last run; the graph has \p NumNodes nodes.
  void reset(size_t NumNodes) {
    for (uint32_t P : Touched) {
      std::memset(Table[P]->St, 0, sizeof(Table[P]->St));
      Spare.push_back(std::move(Table[P]));
    }
    Touched.clear();
    Table.resize((NumNodes >> Shift) + 1);
  }
  State state(uint32_t N) const {
    const Page *P = Table[N >> Shift].get();
    return P ? P->St[N & Mask] : State::Unseen;
  }
  /// Starts solving \p N: no path into it yet.
  void open(uint32_t N) {
    std::unique_ptr<Page> &P = Table[N >> Shift];
    if (!P) {
      if (Spare.empty()) {
        P = std::make_unique<Page>();
      } else {
        P = std::move(Spare.back());
        Spare.pop_back();
      }
      Touched.push_back(N >> Shift);
    }
    P->St[N & Mask] = State::Open;
    P->Dist[N & Mask] = std::numeric_limits<int64_t>::min();
    P->Pred[N & Mask] = model::NoIndex;
  }
  void close(uint32_t N) { Table[N >> Shift]->St[N & Mask] = State::Done; }
  /// The longest path into an open or done node, and its in-edge (an index
  /// into DependencyGraph::edges(), or NoIndex).
  int64_t &dist(uint32_t N) { return Table[N >> Shift]->Dist[N & Mask]; }
  uint32_t &pred(uint32_t N) { return Table[N >> Shift]->Pred[N & Mask]; }

private:
  static constexpr unsigned Shift = 12;
  static constexpr uint32_t Mask = (uint32_t(1) << Shift) - 1;
  struct Page {
    int64_t Dist[size_t(1) << Shift];
    uint32_t Pred[size_t(1) << Shift];
    State St[size_t(1) << Shift] = {};
  };
  std::vector<std::unique_ptr<Page>> Table;
  std::vector<uint32_t> Touched;
  std::vector<std::unique_ptr<Page>> Spare;
};

} // namespace tracelint::analysis

#endif
