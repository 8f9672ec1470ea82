#!/usr/bin/env bash
# What the critical path costs on top of `lint`.
#
#   bench/path_bench.sh [--file TRACE] [--runs N] [--build DIR]
#
# Times, alternately, N runs each (default 3) of
#
#   stats:       BUILD/cli/tracelint stats TRACE --format json -o /dev/null
#   lint-nopath: BUILD/cli/tracelint lint  TRACE --path-bounds=false ...
#   lint:        BUILD/cli/tracelint lint  TRACE ...   (impacts capped by the path)
#   path:        BUILD/cli/tracelint path  TRACE ...
#   Y:           BUILD/bench/tracelint_yardstick TRACE  (simdjson, every event)
#
# on TRACE (default: the 1 GB trace that run_bench.sh generates,
# bench/data/kineto_1G_s1.json; run that first) and prints a Markdown table
# of the median wall time and the median CPU time (user + sys) of each, with
# peak RSS. Then the paired ratios the project targets (the median over the
# runs of each run's ratio): lint / stats and lint / Y in wall time, and
# lint's peak RSS against the file; last, what the path adds to `lint` (lint
# against lint --path-bounds=false) as a share of the latter's CPU time. CPU
# time is the fairer measure on a shared machine: wall time counts the waits
# for a core.
set -euo pipefail
export LC_ALL=C

script_dir=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
root=$(cd -- "$script_dir/.." && pwd)
file="$script_dir/data/kineto_1G_s1.json"
build="$root/build"
runs=3

while [[ $# -gt 0 ]]; do
  case "$1" in
    --file) file=${2:?--file needs a value}; shift 2 ;;
    --runs) runs=${2:?--runs needs a value}; shift 2 ;;
    --build) build=${2:?--build needs a value}; shift 2 ;;
    -h|--help) sed -n '2,19p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "path_bench: error: unknown option '$1' (try --help)" >&2; exit 1 ;;
  esac
done
[[ -f "$file" ]] || { echo "path_bench: error: no trace at $file; run bench/run_bench.sh --sizes 1G first or pass --file" >&2; exit 1; }
bin="$build/cli/tracelint"
[[ -x "$bin" ]] || { echo "path_bench: error: $bin is missing; build first" >&2; exit 1; }
yard="$build/bench/tracelint_yardstick"
[[ -x "$yard" ]] || { echo "path_bench: error: $yard is missing; build with -DTRACELINT_BUILD_BENCH=ON" >&2; exit 1; }
[[ -x /usr/bin/time ]] || { echo "path_bench: error: /usr/bin/time is required" >&2; exit 1; }

declare -A wall cpu rss
tf=$(mktemp)
trap 'rm -f "$tf"' EXIT
for ((i = 0; i < runs; i++)); do
  for cmd in stats lint-nopath lint path Y; do
    rc=0
    if [[ $cmd == Y ]]; then
      /usr/bin/time -f '%e %U %S %M' -o "$tf" "$yard" "$file" >/dev/null 2>&1 || rc=$?
    else
      args=("${cmd%-nopath}" "$file" --format json -o /dev/null)
      [[ $cmd == lint-nopath ]] && args+=(--path-bounds=false)
      /usr/bin/time -f '%e %U %S %M' -o "$tf" "$bin" "${args[@]}" >/dev/null 2>&1 || rc=$?
    fi
    # lint exits 1 when it reports findings; anything else is a failure.
    if [[ $rc -ne 0 && ! ( ${cmd%-nopath} == lint && $rc -eq 1 ) ]]; then
      echo "path_bench: error: '$cmd' failed with status $rc" >&2
      exit 1
    fi
    read -r e u s m < <(tail -n 1 "$tf")
    wall[$cmd]+="$e "
    cpu[$cmd]+="$(echo "$u + $s" | bc) "
    (( m > ${rss[$cmd]:-0} )) && rss[$cmd]=$m
  done
done

median() { tr ' ' '\n' | sed '/^$/d' | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
echo "| command | wall s (median) | CPU s (median, user+sys) | peak RSS MB |"
echo "|---|---|---|---|"
for cmd in stats lint-nopath lint path Y; do
  printf '| %s | %s | %s | %d |\n' "$cmd" "$(echo "${wall[$cmd]}" | median)" \
    "$(echo "${cpu[$cmd]}" | median)" $(( ${rss[$cmd]} / 1024 ))
done
# Paired ratios: run i of lint against run i of stats and of Y.
paired() {
  local -a a b
  read -r -a a <<<"${wall[$1]}"
  read -r -a b <<<"${wall[$2]}"
  for ((k = 0; k < ${#a[@]}; k++)); do echo "scale=3; ${a[k]} / ${b[k]}" | bc; done | tr '\n' ' ' | median
}
bytes=$(stat -c %s "$file")
echo
echo "lint / stats (wall, paired median): $(paired lint stats) (target at most 2.0)"
echo "lint / Y (wall, paired median): $(paired lint Y) (target at most 2.5)"
echo "lint peak RSS: $(( rss[lint] / 1024 )) MiB = $(echo "scale=2; ${rss[lint]} * 1024 / $bytes" | bc) x the file (target at most 0.5 x the file + 256 MiB = $(( bytes / 2 / 1048576 + 256 )) MiB)"
n=$(echo "${cpu[lint-nopath]}" | median); l=$(echo "${cpu[lint]}" | median)
echo
echo "the path in lint (lint - lint --path-bounds=false, CPU): $(echo "scale=2; $l - $n" | bc) s = $(echo "scale=1; 100 * ($l - $n) / $n" | bc) % of lint without it"
