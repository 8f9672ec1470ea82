"""Checks fixtures/workloads without running them (no torch, no GPU here).

    check-workloads.py DIR

Every program compiles, has both variants, and is listed in expected.json,
whose entries name rule codes and the variant predicted to be faster.
"""
import glob
import json
import os
import re
import sys


def main(folder):
    programs = sorted(p for p in glob.glob(os.path.join(folder, "*.py"))
                      if not os.path.basename(p).startswith("_"))
    for path in glob.glob(os.path.join(folder, "*.py")):
        with open(path) as f:
            compile(f.read(), path, "exec")
    expected = json.load(open(os.path.join(folder, "expected.json")))
    names = [os.path.splitext(os.path.basename(p))[0] for p in programs]
    listed = sorted(k for k in expected if not k.startswith("_"))
    if names != listed:
        sys.exit(f"programs {names} != expected.json entries {listed}")
    for name, entry in expected.items():
        if name.startswith("_"):
            continue
        for code in entry["rules"] + entry["kineto-only"]:
            if not re.fullmatch(r"[A-Z][0-9]{3}", code):
                sys.exit(f"{name}: '{code}' is not a rule code")
        if entry["faster"] not in ("pathological", "fixed"):
            sys.exit(f"{name}: faster must name a variant")
    for path in programs:
        text = open(path).read()
        if "_harness.run(" not in text:
            sys.exit(f"{path}: does not time its steps with _harness.run")
        if "args.variant" not in text:
            sys.exit(f"{path}: never reads --variant")
    print(f"{len(programs)} workloads ok")


if __name__ == "__main__":
    main(sys.argv[1])
