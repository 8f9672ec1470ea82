#!/usr/bin/env bash
# Renders the pictures of the HTML report in docs/ from shipped fixtures:
#
#   scripts/render-report-picture.sh [TRACELINT] [OUT.png] [JOB_OUT.png]
#
# TRACELINT defaults to build/cli/tracelint, OUT to docs/html-report.png,
# JOB_OUT to docs/html-job-report.png. Runs `lint --format html` on
# fixtures/example/train-steps.json and `lint --job --format html` on the
# four ranks of fixtures/rules/N004-late-rank-at-collective/fire-rank2-late,
# and takes a screenshot of each page with headless Chromium (Debian package
# chromium; scripts/dev.sh installs it). Rerun it when the page changes.
set -euo pipefail

cd "$(dirname "$0")/.."
tracelint=${1:-build/cli/tracelint}
out=${2:-docs/html-report.png}
job_out=${3:-docs/html-job-report.png}
chromium=${CHROMIUM:-/usr/bin/chromium}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# shot PAGE.html OUT.png WIDTH,HEIGHT
shot() {
  "$chromium" --headless --no-sandbox --disable-gpu --hide-scrollbars \
    --no-first-run --user-data-dir="$work/profile" \
    --screenshot="$work/shot.png" --window-size="$3" \
    "file://$1" 2>"$work/chromium.log" || {
    cat "$work/chromium.log" >&2
    exit 1
  }
  cp "$work/shot.png" "$2"
  echo "wrote $2"
}

"$tracelint" lint --isolated --fail-on none --format html \
  -o "$work/report.html" fixtures/example/train-steps.json
shot "$work/report.html" "$out" 1200,1600

ranks=fixtures/rules/N004-late-rank-at-collective/fire-rank2-late
"$tracelint" lint --isolated --fail-on none --job --format html \
  -o "$work/job.html" "$ranks"-r0.json "$ranks"-r1.json "$ranks"-r2.json \
  "$ranks"-r3.json
shot "$work/job.html" "$job_out" 1200,1250
