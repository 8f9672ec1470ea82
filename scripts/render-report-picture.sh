#!/usr/bin/env bash
# Renders the picture of the HTML report in docs/ from the shipped example:
#
#   scripts/render-report-picture.sh [TRACELINT] [OUT.png]
#
# TRACELINT defaults to build/cli/tracelint, OUT to docs/html-report.png.
# Runs `lint --format html` on fixtures/example/train-steps.json and takes a
# 1200 x 1600 screenshot of the page with headless Chromium (Debian package
# chromium; scripts/dev.sh installs it). Rerun it when the page changes.
set -euo pipefail

cd "$(dirname "$0")/.."
tracelint=${1:-build/cli/tracelint}
out=${2:-docs/html-report.png}
chromium=${CHROMIUM:-/usr/bin/chromium}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$tracelint" lint --isolated --fail-on none --format html \
  -o "$work/report.html" fixtures/example/train-steps.json
"$chromium" --headless --no-sandbox --disable-gpu --hide-scrollbars \
  --no-first-run --user-data-dir="$work/profile" \
  --screenshot="$work/shot.png" --window-size=1200,1600 \
  "file://$work/report.html" 2>"$work/chromium.log" || {
  cat "$work/chromium.log" >&2
  exit 1
}
cp "$work/shot.png" "$out"
echo "wrote $out"
