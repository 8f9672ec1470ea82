//===- report/DevicePeaksReport.cpp - A device's roofs in reports ---------===//
#include "report/DevicePeaksReport.h"
#include "report/JsonSupport.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

using namespace tracelint;
using namespace tracelint::report;
using rules::detect::ComputeUnit;
using rules::detect::DevicePeaks;

/// Trace and configuration strings are untrusted: repair invalid UTF-8.
static std::string jsonText(llvm::StringRef S) {
  return llvm::json::isUTF8(S) ? S.str() : llvm::json::fixUTF8(S);
}

std::string report::formatPeakFigure(double V) {
  if (!std::isfinite(V) || V <= 0)
    return "0";
  int Decimals = std::max(0, 3 - int(std::floor(std::log10(V))));
  std::string S;
  llvm::raw_string_ostream(S) << llvm::format("%.*f", Decimals, V);
  if (llvm::StringRef(S).contains('.')) {
    S.erase(S.find_last_not_of('0') + 1);
    if (S.back() == '.')
      S.pop_back();
  }
  return S;
}

namespace {
/// The description peaks are looked up by for device \p Device, and the
/// number of the GPU it was borrowed from (-1: its own).
struct Described {
  model::DeviceInfo Info;
  int32_t BorrowedFrom = -1;
};

Described describe(const model::Trace &T, int32_t Device) {
  Described Out;
  Out.Info.Id = Device;
  if (const model::DeviceInfo *D =
          rules::detect::deviceDescription(T, Device)) {
    Out.Info = *D;
    if (D->Id != Device)
      Out.BorrowedFrom = D->Id;
  }
  return Out;
}
} // namespace

std::string
report::peaksLine(const model::Trace &T, int32_t Device,
                  llvm::ArrayRef<rules::detect::DevicePeaks> Overrides) {
  Described Dev = describe(T, Device);
  const model::DeviceInfo &D = Dev.Info;
  std::optional<DevicePeaks> P = rules::detect::peaksFor(D, Overrides);
  if (!P)
    return "peaks: " + rules::detect::unknownPeaksReason(D);
  std::vector<std::string> Parts;
  if (P->MemoryTBps > 0)
    Parts.push_back(formatPeakFigure(P->MemoryTBps) + " TB/s");
  // The headline matrix rate (what half-precision training and inference
  // run at), then the rate an fp32 op gets.
  for (llvm::StringRef Class : {"bf16", "fp16"})
    if (auto It = P->MatrixTflops.find(Class.str());
        It != P->MatrixTflops.end()) {
      Parts.push_back(llvm::formatv("{0} {1} TFLOP/s dense (matrix)", Class,
                                    formatPeakFigure(It->second)));
      break;
    }
  if (std::optional<double> Fp32 =
          P->computeRoof("float", ComputeUnit::Matrix)) {
    const bool OnMatrixUnits = P->MatrixTflops.count("fp32");
    Parts.push_back(llvm::formatv("fp32 {0} TFLOP/s{1}",
                                  formatPeakFigure(*Fp32),
                                  OnMatrixUnits ? " (matrix)" : ""));
  }
  if (Parts.empty())
    Parts.push_back("no figures");
  std::string Line = "peaks (" + P->Name;
  if (Dev.BorrowedFrom >= 0)
    Line += ", as gpu " + std::to_string(Dev.BorrowedFrom);
  Line += "): " + llvm::join(Parts, ", ");
  if (P->FromConfig)
    Line += " (from the configuration)";
  return Line;
}

void report::writePeaksJson(
    llvm::json::OStream &J, const model::Trace &T, int32_t Device,
    llvm::ArrayRef<rules::detect::DevicePeaks> Overrides) {
  Described Dev = describe(T, Device);
  const model::DeviceInfo &D = Dev.Info;
  if (Dev.BorrowedFrom >= 0)
    J.attribute("peaks_described_as_gpu", Dev.BorrowedFrom);
  std::optional<DevicePeaks> P = rules::detect::peaksFor(D, Overrides);
  if (!P) {
    J.attribute("peaks", nullptr);
    J.attribute("peaks_unknown_reason",
                jsonText(rules::detect::unknownPeaksReason(D)));
    return;
  }
  auto Figures = [&](llvm::StringRef Key,
                     const std::map<std::string, double> &M) {
    J.attributeObject(Key, [&] {
      // The report's dtype order, not the map's.
      for (llvm::StringRef Class : rules::detect::dtypeClasses())
        if (auto It = M.find(Class.str()); It != M.end())
          writeRounded(J, Class, It->second);
    });
  };
  J.attributeObject("peaks", [&] {
    J.attribute("name", jsonText(P->Name));
    J.attribute("source", jsonText(P->Source));
    writeRounded(J, "memory_tbps", P->MemoryTBps);
    Figures("matrix_tflops", P->MatrixTflops);
    Figures("vector_tflops", P->VectorTflops);
    J.attribute("from_config", P->FromConfig);
  });
}
