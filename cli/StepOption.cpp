//===- cli/StepOption.cpp -------------------------------------------------===//
#include "StepOption.h"

#include "analysis/Producer.h"
#include "model/Steps.h"
#include "support/Format.h"

#include "llvm/Support/raw_ostream.h"

llvm::Error tracelint::cli::applyStepOption(model::Trace &T,
                                            llvm::StringRef Input,
                                            llvm::StringRef StepName) {
  // Without --step, a trace without step markers takes its repeated
  // NVTX/roctx ranges as steps when they look like iterations; "--step
  // none" keeps the whole window.
  // The producer is asked only when ranges qualify: a trace with step
  // markers (every PyTorch trace with prof.step()) pays for no pass.
  if (StepName.empty()) {
    std::string Ranges = model::iterationRanges(T);
    if (!Ranges.empty() &&
        !analysis::speaksPyTorch(analysis::detectProducer(T).Kind) &&
        model::defineStepsFromRanges(T, Ranges))
      T.StepRangesChosen = true;
    return llvm::Error::success();
  }
  if (StepName == "none" || model::defineStepsFromRanges(T, StepName))
    return llvm::Error::success();
  std::string Message;
  llvm::raw_string_ostream OS(Message);
  OS << "--step: " << Input << " has no annotation range named '"
     << support::sanitize(StepName) << "' on a host thread";
  auto Known = model::frequentRangeNames(T, 5);
  if (Known.empty())
    OS << "; it has no annotation ranges";
  for (size_t I = 0; I < Known.size(); ++I)
    OS << (I ? ", '" : "; the most frequent are '")
       << support::sanitize(Known[I].first, 60) << "' (" << Known[I].second
       << ")";
  return llvm::createStringError(
      std::make_error_code(std::errc::invalid_argument), OS.str());
}
