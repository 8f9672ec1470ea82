#!/usr/bin/env bash
# One entry point for developers and CI. Every command installs what is
# missing (Debian packages), builds what is stale, and is safe to run again.
#
#   scripts/dev.sh demo    install, build, run `tracelint stats` on the example
#   scripts/dev.sh test    install, build, run every test (unit, lit, corpus)
#   scripts/dev.sh build   install and build only (Release, folder build/)
#   scripts/dev.sh deps    install the Debian packages only
#   scripts/dev.sh sarif-validator
#                          install Microsoft's SARIF multitool (npm) for the
#                          SARIF tests; `test` and `asan` do it too
#   scripts/dev.sh asan    build in build-asan/ with AddressSanitizer and
#                          UndefinedBehaviorSanitizer, then run every test
set -euo pipefail

cd "$(dirname "$0")/.."

PACKAGES=(
  cmake ninja-build g++ pkgconf python3 gzip
  llvm-14-dev llvm-14-tools
  libsimdjson-dev libtomlplusplus-dev libsqlite3-dev sqlite3 zlib1g-dev libisal-dev
  libgtest-dev libbenchmark-dev
  cmark-gfm python3-jsonschema
)
JOBS=${JOBS:-2}

deps() {
  local missing=()
  for p in "${PACKAGES[@]}"; do
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

build() {
  deps
  configure build -DCMAKE_BUILD_TYPE=Release
  ninja -C build -j "$JOBS"
}

run_tests() {
  local dir=$1
  ctest --test-dir "$dir" --output-on-failure -j "$JOBS"
}

case "${1:-}" in
  deps) deps ;;
  build) build ;;
  demo)
    build
    build/cli/tracelint stats fixtures/example/train-steps.json
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
    configure build-asan -DCMAKE_BUILD_TYPE=Debug -DTRACELINT_BUILD_BENCH=OFF \
      -DTRACELINT_SANITIZE=address,undefined
    ninja -C build-asan -j "$JOBS"
    test_tools
    run_tests build-asan
    ;;
  *)
    sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
    ;;
esac
