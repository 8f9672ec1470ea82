#!/usr/bin/env bash
# A Slurm job array that summarises one rank per task, then one dependent
# job that lints the whole job.
#
#   scripts/fanout/slurm.sh [--dry-run] [--tracelint BIN] LIST OUTDIR
#       submit: LIST holds one trace path per line (rank order does not
#       matter); OUTDIR receives the summaries
#   scripts/fanout/slurm.sh --task [--tracelint BIN] LIST OUTDIR
#       one array task: SLURM_ARRAY_TASK_ID (0-based) picks line
#       SLURM_ARRAY_TASK_ID + 1 of LIST and summarises it
#
# --dry-run prints the two sbatch commands and the array script instead of
# submitting them.
#
# tracelint is BIN, else the build of the checkout this script is in, else
# the installed tree it is in (PREFIX/share/tracelint/fanout/), else PATH;
# the tasks run the same binary, so it must be on a file system they share.
# docs/multi-rank.md describes the recipe.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=find-tracelint.sh
. "$here/find-tracelint.sh"

dry=0 task=0 bin=''
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) fanout_usage "$0"; exit 0 ;;
    --dry-run) dry=1; shift ;;
    --task) task=1; shift ;;
    --tracelint) bin=$2; shift 2 ;;
    -*) echo "slurm.sh: unknown option $1 (--help lists them)" >&2; exit 2 ;;
    *) break ;;
  esac
done
if [ $# -ne 2 ]; then
  echo "usage: slurm.sh [--dry-run|--task] [--tracelint BIN] LIST OUTDIR" >&2
  exit 2
fi
list=$1 out=$2
[ -n "$bin" ] || bin=$(fanout_find_tracelint "$here" slurm.sh) || exit 2

if [ "$task" = 1 ]; then
  : "${SLURM_ARRAY_TASK_ID:?slurm.sh --task runs inside a Slurm array task}"
  trace=$(sed -n "$((SLURM_ARRAY_TASK_ID + 1))p" "$list")
  if [ -z "$trace" ]; then
    echo "slurm.sh: $list has no line $((SLURM_ARRAY_TASK_ID + 1))" >&2
    exit 2
  fi
  mkdir -p "$out"
  exec "$bin" summarize "$trace" -o "$out/task-$SLURM_ARRAY_TASK_ID.summary"
fi

n=$(grep -c . "$list" || true) # grep fails when it counts 0
if [ "$n" -eq 0 ]; then
  echo "slurm.sh: $list lists no trace" >&2
  exit 2
fi
self=$here/$(basename "$0")
array_script="#!/bin/bash
#SBATCH --job-name=tracelint-summarize
#SBATCH --array=0-$((n - 1))
#SBATCH --ntasks=1
#SBATCH --cpus-per-task=2
exec $self --task --tracelint $bin $list $out"
merge="sbatch --parsable --job-name=tracelint-job --dependency=afterok:\$ARRAY_JOB --wrap '$bin lint --job $out -o $out/job-report.txt'"

if [ "$dry" = 1 ]; then
  echo "ARRAY_JOB=\$(sbatch --parsable <<'SCRIPT'"
  echo "$array_script"
  echo "SCRIPT"
  echo ")"
  echo "$merge"
  exit 0
fi
ARRAY_JOB=$(printf '%s\n' "$array_script" | sbatch --parsable)
echo "summaries: array job $ARRAY_JOB ($n tasks)"
eval "$merge"
