//===- tests/unit/CaptureInjectionTest.cpp - The built injection library --===//
//
// Loads the capture library as the CUDA driver and NVTX do (dlopen by path,
// then the exported entry points) and checks what a program sees of it. No
// GPU is needed: nothing here initialises CUDA.
//
//===----------------------------------------------------------------------===//
#include "gtest/gtest.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"

#include <cstdint>
#include <cstdlib>
#include <dlfcn.h>
#include <string>

namespace {

using NvtxGetExportTable = const void *(*)(uint32_t);
using NvtxInit = int (*)(NvtxGetExportTable);

const void *noExportTable(uint32_t) { return nullptr; }

struct Library {
  explicit Library(int ExtraFlags = 0)
      : Handle(dlopen(TRACELINT_CAPTURE_LIBRARY_PATH,
                      RTLD_NOW | RTLD_LOCAL | ExtraFlags)) {}
  void *Handle;
  ~Library() {
    if (Handle)
      dlclose(Handle);
  }
};

TEST(CaptureInjectionTest, ExportsTheDriverAndNvtxEntryPoints) {
  Library L;
  ASSERT_NE(L.Handle, nullptr) << dlerror();
  EXPECT_NE(dlsym(L.Handle, "InitializeInjection"), nullptr);
  EXPECT_NE(dlsym(L.Handle, "InitializeInjectionNvtx2"), nullptr);
}

// NVTX_INJECTION64_PATH names the capture library; its NVTX entry point must
// reach the entry point of the libcupti it was loaded with (which accepts
// the call and returns non-zero), not call itself or give up.
TEST(CaptureInjectionTest, NvtxEntryPointForwardsToItsOwnLibcupti) {
  Library L;
  ASSERT_NE(L.Handle, nullptr) << dlerror();
  auto Init =
      reinterpret_cast<NvtxInit>(dlsym(L.Handle, "InitializeInjectionNvtx2"));
  ASSERT_NE(Init, nullptr);

  // The libcupti this library is bound to, as the loader resolved it.
  void *Cupti = dlopen("libcupti.so.13", RTLD_LAZY | RTLD_NOLOAD);
  ASSERT_NE(Cupti, nullptr) << "libcupti.so.13 was not loaded with the "
                               "capture library";
  void *CuptiInit = dlsym(Cupti, "InitializeInjectionNvtx2");
  dlclose(Cupti);
  ASSERT_NE(CuptiInit, nullptr);
  EXPECT_NE(CuptiInit, reinterpret_cast<void *>(Init));

  EXPECT_NE(Init(noExportTable), 0);
}

// Where CUPTI cannot start (here: no GPU driver), the library says so and
// returns to the driver; the program runs on, and no trace is written.
TEST(CaptureInjectionTest, WithoutADriverTheProgramRunsOnUntraced) {
  if (void *Driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD)) {
    dlclose(Driver);
    GTEST_SKIP() << "a CUDA driver is loaded: CUPTI would start";
  }
  if (void *Driver = dlopen("libcuda.so.1", RTLD_LAZY)) {
    dlclose(Driver);
    GTEST_SKIP() << "a CUDA driver is installed: CUPTI would start";
  }
  llvm::SmallString<128> Dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("capture-inject", Dir));
  setenv("TRACELINT_CAPTURE_DIR", Dir.c_str(), 1);
  setenv("TRACELINT_CAPTURE_PREFIX", "nodriver", 1);
  // Kept mapped: CUPTI may hold the buffer callbacks it registered.
  Library L(RTLD_NODELETE);
  ASSERT_NE(L.Handle, nullptr) << dlerror();
  auto Init =
      reinterpret_cast<int (*)()>(dlsym(L.Handle, "InitializeInjection"));
  ASSERT_NE(Init, nullptr);

  ::testing::internal::CaptureStderr();
  int Result = Init();
  std::string Err = ::testing::internal::GetCapturedStderr();
  unsetenv("TRACELINT_CAPTURE_DIR");
  unsetenv("TRACELINT_CAPTURE_PREFIX");

  EXPECT_EQ(Result, 1) << "the driver must not see a failure";
  EXPECT_NE(Err.find("not capturing, the program runs on untraced"),
            std::string::npos)
      << Err;
  // The message names the CUPTI call that failed and comes first. The
  // thread-id setting, which fails too where CUPTI cannot start, is made
  // only once subscribing worked, so it cannot add a misleading line.
  EXPECT_EQ(Err.rfind("tracelint capture: cupti", 0), 0u) << Err;
  EXPECT_NE(Err.find(" failed: "), std::string::npos) << Err;
  EXPECT_EQ(Err.find("cuptiSetThreadIdType"), std::string::npos) << Err;
  std::error_code EC;
  llvm::sys::fs::directory_iterator It(Dir, EC);
  EXPECT_TRUE(!EC && It == llvm::sys::fs::directory_iterator())
      << "a trace was written";
  llvm::sys::fs::remove_directories(Dir);
}

} // namespace
