//===- rules/detectors/DevicePeaks.cpp - Device roofs ---------------------===//
//
// The built-in table and the lookup. Every figure is the vendor's public
// figure for the part, next to its source; docs/device-peaks.md shows the
// same table (a unit test keeps the two equal). Conventions:
//   - dense rates: where a source quotes only the rate with 2:4 structured
//     sparsity, the figure is written dense(X), X being the quoted figure;
//   - MI250X and MI250 carry two GCDs, each of which PyTorch, HIP and
//     rocprof list as its own device, so the table holds perGcd(X) of the
//     module's figures;
//   - tensor-core figures of NVIDIA's GeForce and workstation parts are
//     those with FP32 accumulation (what PyTorch's matmuls use);
//   - NVIDIA parts have no fp32 matrix figure: an fp32 matrix product runs
//     on CUDA cores unless TF32 is allowed (off for matmul by default);
//     AMD parts list their FP32 matrix (MFMA) rate, which rocBLAS and
//     hipBLASLt use for fp32 GEMMs;
//   - AMD vector fp32 is the packed-FP32 rate (CDNA 3 counts it in its
//     vector figure; CDNA 2 lists it apart).
//
//===----------------------------------------------------------------------===//
#include "rules/detectors/DevicePeaks.h"

#include "analysis/Producer.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <vector>

using namespace tracelint;
using namespace tracelint::rules;
using namespace tracelint::rules::detect;

