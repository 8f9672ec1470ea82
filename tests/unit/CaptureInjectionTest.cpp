//===- tests/unit/CaptureInjectionTest.cpp - The built injection library --===//
//
// Loads the capture library as the CUDA driver and NVTX do (dlopen by path,
// then the exported entry points) and checks what a program sees of it. No
// GPU is needed: nothing here initialises CUDA.
//
//===----------------------------------------------------------------------===//
#include "gtest/gtest.h"

#include <cstdint>
#include <dlfcn.h>
#include <string>

namespace {

using NvtxGetExportTable = const void *(*)(uint32_t);
using NvtxInit = int (*)(NvtxGetExportTable);

const void *noExportTable(uint32_t) { return nullptr; }

struct Library {
  void *Handle = dlopen(TRACELINT_CAPTURE_LIBRARY_PATH, RTLD_NOW | RTLD_LOCAL);
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

} // namespace
