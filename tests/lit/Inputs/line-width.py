#!/usr/bin/env python3
"""Fails when a text report has a line wider than allowed, or too many lines.

    line-width.py FILE --max-width N [--max-lines M]

Width is counted in code points (one column each, as the report counts
them), after the report's own colour codes (ESC [ digits ; m) are removed.
Prints each offending line's number and width.
"""
import argparse
import re
import sys


def main():
    p = argparse.ArgumentParser()
    p.add_argument("file")
    p.add_argument("--max-width", type=int, required=True)
    p.add_argument("--max-lines", type=int)
    a = p.parse_args()
    text = open(a.file, encoding="utf-8").read()
    lines = re.sub("\x1b\\[[0-9;]*m", "", text).split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    bad = 0
    for n, line in enumerate(lines, 1):
        if len(line) > a.max_width:
            bad += 1
            sys.stderr.write("%s:%d: %d columns (at most %d): %s...\n"
                             % (a.file, n, len(line), a.max_width, line[:60]))
    if a.max_lines is not None and len(lines) > a.max_lines:
        bad += 1
        sys.stderr.write("%s: %d lines (at most %d)\n"
                         % (a.file, len(lines), a.max_lines))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
