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
# commands instead of applying them. docs/multi-rank.md describes it.
set -euo pipefail

dry=0 task=0 bin=tracelint image=tracelint:latest parallelism=16
claim=tracelint-data
while [ $# -gt 0 ]; do
  case "$1" in
    --dry-run) dry=1; shift ;;
    --task) task=1; shift ;;
    --tracelint) bin=$2; shift 2 ;;
    --image) image=$2; shift 2 ;;
    --parallelism) parallelism=$2; shift 2 ;;
    --claim) claim=$2; shift 2 ;;
    -*) echo "k8s.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
if [ $# -ne 2 ]; then
  echo "usage: k8s.sh [--dry-run|--task] [options] LIST OUTDIR" >&2
  exit 2
fi
list=$1 out=$2

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

n=$(grep -c . "$list")
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
        command: [\"sh\", \"-c\", \"exec /scripts/fanout/k8s.sh --task --tracelint $bin $list $out\"]
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
