//===- tests/unit/FakeCudaDriver.cpp - A stand-in libcuda -----------------===//
//
// Loaded in place of libcuda.so.1 by CaptureLauncherTest to check what the
// launcher says when a capture wrote no trace. TRACELINT_FAKE_CUDA_DEVICES
// decides what the "driver" answers: "none" makes cuInit fail with
// CUDA_ERROR_NO_DEVICE; a number is the device count cuDeviceGetCount
// reports.
//
//===----------------------------------------------------------------------===//
#include <cstdlib>
#include <cstring>

namespace {
constexpr int NoDevice = 100; // CUDA_ERROR_NO_DEVICE in cuda.h

const char *answer() {
  const char *A = std::getenv("TRACELINT_FAKE_CUDA_DEVICES");
  return A ? A : "0";
}
} // namespace

extern "C" {
int cuInit(unsigned) { return std::strcmp(answer(), "none") ? 0 : NoDevice; }
int cuDeviceGetCount(int *Count) {
  *Count = std::atoi(answer());
  return 0;
}
int cuGetErrorName(int Code, const char **Name) {
  *Name = Code == NoDevice ? "CUDA_ERROR_NO_DEVICE" : "CUDA_ERROR_UNKNOWN";
  return 0;
}
}
