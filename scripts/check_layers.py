#!/usr/bin/env python3
"""Checks that the engine's layers include only the layers below them.

    scripts/check_layers.py [--root DIR]

The layers and what each may include (DESIGN.md section 3):

    support   nothing of ours
    model     support
    import    model, support
    analysis  model, support
    rules     analysis, model, support      (engine/rules/ and rules/*/)
    report    rules, analysis, model, support
    capture   support, model                (capture/)

cli/, tests/, bench/ and fuzz/ may include every layer. An include is a line
`#include "LAYER/..."`; a relative include that climbs out of its folder
(`#include "../..."`) is refused too, because it hides which layer it reaches.
Prints one line per broken include (file:line: what it includes and what
that layer may use) and exits 1 when there is any; exits 0 otherwise.
"""

import argparse
import os
import re
import sys

ALLOWED = {
    "support": {"support"},
    "model": {"support", "model"},
    "import": {"support", "model", "import"},
    "analysis": {"support", "model", "analysis"},
    "rules": {"support", "model", "analysis", "rules"},
    "report": {"support", "model", "analysis", "rules", "report"},
    "capture": {"support", "model"},
}
LAYERS = set(ALLOWED)
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
SOURCE_SUFFIXES = (".h", ".cpp", ".inc", ".def")


def layer_of(rel):
    """The layer a file (path relative to the root, '/'-separated) is in."""
    parts = rel.split("/")
    if parts[0] == "engine" and len(parts) > 2 and parts[1] in LAYERS:
        return parts[1]
    # The rule catalogue's detectors (rules/<family>/*.cpp) are the rules
    # layer's code.
    if parts[0] == "rules" and len(parts) > 2:
        return "rules"
    if parts[0] == "capture" and len(parts) > 1:
        return "capture"
    return None


def check(root):
    problems = []
    for top in ("engine", "rules", "capture"):
        base = os.path.join(root, top)
        for folder, dirs, files in os.walk(base):
            dirs.sort()
            for name in sorted(files):
                if not name.endswith(SOURCE_SUFFIXES):
                    continue
                path = os.path.join(folder, name)
                rel = os.path.relpath(path, root).replace(os.sep, "/")
                layer = layer_of(rel)
                if layer is None:
                    continue
                with open(path, encoding="utf-8", errors="replace") as f:
                    for number, line in enumerate(f, 1):
                        m = INCLUDE.match(line)
                        if not m:
                            continue
                        target = m.group(1)
                        if target.startswith("../") or "/../" in target:
                            problems.append(
                                f"{rel}:{number}: includes \"{target}\": a "
                                "relative path out of its folder; name the "
                                "layer (\"LAYER/File.h\")")
                            continue
                        first = target.split("/")[0]
                        if first in LAYERS and first not in ALLOWED[layer]:
                            may = ", ".join(sorted(ALLOWED[layer] - {layer}))
                            problems.append(
                                f"{rel}:{number}: the {layer} layer includes "
                                f"\"{target}\" from the {first} layer; "
                                f"{layer} may use only "
                                f"{may or 'nothing of ours'}")
    return problems


def main():
    parser = argparse.ArgumentParser(
        description="Check the include direction of the engine's layers.")
    parser.add_argument("--root", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), ".."),
        help="the source tree (default: this checkout)")
    args = parser.parse_args()
    if not os.path.isdir(os.path.join(args.root, "engine")):
        print(f"check_layers: error: {args.root} has no engine/ folder",
              file=sys.stderr)
        return 2
    problems = check(args.root)
    for p in problems:
        print(p)
    if problems:
        print(f"check_layers: {len(problems)} include(s) against the layer "
              "direction (DESIGN.md section 3)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
