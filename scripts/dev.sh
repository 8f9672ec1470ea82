#!/usr/bin/env bash
# One entry point for developers and CI. Every command installs what is
# missing (Debian packages), builds what is stale, and is safe to run again.
#
#   scripts/dev.sh demo    install, build the tracelint binary alone, run
#                          `tracelint lint` on the example (text, then the
#                          HTML report and the annotated trace)
#   scripts/dev.sh test    install, build, run every test (unit, lit, corpus)
#   scripts/dev.sh build   install and build only (Release, folder build/)
#   scripts/dev.sh deps    install the Debian packages only
#   scripts/dev.sh sarif-validator
#                          install Microsoft's SARIF multitool (npm) for the
#                          SARIF tests; `test` and `asan` do it too
#   scripts/dev.sh asan    build in build-asan/ (Debug at -O1) with
#                          AddressSanitizer and UndefinedBehaviorSanitizer,
#                          then run every test but the corpus tests
#                          (TRACELINT_ASAN_CORPUS=1 adds them)
#   scripts/dev.sh fuzz [SECONDS]
#                          build the libFuzzer targets in build-fuzz/ (clang
#                          14, ASan + UBSan), seed them from fixtures/ and run
#                          each for SECONDS (default 45); fails on a crash,
#                          leaving the input in build-fuzz/crashes/TARGET/
set -euo pipefail

cd "$(dirname "$0")/.."

PACKAGES=(
  cmake ninja-build g++ pkgconf python3 gzip
  llvm-14-dev llvm-14-tools
  libsimdjson-dev libtomlplusplus-dev libsqlite3-dev sqlite3 zlib1g-dev libisal-dev
  libgtest-dev libbenchmark-dev
  cmark-gfm python3-jsonschema
  # The HTML report's browser test (tests/lit/html/browser.test) and
  # scripts/render-report-picture.sh.
  chromium
  # The Python package's tests (tests/python, docs/python.md): a real
  # torch.profiler run (CPU only), to_dataframe(), and
  # `pip install --no-build-isolation .` with Debian's build packages.
  python3-torch python3-pandas python3-pip python3-setuptools python3-wheel
)
# Only `fuzz` needs these: clang 14 and its sanitizer and libFuzzer runtimes.
FUZZ_PACKAGES=(clang-14 libclang-rt-14-dev)
JOBS=${JOBS:-2}

