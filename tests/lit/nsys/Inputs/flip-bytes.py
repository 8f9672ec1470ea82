#!/usr/bin/env python3
"""flip-bytes.py TRACELINT DB N SEED: writes N copies of the SQLite file DB,
each with a few bytes overwritten at seeded random places (page headers,
cell pointers, record bodies: anywhere after the 100-byte file header), runs
`TRACELINT stats` on each and fails unless every run ends with exit code 0
(the damage hit nothing that is read, or only values) or 3 (reported as
damaged), never with a signal or any other code. Prints one line per
outcome kind."""
import os
import random
import subprocess
import sys

tracelint, db, n, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
data = open(db, "rb").read()
rng = random.Random(seed)
outcomes = {}
for i in range(n):
    b = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        pos = rng.randrange(100, len(b))
        b[pos] = rng.randrange(256)
    path = "%s.flip%d" % (db, i)
    with open(path, "wb") as f:
        f.write(b)
    r = subprocess.run([tracelint, "stats", "--format", "json", path],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if r.returncode not in (0, 3):
        print("copy %d: exit %d\n%s" % (i, r.returncode,
                                        r.stderr.decode(errors="replace")))
        sys.exit(1)
    outcomes[r.returncode] = outcomes.get(r.returncode, 0) + 1
    os.remove(path)
print("all %d damaged copies handled" % n)
