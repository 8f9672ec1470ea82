#!/usr/bin/env python3
"""Fails when a committed fixture folder is not what its generator writes.

    check-fixtures.py [--source-root DIR] GENERATOR GENERATED

GENERATOR is a committed generator, fixtures/<kind>/make_*.py. Run without
arguments it rewrites the folder it sits in, so that folder is the committed
fixture set. GENERATED is a folder the test has just had the generator write
into (the test's %t). Every file under either folder must be in the other,
byte for byte: a fixture that differs, one the generator no longer writes and
one it writes that was never committed all fail, and the message names the
command that rewrites the folder.

Some things in the committed folder are not output and are skipped: the
generator itself, __pycache__ folders (make_diff_fixtures.py imports
make_rule_fixtures.py, so Python leaves one in fixtures/rules whenever it
runs) and hidden files (an editor's swap file while the generator is open).
lit's `diff -r` cannot skip anything, hence this script.
"""

import argparse
import difflib
import os
import sys

# Enough of each differing file to see what changed, not a whole fixture.
MAX_DIFF_LINES = 40
# A regenerated folder where every fixture changed needs no more examples.
MAX_FILES_SHOWN = 5


def files_under(root, generator_name):
    """{path relative to root, with '/': full path} of the fixture files."""
    found = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames
                       if d != "__pycache__" and not d.startswith(".")]
        for name in filenames:
            if name.startswith("."):
                continue
            full = os.path.join(dirpath, name)
            rel = os.path.relpath(full, root).replace(os.sep, "/")
            if rel != generator_name:
                found[rel] = full
    return found


def read(path):
    with open(path, "rb") as f:
        return f.read()


def show_difference(rel, committed, generated):
    old = read(committed).decode("utf-8", "backslashreplace")
    new = read(generated).decode("utf-8", "backslashreplace")
    lines = list(difflib.unified_diff(
        old.splitlines(True), new.splitlines(True),
        "committed/" + rel, "generated/" + rel, n=1))
    for line in lines[:MAX_DIFF_LINES]:
        sys.stdout.write(line if line.endswith("\n") else line + "\n")
    if len(lines) > MAX_DIFF_LINES:
        print("... %d more diff lines" % (len(lines) - MAX_DIFF_LINES))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--source-root",
                    help="where the regenerate command is run from; the "
                         "message names the generator relative to it")
    ap.add_argument("generator")
    ap.add_argument("generated")
    args = ap.parse_args()

    generator = os.path.abspath(args.generator)
    committed_dir = os.path.dirname(generator)
    committed = files_under(committed_dir, os.path.basename(generator))
    generated = files_under(args.generated, os.path.basename(generator))
    if not generated:
        # An empty folder would otherwise read as "every fixture is stale".
        sys.exit("error: %s holds no fixtures: did the generator run?"
                 % args.generated)

    changed = sorted(rel for rel in committed.keys() & generated.keys()
                     if read(committed[rel]) != read(generated[rel]))
    stale = sorted(committed.keys() - generated.keys())
    missing = sorted(generated.keys() - committed.keys())
    if not (changed or stale or missing):
        return 0

    for rel in changed[:MAX_FILES_SHOWN]:
        show_difference(rel, committed[rel], generated[rel])
    if len(changed) > MAX_FILES_SHOWN:
        print("... and %d more changed files"
              % (len(changed) - MAX_FILES_SHOWN))
    for rel in stale:
        print("committed but no longer generated: " + rel)
    for rel in missing:
        print("generated but not committed: " + rel)

    def shown(path):
        if args.source_root:
            return os.path.relpath(path, os.path.abspath(args.source_root))
        return path

    print("error: %s is not what its generator writes (%d changed, %d no "
          "longer generated, %d not committed). Rewrite it from the source "
          "root with\n"
          "    python3 %s\n"
          "then delete the files no longer generated and commit the folder "
          "with the generator. To change a fixture, change the generator, "
          "never the fixture."
          % (shown(committed_dir), len(changed), len(stale), len(missing),
             shown(generator)))
    return 1


if __name__ == "__main__":
    sys.exit(main())
