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
# the archive always comes back. Environment:
#   OUT                where the archive goes (required)
#   GPU_CHECK_BUDGET   seconds for the whole run (default 540)
#   GPU_CHECK_STEPS    timed steps per run (default 30)
#   TRACELINT_BIN      a tracelint binary to use instead of building one
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

pack() {
  find "$WORK/traces" -name '*.json' -exec gzip -9 {} +
  tar -czf "$OUT/gpu-check.tar.gz" -C "$WORK" .
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
# Where the library's RPATH does not reach libcupti, let the loader find it.
if CUPTI_ROOT=$(find_cupti_dir); then
  export LD_LIBRARY_PATH="$CUPTI_ROOT/lib64:$CUPTI_ROOT/extras/CUPTI/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi

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
"$PY" - "$WORK" "$ROOT/fixtures/workloads/expected.json" \
  > "$WORK/summary.md" 2>&1 <<'PYEOF'
import glob, json, os, sys

work, expected_path = sys.argv[1], sys.argv[2]
expected = {k: v for k, v in json.load(open(expected_path)).items()
            if not k.startswith("_")}

def fired(path):
    try:
        doc = json.load(open(path))
    except Exception as e:  # noqa: BLE001 - report, do not stop
        return None, str(e)
    codes = set()
    def walk(x):  # codes of the findings, not of the rules that skipped
        if isinstance(x, dict):
            for f in x.get("findings", []) or []:
                if isinstance(f, dict) and isinstance(f.get("code"), str):
                    codes.add(f["code"])
            for k, v in x.items():
                if k != "findings":
                    walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)
    walk(doc)
    return sorted(codes), None

times = {}
for line in open(os.path.join(work, "step_times.jsonl")):
    r = json.loads(line)
    times[(r["workload"], r["variant"], r["mode"])] = r["step_ms"]

print("| workload | variant | step ms | under capture | kineto rules | capture rules |")
print("|---|---|---|---|---|---|")
verdicts = []
for w, exp in expected.items():
    got = {}
    for v in ("pathological", "fixed"):
        row = [w, v, times.get((w, v, "kineto"), "-"),
               times.get((w, v, "capture"), "-")]
        for kind in ("kineto", "capture"):
            matches = glob.glob(os.path.join(work, "lint", f"{kind}-{w}-{v}*.json"))
            codes = []
            for m in matches:
                c, err = fired(m)
                codes += c or []
            got[(v, kind)] = set(codes) if matches else None
            row.append(" ".join(sorted(set(codes))) or "none"
                       if matches else "no trace")
        print("| " + " | ".join(str(x) for x in row) + " |")
    for kind in ("kineto", "capture"):
        want = set(exp["rules"]) | (set(exp["kineto-only"]) if kind == "kineto" else set())
        for code in sorted(want):
            p, f = got[("pathological", kind)], got[("fixed", kind)]
            verdicts.append((w, kind, code,
                             None if p is None else code in p,
                             None if f is None else code not in f))
    tp = times.get((w, "pathological", "kineto"))
    tf = times.get((w, "fixed", "kineto"))
    if tp is not None and tf is not None:
        faster = "fixed" if tf < tp else "pathological"
        verdicts.append((w, "time", f"faster={exp['faster']}", faster == exp["faster"], True))

print()
print("| workload | trace | expectation | pathological fires | fixed silent |")
print("|---|---|---|---|---|")
def word(x):
    return "no trace" if x is None else "yes" if x else "NO"
for w, kind, what, a, b in verdicts:
    print(f"| {w} | {kind} | {what} | {word(a)} | {word(b)} |")
PYEOF
cat "$WORK/summary.md" >&2
note "done in $((SECONDS - START)) s"