namespace {

/// A source quoting only the rate with 2:4 structured sparsity: the dense
/// rate is half of it.
constexpr double dense(double SparseFigure) { return SparseFigure / 2; }
/// A figure of a two-GCD MI200 module, per GCD (one device in a trace).
constexpr double perGcd(double ModuleFigure) { return ModuleFigure / 2; }

// The sources: title, what was done to the figures, address.
constexpr const char *A100Datasheet =
    "NVIDIA A100 Tensor Core GPU datasheet (dense figures as listed), "
    "https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/"
    "nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf";
constexpr const char *HopperWhitepaper =
    "NVIDIA H100 Tensor Core GPU Architecture whitepaper, H100 SXM5 and PCIe "
    "table (dense figures as listed), "
    "https://resources.nvidia.com/en-us-tensor-core/gtc22-whitepaper-hopper";
constexpr const char *H100Datasheet =
    "NVIDIA H100 Tensor Core GPU datasheet, H100 NVL column (tensor figures "
    "quoted with sparsity, halved), "
    "https://resources.nvidia.com/en-us-tensor-core/"
    "nvidia-tensor-core-gpu-datasheet";
constexpr const char *H200Page =
    "NVIDIA H200 Tensor Core GPU specifications (tensor figures quoted with "
    "sparsity, halved), https://www.nvidia.com/en-us/data-center/h200/";
constexpr const char *HgxPage =
    "NVIDIA HGX platform specifications, HGX B200 per GPU (tensor figures "
    "quoted with sparsity, halved), "
    "https://www.nvidia.com/en-us/data-center/hgx/";
constexpr const char *L4Datasheet =
    "NVIDIA L4 Tensor Core GPU datasheet (tensor figures quoted with "
    "sparsity, halved), "
    "https://resources.nvidia.com/en-us-data-center-overview/"
    "l4-gpu-datasheet";
constexpr const char *L40SDatasheet =
    "NVIDIA L40S GPU datasheet (dense figures as listed), "
    "https://resources.nvidia.com/en-us-l40s/l40s-datasheet-28413";
constexpr const char *T4Datasheet =
    "NVIDIA T4 Tensor Core GPU datasheet (mixed-precision FP16/FP32 tensor "
    "figure), https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/"
    "tesla-t4/t4-tensor-core-datasheet-951643.pdf";
constexpr const char *V100Page =
    "NVIDIA V100 Tensor Core GPU specifications (tensor figure: FP16 with "
    "FP32 accumulation), https://www.nvidia.com/en-us/data-center/v100/";
constexpr const char *GA102Whitepaper =
    "NVIDIA Ampere GA102 GPU Architecture whitepaper v2, RTX 3090 and RTX "
    "A6000 tables (dense tensor figures with FP32 accumulation), "
    "https://www.nvidia.com/content/PDF/"
    "nvidia-ampere-ga-102-gpu-architecture-whitepaper-v2.pdf";
constexpr const char *AdaWhitepaper =
    "NVIDIA Ada GPU Architecture whitepaper, RTX 4090 and RTX 6000 Ada "
    "tables (dense tensor figures with FP32 accumulation), "
    "https://images.nvidia.com/aem-dam/Solutions/geforce/ada/"
    "nvidia-ada-gpu-architecture.pdf";
constexpr const char *MI210Page =
    "AMD Instinct MI210 accelerator specifications (figures as listed), "
    "https://www.amd.com/en/products/accelerators/instinct/mi200/mi210.html";
constexpr const char *MI250XPage =
    "AMD Instinct MI250X accelerator specifications (module figures, halved "
    "per GCD), "
    "https://www.amd.com/en/products/accelerators/instinct/mi200/mi250x.html";
constexpr const char *MI250Page =
    "AMD Instinct MI250 accelerator specifications (module figures, halved "
    "per GCD), "
    "https://www.amd.com/en/products/accelerators/instinct/mi200/mi250.html";
constexpr const char *MI300XDatasheet =
    "AMD Instinct MI300X accelerator data sheet (dense figures as listed), "
    "https://www.amd.com/content/dam/amd/en/documents/instinct-tech-docs/"
    "data-sheets/amd-instinct-mi300x-data-sheet.pdf";
constexpr const char *MI300ADatasheet =
    "AMD Instinct MI300A APU data sheet (dense figures as listed), "
    "https://www.amd.com/content/dam/amd/en/documents/instinct-tech-docs/"
    "data-sheets/amd-instinct-mi300a-data-sheet.pdf";
constexpr const char *MI325XPage =
    "AMD Instinct MI325X accelerator specifications (dense figures as "
    "listed), "
    "https://www.amd.com/en/products/accelerators/instinct/mi300/mi325x.html";
constexpr const char *MI350XPage =
    "AMD Instinct MI350X accelerator specifications (dense figures as "
    "listed), "
    "https://www.amd.com/en/products/accelerators/instinct/mi350/mi350x.html";
constexpr const char *MI355XPage =
    "AMD Instinct MI355X accelerator specifications (dense figures as "
    "listed), "
    "https://www.amd.com/en/products/accelerators/instinct/mi350/mi355x.html";

/// One built-in part: its peaks and how a trace's device is recognised.
struct Part {
  DevicePeaks Peaks;
  /// Name matching: the device's name, split into upper-case words of
  /// letters and digits ("NVIDIA A100-SXM4-80GB" -> NVIDIA, A100, SXM4,
  /// 80GB), holds every word of one of these sets and none of Forbid.
  std::vector<std::vector<llvm::StringRef>> Words;
  std::vector<llvm::StringRef> Forbid;
  /// AMD parts: the gfx target, to recognise an unnamed device (or one
  /// named only "AMD Radeon Graphics") by it and its CU count.
  llvm::StringRef Arch;
  /// SMs or CUs of the whole device; a device that records another count
  /// is a partition (MIG, CPX) or another part.
  int32_t Units = -1;
  /// Bounds on the memory the device records, in GiB (0: none).
  double MinMemoryGiB = 0, MaxMemoryGiB = 0;
};

using Figures = std::map<std::string, double>;

Part part(llvm::StringRef Name, llvm::StringRef Source, double MemoryTBps,
          Figures Matrix, Figures Vector) {
  Part P;
  P.Peaks.Name = Name.str();
  P.Peaks.Source = Source.str();
  P.Peaks.MemoryTBps = MemoryTBps;
  P.Peaks.MatrixTflops = std::move(Matrix);
  P.Peaks.VectorTflops = std::move(Vector);
  return P;
}

/// \p P, recognised by the words of its name and its SM count.
Part named(Part P, std::vector<std::vector<llvm::StringRef>> Words,
           std::vector<llvm::StringRef> Forbid, int32_t Units) {
  P.Words = std::move(Words);
  P.Forbid = std::move(Forbid);
  P.Units = Units;
  return P;
}

/// \p P, only for devices with between \p Min and \p Max GiB of memory.
Part memoryGiB(Part P, double Min, double Max) {
  P.MinMemoryGiB = Min;
  P.MaxMemoryGiB = Max;
  return P;
}

/// \p P (AMD), recognised by one word of its name, or by its gfx target and
/// CU count.
Part amd(Part P, llvm::StringRef Word, llvm::StringRef Arch, int32_t CUs) {
  P.Words = {{Word}};
  P.Arch = Arch;
  P.Units = CUs;
  return P;
}

std::vector<Part> makeParts() {
  // The A100's compute is the same in every form; the memory differs.
  const Figures A100Matrix = {{"fp64", 19.5},
                              {"tf32", 156},
                              {"bf16", 312},
                              {"fp16", 312},
                              {"int8", 624}};
  const Figures A100Vector = {{"fp64", 9.7}, {"fp32", 19.5}};
  const Figures H100SxmMatrix = {{"fp64", 66.9},  {"tf32", 494.7},
                                 {"bf16", 989.4}, {"fp16", 989.4},
                                 {"fp8", 1978.9}, {"int8", 1978.9}};
  const Figures NvlMatrix = {{"fp64", 60},          {"tf32", dense(835)},
                             {"bf16", dense(1671)}, {"fp16", dense(1671)},
                             {"fp8", dense(3341)},  {"int8", dense(3341)}};
  const Figures NvlVector = {{"fp64", 30}, {"fp32", 60}};
  const Figures MI300XMatrix = {
      {"fp64", 163.4},  {"fp32", 163.4}, {"tf32", 653.7}, {"bf16", 1307.4},
      {"fp16", 1307.4}, {"fp8", 2614.9}, {"int8", 2614.9}};
  const Figures MI300XVector = {{"fp64", 81.7}, {"fp32", 163.4}};
  constexpr double A100Split = 60; // GiB between the 40 GB and 80 GB forms

  std::vector<Part> Parts;
  // NVIDIA, newest first.
  Parts.push_back(named(part("NVIDIA B200", HgxPage, 7.7,
                             {{"fp64", 37},
                              {"tf32", dense(2200)},
                              {"bf16", dense(4500)},
                              {"fp16", dense(4500)},
                              {"fp8", dense(9000)},
                              {"int8", dense(9000)}},
                             {{"fp64", 37}, {"fp32", 75}}),
                        {{"B200"}}, {}, 148));
  Parts.push_back(
      named(part("NVIDIA H200 NVL", H200Page, 4.8, NvlMatrix, NvlVector),
            {{"H200", "NVL"}}, {}, 132));
  Parts.push_back(named(part("NVIDIA H200 SXM", H200Page, 4.8,
                             {{"fp64", 67},
                              {"tf32", dense(989)},
                              {"bf16", dense(1979)},
                              {"fp16", dense(1979)},
                              {"fp8", dense(3958)},
                              {"int8", dense(3958)}},
                             {{"fp64", 34}, {"fp32", 67}}),
                        {{"H200"}}, {"NVL"}, 132));
  Parts.push_back(
      named(part("NVIDIA H100 NVL", H100Datasheet, 3.9, NvlMatrix, NvlVector),
            {{"H100", "NVL"}}, {}, 132));
  Parts.push_back(named(part("NVIDIA H100 PCIe", HopperWhitepaper, 2.0,
                             {{"fp64", 51.2},
                              {"tf32", 378},
                              {"bf16", 756},
                              {"fp16", 756},
                              {"fp8", 1513},
                              {"int8", 1513}},
                             {{"fp64", 25.6}, {"fp32", 51.2}}),
                        {{"H100", "PCIE"}}, {}, 114));
  Parts.push_back(named(part("NVIDIA H100 SXM5", HopperWhitepaper, 3.35,
                             H100SxmMatrix, {{"fp64", 33.5}, {"fp32", 66.9}}),
                        {{"H100"}}, {"PCIE", "NVL"}, 132));
  Parts.push_back(memoryGiB(named(part("NVIDIA A100 SXM4 80GB", A100Datasheet,
                                       2.039, A100Matrix, A100Vector),
                                  {{"A100"}}, {"PCIE", "40GB"}, 108),
                            A100Split, 0));
  Parts.push_back(memoryGiB(named(part("NVIDIA A100 SXM4 40GB", A100Datasheet,
                                       1.555, A100Matrix, A100Vector),
                                  {{"A100"}}, {"PCIE", "80GB"}, 108),
                            0, A100Split));
  Parts.push_back(memoryGiB(named(part("NVIDIA A100 PCIe 80GB", A100Datasheet,
                                       1.935, A100Matrix, A100Vector),
                                  {{"A100", "PCIE"}}, {"40GB"}, 108),
                            A100Split, 0));
  Parts.push_back(memoryGiB(named(part("NVIDIA A100 PCIe 40GB", A100Datasheet,
                                       1.555, A100Matrix, A100Vector),
                                  {{"A100", "PCIE"}}, {"80GB"}, 108),
                            0, A100Split));
  Parts.push_back(named(part("NVIDIA L40S", L40SDatasheet, 0.864,
                             {{"tf32", 183},
                              {"bf16", 362.05},
                              {"fp16", 362.05},
                              {"fp8", 733},
                              {"int8", 733}},
                             {{"fp32", 91.6}}),
                        {{"L40S"}}, {}, 142));
  Parts.push_back(named(part("NVIDIA L4", L4Datasheet, 0.3,
                             {{"tf32", dense(120)},
                              {"bf16", dense(242)},
                              {"fp16", dense(242)},
                              {"fp8", dense(485)},
                              {"int8", dense(485)}},
                             {{"fp32", 30.3}}),
                        {{"L4"}}, {}, 58));
  Parts.push_back(named(part("NVIDIA T4", T4Datasheet, 0.32,
                             {{"fp16", 65}, {"int8", 130}}, {{"fp32", 8.1}}),
                        {{"T4"}}, {}, 40));
  // The DGX Station's V100s ("Tesla V100-DGXS-32GB") are NVLink modules at
  // the SXM2 clocks.
  Parts.push_back(named(part("NVIDIA V100 SXM2", V100Page, 0.9, {{"fp16", 125}},
                             {{"fp64", 7.8}, {"fp32", 15.7}}),
                        {{"V100", "SXM2"}, {"V100", "DGXS"}}, {}, 80));
  Parts.push_back(named(part("NVIDIA V100 PCIe", V100Page, 0.9, {{"fp16", 112}},
                             {{"fp64", 7}, {"fp32", 14}}),
                        {{"V100", "PCIE"}}, {}, 80));
  Parts.push_back(named(part("NVIDIA V100S PCIe", V100Page, 1.134,
                             {{"fp16", 130}}, {{"fp64", 8.2}, {"fp32", 16.4}}),
                        {{"V100S"}}, {}, 80));
  Parts.push_back(
      named(part("NVIDIA RTX 6000 Ada Generation", AdaWhitepaper, 0.96,
                 {{"tf32", 182.1},
                  {"bf16", 364.2},
                  {"fp16", 364.2},
                  {"fp8", 728.5},
                  {"int8", 728.5}},
                 {{"fp32", 91.1}}),
            {{"RTX", "6000", "ADA"}}, {}, 142));
  Parts.push_back(named(part("NVIDIA GeForce RTX 4090", AdaWhitepaper, 1.008,
                             {{"tf32", 82.6},
                              {"bf16", 165.2},
                              {"fp16", 165.2},
                              {"fp8", 330.3},
                              {"int8", 660.6}},
                             {{"fp32", 82.6}}),
                        {{"RTX", "4090"}}, {"D", "LAPTOP"}, 128));
  Parts.push_back(named(
      part("NVIDIA RTX A6000", GA102Whitepaper, 0.768,
           {{"tf32", 77.4}, {"bf16", 154.8}, {"fp16", 154.8}, {"int8", 309.7}},
           {{"fp32", 38.7}}),
      {{"A6000"}}, {}, 84));
  Parts.push_back(
      named(part("NVIDIA GeForce RTX 3090", GA102Whitepaper, 0.936,
                 {{"tf32", 35.6}, {"bf16", 71}, {"fp16", 71}, {"int8", 284}},
                 {{"fp32", 35.6}}),
            {{"RTX", "3090"}}, {"TI", "LAPTOP"}, 82));
  // AMD, newest first. MI300X and MI325X share gfx942 and 304 CUs; their
  // memory (192 GB vs 256 GB) tells them apart.
  Parts.push_back(amd(part("AMD Instinct MI355X", MI355XPage, 8.0,
                           {{"fp64", 78.6},
                            {"fp32", 157.3},
                            {"bf16", 2500},
                            {"fp16", 2500},
                            {"fp8", 5000},
                            {"int8", 5000}},
                           {{"fp64", 78.6}, {"fp32", 157.3}}),
                      "MI355X", "gfx950", 256));
  Parts.push_back(amd(part("AMD Instinct MI350X", MI350XPage, 8.0,
                           {{"fp64", 72.1},
                            {"fp32", 144.2},
                            {"bf16", 2300},
                            {"fp16", 2300},
                            {"fp8", 4600},
                            {"int8", 4600}},
                           {{"fp64", 72.1}, {"fp32", 144.2}}),
                      "MI350X", "gfx950", 256));
  Parts.push_back(memoryGiB(amd(part("AMD Instinct MI325X", MI325XPage, 6.0,
                                     MI300XMatrix, MI300XVector),
                                "MI325X", "gfx942", 304),
                            224, 0));
  Parts.push_back(memoryGiB(amd(part("AMD Instinct MI300X", MI300XDatasheet,
                                     5.3, MI300XMatrix, MI300XVector),
                                "MI300X", "gfx942", 304),
                            0, 224));
  Parts.push_back(amd(part("AMD Instinct MI300A", MI300ADatasheet, 5.3,
                           {{"fp64", 122.6},
                            {"fp32", 122.6},
                            {"tf32", 490.3},
                            {"bf16", 980.6},
                            {"fp16", 980.6},
                            {"fp8", 1961.2},
                            {"int8", 1961.2}},
                           {{"fp64", 61.3}, {"fp32", 122.6}}),
                      "MI300A", "gfx942", 228));
  Parts.push_back(
      amd(part("AMD Instinct MI250X (one GCD)", MI250XPage, perGcd(3.2768),
               {{"fp64", perGcd(95.7)},
                {"fp32", perGcd(95.7)},
                {"bf16", perGcd(383)},
                {"fp16", perGcd(383)},
                {"int8", perGcd(383)}},
               {{"fp64", perGcd(47.9)}, {"fp32", perGcd(95.7)}}),
          "MI250X", "gfx90a", 110));
  Parts.push_back(
      amd(part("AMD Instinct MI250 (one GCD)", MI250Page, perGcd(3.2768),
               {{"fp64", perGcd(90.5)},
                {"fp32", perGcd(90.5)},
                {"bf16", perGcd(362.1)},
                {"fp16", perGcd(362.1)},
                {"int8", perGcd(362.1)}},
               {{"fp64", perGcd(45.3)}, {"fp32", perGcd(90.5)}}),
          "MI250", "gfx90a", 104));
  Parts.push_back(amd(part("AMD Instinct MI210", MI210Page, 1.6384,
                           {{"fp64", 45.3},
                            {"fp32", 45.3},
                            {"bf16", 181},
                            {"fp16", 181},
                            {"int8", 181}},
                           {{"fp64", 22.6}, {"fp32", 45.3}}),
                      "MI210", "gfx90a", 104));
  return Parts;
}

const std::vector<Part> &parts() {
  static const std::vector<Part> Parts = makeParts();
  return Parts;
}

/// The upper-case words of letters and digits of \p Name.
llvm::SmallVector<std::string, 8> nameWords(llvm::StringRef Name) {
  llvm::SmallVector<std::string, 8> Words;
  std::string Word;
  for (char C : Name) {
    if (llvm::isAlnum(C)) {
      Word += llvm::toUpper(C);
      continue;
    }
    if (!Word.empty())
      Words.push_back(std::move(Word));
    Word.clear();
  }
  if (!Word.empty())
    Words.push_back(std::move(Word));
  return Words;
}

bool nameMatches(const Part &P, llvm::ArrayRef<std::string> Words) {
  auto Has = [&](llvm::StringRef W) { return llvm::is_contained(Words, W); };
  if (llvm::any_of(P.Forbid, Has))
    return false;
  return llvm::any_of(P.Words, [&](const std::vector<llvm::StringRef> &Set) {
    return llvm::all_of(Set, Has);
  });
}

/// Whether what \p D records about itself (units, memory) fits \p P; what
/// it does not record fits.
bool hardwareFits(const Part &P, const model::DeviceInfo &D) {
  if (P.Units > 0 && D.NumSMs > 0 && D.NumSMs != P.Units)
    return false;
  if (D.TotalGlobalMemory > 0) {
    double GiB = double(D.TotalGlobalMemory) / double(1ull << 30);
    if (P.MinMemoryGiB > 0 && GiB < P.MinMemoryGiB)
      return false;
    if (P.MaxMemoryGiB > 0 && GiB > P.MaxMemoryGiB)
      return false;
  }
  return true;
}

bool isAmd(const model::DeviceInfo &D) {
  return analysis::devicePlatform(D) == analysis::Platform::Rocm;
}

/// The gfx target of an AMD device, as the report names it ("gfx942"),
/// without target features ("gfx90a:sramecc+:xnack-").
std::string amdArch(const model::DeviceInfo &D) {
  if (!isAmd(D))
    return "";
  return llvm::StringRef(analysis::archName(D, analysis::Platform::Rocm))
      .split(':')
      .first.str();
}

/// How reports name \p D's architecture ("gfx942", "compute 9.0"): a
/// [devices] key for a device without a name.
std::string archKey(const model::DeviceInfo &D) {
  return llvm::StringRef(analysis::archName(D, analysis::devicePlatform(D)))
      .split(':')
      .first.str();
}

/// Whether \p A and \p B give the same figures (within 1 %: MI250's
/// per-GCD figures are MI210's, up to the rounding of the module's).
bool sameFigures(const DevicePeaks &A, const DevicePeaks &B) {
  auto Close = [](double X, double Y) {
    return std::fabs(X - Y) <= 0.01 * std::max(std::fabs(X), std::fabs(Y));
  };
  auto SameMap = [&](const Figures &X, const Figures &Y) {
    if (X.size() != Y.size())
      return false;
    for (const auto &[K, V] : X) {
      auto It = Y.find(K);
      if (It == Y.end() || !Close(V, It->second))
        return false;
    }
    return true;
  };
  return Close(A.MemoryTBps, B.MemoryTBps) &&
         SameMap(A.MatrixTflops, B.MatrixTflops) &&
         SameMap(A.VectorTflops, B.VectorTflops);
}

/// What the built-in table says of \p D.
struct BuiltinMatch {
  /// The parts \p D may be: by name when its name names one, else (AMD) by
  /// gfx target and CU count.
  std::vector<const Part *> Candidates;
  /// Parts its name names whose unit count or memory does not fit.
  std::vector<const Part *> NamedButUnfit;
};

BuiltinMatch matchBuiltin(const model::DeviceInfo &D) {
  BuiltinMatch M;
  llvm::SmallVector<std::string, 8> Words = nameWords(D.Name);
  for (const Part &P : parts()) {
    if (!nameMatches(P, Words))
      continue;
    (hardwareFits(P, D) ? M.Candidates : M.NamedButUnfit).push_back(&P);
  }
  if (!M.Candidates.empty() || !M.NamedButUnfit.empty())
    return M;
  // No part named: an AMD device is recognised by its gfx target and CUs
  // (the vLLM ROCm traces leave the name empty, and some ROCm versions
  // name an MI250 "AMD Radeon Graphics").
  std::string Arch = amdArch(D);
  if (Arch.empty() || D.NumSMs <= 0)
    return M;
  for (const Part &P : parts())
    if (!P.Arch.empty() && P.Arch == Arch && hardwareFits(P, D))
      M.Candidates.push_back(&P);
  return M;
}

/// The one set of peaks \p Candidates agree on, or nullopt when they
/// differ (or there are none). Several parts with the same figures are
/// named together ("AMD Instinct MI250 (one GCD) or AMD Instinct MI210").
std::optional<DevicePeaks>
agreedPeaks(llvm::ArrayRef<const Part *> Candidates) {
  if (Candidates.empty())
    return std::nullopt;
  DevicePeaks P = Candidates.front()->Peaks;
  for (const Part *C : Candidates.drop_front()) {
    if (!sameFigures(P, C->Peaks))
      return std::nullopt;
    P.Name += " or " + C->Peaks.Name;
  }
  return P;
}

bool equalsIgnoreCase(llvm::StringRef A, llvm::StringRef B) {
  return !A.empty() && A.equals_insensitive(B);
}

/// The override for \p D: one named exactly as the device, then one named
/// as its architecture ("gfx942", "compute 9.0") or as the built-in part it
/// is, then the longest one whose name is part of the device's.
const DevicePeaks *findOverride(const model::DeviceInfo &D,
                                const std::optional<DevicePeaks> &Builtin,
                                llvm::ArrayRef<DevicePeaks> Overrides) {
  for (const DevicePeaks &O : Overrides)
    if (equalsIgnoreCase(O.Name, D.Name))
      return &O;
  std::string Arch = archKey(D);
  for (const DevicePeaks &O : Overrides)
    if (equalsIgnoreCase(O.Name, Arch) ||
        (Builtin && equalsIgnoreCase(O.Name, Builtin->Name)))
      return &O;
  const DevicePeaks *Best = nullptr;
  std::string Lower = llvm::StringRef(D.Name).lower();
  for (const DevicePeaks &O : Overrides)
    if (!O.Name.empty() &&
        llvm::StringRef(Lower).contains(llvm::StringRef(O.Name).lower()) &&
        (!Best || O.Name.size() > Best->Name.size()))
      Best = &O;
  return Best;
}

std::string quoted(llvm::StringRef S) {
  // Appending, not "\"" + std::string: GCC 12 warns falsely on the latter
  // (-Wstringop-overflow, GCC PR 105651).
  std::string Out = "\"";
  Out.append(S.data(), S.size());
  Out += '"';
  return Out;
}

} // namespace

