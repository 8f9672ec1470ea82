//===- DevicePeaksTest.cpp - Device peak table, lookup and roofline -------===//
#include "rules/detectors/DevicePeaks.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include "gtest/gtest.h"

#include <cmath>

using namespace tracelint;
using namespace tracelint::rules::detect;

namespace {

constexpr int64_t PeaksGiB = int64_t(1) << 30;

/// A device as a Kineto trace's deviceProperties describe it.
model::DeviceInfo peaksDevice(llvm::StringRef Name, int32_t Units = -1,
                              int64_t Memory = -1, int32_t Major = -1,
                              int32_t Minor = -1, int32_t Warp = -1) {
  model::DeviceInfo D;
  D.Id = 0;
  D.Name = Name.str();
  D.NumSMs = Units;
  D.TotalGlobalMemory = Memory;
  D.ComputeMajor = Major;
  D.ComputeMinor = Minor;
  D.WarpSize = Warp;
  return D;
}

/// The table's name of the part \p D is, or "(none)".
std::string partOf(const model::DeviceInfo &D,
                   llvm::ArrayRef<DevicePeaks> Overrides = {}) {
  std::optional<DevicePeaks> P = peaksFor(D, Overrides);
  return P ? P->Name : "(none)";
}

TEST(DevicePeaks, RecognisesTheNamesRealTracesRecord) {
  // Names as the shared traces and vendors' tools write them.
  EXPECT_EQ(partOf(peaksDevice("NVIDIA H100 80GB HBM3", 132)),
            "NVIDIA H100 SXM5");
  EXPECT_EQ(partOf(peaksDevice("NVIDIA H100 PCIe", 114)), "NVIDIA H100 PCIe");
  EXPECT_EQ(partOf(peaksDevice("NVIDIA H100 NVL", 132)), "NVIDIA H100 NVL");
  EXPECT_EQ(partOf(peaksDevice("NVIDIA H200", 132)), "NVIDIA H200 SXM");
  EXPECT_EQ(partOf(peaksDevice("NVIDIA H200 NVL")), "NVIDIA H200 NVL");
  EXPECT_EQ(partOf(peaksDevice("NVIDIA B200", 148)), "NVIDIA B200");
  EXPECT_EQ(partOf(peaksDevice("NVIDIA A100-SXM4-80GB", 108)),
            "NVIDIA A100 SXM4 80GB");
  EXPECT_EQ(partOf(peaksDevice("NVIDIA A100-SXM4-40GB", 108, 42297524224)),
            "NVIDIA A100 SXM4 40GB");
  EXPECT_EQ(partOf(peaksDevice("NVIDIA A100-PCIE-40GB")),
            "NVIDIA A100 PCIe 40GB");
  EXPECT_EQ(partOf(peaksDevice("NVIDIA A100 80GB PCIe", 108, 85 * PeaksGiB)),
            "NVIDIA A100 PCIe 80GB");
  // Meta's A100 boards name the board, not the memory: the memory decides.
  EXPECT_EQ(partOf(peaksDevice("NVIDIA A100-PG509-200", 108, 42297524224)),
            "NVIDIA A100 SXM4 40GB");
  EXPECT_EQ(partOf(peaksDevice("Tesla V100-SXM2-32GB", 80, 34089730048)),
            "NVIDIA V100 SXM2");
  EXPECT_EQ(partOf(peaksDevice("Tesla V100-SXM2-16GB")), "NVIDIA V100 SXM2");
  EXPECT_EQ(partOf(peaksDevice("Tesla V100-DGXS-32GB", 80)),
            "NVIDIA V100 SXM2");
  EXPECT_EQ(partOf(peaksDevice("Tesla V100-PCIE-16GB")), "NVIDIA V100 PCIe");
  EXPECT_EQ(partOf(peaksDevice("Tesla V100S-PCIE-32GB")), "NVIDIA V100S PCIe");
  EXPECT_EQ(partOf(peaksDevice("Tesla T4", 40)), "NVIDIA T4");
  EXPECT_EQ(partOf(peaksDevice("NVIDIA L4", 58)), "NVIDIA L4");
  EXPECT_EQ(partOf(peaksDevice("NVIDIA L40S", 142)), "NVIDIA L40S");
  EXPECT_EQ(partOf(peaksDevice("NVIDIA GeForce RTX 3090", 82)),
            "NVIDIA GeForce RTX 3090");
  EXPECT_EQ(partOf(peaksDevice("NVIDIA GeForce RTX 4090", 128)),
            "NVIDIA GeForce RTX 4090");
  EXPECT_EQ(partOf(peaksDevice("NVIDIA RTX A6000", 84)), "NVIDIA RTX A6000");
  EXPECT_EQ(partOf(peaksDevice("NVIDIA RTX 6000 Ada Generation", 142)),
            "NVIDIA RTX 6000 Ada Generation");
  EXPECT_EQ(partOf(peaksDevice("AMD Instinct MI300X", 304, 206141652992)),
            "AMD Instinct MI300X");
  // Azure's SR-IOV virtual function.
  EXPECT_EQ(partOf(peaksDevice("AMD Instinct MI300X VF", 304, 205571227648)),
            "AMD Instinct MI300X");
  EXPECT_EQ(partOf(peaksDevice("AMD Instinct MI210", 104, 68702699520)),
            "AMD Instinct MI210");
  EXPECT_EQ(partOf(peaksDevice("AMD Instinct MI300A", 228)),
            "AMD Instinct MI300A");
  EXPECT_EQ(partOf(peaksDevice("AMD Instinct MI325X", 304, 256 * PeaksGiB)),
            "AMD Instinct MI325X");
  EXPECT_EQ(partOf(peaksDevice("AMD Instinct MI355X")), "AMD Instinct MI355X");
  EXPECT_EQ(partOf(peaksDevice("AMD Instinct MI350X")), "AMD Instinct MI350X");
}

TEST(DevicePeaks, NamesThatOnlyLookAlikeAreNotMatched) {
  // Word matching: L40S is not L4, GH200 not H200, GB200 not B200, a
  // Turing Quadro RTX 6000 not the Ada one.
  EXPECT_EQ(partOf(peaksDevice("NVIDIA L40")), "(none)");
  EXPECT_EQ(partOf(peaksDevice("NVIDIA GH200 480GB")), "(none)");
  EXPECT_EQ(partOf(peaksDevice("NVIDIA GB200")), "(none)");
  EXPECT_EQ(partOf(peaksDevice("Quadro RTX 6000")), "(none)");
  EXPECT_EQ(partOf(peaksDevice("NVIDIA GeForce RTX 3090 Ti")), "(none)");
  EXPECT_EQ(partOf(peaksDevice("NVIDIA A10G")), "(none)");
  EXPECT_EQ(partOf(peaksDevice("Quadro GP100", 56)), "(none)");
  EXPECT_EQ(partOf(peaksDevice("")), "(none)");
}

TEST(DevicePeaks, AmdByArchAndComputeUnits) {
  // vLLM's ROCm traces leave the name empty: gfx942 (9.4) with 304 CUs and
  // 192 GiB is an MI300X; with 256 GiB an MI325X.
  EXPECT_EQ(partOf(peaksDevice("", 304, 206141652992, 9, 4, 64)),
            "AMD Instinct MI300X");
  EXPECT_EQ(partOf(peaksDevice("", 304, 256 * PeaksGiB, 9, 4, 64)),
            "AMD Instinct MI325X");
  EXPECT_EQ(partOf(peaksDevice("", 228, -1, 9, 4, 64)), "AMD Instinct MI300A");
  // rocprof's agents give the gfx target itself.
  model::DeviceInfo Agent = peaksDevice("", 304, 206141652992);
  Agent.Arch = "gfx942";
  EXPECT_EQ(partOf(Agent), "AMD Instinct MI300X");
  Agent.Arch = "gfx942:sramecc+:xnack-";
  EXPECT_EQ(partOf(Agent), "AMD Instinct MI300X");
  // ROCm 6.2 named an MI250's GCD "AMD Radeon Graphics": gfx90a with 104
  // CUs is an MI250 GCD or an MI210, whose figures are the same.
  EXPECT_EQ(
      partOf(peaksDevice("AMD Radeon Graphics", 104, 68702699520, 9, 0, 64)),
      "AMD Instinct MI250 (one GCD) or AMD Instinct MI210");
  EXPECT_EQ(partOf(peaksDevice("", 110, 68702699520, 9, 0, 64)),
            "AMD Instinct MI250X (one GCD)");
  // gfx950 with 256 CUs is an MI350X or an MI355X: their clocks differ, so
  // the peaks are unknown rather than guessed.
  EXPECT_EQ(partOf(peaksDevice("", 256, -1, 9, 5, 64)), "(none)");
  EXPECT_NE(unknownPeaksReason(peaksDevice("", 256, -1, 9, 5, 64))
                .find("may be AMD Instinct MI355X or AMD Instinct MI350X"),
            std::string::npos);
  // An NVIDIA device is never guessed from its SM count.
  EXPECT_EQ(partOf(peaksDevice("", 132, -1, 9, 0, 32)), "(none)");
}

TEST(DevicePeaks, MarketingNameOfBothMI250FormsIsSettledByComputeUnits) {
  // rocprof's "AMD Instinct MI250X / MI250" names both forms.
  EXPECT_EQ(partOf(peaksDevice("AMD Instinct MI250X / MI250", 104)),
            "AMD Instinct MI250 (one GCD)");
  EXPECT_EQ(partOf(peaksDevice("AMD Instinct MI250X / MI250", 110)),
            "AMD Instinct MI250X (one GCD)");
  // Without a CU count it stays unknown, and says why.
  EXPECT_EQ(partOf(peaksDevice("AMD Instinct MI250X / MI250")), "(none)");
  EXPECT_EQ(unknownPeaksReason(peaksDevice("AMD Instinct MI250X / MI250")),
            "\"AMD Instinct MI250X / MI250\" may be AMD Instinct MI250X (one "
            "GCD) or AMD Instinct MI250 (one GCD), whose peaks differ; rates "
            "are shown without shares of a roof (set them in tracelint.toml "
            "[devices.\"AMD Instinct MI250X / MI250\"])");
}

TEST(DevicePeaks, PartitionsAreNotTheWholeDevice) {
  // A MIG slice or a CPX partition records fewer units than the part.
  EXPECT_EQ(partOf(peaksDevice("NVIDIA A100-SXM4-40GB", 14)), "(none)");
  EXPECT_EQ(partOf(peaksDevice("AMD Instinct MI300X", 38)), "(none)");
  EXPECT_EQ(unknownPeaksReason(peaksDevice("AMD Instinct MI300X", 38)),
            "\"AMD Instinct MI300X\" with 38 CUs is not a whole AMD Instinct "
            "MI300X as the table knows it (a partition such as MIG or CPX, or "
            "another part); rates are shown without shares of a roof (set "
            "them in tracelint.toml [devices.\"AMD Instinct MI300X\"])");
}

TEST(DevicePeaks, UnknownDeviceSaysWhatToSet) {
  EXPECT_EQ(unknownPeaksReason(peaksDevice("Foo GPU")),
            "unknown part \"Foo GPU\"; rates are shown without shares of a "
            "roof (set them in tracelint.toml [devices.\"Foo GPU\"])");
  EXPECT_EQ(unknownPeaksReason(peaksDevice("", 80, -1, 9, 0, 64)),
            "unknown part: the trace does not name the device (gfx9.0 family, "
            "80 CUs); rates are shown without shares of a roof (set them in "
            "tracelint.toml [devices.\"gfx9.0 family\"])");
  EXPECT_EQ(unknownPeaksReason(peaksDevice("")),
            "unknown part: the trace does not describe the device; rates are "
            "shown without shares of a roof (set them in tracelint.toml "
            "[devices.\"NAME\"])");
  EXPECT_EQ(unknownPeaksReason(peaksDevice("", 132, -1, 9, 0, 32)),
            "unknown part: the trace does not name the device (compute 9.0, "
            "132 SMs); rates are shown without shares of a roof (set them in "
            "tracelint.toml [devices.\"compute 9.0\"])");
}

TEST(DevicePeaks, DeviceDescription) {
  model::Trace T;
  // One described GPU, the work recorded on device 2 (as in the MI300X
  // inference traces): the description is borrowed.
  T.Devices.push_back(peaksDevice("AMD Instinct MI300X VF", 304, 205571227648));
  ASSERT_TRUE(deviceDescription(T, 2));
  EXPECT_EQ(deviceDescription(T, 2)->Id, 0);
  EXPECT_EQ(deviceDescription(T, 0), &T.Devices[0]);
  // Alike devices whose memory differs by what the driver keeps.
  model::DeviceInfo Second = T.Devices[0];
  Second.Id = 1;
  Second.TotalGlobalMemory -= 3 << 20;
  T.Devices.push_back(Second);
  EXPECT_EQ(deviceDescription(T, 5), &T.Devices[0]);
  EXPECT_EQ(deviceDescription(T, 1), &T.Devices[1]);
  // Different parts: nothing to borrow.
  model::DeviceInfo Other = peaksDevice("NVIDIA L4", 58);
  Other.Id = 3;
  T.Devices.push_back(Other);
  EXPECT_EQ(deviceDescription(T, 5), nullptr);
  EXPECT_EQ(deviceDescription(model::Trace(), 0), nullptr);
}

DevicePeaks peaksOverride(llvm::StringRef Name, double TBps,
                          std::map<std::string, double> Matrix = {},
                          std::map<std::string, double> Vector = {}) {
  DevicePeaks P;
  P.Name = Name.str();
  P.Source = "measured";
  P.MemoryTBps = TBps;
  P.MatrixTflops = std::move(Matrix);
  P.VectorTflops = std::move(Vector);
  P.FromConfig = true;
  return P;
}

TEST(DevicePeaks, OverridesComeFirst) {
  model::DeviceInfo Ada = peaksDevice("NVIDIA RTX 6000 Ada Generation", 142);
  model::DeviceInfo Foo = peaksDevice("Foo GPU 12GB");
  // An unknown part becomes known; a substring of the name matches.
  DevicePeaks FooPeaks = peaksOverride("foo gpu", 0.5, {{"bf16", 100}});
  std::optional<DevicePeaks> P = peaksFor(Foo, {FooPeaks});
  ASSERT_TRUE(P);
  EXPECT_EQ(P->Name, "foo gpu");
  EXPECT_TRUE(P->FromConfig);
  EXPECT_EQ(P->Source, "measured");
  EXPECT_DOUBLE_EQ(P->MemoryTBps, 0.5);
  EXPECT_EQ(P->computeRoof("c10::BFloat16", ComputeUnit::Matrix), 100);
  // The exact name beats a longer substring; among substrings the longest
  // wins.
  std::vector<DevicePeaks> Several = {
      peaksOverride("RTX 6000", 1), peaksOverride("RTX 6000 Ada", 2),
      peaksOverride("NVIDIA RTX 6000 Ada Generation", 3)};
  EXPECT_DOUBLE_EQ(peaksFor(Ada, Several)->MemoryTBps, 3);
  Several.pop_back();
  EXPECT_DOUBLE_EQ(peaksFor(Ada, Several)->MemoryTBps, 2);
  // A known part keeps the table's other figures: only the bandwidth was
  // measured.
  P = peaksFor(Ada, {peaksOverride("NVIDIA RTX 6000 Ada Generation", 0.9)});
  ASSERT_TRUE(P);
  EXPECT_DOUBLE_EQ(P->MemoryTBps, 0.9);
  EXPECT_EQ(P->computeRoof("c10::BFloat16", ComputeUnit::Matrix), 364.2);
  EXPECT_TRUE(P->FromConfig);
  EXPECT_EQ(P->Source.rfind("measured; the other figures: NVIDIA Ada GPU "
                            "Architecture whitepaper",
                            0),
            0u);
  // The table's own name and an AMD gfx target are keys too.
  EXPECT_DOUBLE_EQ(peaksFor(peaksDevice("NVIDIA H100 80GB HBM3", 132),
                            {peaksOverride("NVIDIA H100 SXM5", 3.0)})
                       ->MemoryTBps,
                   3.0);
  EXPECT_DOUBLE_EQ(peaksFor(peaksDevice("", 256, -1, 9, 5, 64),
                            {peaksOverride("gfx950", 7.5)})
                       ->MemoryTBps,
                   7.5);
  // An unnamed NVIDIA device by its compute capability.
  EXPECT_DOUBLE_EQ(peaksFor(peaksDevice("", 132, -1, 9, 0, 32),
                            {peaksOverride("compute 9.0", 3.0)})
                       ->MemoryTBps,
                   3.0);
  // An override for another device changes nothing.
  EXPECT_EQ(peaksFor(Ada, {FooPeaks})->FromConfig, false);
}

TEST(DevicePeaks, ComputeRoofPerDtype) {
  std::optional<DevicePeaks> H100 =
      peaksFor(peaksDevice("NVIDIA H100 80GB HBM3", 132));
  ASSERT_TRUE(H100);
  auto Roof = [&](const DevicePeaks &P, llvm::StringRef T, ComputeUnit U) {
    return P.computeRoof(T, U).value_or(-1);
  };
  EXPECT_DOUBLE_EQ(Roof(*H100, "c10::BFloat16", ComputeUnit::Matrix), 989.4);
  EXPECT_DOUBLE_EQ(Roof(*H100, "c10::Half", ComputeUnit::Matrix), 989.4);
  EXPECT_DOUBLE_EQ(Roof(*H100, "c10::Float8_e4m3fn", ComputeUnit::Matrix),
                   1978.9);
  EXPECT_DOUBLE_EQ(Roof(*H100, "signed char", ComputeUnit::Matrix), 1978.9);
  EXPECT_DOUBLE_EQ(Roof(*H100, "double", ComputeUnit::Matrix), 66.9);
  EXPECT_DOUBLE_EQ(Roof(*H100, "double", ComputeUnit::Vector), 33.5);
  // fp32 matmuls run on CUDA cores unless TF32 is allowed.
  EXPECT_DOUBLE_EQ(Roof(*H100, "float", ComputeUnit::Matrix), 66.9);
  EXPECT_DOUBLE_EQ(Roof(*H100, "tf32", ComputeUnit::Matrix), 494.7);
  // Elementwise half-precision math runs in float.
  EXPECT_DOUBLE_EQ(Roof(*H100, "c10::BFloat16", ComputeUnit::Vector), 66.9);
  EXPECT_DOUBLE_EQ(Roof(*H100, "float", ComputeUnit::Vector), 66.9);
  EXPECT_EQ(H100->computeRoof("long int", ComputeUnit::Vector), std::nullopt);
  EXPECT_EQ(H100->computeRoof("bool", ComputeUnit::Matrix), std::nullopt);
  EXPECT_EQ(H100->computeRoof("signed char", ComputeUnit::Vector),
            std::nullopt);

  // AMD fp32 GEMMs run on the matrix cores (MFMA).
  std::optional<DevicePeaks> MI300X =
      peaksFor(peaksDevice("AMD Instinct MI300X", 304));
  ASSERT_TRUE(MI300X);
  EXPECT_DOUBLE_EQ(Roof(*MI300X, "float", ComputeUnit::Matrix), 163.4);
  EXPECT_DOUBLE_EQ(Roof(*MI300X, "c10::BFloat16", ComputeUnit::Matrix), 1307.4);
  EXPECT_DOUBLE_EQ(Roof(*MI300X, "c10::Float8_e4m3fnuz", ComputeUnit::Matrix),
                   2614.9);

  // Volta has no bf16 matrix units: bf16 runs at the fp32 rate.
  std::optional<DevicePeaks> V100 =
      peaksFor(peaksDevice("Tesla V100-SXM2-32GB", 80));
  ASSERT_TRUE(V100);
  EXPECT_DOUBLE_EQ(Roof(*V100, "c10::Half", ComputeUnit::Matrix), 125);
  EXPECT_DOUBLE_EQ(Roof(*V100, "c10::BFloat16", ComputeUnit::Matrix), 15.7);
  // Sparse datasheet figures are halved.
  EXPECT_DOUBLE_EQ(Roof(*peaksFor(peaksDevice("NVIDIA L4")), "c10::BFloat16",
                        ComputeUnit::Matrix),
                   121);
}

TEST(DevicePeaks, DtypeClasses) {
  EXPECT_EQ(dtypeClass("c10::BFloat16"), "bf16");
  EXPECT_EQ(dtypeClass("float"), "fp32");
  EXPECT_EQ(dtypeClass("torch.float16"), "fp16");
  EXPECT_EQ(dtypeClass("c10::Float8_e5m2"), "fp8");
  EXPECT_EQ(dtypeClass("unsigned char"), "int8");
  EXPECT_EQ(dtypeClass("double"), "fp64");
  EXPECT_EQ(dtypeClass("c10::complex<float>"), "");
  EXPECT_EQ(dtypeClass(""), "");
}

TEST(DevicePeaks, RoofPositionMemoryAndComputeBound) {
  DevicePeaks P = peaksOverride("test", 2.0, {{"bf16", 400}});
  // Ridge: 400 TFLOP/s / 2 TB/s = 200 FLOP/B.
  // Memory-bound: 1 GFLOP over 100 MB (10 FLOP/B) in 100 us: 1 TB/s of 2.
  std::optional<RoofPosition> R =
      roofPosition(P, 1e9, 1e8, 100000, "c10::BFloat16", ComputeUnit::Matrix);
  ASSERT_TRUE(R);
  EXPECT_TRUE(R->MemoryBound);
  EXPECT_DOUBLE_EQ(R->RidgeFlopsPerByte, 200);
  EXPECT_DOUBLE_EQ(R->RoofTflops, 20); // 10 FLOP/B x 2 TB/s
  EXPECT_DOUBLE_EQ(R->Share, 0.5);
  // Compute-bound: 1 TFLOP over 1 GB (1000 FLOP/B) in 5 ms: 200 of 400.
  R = roofPosition(P, 1e12, 1e9, 5000000, "c10::BFloat16", ComputeUnit::Matrix);
  ASSERT_TRUE(R);
  EXPECT_FALSE(R->MemoryBound);
  EXPECT_DOUBLE_EQ(R->RoofTflops, 400);
  EXPECT_DOUBLE_EQ(R->Share, 0.5);
  // At the ridge both roofs are equal; the op counts as compute-bound.
  R = roofPosition(P, 2e11, 1e9, 1000000, "c10::BFloat16", ComputeUnit::Matrix);
  ASSERT_TRUE(R);
  EXPECT_FALSE(R->MemoryBound);
  EXPECT_DOUBLE_EQ(R->Share, 0.5);
}

TEST(DevicePeaks, RoofPositionWithOneRoof) {
  DevicePeaks P = peaksOverride("test", 2.0, {{"bf16", 400}});
  // No bytes: the compute roof only.
  std::optional<RoofPosition> R =
      roofPosition(P, 1e12, 0, 5000000, "c10::BFloat16", ComputeUnit::Matrix);
  ASSERT_TRUE(R);
  EXPECT_FALSE(R->MemoryBound);
  EXPECT_DOUBLE_EQ(R->Share, 0.5);
  // No compute figure for the type: the bandwidth only.
  R = roofPosition(P, 1e9, 1e9, 1000000, "long int", ComputeUnit::Vector);
  ASSERT_TRUE(R);
  EXPECT_TRUE(R->MemoryBound);
  EXPECT_DOUBLE_EQ(R->Share, 0.5); // 1 TB/s of 2
  EXPECT_DOUBLE_EQ(R->RidgeFlopsPerByte, 0);
  // A copy (bytes, no FLOPs) is judged by bandwidth.
  R = roofPosition(P, 0, 1e9, 1000000, "c10::BFloat16", ComputeUnit::Vector);
  ASSERT_TRUE(R);
  EXPECT_TRUE(R->MemoryBound);
  EXPECT_DOUBLE_EQ(R->Share, 0.5);
  // Nothing to judge by.
  DevicePeaks NoMemory = peaksOverride("test", 0, {{"bf16", 400}});
  EXPECT_FALSE(roofPosition(NoMemory, 0, 1e9, 1000000, "c10::BFloat16",
                            ComputeUnit::Matrix));
  EXPECT_FALSE(
      roofPosition(P, 1e9, 0, 1000000, "long int", ComputeUnit::Vector));
  EXPECT_FALSE(
      roofPosition(P, 1e9, 1e9, 0, "c10::BFloat16", ComputeUnit::Matrix));
  EXPECT_FALSE(
      roofPosition(P, 0, 0, 1000, "c10::BFloat16", ComputeUnit::Matrix));
  // Without bytes but with a bandwidth figure, the compute roof decides.
  R = roofPosition(NoMemory, 1e12, 1e9, 5000000, "c10::BFloat16",
                   ComputeUnit::Matrix);
  ASSERT_TRUE(R);
  EXPECT_FALSE(R->MemoryBound);
  EXPECT_DOUBLE_EQ(R->Share, 0.5);
}

TEST(DevicePeaks, EveryBuiltinPartIsComplete) {
  for (const DevicePeaks &P : builtinPeaks()) {
    SCOPED_TRACE(P.Name);
    EXPECT_GT(P.MemoryTBps, 0);
    EXPECT_NE(P.Source.find("https://"), std::string::npos);
    EXPECT_TRUE(P.VectorTflops.count("fp32"));
    EXPECT_TRUE(P.MatrixTflops.count("fp16"));
    EXPECT_FALSE(P.FromConfig);
    for (const auto &[K, V] : P.MatrixTflops)
      EXPECT_FALSE(dtypeClass(K).empty()) << K;
  }
}

/// The table of docs/device-peaks.md as the built-in table gives it.
std::string peaksTableMarkdown() {
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  auto Figure = [](const std::map<std::string, double> &M,
                   llvm::StringRef K) -> std::string {
    auto It = M.find(K.str());
    if (It == M.end())
      return "-";
    std::string S = llvm::formatv("{0:F3}", It->second).str();
    S.erase(S.find_last_not_of('0') + 1);
    if (S.back() == '.')
      S.pop_back();
    return S;
  };
  OS << "| part | memory TB/s |";
  for (llvm::StringRef C : dtypeClasses())
    OS << " " << C << " |";
  OS << " vector fp64 | vector fp32 | source |\n|---|---|";
  for (size_t I = 0; I < dtypeClasses().size() + 3; ++I)
    OS << "---|";
  OS << "\n";
  for (const DevicePeaks &P : builtinPeaks()) {
    std::string TBps = llvm::formatv("{0:F4}", P.MemoryTBps).str();
    TBps.erase(TBps.find_last_not_of('0') + 1);
    if (TBps.back() == '.')
      TBps.pop_back();
    OS << "| " << P.Name << " | " << TBps << " |";
    for (llvm::StringRef C : dtypeClasses())
      OS << " " << Figure(P.MatrixTflops, C) << " |";
    OS << " " << Figure(P.VectorTflops, "fp64") << " | "
       << Figure(P.VectorTflops, "fp32") << " | ";
    // "Title (what was done), https://..." -> "[Title (...)](https://...)"
    llvm::StringRef Src = P.Source;
    size_t At = Src.rfind(", https://");
    OS << "[" << Src.substr(0, At) << "](" << Src.substr(At + 2) << ") |\n";
  }
  return Out;
}

TEST(DevicePeaks, DocsShowTheBuiltinTable) {
  // This file is tests/unit/ in the source tree (the build passes absolute
  // source paths).
  llvm::SmallString<256> Path(__FILE__);
  if (!llvm::sys::fs::exists(Path))
    GTEST_SKIP() << "the source tree is not at " << __FILE__;
  for (int I = 0; I < 3; ++I)
    llvm::sys::path::remove_filename(Path);
  llvm::sys::path::append(Path, "docs", "device-peaks.md");
  auto Buf = llvm::MemoryBuffer::getFile(Path);
  ASSERT_TRUE(bool(Buf)) << Path.str().str();
  std::string Want = peaksTableMarkdown();
  EXPECT_TRUE((*Buf)->getBuffer().contains(Want))
      << "docs/device-peaks.md should hold this table:\n"
      << Want;
}

} // namespace
