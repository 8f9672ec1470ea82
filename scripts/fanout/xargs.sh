#!/usr/bin/env bash
# Summarise every rank's trace on this host in parallel, then lint the job.
#
#   scripts/fanout/xargs.sh [--dry-run] [-P N] [--parallel] [--tracelint BIN]
#                           OUTDIR TRACE...
#
# Runs `tracelint summarize TRACE -o OUTDIR/NAME.summary` for every TRACE,
# N at a time (default: the number of cores) through `xargs -P`, or GNU
# parallel with --parallel (xargs -P when GNU parallel is not installed),
# then `tracelint lint --job OUTDIR`. The lint's exit code is the script's.
# --dry-run prints the commands instead.
#
# tracelint is BIN, else the build of the checkout this script is in, else
# the installed tree it is in (PREFIX/share/tracelint/fanout/), else PATH.
# docs/multi-rank.md describes the recipe.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=find-tracelint.sh
. "$here/find-tracelint.sh"

dry=0 jobs=$(nproc 2>/dev/null || echo 2) gnu=0 bin=''
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) fanout_usage "$0"; exit 0 ;;
    --dry-run) dry=1; shift ;;
    -P) jobs=$2; shift 2 ;;
    --parallel) gnu=1; shift ;;
    --tracelint) bin=$2; shift 2 ;;
    --) shift; break ;;
    -*) echo "xargs.sh: unknown option $1 (--help lists them)" >&2; exit 2 ;;
    *) break ;;
  esac
done
if [ $# -lt 2 ]; then
  echo "usage: xargs.sh [--dry-run] [-P N] [--parallel] [--tracelint BIN] OUTDIR TRACE..." >&2
  exit 2
fi
out=$1; shift
[ -n "$bin" ] || bin=$(fanout_find_tracelint "$here" xargs.sh) || exit 2

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
# GNU parallel, not the moreutils program of the same name.
if [ "$gnu" = 1 ] && ! parallel --version 2>/dev/null | grep -q "GNU parallel"; then
  echo "xargs.sh: note: GNU parallel is not installed; using xargs -P $jobs" >&2
  gnu=0
fi
export bin out
if [ "$gnu" = 1 ]; then
  parallel -j "$jobs" "$bin" summarize '{}' -o "$out"/'{/}'.summary ::: "$@"
else
  # shellcheck disable=SC2016 # $bin, $out and $1 expand in the inner shell
  printf '%s\0' "$@" | xargs -0 -P "$jobs" -I{} \
    sh -c '"$bin" summarize "$1" -o "$out/$(basename "$1").summary"' _ {}
fi
exec "$bin" lint --job "$out"
