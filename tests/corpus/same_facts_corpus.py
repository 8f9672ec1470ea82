#!/usr/bin/env python3
"""Runs tests/lit/Inputs/same-facts.py (lint, stats and path agree on the
target, the steps and each device's busy and idle time) over the real traces
in ../shared/traces: the smallest trace of each folder, so that every
producer in the set is covered in seconds.

    same_facts_corpus.py TRACELINT [TRACES]

TRACES defaults to $TRACELINT_TRACES, then ../shared/traces beside the
checkout. Exits 77 (skipped) when there are no traces.
"""

import os
import subprocess
import sys

from corpus_traces import SKIPPED, trace_folders, traces_root

HERE = os.path.dirname(os.path.abspath(__file__))
CHECKER = os.path.join(HERE, "..", "lit", "Inputs", "same-facts.py")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    tracelint = sys.argv[1]
    root = traces_root(sys.argv)
    picked = [min(files, key=lambda f: (os.path.getsize(f), f))
              for files in trace_folders(root)]
    if not picked:
        print(f"same-facts-corpus: no traces under {root}: skipped")
        return SKIPPED
    rc = subprocess.run([sys.executable, CHECKER, tracelint, *picked]).returncode
    if rc == 0:
        print(f"same-facts-corpus: {len(picked)} traces agree")
    return rc


if __name__ == "__main__":
    sys.exit(main())
