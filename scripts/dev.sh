#!/usr/bin/env bash
# One entry point for developers and CI. Every command installs what is
# missing (Debian packages), builds what is stale, and is safe to run again.
#
#   scripts/dev.sh demo    install, build, run `tracelint stats` on the example
#   scripts/dev.sh test    install, build, run every test (unit, lit, corpus)
#   scripts/dev.sh build   install and build only (Release, folder build/)
#   scripts/dev.sh deps    install the Debian packages only
#   scripts/dev.sh asan    build in build-asan/ with AddressSanitizer and
#                          UndefinedBehaviorSanitizer, then run every test
set -euo pipefail

cd "$(dirname "$0")/.."

PACKAGES=(
  cmake ninja-build g++ pkgconf python3 gzip
  llvm-14-dev llvm-14-tools
  libsimdjson-dev libtomlplusplus-dev libsqlite3-dev sqlite3 zlib1g-dev libisal-dev
  libgtest-dev libbenchmark-dev
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
  test)
    build
    run_tests build
    ;;
  asan)
    deps
    configure build-asan -DCMAKE_BUILD_TYPE=Debug -DTRACELINT_BUILD_BENCH=OFF \
      -DTRACELINT_SANITIZE=address,undefined
    ninja -C build-asan -j "$JOBS"
    run_tests build-asan
    ;;
  *)
    sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
    ;;
esac
