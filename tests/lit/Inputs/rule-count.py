#!/usr/bin/env python3
"""Checks that every count of the built-in rules in the documentation is
the number the binary has: `tracelint rules --format json --isolated`
against each "N rules" / "N built-in rules" in README.md and docs/*.md.

    rule-count.py TRACELINT SOURCE_ROOT

A number that no longer matches fails with the file, the line and both
numbers, so that adding a rule cannot leave the README behind.
"""

import glob
import json
import os
import re
import subprocess
import sys

# "The 43 rules", "43 built-in rules": a count of the catalogue. Counts in
# example output ("3 rules not applicable") and of something narrower ("the
# 34 detectors" of a measurement) are not matched.
COUNT = re.compile(r"\b[Tt]he (\d+) rules\b|\b(\d+) built-in rules\b")


def main():
    tracelint, root = sys.argv[1], sys.argv[2]
    listed = json.loads(subprocess.run(
        [tracelint, "rules", "--format", "json", "--isolated"],
        check=True, capture_output=True, text=True).stdout)
    have = len(listed)
    pages = [os.path.join(root, "README.md")] + sorted(
        glob.glob(os.path.join(root, "docs", "*.md")))
    wrong, seen = [], 0
    for page in pages:
        with open(page, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                for m in COUNT.finditer(line):
                    seen += 1
                    if int(m.group(1) or m.group(2)) != have:
                        wrong.append(f"{os.path.relpath(page, root)}:{number}: "
                                     f"says {m.group(0)!r}; tracelint has "
                                     f"{have} built-in rules")
    if not seen:
        wrong.append("README.md: no 'N rules' count found; the README should "
                     "say how many rules there are")
    for w in wrong:
        print(w)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