llvm::StringRef detect::dtypeClass(llvm::StringRef Dtype) {
  llvm::StringRef T = Dtype.trim();
  T.consume_front("c10::");
  T.consume_front("torch.");
  std::string L = T.lower();
  llvm::StringRef S(L);
  if (S == "double" || S == "float64" || S == "fp64")
    return "fp64";
  if (S == "float" || S == "float32" || S == "fp32")
    return "fp32";
  if (S == "tf32")
    return "tf32";
  if (S == "bfloat16" || S == "bf16")
    return "bf16";
  if (S == "half" || S == "float16" || S == "fp16")
    return "fp16";
  if (S.startswith("float8") || S == "fp8")
    return "fp8";
  if (S == "signed char" || S == "unsigned char" || S == "int8" ||
      S == "uint8" || S == "qint8" || S == "quint8")
    return "int8";
  return "";
}

llvm::ArrayRef<llvm::StringRef> detect::dtypeClasses() {
  static const llvm::StringRef Classes[] = {"fp64", "fp32", "tf32", "bf16",
                                            "fp16", "fp8",  "int8"};
  return Classes;
}

std::optional<double> DevicePeaks::computeRoof(llvm::StringRef Dtype,
                                               ComputeUnit Unit) const {
  llvm::StringRef Class = dtypeClass(Dtype);
  if (Class.empty())
    return std::nullopt;
  auto Figure = [](const std::map<std::string, double> &M,
                   llvm::StringRef K) -> std::optional<double> {
    auto It = M.find(K.str());
    if (It == M.end() || !(It->second > 0))
      return std::nullopt;
    return It->second;
  };
  if (Unit == ComputeUnit::Matrix)
    if (std::optional<double> F = Figure(MatrixTflops, Class))
      return F;
  if (std::optional<double> F = Figure(VectorTflops, Class))
    return F;
  // Half, bfloat16, TF32-rounded and fp8 values that reach the vector
  // units are computed in float there.
  if (Class == "bf16" || Class == "fp16" || Class == "fp8" || Class == "tf32")
    return Figure(VectorTflops, "fp32");
  return std::nullopt;
}

