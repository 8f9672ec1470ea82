//===- cmake/AsanDefaultOptions.cpp - Sanitizer build defaults -*- C++ -*-===//
//
// Linked into every executable of a build with TRACELINT_SANITIZE=address
// (CMakeLists.txt, tracelint_sanitizer_defaults). The sanitizer runtime asks
// for these defaults at start-up; ASAN_OPTIONS in the environment still
// overrides them.
//
//===----------------------------------------------------------------------===//

extern "C" const char *__asan_default_options();

// intercept_tls_get_addr=0: up to GCC 13 and LLVM 16 the runtime's
// __tls_get_addr interceptor takes a dynamic TLS block that happens to start
// 16 bytes into a page for a glibc 2.19 block with a header, reads a bogus
// range from in front of it, and LeakSanitizer's tracer then crashes at exit
// ("Tracer caught signal 11", exit 1 with no leak reported). `capture` loads
// libcupti, which has dynamic TLS, so whether it happened depended on the
// heap layout: it failed CI's install test for one trace folder name and not
// for another. Without the interceptor, dynamic TLS blocks are not scanned
// as roots: a pointer kept only there would be reported as a leak (a false
// alarm, never a missed one).
extern "C" const char *__asan_default_options() {
  return "intercept_tls_get_addr=0";
}
