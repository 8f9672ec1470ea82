//===- CaptureLauncherTest.cpp - Options through the env; the launcher ----===//
#include "CaptureOptions.h"
#include "Launcher.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <cstdlib>
#include <map>

using namespace tracelint::capture;

namespace {

using EnvMap = std::map<std::string, std::string>;

const char *lookup(const char *Name, void *Ctx) {
  auto &M = *static_cast<EnvMap *>(Ctx);
  auto It = M.find(Name);
  return It == M.end() ? nullptr : It->second.c_str();
}

TEST(CaptureOptionsTest, DefaultsWhenNothingIsSet) {
  EnvMap Env;
  CaptureOptions O;
  std::string Err;
  ASSERT_TRUE(readCaptureOptions(lookup, &Env, O, Err)) << Err;
  EXPECT_EQ(O.OutputDir, ".");
  EXPECT_EQ(O.DelaySec, 0);
  EXPECT_EQ(O.MaxEvents, 1000000u);
  EXPECT_FALSE(O.ProfilerApi);
}

TEST(CaptureOptionsTest, RoundTripThroughTheEnvironment) {
  CaptureOptions In;
  In.OutputDir = "/tmp/out dir";
  In.Prefix = "run-1";
  In.DelaySec = 2.5;
  In.DurationSec = 0.125;
  In.RangeName = "train step";
  In.RangeCount = 3;
  In.MaxEvents = 0;
  In.LaunchMonotonicNs = 123456789;
  In.Quiet = true;
  EnvMap Env;
  for (auto &[K, V] : captureOptionsToEnv(In))
    Env[K] = V;
  CaptureOptions Out;
  std::string Err;
  ASSERT_TRUE(readCaptureOptions(lookup, &Env, Out, Err)) << Err;
  EXPECT_EQ(Out.OutputDir, In.OutputDir);
  EXPECT_EQ(Out.Prefix, In.Prefix);
  EXPECT_DOUBLE_EQ(Out.DelaySec, 2.5);
  EXPECT_DOUBLE_EQ(Out.DurationSec, 0.125);
  EXPECT_EQ(Out.RangeName, "train step");
  EXPECT_EQ(Out.RangeCount, 3u);
  EXPECT_EQ(Out.MaxEvents, 0u);
  EXPECT_EQ(Out.LaunchMonotonicNs, 123456789u);
  EXPECT_TRUE(Out.Quiet);
}

TEST(CaptureOptionsTest, MalformedValuesNameTheVariable) {
  struct {
    const char *Var, *Value, *Expect;
  } Cases[] = {
      {EnvDelay, "-1",
       "TRACELINT_CAPTURE_DELAY='-1': expected a number of "
       "seconds"},
      {EnvDuration, "5s", "TRACELINT_CAPTURE_DURATION='5s'"},
      {EnvMaxEvents, "lots", "TRACELINT_CAPTURE_MAX_EVENTS='lots'"},
      {EnvRangeCount, "0", "TRACELINT_CAPTURE_RANGE_COUNT='0'"},
      {EnvPrefix, "../x", "TRACELINT_CAPTURE_PREFIX='../x'"},
      {EnvProfilerApi, "maybe", "expected 1 or 0"},
  };
  for (const auto &C : Cases) {
    EnvMap Env{{C.Var, C.Value}};
    CaptureOptions O;
    std::string Err;
    EXPECT_FALSE(readCaptureOptions(lookup, &Env, O, Err)) << C.Var;
    EXPECT_NE(Err.find(C.Expect), std::string::npos) << Err;
  }
  EnvMap Both{{EnvRange, "step"}, {EnvProfilerApi, "1"}};
  CaptureOptions O;
  std::string Err;
  EXPECT_FALSE(readCaptureOptions(lookup, &Both, O, Err));
  EXPECT_NE(Err.find("choose one"), std::string::npos) << Err;
}

TEST(CaptureOptionsTest, RankNamesTheFile) {
  CaptureOptions O;
  O.OutputDir = "/traces";
  O.Prefix = "capture";
  EnvMap None;
  EXPECT_EQ(traceFilePath(O, rankTag(lookup, &None), 12),
            "/traces/capture.pid12.json");
  EnvMap Rank{{"RANK", "3"}, {"LOCAL_RANK", "1"}};
  EXPECT_EQ(traceFilePath(O, rankTag(lookup, &Rank), 12),
            "/traces/capture.rank3.pid12.json");
  EnvMap Local{{"LOCAL_RANK", "1"}};
  EXPECT_EQ(rankTag(lookup, &Local), "local1");
  EnvMap Odd{{"RANK", "../../etc"}};
  EXPECT_EQ(rankTag(lookup, &Odd), "");
  O.OutputDir = "";
  EXPECT_EQ(traceFilePath(O, "", 5), "./capture.pid5.json");
}

TEST(CaptureLauncherTest, ChildEnvironmentSetsInjectionAndOptions) {
  CaptureOptions O;
  O.OutputDir = "/out";
  O.DelaySec = 1;
  std::vector<std::string> Parent = {"PATH=/usr/bin", "HOME=/root",
                                     "TRACELINT_CAPTURE_DELAY=99"};
  auto Env =
      buildChildEnvironment(Parent, O, "/lib/libtracelint-capture.so", true);
  ASSERT_TRUE(bool(Env)) << llvm::toString(Env.takeError());
  auto Has = [&](const std::string &E) {
    return llvm::is_contained(Env->Entries, E);
  };
  EXPECT_TRUE(Has("PATH=/usr/bin"));
  EXPECT_TRUE(Has("HOME=/root"));
  EXPECT_TRUE(Has("CUDA_INJECTION64_PATH=/lib/libtracelint-capture.so"));
  // NVTX goes through the capture library, which forwards it to the libcupti
  // it was bound to: never a second copy of CUPTI loaded by path.
  EXPECT_TRUE(Has("NVTX_INJECTION64_PATH=/lib/libtracelint-capture.so"));
  EXPECT_TRUE(Has("TRACELINT_CAPTURE_DIR=/out"));
  EXPECT_TRUE(Has("TRACELINT_CAPTURE_DELAY=1"));
  EXPECT_FALSE(Has("TRACELINT_CAPTURE_DELAY=99")); // replaced, not doubled
  EXPECT_TRUE(Env->Notes.empty());

  auto NoNvtx = buildChildEnvironment(Parent, O, "/lib/x.so", false);
  ASSERT_TRUE(bool(NoNvtx));
  for (const std::string &E : NoNvtx->Entries)
    EXPECT_FALSE(llvm::StringRef(E).startswith("NVTX_INJECTION64_PATH"));
}

TEST(CaptureLauncherTest, AnotherProfilersInjectionIsRefused) {
  CaptureOptions O;
  auto Env = buildChildEnvironment({"CUDA_INJECTION64_PATH=/opt/nsys/lib.so"},
                                   O, "/lib/ours.so", true);
  ASSERT_FALSE(bool(Env));
  std::string Msg = llvm::toString(Env.takeError());
  EXPECT_NE(Msg.find("/opt/nsys/lib.so"), std::string::npos) << Msg;
  // Our own library already set (a nested capture) is fine, and an NVTX
  // hook the user chose is kept, with a note.
  auto Ok = buildChildEnvironment({"CUDA_INJECTION64_PATH=/lib/ours.so",
                                   "NVTX_INJECTION64_PATH=/my/nvtx.so"},
                                  O, "/lib/ours.so", true);
  ASSERT_TRUE(bool(Ok));
  EXPECT_TRUE(
      llvm::is_contained(Ok->Entries, "NVTX_INJECTION64_PATH=/my/nvtx.so"));
  EXPECT_EQ(Ok->Notes.size(), 1u);
}

TEST(CaptureLauncherTest, LibrarySearchAndNewTraceFiles) {
  llvm::SmallString<128> Dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("capture-launch", Dir));
  auto Touch = [&](llvm::StringRef Name) {
    llvm::SmallString<128> P(Dir);
    llvm::sys::path::append(P, Name);
    std::error_code EC;
    llvm::raw_fd_ostream OS(P, EC);
    OS << "{}";
    return std::string(P);
  };
  std::vector<std::string> Candidates = injectionLibraryCandidates(
      (Dir + "/bin/tracelint").str(), (Dir + "/build.so").str());
  ASSERT_EQ(Candidates.size(), 4u);
  EXPECT_EQ(Candidates[1], (Dir + "/lib/libtracelint-capture.so").str());
  auto Missing = findInjectionLibrary("", Candidates);
  ASSERT_FALSE(bool(Missing));
  EXPECT_NE(llvm::toString(Missing.takeError()).find("/build.so"),
            std::string::npos);
  std::string Built = Touch("build.so");
  auto Found = findInjectionLibrary("", Candidates);
  ASSERT_TRUE(bool(Found));
  EXPECT_EQ(*Found, Built);
  auto BadExplicit = findInjectionLibrary((Dir + "/nope.so").str(), Candidates);
  ASSERT_FALSE(bool(BadExplicit));
  llvm::consumeError(BadExplicit.takeError());

