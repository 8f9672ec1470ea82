#!/usr/bin/env python3
"""Writes the seed corpora of the libFuzzer targets from fixtures/.

    fuzz-seeds.py OUTDIR

writes OUTDIR/kineto, OUTDIR/gzip, OUTDIR/toml and OUTDIR/nsys (each emptied
first). Nothing here is committed: the seeds are derived from the fixtures
when the fuzzers are run (scripts/dev.sh fuzz), and never from the real
traces under /work/shared.

    kineto  every fixture trace (fixtures/**/*.json) up to 64 KiB, and the
            small bad inputs of fixtures/bad/make_bad_inputs.py (the SQLite
            ones go to nsys too)
    gzip    the same traces gzip-compressed (one and two members)
    toml    the built-in rule files (rules/*/*.toml) and a configuration
            that sets each kind of key
    nsys    the SQLite files fixtures/nsys/*.sql and fixtures/rocpd/*.sql
            describe (nsys exports and rocprofv3 databases: the target
            imports an SQLite file as the command line does), built with
            Python's sqlite3
"""
import glob
import gzip
import hashlib
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MAX_SEED = 64 * 1024

CONFIG = b"""\
select = ["ALL"]
ignore = ["U"]
extend-select = ["X"]

[rules.S001]
severity = "error"
min-share-of-step = "10%"

[[per-trace-ignores]]
glob = "*-warmup.json"
ignore = ["U", "S001"]
"""


def put(folder, data):
    name = hashlib.sha1(data).hexdigest()
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data)


def traces():
    for path in sorted(glob.glob(os.path.join(ROOT, "fixtures", "**", "*.json"),
                               recursive=True)):
        if os.path.getsize(path) <= MAX_SEED:
            with open(path, "rb") as f:
                yield f.read()


def bad_inputs():
    """(name, bytes) of the small file cases of make_bad_inputs.py: not the
    hostile ones (megabytes each), nor the directory or the FIFO."""
    script = os.path.join(ROOT, "fixtures", "bad", "make_bad_inputs.py")
    listing = subprocess.run([sys.executable, script, "--list"], check=True,
                             capture_output=True, text=True)
    names = [fields[1] for fields in map(str.split, listing.stdout.splitlines())
             if len(fields) == 2 and fields[0] != "hostile"
             and fields[1] not in ("directory.json", "fifo.json")]
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, script, tmp] + names, check=True,
                       timeout=120)
        for name in sorted(os.listdir(tmp)):
            path = os.path.join(tmp, name)
            if os.path.isfile(path) and not os.path.islink(path) \
                    and os.path.getsize(path) <= MAX_SEED:
                with open(path, "rb") as f:
                    yield name, f.read()


def main(argv):
    if len(argv) != 2:
        sys.stderr.write(__doc__)
        return 2
    out = argv[1]
    dirs = {k: os.path.join(out, k) for k in ("kineto", "gzip", "toml", "nsys")}
    for d in dirs.values():
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)

    for data in traces():
        put(dirs["kineto"], data)
        one = gzip.compress(data, mtime=0)
        put(dirs["gzip"], one)
        put(dirs["gzip"], one + gzip.compress(b"\n", mtime=0))
    for name, data in bad_inputs():
        put(dirs["kineto"], data)
        if data[:2] == b"\x1f\x8b":
            put(dirs["gzip"], data)
        if data[:16] == b"SQLite format 3\x00":
            put(dirs["nsys"], data)

    for path in sorted(glob.glob(os.path.join(ROOT, "rules", "*", "*.toml"))):
        with open(path, "rb") as f:
            put(dirs["toml"], f.read())
    put(dirs["toml"], CONFIG)

    scripts = [p for d in ("nsys", "rocpd") for p in sorted(
        glob.glob(os.path.join(ROOT, "fixtures", d, "*.sql")))]
    for path in scripts:
        with tempfile.TemporaryDirectory() as tmp:
            db = os.path.join(tmp, "x.sqlite")
            con = sqlite3.connect(db)
            with open(path, encoding="utf-8") as f:
                con.executescript(f.read())
            con.close()
            with open(db, "rb") as f:
                put(dirs["nsys"], f.read())

    for k, d in dirs.items():
        print(f"{k}: {len(os.listdir(d))} seeds in {d}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