llvm::ArrayRef<DevicePeaks> detect::builtinPeaks() {
  static const std::vector<DevicePeaks> Peaks = [] {
    std::vector<DevicePeaks> Out;
    for (const Part &P : parts())
      Out.push_back(P.Peaks);
    return Out;
  }();
  return Peaks;
}

std::optional<DevicePeaks>
detect::peaksFor(const model::DeviceInfo &D,
                 llvm::ArrayRef<DevicePeaks> Overrides) {
  std::optional<DevicePeaks> Builtin = agreedPeaks(matchBuiltin(D).Candidates);
  const DevicePeaks *O = findOverride(D, Builtin, Overrides);
  if (!O)
    return Builtin;
  // The override's figures over the table's: a file that gives only the
  // bandwidth it measured keeps the table's compute roofs.
  DevicePeaks P = Builtin ? *Builtin : DevicePeaks();
  P.Name = O->Name;
  P.Source = O->Source;
  if (Builtin)
    P.Source += "; the other figures: " + Builtin->Source;
  if (O->MemoryTBps > 0)
    P.MemoryTBps = O->MemoryTBps;
  for (const auto &[K, V] : O->MatrixTflops)
    P.MatrixTflops[K] = V;
  for (const auto &[K, V] : O->VectorTflops)
    P.VectorTflops[K] = V;
  P.FromConfig = true;
  return P;
}

