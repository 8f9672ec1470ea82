//===- rules/detectors/DevicePeaks.h - Device roofs -------------*- C++ -*-===//
//
// What a device can do at best: its DRAM bandwidth and its dense compute rate
// per element type on its matrix units (tensor cores, MFMA) and on its vector
// units (CUDA cores, SIMD). A built-in table holds public vendor figures for
// common NVIDIA and AMD parts, each with its source; tracelint.toml's
// [devices."NAME"] tables add parts or replace figures (docs/device-peaks.md).
// An op's achieved rate is judged against the roof that bounds it at its
// arithmetic intensity (the roofline model).
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_RULES_DETECTORS_DEVICEPEAKS_H
#define TRACELINT_RULES_DETECTORS_DEVICEPEAKS_H

#include "model/Trace.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace tracelint::rules::detect {

enum class ComputeUnit {
  Matrix,
  Vector
}; // tensor/matrix cores vs CUDA cores/SIMD

struct DevicePeaks {
  std::string Name;      // the table's name of the part ("NVIDIA H100 SXM5")
  std::string Source;    // where the figures come from (datasheet title + URL)
  double MemoryTBps = 0; // DRAM (HBM/GDDR) bandwidth, decimal TB/s
  std::map<std::string, double> MatrixTflops,
      VectorTflops; // dense, by dtype
                    // class: "fp64","fp32","tf32","bf16","fp16","fp8","int8"
  bool FromConfig = false;
  /// The compute roof for element type \p Dtype as recorded
  /// ("c10::BFloat16", "float", "c10::Half", "double", "c10::Float8_e4m3fn",
  /// ...) or as a class name ("bf16", "tf32"), on \p Unit; nullopt when the
  /// table has no figure. A class the matrix units lack falls back to the
  /// vector figure (an fp32 matrix product on NVIDIA runs on CUDA cores:
  /// PyTorch disallows TF32 for matmul by default; ask for "tf32" where it
  /// is known to be on). 16- and 8-bit floating types without a figure use
  /// the vector fp32 figure (PyTorch's elementwise kernels compute them in
  /// float).
  std::optional<double> computeRoof(llvm::StringRef Dtype,
                                    ComputeUnit Unit) const;
};

/// The dtype class of a recorded element type ("c10::BFloat16" -> "bf16",
/// "float" -> "fp32", "signed char" -> "int8"); "" for types without one
/// (integers wider than 8 bits, bool, complex).
llvm::StringRef dtypeClass(llvm::StringRef Dtype);

/// The dtype classes, in the order reports list them.
llvm::ArrayRef<llvm::StringRef> dtypeClasses();

/// Peaks for the trace's device: overrides first (exact or substring match on
/// the name), then the built-in table (match on DeviceInfo::Name, and for AMD
/// also Arch + CU count, e.g. gfx942 with 304 CUs is MI300X); nullopt for an
/// unknown device.
std::optional<DevicePeaks> peaksFor(const model::DeviceInfo &D,
                                    llvm::ArrayRef<DevicePeaks> Overrides = {});

/// The description of device \p Device in \p T: its own; else, when the
/// devices \p T describes are all alike, theirs (a process that sees one
/// GPU may record it under its visible number, 0, and its work under
/// another, as the MI300X inference traces do); nullptr when there is none.
const model::DeviceInfo *deviceDescription(const model::Trace &T,
                                           int32_t Device);

/// Why peaksFor found no peaks for \p D, in words for a report ("unknown
/// part \"Foo GPU\"; rates are shown without shares of a roof (set them in
/// tracelint.toml [devices.\"Foo GPU\"])"). Only meaningful when peaksFor
/// returned nullopt.
std::string unknownPeaksReason(const model::DeviceInfo &D);

/// The built-in table, in its order (documentation and tests).
llvm::ArrayRef<DevicePeaks> builtinPeaks();

struct RoofPosition {
  double Share = 0;         // achieved / the roof that bounds it (0..~1)
  bool MemoryBound = false; // arithmetic intensity below the ridge point
  double RidgeFlopsPerByte = 0;
  double RoofTflops = 0; // the attainable rate at this intensity
};

/// Where an op with \p Flops and \p Bytes per call taking \p KernelNs sits:
/// attainable = min(compute roof, intensity × bandwidth). Bytes 0 → compute
/// roof only; no compute figure → bandwidth only. nullopt when there is no
/// time, no work, or no roof that applies.
std::optional<RoofPosition> roofPosition(const DevicePeaks &P, double Flops,
                                         double Bytes, int64_t KernelNs,
                                         llvm::StringRef Dtype,
                                         ComputeUnit Unit);

} // namespace tracelint::rules::detect

#endif
