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

HERE = os.path.dirname(os.path.abspath(__file__))
CHECKER = os.path.join(HERE, "..", "lit", "Inputs", "accounting.py")
SUFFIXES = (".json", ".json.gz", ".sqlite")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    tracelint = sys.argv[1]
    root = (sys.argv[2] if len(sys.argv) > 2 else
            os.environ.get("TRACELINT_TRACES",
                           os.path.join(HERE, "..", "..", "..", "shared",
                                        "traces")))
    if not os.path.isdir(root):
        print(f"accounting-corpus: no traces at {root}: skipped")
        return 77
    picked = []
    for folder in sorted(os.listdir(root)):
        path = os.path.join(root, folder)
        # The folder of files that are not traces tests rejection elsewhere.
        if not os.path.isdir(path) or folder.startswith("negative-"):
            continue
        for top, _, names in os.walk(path):
            picked += sorted(os.path.join(top, n) for n in names
                             if n.endswith(SUFFIXES))
    if not picked:
        print(f"accounting-corpus: no traces under {root}: skipped")
        return 77
    rc = subprocess.run([sys.executable, CHECKER, tracelint, *picked]).returncode
    if rc == 0:
        print(f"accounting-corpus: {len(picked)} traces hold")
    return rc


if __name__ == "__main__":
    sys.exit(main())
