//===- report/DevicePeaksReport.h - A device's roofs in reports -*- C++ -*-===//
//
// The line and the JSON object that say which peaks tracelint judges a
// device against (docs/device-peaks.md), or why it has none: `stats` shows
// them per device, so that a user sees the roofs before any share of them.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_REPORT_DEVICEPEAKSREPORT_H
#define TRACELINT_REPORT_DEVICEPEAKSREPORT_H

#include "model/Trace.h"
#include "rules/detectors/DevicePeaks.h"

#include "llvm/ADT/ArrayRef.h"

#include <string>

namespace llvm::json {
class OStream;
} // namespace llvm::json

namespace tracelint::report {

/// A figure with four significant digits and no trailing zeros ("989.4",
/// "1307", "66.9", "1.555", "0.864").
std::string formatPeakFigure(double V);

/// For device \p Device of \p T: "peaks (NVIDIA H100 SXM5): 3.35 TB/s, bf16
/// 989.4 TFLOP/s dense (matrix), fp32 66.9 TFLOP/s", or "peaks: unknown part
/// ..." with what to set. Not sanitized: the caller sanitizes the line.
std::string peaksLine(const model::Trace &T, int32_t Device,
                      llvm::ArrayRef<rules::detect::DevicePeaks> Overrides);

/// "peaks": {name, source, memory_tbps, matrix_tflops {...}, vector_tflops
/// {...}, from_config}, or "peaks": null and "peaks_unknown_reason"; and
/// "peaks_described_as_gpu" when the device took another's description.
void writePeaksJson(llvm::json::OStream &J, const model::Trace &T,
                    int32_t Device,
                    llvm::ArrayRef<rules::detect::DevicePeaks> Overrides);

} // namespace tracelint::report

#endif
