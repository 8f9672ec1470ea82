//===- report/StatsReport.h - `tracelint stats` output ----------*- C++ -*-===//
//
// Writes analysis::TraceStats as a compact text report for people or as JSON
// for scripts. Both show the producer, steps, per-device busy/idle, top
// kernels and runtime calls, copies and import statistics; both say "cannot
// judge" where the trace did not record what a figure needs.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_REPORT_STATSREPORT_H
#define TRACELINT_REPORT_STATSREPORT_H

#include "analysis/Stats.h"
#include "model/Trace.h"
#include "rules/detectors/DevicePeaks.h"

#include "llvm/ADT/ArrayRef.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

namespace llvm::json {
class OStream;
} // namespace llvm::json

namespace tracelint::report {

/// Longest kernel or call name shown in a text table; longer ones end in
/// "...". JSON always carries the whole name.
constexpr size_t MaxNameColumns = 80;

/// Text report. ANSI colour only when \p Color is true (the caller decides,
/// e.g. from isatty); every string from the trace is sanitized. Each device
/// shows its peaks (tracelint.toml's [devices] tables, \p PeakOverrides,
/// before the built-in table).
void writeStatsText(
    llvm::raw_ostream &OS, const model::Trace &T, const analysis::TraceStats &S,
    llvm::StringRef InputName, bool Color,
    llvm::ArrayRef<rules::detect::DevicePeaks> PeakOverrides = {});

/// JSON report: integer ns fields end in `_ns`, shares are fractions in
/// [0, 1], and keys come in a fixed order.
void writeStatsJson(
    llvm::raw_ostream &OS, const model::Trace &T, const analysis::TraceStats &S,
    llvm::StringRef InputName,
    llvm::ArrayRef<rules::detect::DevicePeaks> PeakOverrides = {});

/// The "producer" object and the "hardware" array of a JSON report (also
/// used by the lint report); \p S gives the program that produced it.
void writeProducerJson(llvm::json::OStream &J, const model::Trace &T,
                       const analysis::TraceStats &S);

} // namespace tracelint::report

#endif
