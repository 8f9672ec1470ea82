#!/usr/bin/env python3
"""Checks that `lint`, `stats`, `path` and `diff` print the same numbers for
the same facts about a trace: the target (median step time, or the window),
the steps, each device's busy and idle time, and the idle split of the
target line (which must also add up to the idle time).

    same-facts.py TRACELINT TRACE...

TRACELINT is the command to run, split like a shell command line (so
"python3 wrapper.py" works).

Exits 1, naming the trace, the fact and both numbers, at the first
disagreement; 0 when every trace agrees.
"""

import json
import shlex
import subprocess
import sys


def run(tracelint, *args):
    p = subprocess.run([*shlex.split(tracelint), *args, "--format", "json"],
                       capture_output=True, text=True)
    # lint exits 1 when it reports findings.
    if p.returncode not in (0, 1):
        sys.exit(f"same-facts: {' '.join(args)} failed ({p.returncode}): "
                 f"{p.stderr.strip()}")
    return json.loads(p.stdout)


def check(trace, fact, a_name, a, b_name, b):
    if a != b:
        sys.exit(f"same-facts: {trace}: {fact}: {a_name} says {a}, "
                 f"{b_name} says {b}")


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    tracelint = sys.argv[1]
    for trace in sys.argv[2:]:
        lint = run(tracelint, "lint", "--isolated", trace)["results"][0]
        stats = run(tracelint, "stats", trace)
        path = run(tracelint, "path", trace)
        diff = run(tracelint, "diff", trace, trace)
        steps = stats["steps"]
        window = stats["window"]["end_ns"] - stats["window"]["start_ns"]
        target = lint["target"]
        if steps["count"]:
            check(trace, "median step time", "lint", target["ns"], "stats",
                  steps["median_ns"])
            check(trace, "steps", "lint", target["steps"], "stats",
                  steps["count"])
            check(trace, "steps", "path", len(path["targets"]), "stats",
                  steps["count"])
            check(trace, "median step time", "lint", target["ns"], "path",
                  path["step_time_ns"])
            check(trace, "median step time", "lint", target["ns"], "diff",
                  diff["before"]["median_ns"])
        else:
            check(trace, "window", "lint", target["ns"], "stats", window)
        split = target.get("device_idle")
        if split:
            causes = sum(v for k, v in split.items()
                         if k.endswith("_ns") and k not in ("span_ns",
                                                            "idle_ns"))
            check(trace, "idle split", "the causes' sum", causes,
                  "the idle time", split["idle_ns"])
            theirs = stats.get("device_idle")
            if theirs is not None:
                check(trace, "idle split", "lint", split, "stats", theirs)
        lint_devices = {d["device"]: d for d in lint["devices"]}
        for d in stats.get("devices", []):
            if d.get("device_activity") != "present":
                continue
            mine = lint_devices.get(d["device"])
            if mine is None:
                sys.exit(f"same-facts: {trace}: device {d['device']}: in "
                         "stats, not in lint")
            for key in ("busy_ns", "idle_ns"):
                check(trace, f"device {d['device']} {key}", "lint",
                      mine[key], "stats", d[key])
    return 0


if __name__ == "__main__":
    sys.exit(main())
