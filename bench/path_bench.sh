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
#
# on TRACE (default: the 1 GB trace that run_bench.sh generates,
# bench/data/kineto_1G_s1.json; run that first) and prints a Markdown table
# of the median wall time and the median CPU time (user + sys) of each, with
# peak RSS. The last line gives what the path adds to `lint` (lint against
# lint --path-bounds=false) as a share of the latter's CPU time. CPU time is
# the fairer measure on a shared machine: wall time counts the waits for a
# core.
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
[[ -x /usr/bin/time ]] || { echo "path_bench: error: /usr/bin/time is required" >&2; exit 1; }

declare -A wall cpu rss
tf=$(mktemp)
trap 'rm -f "$tf"' EXIT
for ((i = 0; i < runs; i++)); do
  for cmd in stats lint-nopath lint path; do
    rc=0
    args=("${cmd%-nopath}" "$file" --format json -o /dev/null)
    [[ $cmd == lint-nopath ]] && args+=(--path-bounds=false)
    /usr/bin/time -f '%e %U %S %M' -o "$tf" "$bin" "${args[@]}" >/dev/null 2>&1 || rc=$?
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
for cmd in stats lint-nopath lint path; do
  printf '| %s | %s | %s | %d |\n' "$cmd" "$(echo "${wall[$cmd]}" | median)" \
    "$(echo "${cpu[$cmd]}" | median)" $(( ${rss[$cmd]} / 1024 ))
done
n=$(echo "${cpu[lint-nopath]}" | median); l=$(echo "${cpu[lint]}" | median)
echo
echo "the path in lint (lint - lint --path-bounds=false, CPU): $(echo "scale=2; $l - $n" | bc) s = $(echo "scale=1; 100 * ($l - $n) / $n" | bc) % of lint without it"
