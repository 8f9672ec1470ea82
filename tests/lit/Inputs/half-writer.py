#!/usr/bin/env python3
"""Feeds a command half a file through a FIFO, then vanishes.

    half-writer.py FIFO FILE COMMAND [ARG...]

Creates FIFO, starts COMMAND (which should read FIFO), writes the first half
of FILE into the FIFO and closes it: to the reader, the file ended in the
middle, as when a producer dies mid-write. Exits with COMMAND's exit code;
its output passes through.
"""
import os
import subprocess
import sys


def main(argv):
    fifo, path, cmd = argv[1], argv[2], argv[3:]
    if os.path.lexists(fifo):
        os.unlink(fifo)
    os.mkfifo(fifo)
    proc = subprocess.Popen(cmd)
    data = open(path, "rb").read()
    with open(fifo, "wb") as f:  # blocks until the command opens it
        f.write(data[:len(data) // 2])
    return proc.wait()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
