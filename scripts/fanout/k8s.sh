#!/usr/bin/env bash
# A Kubernetes Indexed Job that summarises one rank per pod; lint the job
# once every pod has finished.
#
#   scripts/fanout/k8s.sh [--dry-run] [--image IMAGE] [--parallelism P]
#                         [--tracelint BIN] LIST OUTDIR
#       apply the Job: LIST (one trace path per line) and OUTDIR must be on
#       a volume every pod mounts at the same path (a PersistentVolumeClaim
#       named by --claim, default tracelint-data, mounted at /data)
#   scripts/fanout/k8s.sh --task [--tracelint BIN] LIST OUTDIR
#       one pod: JOB_COMPLETION_INDEX (0-based) picks line INDEX + 1 of LIST
#
# After the Job completes: `tracelint lint --job OUTDIR` (the script prints
# the kubectl wait and that command). --dry-run prints the manifest and the
# commands instead of applying them.
#
# tracelint is BIN, else the build of the checkout this script is in, else
# the installed tree it is in (PREFIX/share/tracelint/fanout/), else PATH:
# for the final lint here, and in each pod (whose image has its own), where
# --tracelint BIN is passed on only when given.
# docs/multi-rank.md describes it.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=find-tracelint.sh
. "$here/find-tracelint.sh"

dry=0 task=0 bin='' image=tracelint:latest parallelism=16
claim=tracelint-data
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) fanout_usage "$0"; exit 0 ;;
    --dry-run) dry=1; shift ;;
    --task) task=1; shift ;;
    --tracelint) bin=$2; shift 2 ;;
    --image) image=$2; shift 2 ;;
    --parallelism) parallelism=$2; shift 2 ;;
    --claim) claim=$2; shift 2 ;;
    -*) echo "k8s.sh: unknown option $1 (--help lists them)" >&2; exit 2 ;;
    *) break ;;
  esac
done
if [ $# -ne 2 ]; then
  echo "usage: k8s.sh [--dry-run|--task] [options] LIST OUTDIR" >&2
  exit 2
fi
list=$1 out=$2
# Each pod finds its own binary unless one was named here.
pod_bin=${bin:+--tracelint $bin }
[ -n "$bin" ] || bin=$(fanout_find_tracelint "$here" k8s.sh) || exit 2

if [ "$task" = 1 ]; then
  : "${JOB_COMPLETION_INDEX:?k8s.sh --task runs inside an Indexed Job pod}"
  trace=$(sed -n "$((JOB_COMPLETION_INDEX + 1))p" "$list")
  if [ -z "$trace" ]; then
    echo "k8s.sh: $list has no line $((JOB_COMPLETION_INDEX + 1))" >&2
    exit 2
  fi
  mkdir -p "$out"
  exec "$bin" summarize "$trace" -o "$out/index-$JOB_COMPLETION_INDEX.summary"
fi

n=$(grep -c . "$list" || true) # grep fails when it counts 0
if [ "$n" -eq 0 ]; then
  echo "k8s.sh: $list lists no trace" >&2
  exit 2
fi
manifest="apiVersion: batch/v1
kind: Job
metadata:
  name: tracelint-summarize
spec:
  completionMode: Indexed
  completions: $n
  parallelism: $parallelism
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: summarize
        image: $image
        command: [\"sh\", \"-c\", \"exec /scripts/fanout/k8s.sh --task $pod_bin$list $out\"]
        volumeMounts:
        - {name: data, mountPath: /data}
      volumes:
      - name: data
        persistentVolumeClaim: {claimName: $claim}"
wait_cmd="kubectl wait --for=condition=complete --timeout=24h job/tracelint-summarize"
lint_cmd="$bin lint --job $out"

if [ "$dry" = 1 ]; then
  echo "kubectl apply -f - <<'MANIFEST'"
  echo "$manifest"
  echo "MANIFEST"
  echo "$wait_cmd"
  echo "$lint_cmd"
  exit 0
fi
printf '%s\n' "$manifest" | kubectl apply -f -
eval "$wait_cmd"
eval "$lint_cmd"