deps() {
  local missing=()
  for p in "${PACKAGES[@]}" "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
      || missing+=("$p")
  done
  if [ ${#missing[@]} -eq 0 ]; then
    return 0
  fi
  echo "installing: ${missing[*]}"
  local sudo=()
  [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

# Microsoft's SARIF validator for the SARIF tests, from npm (the package
# ships a self-contained Linux build and the SARIF 2.1.0 schema). Exports
# TRACELINT_SARIF_MULTITOOL for the lit tests. Under CI (CI=true) a missing
# test tool fails the tests instead of skipping them.
SARIF_MULTITOOL_VERSION=5.7.0
sarif_validator() {
  local dir=${TRACELINT_TOOLS_DIR:-$HOME/.cache/tracelint/sarif-multitool-$SARIF_MULTITOOL_VERSION}
  local tool=$dir/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool
  if [ ! -x "$tool" ]; then
    if ! command -v npm >/dev/null; then
      local sudo=()
      [ "$(id -u)" -eq 0 ] || sudo=(sudo)
      "${sudo[@]}" apt-get update -qq
      DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends npm
    fi
    mkdir -p "$dir"
    npm install --prefix "$dir" --no-audit --no-fund --loglevel=error \
      "@microsoft/sarif-multitool@$SARIF_MULTITOOL_VERSION"
    # npm may skip the package's own install script that sets this.
    chmod u+x "$tool"
  fi
  export TRACELINT_SARIF_MULTITOOL=$tool
}

test_tools() {
  if [ "${CI:-}" = "true" ]; then
    export TRACELINT_REQUIRE_TEST_TOOLS=1
    sarif_validator
  elif ! sarif_validator; then
    echo "note: the SARIF validator could not be installed; its tests will be skipped" >&2
  fi
}

# configure FOLDER [cmake args...]: configure once; later runs only rebuild.
configure() {
  local dir=$1
  shift
  if [ ! -f "$dir/build.ninja" ]; then
    cmake -S . -B "$dir" -G Ninja "$@"
  fi
}

# UBSan checks that the sanitizer builds leave out. AddressSanitizer already
# reports what they would catch in this code (a null or misaligned access
# faults, an object-size or pointer-overflow error becomes an out-of-bounds
# access; tracelint does no downcasts that vptr would check), and they were
# a third of each file's compile time: 6.4 s against 4.2 s for a detector
# with GCC 12 at -O1. The checks that ASan cannot stand in for stay on:
# signed overflow, float-to-int casts, shifts, division by zero, bounds,
# invalid enum and bool values, missing returns.
SANITIZE_SKIP=alignment,null,object-size,vptr,pointer-overflow

# build [TARGET...]: every target, or only those named (ninja's names).
build() {
  deps
  configure build -DCMAKE_BUILD_TYPE=Release
  ninja -C build -j "$JOBS" "$@"
}

run_tests() {
  local dir=$1
  ctest --test-dir "$dir" --output-on-failure -j "$JOBS"
}

# fuzz SECONDS: every target for SECONDS, each with a corpus that persists in
# build-fuzz/corpus/TARGET between runs, seeded afresh from fixtures/.
fuzz() {
  local seconds=$1 failed=()
  # -O1 with line tables only: a 30 s fuzz run gains little from -O2, and
  # a crash report needs file and line, not full debug information; both
  # shorten CI's third build.
  configure build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only -DNDEBUG" \
    -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only -DNDEBUG" \
    -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 \
    -DTRACELINT_FUZZ=ON -DTRACELINT_NO_SANITIZE="$SANITIZE_SKIP"
  ninja -C build-fuzz -j "$JOBS"
  python3 scripts/fuzz-seeds.py build-fuzz/seeds
  for t in kineto gzip toml nsys; do
    mkdir -p "build-fuzz/corpus/$t" "build-fuzz/crashes/$t"
    echo "fuzz-$t: ${seconds}s"
    # -timeout: an input that takes 10 s is a hang; -rss_limit_mb: one that
    # needs 2 GiB is a memory blow-up. Both fail like a crash.
    if ! "build-fuzz/fuzz/fuzz-$t" -max_total_time="$seconds" -timeout=10 \
        -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
        -artifact_prefix="build-fuzz/crashes/$t/" \
        "build-fuzz/corpus/$t" "build-fuzz/seeds/$t" \
        >"build-fuzz/fuzz-$t.log" 2>&1; then
      failed+=("$t")
      grep -A40 -E '^==[0-9]+==|^SUMMARY|runtime error|ERROR: libFuzzer' \
        "build-fuzz/fuzz-$t.log" | head -80 || true
    fi
    grep -E '^stat::number_of_executed_units|^Done' "build-fuzz/fuzz-$t.log" || true
  done
  if [ ${#failed[@]} -ne 0 ]; then
    echo "fuzzers that failed: ${failed[*]} (inputs in build-fuzz/crashes/)" >&2
    return 1
  fi
}

case "${1:-}" in
  deps) deps ;;
  build) build ;;
  demo)
    # Only the command it runs: not the tests, benchmarks or the capture
    # library (minutes of compiling the demo does not use).
    build tracelint
    # lint exits 1 when it finds something: the demo shows it, not fails.
    build/cli/tracelint lint --fail-on none fixtures/example/train-steps.json
    build/cli/tracelint lint --fail-on none --format html \
      -o build/example-report.html --annotate build/example-annotated.json \
      fixtures/example/train-steps.json
    echo
    echo "HTML report:     build/example-report.html (open it in a browser)"
    echo "annotated trace: build/example-annotated.json (open it in https://ui.perfetto.dev or chrome://tracing)"
    ;;
  sarif-validator)
    sarif_validator
    echo "$TRACELINT_SARIF_MULTITOOL"
    ;;
  test)
    build
    test_tools
    run_tests build
    ;;
  asan)
    deps
    # Debug keeps assertions; -O1 (as the sanitizers' documentation
    # advises) runs the suite four times faster than -O0: 2.7 min against
    # 10 min on 2 cores, for 2.5 min more compiling. -g1 keeps line tables
    # for the reports.
    # The corpus tests run over the real traces in the Release build; under
    # ASan they cost CI about 4 minutes (five slow-to-link binaries, 300 s of
    # test time beside the lit suite), so they are left out unless
    # TRACELINT_ASAN_CORPUS=1. The lit suite, the unit tests and the fuzzers
    # run the same code under the sanitizers.
    corpus=OFF
    if [ "${TRACELINT_ASAN_CORPUS:-0}" = 1 ]; then
      corpus=ON
    fi
    configure build-asan -DCMAKE_BUILD_TYPE=Debug -DTRACELINT_BUILD_BENCH=OFF \
      -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1" -DCMAKE_C_FLAGS_DEBUG="-O1 -g1" \
      -DTRACELINT_SANITIZE=address,undefined \
      -DTRACELINT_NO_SANITIZE="$SANITIZE_SKIP" -DTRACELINT_DISCOVER_UNIT_TESTS=OFF \
      -DTRACELINT_BUILD_CORPUS_TESTS="$corpus"
    ninja -C build-asan -j "$JOBS"
    test_tools
    run_tests build-asan
    ;;
  fuzz)
    deps "${FUZZ_PACKAGES[@]}"
    fuzz "${2:-45}"
    ;;
  *)
    # The header comment above, up to its first line of code.
    sed -n '2,/^[^#]/{/^#/{s/^# \{0,1\}//;p;};}' "$0"
    exit 2
    ;;
esac
