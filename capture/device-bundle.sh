#!/usr/bin/env bash
# Builds a relocatable tracelint with capture support for a GPU machine that
# has CUDA 13 and PyTorch but none of tracelint's build dependencies (no
# LLVM 14, simdjson, toml++ or ISA-L), and no network to fetch them:
#
#   BUNDLE/bin/tracelint                        run path $ORIGIN/../lib
#   BUNDLE/lib/tracelint/libtracelint-capture.so  where the launcher looks
#   BUNDLE/lib/lib*.so.N                        the shared libraries tracelint
#                                               needs beyond glibc, libstdc++
#   BUNDLE/MANIFEST                             commit, build machine, glibc,
#                                               files
#
# The first two are the project's own install (`cmake --install`); the
# script adds the libraries and the manifest.
#
# libcupti is not bundled: the capture library must use the GPU machine's own
# (the one its driver and PyTorch match), found by soname at run time.
#
#   capture/device-bundle.sh [BUNDLE]     # default: .device-bundle
#
# Then capture/gpu-check.sh uses BUNDLE/bin/tracelint when it exists (carry
# the folder to the GPU machine; docs/capture.md). The bundle checks itself
# before it is reported ready: every bundled library resolves inside it, the
# binary runs, and `capture` finds its library.
set -euo pipefail

case "${1:-}" in
  -h | --help)
    sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
    exit 0
    ;;
  -*)
    echo "device-bundle: unknown option '$1' (usage: $0 [BUNDLE])" >&2
    exit 2
    ;;
esac
if [ $# -gt 1 ]; then
  echo "device-bundle: one folder at most (usage: $0 [BUNDLE])" >&2
  exit 2
fi

cd "$(dirname "$0")/.."
ROOT=$(pwd)
BUNDLE=${1:-.device-bundle}
BUILD=${BUILD_DIR:-build-device}
JOBS=${JOBS:-2}

case "$BUNDLE" in
  /*) ;;
  *) BUNDLE="$ROOT/$BUNDLE" ;;
esac

# The run path is written at install time; CMake escapes $ORIGIN.
# shellcheck disable=SC2016 # $ORIGIN is for the loader, not the shell
cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DTRACELINT_BUILD_TESTS=OFF -DTRACELINT_BUILD_BENCH=OFF \
  -DTRACELINT_CUPTI=ON '-DCMAKE_INSTALL_RPATH=$ORIGIN/../lib' > /dev/null
ninja -C "$BUILD" -j "$JOBS"

rm -rf "$BUNDLE"
cmake --install "$BUILD" --prefix "$BUNDLE" --strip > /dev/null
LIBRARY="$BUNDLE/lib/tracelint/libtracelint-capture.so"
if [ ! -e "$LIBRARY" ]; then
  echo "device-bundle: $BUILD was configured without CUPTI (no CUDA 13" \
    "toolkit found; set TRACELINT_CUPTI_ROOT): a bundle without capture" \
    "support is of no use on the GPU machine" >&2
  exit 1
fi

# Every shared library the binary loads, except the C and C++ runtimes that
# any machine able to run PyTorch has, is copied under its soname.
is_base() {
  case "$1" in
    linux-vdso.so.* | ld-linux*.so.* | libc.so.* | libm.so.* | libdl.so.* | \
      libpthread.so.* | librt.so.* | libutil.so.* | libgcc_s.so.* | \
      libstdc++.so.*) return 0 ;;
  esac
  return 1
}
BUNDLED=()
while read -r name arrow path _; do
  [ "$arrow" = "=>" ] || continue
  is_base "$name" && continue
  if [ ! -e "$path" ]; then
    echo "device-bundle: $name is not found on this machine" >&2
    exit 1
  fi
  cp -L "$path" "$BUNDLE/lib/$name"
  BUNDLED+=("$name")
done < <(ldd "$BUNDLE/bin/tracelint")

# --- self-check -----------------------------------------------------------------
fail() {
  echo "device-bundle: check failed: $*" >&2
  exit 1
}
RESOLVED=$(env -u LD_LIBRARY_PATH ldd "$BUNDLE/bin/tracelint")
for name in "${BUNDLED[@]}"; do
  path=$(awk -v n="$name" '$1 == n && $2 == "=>" { print $3 }' <<< "$RESOLVED")
  if [ -z "$path" ] || [ "$(readlink -f "$path")" != "$BUNDLE/lib/$name" ]; then
    fail "$name does not resolve inside the bundle:"$'\n'"$RESOLVED"
  fi
done
env -u LD_LIBRARY_PATH "$BUNDLE/bin/tracelint" --version > /dev/null ||
  fail "bin/tracelint does not run"
PROBE=$(mktemp -d)
# A program that never initialises CUDA (env): capture hands it the bundled
# library, not the one in this build tree, and reports that no trace was
# written (exit 3).
if env -u TRACELINT_CAPTURE_LIBRARY "$BUNDLE/bin/tracelint" capture \
     --no-lint --trace-dir "$PROBE" -- env > "$PROBE/out" 2>&1; then
  fail "capture of a program without CUDA succeeded"
fi
grep -q "no trace was written" "$PROBE/out" ||
  fail "capture did not run the program: $(cat "$PROBE/out")"
grep -qx "CUDA_INJECTION64_PATH=$LIBRARY" "$PROBE/out" ||
  fail "capture does not use the bundled library"
rm -rf "$PROBE"

GLIBC=$( { objdump -T "$BUNDLE/bin/tracelint" "$BUNDLE"/lib/*.so* "$LIBRARY"; } |
  grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -1)
{
  echo "commit: $(git -C "$ROOT" rev-parse HEAD 2>/dev/null || echo unknown)"
  echo "built: $(date -u +%FT%TZ) on $(sed -n 's/^PRETTY_NAME=//p' /etc/os-release | tr -d '"') $(uname -m)"
  echo "needs: $GLIBC or newer, libstdc++ with $(objdump -T "$BUNDLE/bin/tracelint" |
    grep -o 'GLIBCXX_[0-9.]*' | sort -uV | tail -1), libcupti.so.13 (CUDA 13)"
  echo "files:"
  (cd "$BUNDLE" && find . -type f ! -name MANIFEST | sort | xargs du -b)
} > "$BUNDLE/MANIFEST"
cat "$BUNDLE/MANIFEST"
echo "device-bundle: ready: $BUNDLE ($(du -sh "$BUNDLE" | cut -f1))"
