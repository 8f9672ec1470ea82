//===- model/Steps.h - Steps from named ranges ------------------*- C++ -*-===//
//
// By default a trace's steps come from ProfilerStep#N annotations (found by
// TraceBuilder). `--step NAME` names another range instead: an NVTX range of
// an Nsight Systems export, or a user annotation (record_function) of a
// Kineto trace. The selection is by exact name and works on the model, so it
// is the same for every input format. A trace without step markers of a
// program other than PyTorch gets its repeated NVTX or roctx ranges as
// steps when they look like a loop's iterations (iterationRanges).
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_MODEL_STEPS_H
#define TRACELINT_MODEL_STEPS_H

#include "model/Trace.h"

#include "llvm/ADT/StringRef.h"

#include <string>
#include <utility>
#include <vector>

namespace tracelint::model {

/// Rewrites T.Steps from the annotation events named exactly \p Name on host
/// threads, numbered 0, 1, ... in time order, and sets T.StepsFrom to Named.
/// When several threads carry such ranges, the thread with the most defines
/// the steps (ties: the first lane). A range nested inside another range of
/// the same name on that thread belongs to it and starts no step of its own.
/// Returns the number of steps; when there is no such range, T is left
/// unchanged and 0 is returned.
size_t defineStepsFromRanges(Trace &T, llvm::StringRef Name);

/// For a trace without step markers: the NVTX or roctx range name that
/// marks its iterations, for defineStepsFromRanges (the caller then sets
/// T.StepRangesChosen). A name qualifies when, on its busiest host thread,
/// at least three of its ranges follow one another without overlapping,
/// three in four of them last between half and twice their median, and
/// together they cover at least a quarter of the window; of those, the
/// name whose ranges cover the most time wins (the loop body over a phase
/// inside it), ties to the fewer ranges. "" when the trace has steps or no
/// name qualifies. Callers ask only for programs other than PyTorch, which
/// marks its steps with prof.step() and whose other ranges (forward, a
/// DataLoader's) are phases, not iterations.
std::string iterationRanges(const Trace &T);

/// The most frequent annotation names on host threads with their counts, most
/// frequent first (ties by name), at most \p Max of them: what to suggest when
/// a --step name matches nothing.
std::vector<std::pair<std::string, size_t>> frequentRangeNames(const Trace &T,
                                                               size_t Max);

} // namespace tracelint::model

#endif
