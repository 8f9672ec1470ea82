#!/usr/bin/env bash
# One prepared run for a machine with a GPU (PyTorch, CUDA 13, CUPTI; no
# network). Builds tracelint with capture support, runs every workload
# variant in fixtures/workloads twice (under `tracelint capture`, and alone
# with a torch.profiler Kineto export after its timed steps), lints every
# trace, and packs traces, lint reports, step times and the versions of
# everything into one archive: $OUT/gpu-check.tar.gz.
#
#   OUT=/some/dir capture/gpu-check.sh            # from the repository root
#
# Budget: about 10 minutes. Each program has a time limit, and workloads
# still waiting when the budget is nearly spent are skipped (and listed), so
# the archives always come back: $OUT/gpu-check.tar.gz (versions, logs, step
# times, lint reports, summary) and $OUT/gpu-check-traces.tar.gz (the traces;
# split into 15 MiB parts .partNN when larger, which `cat` joins).
#
# Which tracelint: TRACELINT_BIN; else the relocatable bundle that
# capture/device-bundle.sh made on a build machine (.device-bundle, carried
# along: the GPU machine has none of tracelint's build dependencies); else a
# build here, which needs them. Environment:
#   OUT                where the archives go (required)
#   GPU_CHECK_BUDGET   seconds for the whole run (default 540)
#   GPU_CHECK_STEPS    timed steps per run (default 30)
#   TRACELINT_BIN      a tracelint binary to use
#   JOBS               parallel build jobs (default: all CPUs)
set -uo pipefail

cd "$(dirname "$0")/.." || exit 2
ROOT=$(pwd)
: "${OUT:?set OUT to the folder that receives the archive}"
BUDGET=${GPU_CHECK_BUDGET:-540}
STEPS=${GPU_CHECK_STEPS:-30}
JOBS=${JOBS:-$(nproc)}
PY=${PYTHON:-python3}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/gpu-check.XXXXXX")
mkdir -p "$OUT" "$WORK/traces/capture" "$WORK/traces/kineto" "$WORK/lint" \
  "$WORK/logs"
START=$SECONDS

note() { echo "gpu-check: $*" | tee -a "$WORK/notes.txt" >&2; }
left() { echo $((BUDGET - (SECONDS - START))); }

# Two archives, so that the small one comes back even when the traces are
# too large for one file (the device tool returns files of up to 16 MiB).
pack() {
  find "$WORK/traces" -name '*.json' -exec gzip -9 {} +
  tar -czf "$OUT/gpu-check-traces.tar.gz" -C "$WORK" traces
  if [ "$(stat -c %s "$OUT/gpu-check-traces.tar.gz")" -gt $((15 << 20)) ]; then
    split -b 15M -d -a 2 "$OUT/gpu-check-traces.tar.gz" \
      "$OUT/gpu-check-traces.tar.gz.part"
    rm "$OUT/gpu-check-traces.tar.gz"
  fi
  note "traces: $(du -ch "$OUT"/gpu-check-traces.tar.gz* | tail -1 | cut -f1)"
  tar -czf "$OUT/gpu-check.tar.gz" -C "$WORK" --exclude=./traces .
  note "archive: $OUT/gpu-check.tar.gz ($(du -h "$OUT/gpu-check.tar.gz" | cut -f1))"
}
trap pack EXIT

# --- versions ---------------------------------------------------------------
{
  echo "date: $(date -u +%FT%TZ)"
  echo "commit: $(git -C "$ROOT" rev-parse HEAD 2>/dev/null || echo unknown)"
  echo "host: $(uname -a)"
  nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap \
    --format=csv 2>&1 || echo "nvidia-smi: unavailable"
  "$PY" - <<'PYEOF' 2>&1
import torch
print("torch:", torch.__version__, "cuda:", torch.version.cuda,
      "cudnn:", torch.backends.cudnn.version())
if torch.cuda.is_available():
    p = torch.cuda.get_device_properties(0)
    print("device:", p.name, "sm:", f"{p.major}.{p.minor}",
          "sms:", p.multi_processor_count, "count:", torch.cuda.device_count())
PYEOF
  cmake --version 2>&1 | head -1
  (command -v nvcc >/dev/null && nvcc --version | tail -2) || echo "nvcc: none"
  # Which libcupti a capture can meet: the toolkit's and PyTorch's own.
  echo "libcupti:" "$(find /usr/local -maxdepth 5 -path '/usr/local/cuda*' \
    -name 'libcupti.so.*' 2> /dev/null | sort | tr '\n' ' ')"
  "$PY" -c 'import glob, os, torch
lib = os.path.join(os.path.dirname(torch.__file__), "lib", "libtorch_cuda.so")
print("torch libcupti:", " ".join(glob.glob(os.path.join(os.path.dirname(
    torch.__file__), "..", "nvidia", "*", "lib", "libcupti.so*"))) or "none",
    "| libtorch_cuda:", lib if os.path.exists(lib) else "none")' 2>&1
} > "$WORK/versions.txt"
cat "$WORK/versions.txt" >&2

# --- tracelint with capture support -------------------------------------------
find_cupti_dir() {
  local d
  for d in "${CUDAToolkit_ROOT:-}" "${CUDA_HOME:-}" /usr/local/cuda; do
    if [ -n "$d" ] && [ -e "$d/include/cupti_activity.h" ]; then
      echo "$d"
      return 0
    fi
  done
  return 1
}

