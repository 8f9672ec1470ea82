//===- rules/detectors/OpRoofs.h - Each op against its device's roofs -----===//
//
// Where each op and argument set of detect::opRates stands on the roofline
// of the device its kernels ran on: computed here once, for `stats` (the
// share column and peak_share) and for K005, so that both quote the same
// device, the same peaks and the same shares.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_RULES_DETECTORS_OPROOFS_H
#define TRACELINT_RULES_DETECTORS_OPROOFS_H

#include "model/Trace.h"
#include "rules/detectors/DevicePeaks.h"
#include "rules/detectors/OpRates.h"

#include "llvm/ADT/ArrayRef.h"

#include <optional>
#include <string>
#include <vector>

namespace tracelint::rules::detect {

struct OpRoofs {
  /// The device that ran most of the ops' kernel time (-1: none), and its
  /// description (its own, or one it shares: deviceDescription).
  int32_t Device = -1;
  const model::DeviceInfo *Info = nullptr;
  /// Its peaks; std::nullopt for an unknown part, with Unknown saying why.
  std::optional<DevicePeaks> Peaks;
  std::string Unknown;
  /// Parallel to the rates: each op's position on the roofline (nullopt
  /// without peaks, time or a roof that applies).
  std::vector<std::optional<RoofPosition>> Positions;
};

/// The kernels the calls of \p R launched (indices into \p T).
std::vector<uint32_t> kernelsOf(const model::Trace &T, const OpRate &R);

/// Sets \p Rates against the peaks of the device that ran them
/// (\p Overrides from tracelint.toml first, then the built-in table).
OpRoofs opRoofs(const model::Trace &T, llvm::ArrayRef<OpRate> Rates,
                llvm::ArrayRef<DevicePeaks> Overrides);

/// "memory bandwidth" or "the bf16 matrix peak": the roof an op is judged
/// against, in words.
std::string roofWords(const OpRate &R, const RoofPosition &P);

} // namespace tracelint::rules::detect

#endif
