#!/usr/bin/env bash
# Benchmark tracelint's import + `stats` against the yardstick Y.
#
#   bench/run_bench.sh [--sizes 100M,1G] [--runs N] [--build DIR] [--seed N]
#                      [--no-build] [--no-gzip] [--data DIR] [--timeout S]
#                      [--check]
#
# For every size it generates (or reuses) bench/data/kineto_<SIZE>_s<SEED>.json
# and its .json.gz twin, then times, alternately (A B A B ...), N runs each of
#
#   A: BUILD/cli/tracelint stats FILE --format json -o /dev/null
#   B: BUILD/bench/tracelint_yardstick PLAIN      (Y; on the plain twin for .gz)
#
# and prints a Markdown table: median [min-max] wall time of tracelint, median
# of Y, the paired median of the per-run ratios tracelint/Y, MB/s over the
# uncompressed bytes, and tracelint's peak RSS (max over the runs) against the
# uncompressed size.  See bench/README.md for Y and the targets.
#
# Wall time is taken around each run with bash's EPOCHREALTIME (microsecond
# resolution); peak RSS comes from /usr/bin/time's %M.
set -euo pipefail
export LC_ALL=C

script_dir=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
root=$(cd -- "$script_dir/.." && pwd)

sizes="100M,1G"
runs=""
build="$root/build-release"
seed=1
do_build=1
do_gzip=1
data="$script_dir/data"
run_timeout=900
check=0

usage() {
  sed -n '2,20p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
  echo
  cat <<'EOF'
Options:
  --sizes LIST   comma-separated uncompressed sizes (decimal: 100M, 1G); default 100M,1G
  --runs N       timed runs of each program per file; default 5 (3 for sizes >= 1G)
  --build DIR    build folder; default build-release (configured Release, Ninja)
  --seed N       generator seed; default 1
  --no-build     do not configure/build; use the binaries already in DIR
  --no-gzip      skip the .json.gz rows
  --data DIR     where the traces live; default bench/data (gitignored)
  --timeout S    kill a single run after S seconds (default 900)
  --check        exit 3 when a hard limit (never-above) is exceeded
EOF
}

die() {
  echo "run_bench: error: $*" >&2
  exit 1
}

note() {
  echo "run_bench: $*" >&2
}

while [[ $# -gt 0 ]]; do
  case "$1" in
    --sizes) sizes=${2:?--sizes needs a value}; shift 2 ;;
    --sizes=*) sizes=${1#*=}; shift ;;
    --runs) runs=${2:?--runs needs a value}; shift 2 ;;
    --runs=*) runs=${1#*=}; shift ;;
    --build) build=${2:?--build needs a value}; shift 2 ;;
    --build=*) build=${1#*=}; shift ;;
    --seed) seed=${2:?--seed needs a value}; shift 2 ;;
    --seed=*) seed=${1#*=}; shift ;;
    --data) data=${2:?--data needs a value}; shift 2 ;;
    --data=*) data=${1#*=}; shift ;;
    --timeout) run_timeout=${2:?--timeout needs a value}; shift 2 ;;
    --timeout=*) run_timeout=${1#*=}; shift ;;
    --no-build) do_build=0; shift ;;
    --no-gzip) do_gzip=0; shift ;;
    --check) check=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; die "unknown argument: $1" ;;
  esac
done

