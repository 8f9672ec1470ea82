#!/usr/bin/env bash
# Summarise every rank's trace on this host in parallel, then lint the job.
#
#   scripts/fanout/xargs.sh [--dry-run] [-P N] [--parallel] [--tracelint BIN]
#                           OUTDIR TRACE...
#
# Runs `tracelint summarize TRACE -o OUTDIR/NAME.summary` for every TRACE,
# N at a time (default: the number of cores) through `xargs -P`, or GNU
# parallel with --parallel, then `tracelint lint --job OUTDIR`. The lint's
# exit code is the script's. --dry-run prints the commands instead.
# docs/multi-rank.md describes the recipe.
set -euo pipefail

dry=0 jobs=$(nproc 2>/dev/null || echo 2) gnu=0 bin=tracelint
while [ $# -gt 0 ]; do
  case "$1" in
    --dry-run) dry=1; shift ;;
    -P) jobs=$2; shift 2 ;;
    --parallel) gnu=1; shift ;;
    --tracelint) bin=$2; shift 2 ;;
    --) shift; break ;;
    -*) echo "xargs.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
if [ $# -lt 2 ]; then
  echo "usage: xargs.sh [--dry-run] [-P N] [--parallel] [--tracelint BIN] OUTDIR TRACE..." >&2
  exit 2
fi
out=$1; shift

summary_of() { # the summary's path for a trace: OUTDIR/<file name>.summary
  printf '%s/%s.summary\n' "$out" "$(basename "$1")"
}

if [ "$dry" = 1 ]; then
  echo "mkdir -p $out"
  for t in "$@"; do
    echo "$bin summarize $t -o $(summary_of "$t")"
  done
  echo "$bin lint --job $out"
  exit 0
fi

mkdir -p "$out"
export bin out
if [ "$gnu" = 1 ]; then
  parallel -j "$jobs" "$bin" summarize {} -o "$out"/{/}.summary ::: "$@"
else
  printf '%s\0' "$@" | xargs -0 -P "$jobs" -I{} \
    sh -c '"$bin" summarize "$1" -o "$out/$(basename "$1").summary"' _ {}
fi
exec "$bin" lint --job "$out"
