//===- report/HtmlSwimlane.cpp - The ranks at one collective, as SVG ------===//
#include "report/HtmlSwimlane.h"
#include "report/HtmlTimeline.h"
#include "support/Format.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

using namespace tracelint;
using namespace tracelint::report;
using analysis::JobAnalysis;
using analysis::JobCollective;
using analysis::NoTime;
using support::formatDuration;

namespace {

constexpr double SvgWidth = 1000, LabelWidth = 80, AxisHeight = 22,
                 LaneHeight = 14, LaneGap = 4;

/// "+1.2 ms" from the first rank's arrival.
std::string relative(int64_t Ns) {
  std::string S(Ns < 0 ? "-" : "+");
  return S += formatDuration(Ns < 0 ? -Ns : Ns);
}

} // namespace

void report::writeCollectiveSwimlane(HtmlBuilder &H, const JobAnalysis &J,
                                     const JobCollective &M, size_t MaxLanes) {
  if (M.Last == SIZE_MAX || M.Present < 2)
    return;
  // The last rank, then the others by their wait, longest first.
  std::vector<size_t> Lanes;
  for (size_t Slot = 0; Slot < M.Start.size(); ++Slot)
    if (Slot != M.Last && M.Start[Slot] != NoTime)
      Lanes.push_back(Slot);
  llvm::stable_sort(
      Lanes, [&](size_t A, size_t B) { return M.waitOf(A) > M.waitOf(B); });
  Lanes.insert(Lanes.begin(), M.Last);
  const size_t LeftOut = Lanes.size() > MaxLanes ? Lanes.size() - MaxLanes : 0;
  Lanes.resize(std::min(Lanes.size(), MaxLanes));

  int64_t First = std::numeric_limits<int64_t>::max();
  int64_t End = std::numeric_limits<int64_t>::min();
  for (size_t Slot = 0; Slot < M.Start.size(); ++Slot)
    if (M.Start[Slot] != NoTime) {
      First = std::min(First, M.Start[Slot]);
      End = std::max(End, M.End[Slot]);
    }
  const int64_t Pad = std::max<int64_t>(1, (End - First) / 25);
  // The axis counts from the first rank's arrival, so that its ticks fall
  // on round offsets.
  TimeAxis Rel{-Pad, End - First + Pad, LabelWidth + 10,
               SvgWidth - LabelWidth - 20};
  auto X = [&](int64_t T) { return Rel.x(T - First); };
  const double Height =
      AxisHeight + 4 + double(Lanes.size()) * (LaneHeight + LaneGap) + 2;
  const int64_t Arrive = M.Start[M.Last];

  H.open("svg",
         {{"class", "timeline swimlane"},
          {"viewBox", "0 0 " + svgNumber(SvgWidth) + " " + svgNumber(Height)},
          {"width", svgNumber(SvgWidth)},
          {"height", svgNumber(Height)},
          {"role", "img"}});
  writeTimeAxis(H, Rel, AxisHeight, Height, relative);
  double Y = AxisHeight + 4;
  for (size_t Slot : Lanes) {
    const std::string Rank = J.rankName(Slot);
    H.element("text", Rank, {{"x", "4"}, {"y", svgNumber(Y + LaneHeight - 3)}});
    const int64_t S = M.Start[Slot], E = M.End[Slot];
    const int64_t Wait = M.waitOf(Slot);
    auto Box = [&](int64_t From, int64_t To, llvm::StringRef Class,
                   const std::string &Title) {
      double X0 = X(From), X1 = X(To);
      H.open("g", {{"class", Class.str()}});
      H.element("title", Title);
      H.empty("rect", {{"x", svgNumber(X0)},
                       {"y", svgNumber(Y)},
                       {"width", svgNumber(std::max(X1 - X0, 1.5))},
                       {"height", svgNumber(LaneHeight - 2)}});
      H.close();
    };
    if (Wait > 0)
      Box(S, S + Wait, "sw-wait",
          llvm::formatv("{0} waits {1} for {2} ({3} to {4})", Rank,
                        formatDuration(Wait), J.rankName(M.Last),
                        relative(S - First), relative(S + Wait - First))
              .str());
    Box(S + Wait, E, Slot == M.Last ? "sw-coll sw-late" : "sw-coll",
        llvm::formatv("{0}: {1} from {2} to {3}{4}", Rank, M.describe(),
                      relative(S + Wait - First), relative(E - First),
                      Slot == M.Last
                          ? ", arriving last by " + formatDuration(M.LateByNs)
                          : std::string())
            .str());
    Y += LaneHeight + LaneGap;
  }
  H.open("g", {{"class", "sw-arrive"}});
  H.element("title",
            J.rankName(M.Last) + " arrives at " + relative(Arrive - First));
  H.empty("line", {{"x1", svgNumber(X(Arrive))},
                   {"x2", svgNumber(X(Arrive))},
                   {"y1", svgNumber(AxisHeight - 2)},
                   {"y2", svgNumber(Height)}});
  H.close();
  H.close(); // svg

  std::string Note = llvm::formatv(
      "{0} in the aligned clock, from the first rank's arrival; waits for "
      "{1} in red, {1} outlined",
      M.describe(), J.rankName(M.Last));
  if (LeftOut)
    Note += llvm::formatv("; {0} more rank{1} not drawn", LeftOut,
                          LeftOut == 1 ? "" : "s")
                .str();
  H.element("p", Note, {{"class", "note"}});
}