const model::DeviceInfo *detect::deviceDescription(const model::Trace &T,
                                                   int32_t Device) {
  for (const model::DeviceInfo &D : T.Devices)
    if (D.Id == Device)
      return &D;
  if (T.Devices.empty())
    return nullptr;
  // Alike: the same part, whose memory may differ by what the driver
  // reserves (a few MB).
  const model::DeviceInfo &First = T.Devices.front();
  for (const model::DeviceInfo &D : T.Devices)
    if (D.Name != First.Name || D.Arch != First.Arch ||
        D.NumSMs != First.NumSMs || D.ComputeMajor != First.ComputeMajor ||
        D.ComputeMinor != First.ComputeMinor ||
        std::abs(double(D.TotalGlobalMemory - First.TotalGlobalMemory)) >
            0.01 * double(std::max(D.TotalGlobalMemory, int64_t(1))))
      return nullptr;
  return &First;
}

std::string detect::unknownPeaksReason(const model::DeviceInfo &D) {
  // What to call the device, and the table a user would write.
  std::string Arch = amdArch(D);
  std::string Key = !D.Name.empty() ? D.Name : archKey(D);
  std::string Suffix =
      "; rates are shown without shares of a roof (set them in "
      "tracelint.toml [devices." +
      quoted(Key.empty() ? "NAME" : Key) + "])";
  BuiltinMatch M = matchBuiltin(D);
  if (M.Candidates.size() > 1) {
    std::vector<std::string> Names;
    for (const Part *P : M.Candidates)
      Names.push_back(P->Peaks.Name);
    return (D.Name.empty() ? "the unnamed " + Arch + " device"
                           : quoted(D.Name)) +
           " may be " + llvm::join(Names, " or ") + ", whose peaks differ" +
           Suffix;
  }
  if (M.Candidates.empty() && !M.NamedButUnfit.empty()) {
    const Part &P = *M.NamedButUnfit.front();
    std::string Units =
        D.NumSMs > 0
            ? llvm::formatv("{0} {1}", D.NumSMs, isAmd(D) ? "CUs" : "SMs").str()
            : "its memory";
    return llvm::formatv("{0} with {1} is not a whole {2} as the table "
                         "knows it (a partition such as MIG or CPX, or "
                         "another part){3}",
                         quoted(D.Name), Units, P.Peaks.Name, Suffix)
        .str();
  }
  if (D.Name.empty()) {
    // What the trace does record of it, as the report's gpu line says it.
    analysis::Platform Pl = analysis::devicePlatform(D);
    std::vector<std::string> Known;
    if (std::string A = analysis::archName(D, Pl); !A.empty())
      Known.push_back(A);
    if (D.NumSMs > 0)
      Known.push_back(
          llvm::formatv("{0} {1}", D.NumSMs, analysis::computeUnitsWord(D, Pl))
              .str());
    if (Known.empty())
      return "unknown part: the trace does not describe the device" + Suffix;
    return "unknown part: the trace does not name the device (" +
           llvm::join(Known, ", ") + ")" + Suffix;
  }
  return "unknown part " + quoted(D.Name) + Suffix;
}