  Touch("capture.pid1.json");
  std::set<std::string> Before = listTraceFiles(Dir, "capture");
  EXPECT_EQ(Before.size(), 1u);
  Touch("capture.rank0.pid2.json");
  Touch("capture.pid3.json.tmp3"); // a write in progress
  Touch("other.pid4.json");
  std::vector<std::string> New = newTraceFiles(Dir, "capture", Before);
  ASSERT_EQ(New.size(), 1u);
  EXPECT_EQ(llvm::sys::path::filename(New[0]), "capture.rank0.pid2.json");
  llvm::sys::fs::remove_directories(Dir);
}

} // namespace

TEST(CaptureLauncherTest, OnlyAMissingLibcuptiIsForgiven) {
  EXPECT_TRUE(isOnlyCuptiMissing("libcupti.so.13: cannot open shared object "
                                 "file: No such file or directory"));
  EXPECT_FALSE(isOnlyCuptiMissing("/x/libtracelint-capture.so: invalid ELF "
                                  "header"));
  EXPECT_FALSE(isOnlyCuptiMissing("libstdc++.so.6: cannot open shared object "
                                  "file: No such file or directory"));
  EXPECT_FALSE(isOnlyCuptiMissing("/x/libtracelint-capture.so: undefined "
                                  "symbol: cuptiFoo, version libcupti.so.13"));
  // The library of this build loads (its libcupti is on its run path).
#ifdef TRACELINT_CAPTURE_LIBRARY_PATH
  EXPECT_EQ(injectionLoadProblem(TRACELINT_CAPTURE_LIBRARY_PATH), "");
#endif
  EXPECT_NE(injectionLoadProblem("/nonexistent/libtracelint-capture.so"), "");
}

