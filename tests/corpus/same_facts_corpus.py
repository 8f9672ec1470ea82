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

HERE = os.path.dirname(os.path.abspath(__file__))
CHECKER = os.path.join(HERE, "..", "lit", "Inputs", "same-facts.py")
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
        print(f"same-facts-corpus: no traces at {root}: skipped")
        return 77
    picked = []
    for folder in sorted(os.listdir(root)):
        path = os.path.join(root, folder)
        # The folder of files that are not traces tests rejection elsewhere.
        if not os.path.isdir(path) or folder.startswith("negative-"):
            continue
        files = []
        for top, _, names in os.walk(path):
            files += [os.path.join(top, n) for n in names
                      if n.endswith(SUFFIXES)]
        if files:
            picked.append(min(files, key=lambda f: (os.path.getsize(f), f)))
    if not picked:
        print(f"same-facts-corpus: no traces under {root}: skipped")
        return 77
    rc = subprocess.run([sys.executable, CHECKER, tracelint, *picked]).returncode
    if rc == 0:
        print(f"same-facts-corpus: {len(picked)} traces agree")
    return rc


if __name__ == "__main__":
    sys.exit(main())