std::optional<RoofPosition> detect::roofPosition(const DevicePeaks &P,
                                                 double Flops, double Bytes,
                                                 int64_t KernelNs,
                                                 llvm::StringRef Dtype,
                                                 ComputeUnit Unit) {
  if (KernelNs <= 0 || !(Flops >= 0) || !(Bytes >= 0) ||
      (Flops <= 0 && Bytes <= 0))
    return std::nullopt;
  std::optional<double> Compute = P.computeRoof(Dtype, Unit);
  const bool HasBandwidth = P.MemoryTBps > 0 && Bytes > 0;
  if (!Compute && !HasBandwidth)
    return std::nullopt;
  // FLOP/ns is GFLOP/s and B/ns is GB/s: a thousandth of TFLOP/s and TB/s.
  const double AchievedTflops = Flops / double(KernelNs) / 1e3;
  const double AchievedTbps = Bytes / double(KernelNs) / 1e3;
  RoofPosition R;
  if (Compute && P.MemoryTBps > 0)
    R.RidgeFlopsPerByte = *Compute / P.MemoryTBps;
  if (!HasBandwidth) {
    // No bytes (or no bandwidth figure): the compute roof alone.
    if (Flops <= 0)
      return std::nullopt;
    R.RoofTflops = *Compute;
    R.Share = AchievedTflops / *Compute;
    return R;
  }
  const double Intensity = Flops / Bytes;
  const double BandwidthRoof = Intensity * P.MemoryTBps;
  if (!Compute || BandwidthRoof < *Compute) {
    // Below the ridge (or no compute figure): the bandwidth bounds it, and
    // the share is the same in bytes as in FLOPs (also for ops that move
    // data without arithmetic).
    R.MemoryBound = true;
    R.RoofTflops = BandwidthRoof;
    R.Share = AchievedTbps / P.MemoryTBps;
    return R;
  }
  R.RoofTflops = *Compute;
  R.Share = AchievedTflops / *Compute;
  return R;
}