/// tests/unit/FakeCudaDriver.cpp as built beside this test binary.
static std::string fakeCudaDriver() {
  static int Anchor;
  std::string Exe = llvm::sys::fs::getMainExecutable("", &Anchor);
  llvm::SmallString<256> P(llvm::sys::path::parent_path(Exe));
  llvm::sys::path::append(P, "fake-libcuda.so");
  return std::string(P);
}

// After a capture without a trace, the launcher says whether this machine
// can run CUDA at all: no driver, a driver without a device, or a device
// (then the program simply did not use it).
TEST(CaptureLauncherTest, SaysWhetherADriverAndADeviceArePresent) {
  const std::string Fake = fakeCudaDriver();
  ASSERT_TRUE(llvm::sys::fs::exists(Fake)) << Fake;
  EXPECT_NE(cudaDeviceProblem("/nonexistent/libcuda.so.1")
                .find("no CUDA driver was found (/nonexistent/libcuda.so.1"),
            std::string::npos);
  // A library that is no driver at all (this process's own C library).
  EXPECT_NE(cudaDeviceProblem("libc.so.6").find("is not a CUDA driver"),
            std::string::npos);
  ::setenv("TRACELINT_FAKE_CUDA_DEVICES", "none", 1);
  EXPECT_EQ(cudaDeviceProblem(Fake),
            "the CUDA driver found no device (cuInit: CUDA_ERROR_NO_DEVICE)");
  ::setenv("TRACELINT_FAKE_CUDA_DEVICES", "0", 1);
  EXPECT_EQ(cudaDeviceProblem(Fake), "the CUDA driver found no device");
  ::setenv("TRACELINT_FAKE_CUDA_DEVICES", "2", 1);
  EXPECT_EQ(cudaDeviceProblem(Fake), "");
  ::unsetenv("TRACELINT_FAKE_CUDA_DEVICES");
}