TL=${TRACELINT_BIN:-}
if [ -z "$TL" ] && [ -x "$ROOT/.device-bundle/bin/tracelint" ]; then
  if "$ROOT/.device-bundle/bin/tracelint" --version > "$WORK/logs/bundle.log" 2>&1; then
    TL="$ROOT/.device-bundle/bin/tracelint"
    sed 's/^/bundle /' "$ROOT/.device-bundle/MANIFEST" >> "$WORK/versions.txt"
  else
    note "the carried bundle does not run here (logs/bundle.log); building"
  fi
fi
if [ -z "$TL" ]; then
  BUILD="$ROOT/build-gpu"
  CUPTI_ROOT=$(find_cupti_dir || true)
  if cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
       -DTRACELINT_BUILD_TESTS=OFF -DTRACELINT_BUILD_BENCH=OFF \
       ${CUPTI_ROOT:+-DTRACELINT_CUPTI_ROOT="$CUPTI_ROOT"} \
       > "$WORK/logs/cmake.log" 2>&1 &&
     ninja -C "$BUILD" -j "$JOBS" tracelint > "$WORK/logs/build.log" 2>&1; then
    TL="$BUILD/cli/tracelint"
  else
    note "tracelint did not build (logs/cmake.log, logs/build.log);" \
      "running the workloads with torch.profiler only"
  fi
fi
CAPTURE=0
if [ -n "$TL" ] && "$TL" --version > /dev/null 2>&1; then
  "$TL" --version >> "$WORK/versions.txt"
  if "$TL" capture --no-lint --trace-dir "$WORK/probe" -- true 2>&1 |
       grep -q "no capture support"; then
    note "this tracelint has no capture support; Kineto traces only"
  else
    CAPTURE=1
  fi
else
  TL=""
fi
# Captured runs get no LD_LIBRARY_PATH of ours: PyTorch loads the libcupti
# of its own wheel at import, which the capture library then shares (by
# soname), and a toolkit folder put first on the path could make PyTorch
# load an older libcupti than it was built with and fail to import. Other
# programs find libcupti through the capture library's run path.

# --- workloads ------------------------------------------------------------------
WORKLOADS=(sync_item pageable_copy tiny_kernels transpose_contiguous attention
  gated_mlp dataloader cold_start)
: > "$WORK/step_times.jsonl"
: > "$WORK/skipped.txt"

# run NAME LIMIT CMD...: runs CMD with a time limit, output in logs/NAME.log;
# the JSON result line is appended to step_times.jsonl with the run's mode.
run() {
  local name=$1 limit=$2 mode=$3
  shift 3
  local t0=$SECONDS
  timeout --signal=TERM --kill-after=10 "$limit" "$@" \
    > "$WORK/logs/$name.log" 2>&1
  local rc=$?
  grep '^{"workload"' "$WORK/logs/$name.log" |
    sed "s/}\$/, \"mode\": \"$mode\", \"exit\": $rc, \"wall_s\": $((SECONDS - t0))}/" \
    >> "$WORK/step_times.jsonl"
  [ "$rc" -eq 0 ] || note "$name: exit $rc (logs/$name.log)"
}

for w in "${WORKLOADS[@]}"; do
  for v in pathological fixed; do
    if [ "$(left)" -lt 60 ]; then
      echo "$w $v" >> "$WORK/skipped.txt"
      note "skipping $w $v: budget nearly spent"
      continue
    fi
    limit=$(( $(left) - 40 ))
    [ "$limit" -gt 120 ] && limit=120
    # 1. Timing outside any profiler, then a Kineto export of a few steps.
    run "$w-$v-kineto" "$limit" kineto \
      "$PY" "$ROOT/fixtures/workloads/$w.py" --variant "$v" --steps "$STEPS" \
      --kineto-trace "$WORK/traces/kineto/$w-$v.json"
    # 2. The same program under tracelint capture: five timed steps.
    if [ "$CAPTURE" = 1 ] && [ "$(left)" -ge 60 ]; then
      limit=$(( $(left) - 40 ))
      [ "$limit" -gt 120 ] && limit=120
      run "$w-$v-capture" "$limit" capture \
        "$TL" capture --no-lint --trace-dir "$WORK/traces/capture" \
        --trace-prefix "$w-$v" --range step --range-count 5 -- \
        "$PY" "$ROOT/fixtures/workloads/$w.py" --variant "$v" --steps "$STEPS"
    fi
  done
done

# --- lint every trace -------------------------------------------------------------
if [ -n "$TL" ]; then
  for t in "$WORK"/traces/kineto/*.json "$WORK"/traces/capture/*.json; do
    [ -e "$t" ] || continue
    kind=$(basename "$(dirname "$t")")
    base=$(basename "$t" .json)
    step=()
    [ "$kind" = capture ] && step=(--step step)
    "$TL" lint --isolated --format json --fail-on none "${step[@]}" "$t" \
      > "$WORK/lint/$kind-$base.json" 2> "$WORK/lint/$kind-$base.err"
    "$TL" stats "${step[@]}" "$t" > "$WORK/lint/$kind-$base.stats.txt" 2>&1
  done
fi

# --- summary: rules fired and step times against fixtures/workloads/expected.json
"$PY" "$ROOT/capture/gpu_summary.py" "$WORK" \
  "$ROOT/fixtures/workloads/expected.json" > "$WORK/summary.md" 2>&1
cat "$WORK/summary.md" >&2
note "done in $((SECONDS - START)) s"