[[ -z "$runs" || "$runs" =~ ^[1-9][0-9]*$ ]] || die "--runs must be a positive integer"
[[ "$seed" =~ ^[0-9]+$ ]] || die "--seed must be a non-negative integer"
[[ "$run_timeout" =~ ^[1-9][0-9]*$ ]] || die "--timeout must be a positive integer"
case "$build" in /*) ;; *) build="$PWD/$build" ;; esac
case "$data" in /*) ;; *) data="$PWD/$data" ;; esac

for tool in python3 gzip awk sort timeout sha256sum; do
  command -v "$tool" >/dev/null 2>&1 || die "'$tool' is required but not installed"
done
[[ -x /usr/bin/time ]] || die "/usr/bin/time is required (Debian package 'time')"
[[ -n "${EPOCHREALTIME:-}" ]] || die "bash 5 or newer is required (EPOCHREALTIME)"

# --- build -----------------------------------------------------------------
if [[ $do_build -eq 1 ]]; then
  command -v cmake >/dev/null 2>&1 || die "cmake is required"
  command -v ninja >/dev/null 2>&1 || die "ninja is required"
  if [[ ! -f "$build/CMakeCache.txt" ]]; then
    note "configuring $build (Release, Ninja)"
    cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DTRACELINT_BUILD_TESTS=OFF -DTRACELINT_BUILD_BENCH=ON >&2 ||
      die "cmake configure failed in $build"
  else
    cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
      -DTRACELINT_BUILD_BENCH=ON >/dev/null ||
      die "cmake re-configure failed in $build"
  fi
  note "building in $build (ninja -j2)"
  ninja -C "$build" -j2 >&2 || die "build failed in $build"
fi

tracelint="$build/cli/tracelint"
yardstick="$build/bench/tracelint_yardstick"
[[ -x "$tracelint" ]] || die "tracelint CLI not found at $tracelint
  (the 'tracelint' executable of cli/ has not been built; build it, or pass
   --build DIR pointing at a build folder that has cli/tracelint)"
[[ -x "$yardstick" ]] || die "yardstick not found at $yardstick
  (configure with -DTRACELINT_BUILD_BENCH=ON and build target tracelint_yardstick)"

# --- helpers ---------------------------------------------------------------
# bytes_of SIZE -> decimal byte count (100M -> 100000000)
bytes_of() {
  awk -v s="$1" 'BEGIN {
    u = toupper(s); sub(/B$/, "", u); m = 1
    if (u ~ /K$/) { m = 1e3 } else if (u ~ /M$/) { m = 1e6 } else if (u ~ /G$/) { m = 1e9 }
    sub(/[KMG]$/, "", u)
    if (u !~ /^[0-9]+(\.[0-9]+)?$/) { exit 1 }
    printf "%.0f\n", u * m }'
}

# stats over the numbers given as arguments: "median min max"
stats() {
  printf '%s\n' "$@" | sort -g | awk '
    { v[NR] = $1 }
    END {
      if (NR == 0) { print "nan nan nan"; exit }
      med = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
      printf "%.6f %.6f %.6f\n", med, v[1], v[NR] }'
}

fsize() { stat -c %s -- "$1"; }

tmpdir=$(mktemp -d)
trap 'rm -rf -- "$tmpdir"' EXIT

# measure LABEL CMD... : runs CMD under /usr/bin/time; sets m_wall (s) and
# m_rss (KiB).  Output goes to $tmpdir/out.LABEL; a failure aborts.
m_wall=0
m_rss=0
measure() {
  local label=$1; shift
  local out="$tmpdir/out.$label" tf="$tmpdir/time.$label" t0 t1 rc=0
  t0=$EPOCHREALTIME
  timeout "$run_timeout" /usr/bin/time -f '%e %M' -o "$tf" "$@" >"$out" 2>&1 || rc=$?
  t1=$EPOCHREALTIME
  if [[ $rc -ne 0 ]]; then
    echo "run_bench: error: '$*' failed (exit $rc); its output:" >&2
    tail -n 20 "$out" >&2 || true
    if [[ $rc -eq 124 ]]; then echo "run_bench: (killed after --timeout $run_timeout s)" >&2; fi
    exit 1
  fi
  m_wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f", b - a }')
  m_rss=$(awk 'END { print $2 }' "$tf")
}

# --- data ------------------------------------------------------------------
mkdir -p -- "$data"
gen="$script_dir/gen_kineto_trace.py"
gen_hash=$(sha256sum -- "$gen" | awk '{ print $1 }')

# ensure_trace SIZE -> sets plain (path) ; generates unless a matching stamp exists
ensure_trace() {
  local size=$1 tag stamp want
  tag=$(printf '%s' "$size" | tr '[:lower:]' '[:upper:]')
  plain="$data/kineto_${tag}_s${seed}.json"
  stamp="$plain.stamp"
  want="gen=$gen_hash seed=$seed size=$(bytes_of "$size")"
  if [[ -f "$plain" && -f "$stamp" ]] && [[ "$(head -n 1 "$stamp")" == "$want" ]] &&
     [[ "$(sed -n 2p "$stamp")" == "bytes=$(fsize "$plain")" ]]; then
    note "reusing $plain"
  else
    note "generating $plain ($size, seed $seed)"
    rm -f -- "$stamp" "$plain.gz"
    python3 "$gen" "$plain.tmp" "$size" --seed "$seed" \
      --census-json "$plain.census.json" || die "trace generation failed"
    mv -f -- "$plain.tmp" "$plain"
    printf '%s\nbytes=%s\n' "$want" "$(fsize "$plain")" >"$stamp"
  fi
  if [[ $do_gzip -eq 1 ]] && ! [[ -f "$plain.gz" && "$plain.gz" -nt "$plain" ]]; then
    note "compressing $plain.gz (gzip -6)"
    gzip -6 -c -- "$plain" >"$plain.gz.tmp" || die "gzip failed"
    mv -f -- "$plain.gz.tmp" "$plain.gz"
  fi
}

# --- machine ---------------------------------------------------------------
cpu_model=$(lscpu 2>/dev/null | awk -F: '/^Model name/ { sub(/^[ \t]+/, "", $2); print $2; exit }')
mem_gib=$(awk '/^MemTotal/ { printf "%.1f", $2 / 1048576 }' /proc/meminfo)
rev=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)

echo "## tracelint benchmark: import + stats vs Y"
echo
echo "- date: $(date -u '+%Y-%m-%d %H:%M:%S UTC'), tracelint $rev, build $build"
echo "- machine: $(nproc) CPUs, ${cpu_model:-unknown CPU}, ${mem_gib} GiB RAM, $(uname -sr)"
echo "- A: \`tracelint stats FILE --format json -o /dev/null\`; Y: \`tracelint_yardstick PLAIN\`; alternating A B A B"
echo

rows=()
hard_fail=0
IFS=',' read -r -a size_list <<<"$sizes"
for size in "${size_list[@]}"; do
  [[ -n "$size" ]] || continue
  nbytes=$(bytes_of "$size") || die "bad size '$size' (use e.g. 100M, 1G)"
  ensure_trace "$size"
  n=$runs
  if [[ -z "$n" ]]; then
    if [[ $nbytes -ge 1000000000 ]]; then n=3; else n=5; fi
  fi
  ubytes=$(fsize "$plain")
  events_expected=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["events"])' \
    "$plain.census.json" 2>/dev/null || echo "")

  inputs=("$plain")
  [[ $do_gzip -eq 1 ]] && inputs+=("$plain.gz")
  for file in "${inputs[@]}"; do
    # warm the page cache for both files this row reads
    cat -- "$file" "$plain" >/dev/null
    tl_times=() y_times=() ratios=() peak=0
    for ((i = 1; i <= n; i++)); do
      measure tl "$tracelint" stats "$file" --format json -o /dev/null
      tl_times+=("$m_wall")
      if [[ $m_rss -gt $peak ]]; then peak=$m_rss; fi
      tl_wall=$m_wall
      tl_rss=$m_rss
      measure y "$yardstick" "$plain"
      y_times+=("$m_wall")
      if [[ $i -eq 1 && -n "$events_expected" ]]; then
        y_events=$(awk '$1 == "events" { print $2 }' "$tmpdir/out.y")
        [[ "$y_events" == "$events_expected" ]] ||
          die "yardstick counted $y_events events in $plain, the generator wrote $events_expected"
      fi
      ratios+=("$(awk -v a="$tl_wall" -v b="$m_wall" 'BEGIN { printf "%.6f", a / b }')")
      note "$(basename -- "$file") run $i/$n: tracelint ${tl_wall}s (${tl_rss} KiB), Y ${m_wall}s (${m_rss} KiB)"
    done
    read -r tl_med tl_min tl_max < <(stats "${tl_times[@]}")
    read -r y_med _ _ < <(stats "${y_times[@]}")
    read -r r_med _ _ < <(stats "${ratios[@]}")
    gz=0
    [[ "$file" == *.gz ]] && gz=1
    row=$(awk -v name="$(basename -- "$file")" -v fbytes="$(fsize "$file")" -v ub="$ubytes" \
      -v gz="$gz" -v tm="$tl_med" -v tmin="$tl_min" -v tmax="$tl_max" -v ym="$y_med" \
      -v r="$r_med" -v rss="$peak" -v n="$n" 'BEGIN {
        if (gz) size = sprintf("%.1f MB (%.1f MB)", fbytes / 1e6, ub / 1e6)
        else size = sprintf("%.1f MB", fbytes / 1e6)
        goal = gz ? 2.5 : 2.0; limit = gz ? 3.5 : 3.0
        rv = (r <= goal) ? "ok" : (r <= limit ? "over goal" : "FAIL")
        rss_b = rss * 1024; rel = rss_b / ub
        mv = (rss_b <= 0.5 * ub + 256 * 1048576) ? "ok" : (rss_b <= ub ? "over goal" : "FAIL")
        # the targets are defined for traces of 1 GB and more
        if (ub >= 1e9) { rv = " (" rv ")"; mv = " (" mv ")" } else { rv = ""; mv = "" }
        printf "| %s | %s | %.3f [%.3f-%.3f] | %.3f | %.2f%s | %.0f | %.0f | %.2f%s | %d |\n",
          name, size, tm, tmin, tmax, ym, r, rv, ub / 1e6 / tm, rss / 1024, rel, mv, n }')
    rows+=("$row")
    if [[ "$row" == *FAIL* ]]; then hard_fail=1; fi
  done
done

echo "| file | size | tracelint s, median [min-max] | Y s, median | tracelint / Y (paired median) | MB/s | peak RSS MiB | RSS / uncompressed size | runs |"
echo "|---|---|---|---|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
echo
echo "Targets (traces of 1 GB and more; smaller rows carry no verdict): plain <= 2.0 x Y"
echo "(never above 3.0), .json.gz <= 2.5 x Y (never above 3.5); peak RSS <= 0.5 x uncompressed"
echo "size + 256 MiB (never above 1.0 x). 'over goal' = between the goal and the hard limit;"
echo "'FAIL' = above the hard limit."

if [[ $check -eq 1 && $hard_fail -eq 1 ]]; then
  exit 3
fi
