#!/usr/bin/env python3
"""Runs `tracelint lint` (the default text report, and --verbose) on every
trace in ../shared/traces and fails on any line wider than 240 columns, the
report's documented limit, whatever the names and lists in the trace.

Into a pipe the report wraps at 100 columns; a line of the default report
may pass that only when it is the input's path (kept whole to be copied) or
a single word with no place to break (docs/reading-reports.md, "Width").

    text_width_corpus.py TRACELINT [TRACES]

TRACES defaults to $TRACELINT_TRACES, then ../shared/traces beside the
checkout. Exits 77 (skipped) when there are no traces.
"""

import concurrent.futures
import os
import re
import subprocess
import sys

from corpus_traces import SKIPPED, trace_folders, traces_root

LIMIT = 240
WRAP = 100
COLOUR = re.compile("\x1b\\[[0-9;]*m")


def problems(tracelint, trace):
    """Every offending line of the two reports of one trace, described."""
    found = []
    for extra in ([], ["--verbose"]):
        p = subprocess.run([tracelint, "lint", "--isolated", "--fail-on",
                            "none", *extra, trace],
                           capture_output=True, text=True, encoding="utf-8")
        if p.returncode != 0:
            found.append(f"lint {' '.join(extra)} exited {p.returncode}: "
                         f"{p.stderr.strip()[:200]}")
            continue
        for n, line in enumerate(COLOUR.sub("", p.stdout).split("\n"), 1):
            width = len(line)  # one column per code point, as the report
            single = " " not in line.strip()
            if width > LIMIT or (width > WRAP and n > 1 and not single):
                found.append(f"lint {' '.join(extra)} line {n}: {width} "
                             f"columns: {line[:80]}...")
    return found


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    tracelint = sys.argv[1]
    root = traces_root(sys.argv)
    files = [f for folder in trace_folders(root) for f in folder]
    if not files:
        print(f"text-width-corpus: no traces under {root}: skipped")
        return SKIPPED
    bad = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        for trace, found in zip(files, pool.map(
                lambda t: problems(tracelint, t), files)):
            for what in found:
                bad += 1
                print(f"text-width-corpus: {os.path.relpath(trace, root)}: "
                      f"{what}")
    if bad:
        return 1
    print(f"text-width-corpus: {len(files)} traces, every line of the "
          f"default and --verbose reports within {LIMIT} columns")
    return 0


if __name__ == "__main__":
    sys.exit(main())
