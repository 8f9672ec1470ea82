#!/usr/bin/env python3
"""Runs a command and succeeds only if it exits with the expected code.

    expect-exit.py CODE COMMAND [ARG...]

`not` accepts any non-zero exit code; tracelint's codes mean different things
(2 usage, 3 unreadable or invalid input), so tests that care about the exact
code use this instead. The command's stdout and stderr pass through unchanged,
so a RUN line can still redirect them into FileCheck.
"""
import subprocess
import sys


def main(argv):
    if len(argv) < 3:
        sys.stderr.write("usage: expect-exit.py CODE COMMAND [ARG...]\n")
        return 2
    want = int(argv[1])
    got = subprocess.run(argv[2:]).returncode
    if got != want:
        sys.stderr.write("expect-exit.py: %s exited with %d, expected %d\n"
                         % (argv[2], got, want))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
