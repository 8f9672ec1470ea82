#!/usr/bin/env python3
"""Runs tests/lit/Inputs/accounting.py (lint's report is one account of
completion: the idle split adds up, every cause of 5 % or more is claimed or
explained, severity follows impact, every counted finding is shown) over
every real trace in ../shared/traces.

    accounting_corpus.py TRACELINT [TRACES]

TRACES defaults to $TRACELINT_TRACES, then ../shared/traces beside the
checkout. Exits 77 (skipped) when there are no traces.
"""

import os
import subprocess
import sys

from corpus_traces import SKIPPED, trace_folders, traces_root

HERE = os.path.dirname(os.path.abspath(__file__))
CHECKER = os.path.join(HERE, "..", "lit", "Inputs", "accounting.py")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    tracelint = sys.argv[1]
    root = traces_root(sys.argv)
    picked = [f for files in trace_folders(root) for f in files]
    if not picked:
        print(f"accounting-corpus: no traces under {root}: skipped")
        return SKIPPED
    rc = subprocess.run([sys.executable, CHECKER, tracelint, *picked]).returncode
    if rc == 0:
        print(f"accounting-corpus: {len(picked)} traces hold")
    return rc


if __name__ == "__main__":
    sys.exit(main())
