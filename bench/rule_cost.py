#!/usr/bin/env python3
"""Per-rule cost of `tracelint lint`, and how it grows with the trace.

On a smaller and a larger synthetic Kineto trace it times:

  - whole commands: `stats` (import, index and statistics, the floor every
    command pays), `path`, and `lint` with and without the path's bounds;
  - each rule of the catalogue alone (`lint --select CODE
    --path-bounds=false -j 1`), reading the CPU time of the rule's own run
    from lint's phase times (TRACELINT_TIMES=1): the rule, its needs and the
    index facts it is the first to ask for, without the noise of the import
    around it;
  - lint's other phases the same way: the import, the statistics, the
    critical path's graph and the findings with their path bounds.

For each it prints the cost at both sizes and how fast it grows, against
how fast the import grows. A cost that grows more than --flag-factor (1.5)
times faster than the import's is flagged: its work grows faster than the
trace (a scan per step over the whole trace, a search restarted from the
start), so it will dominate on large traces even when it is cheap on small
ones.

    bench/rule_cost.py [--sizes 1G,2G] [--runs 2] [--build build]
                       [--rules S004,L001] [--check] [--json FILE]

Standard library only. See bench/README.md ("Per-rule cost") for how to
read the tables.
"""

import argparse
import hashlib
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
TIME_LINE = re.compile(
    r"^tracelint: time: .*: (?P<what>[^:]+): "
    r"(?:(?P<wall>[0-9.]+) s wall, )?(?P<cpu>[0-9.]+) s CPU$")


def die(msg):
    print(f"rule_cost: error: {msg}", file=sys.stderr)
    sys.exit(1)


def note(msg):
    print(f"rule_cost: {msg}", file=sys.stderr, flush=True)


def parse_size(text):
    """'1G' -> 1000000000 (decimal units, as gen_kineto_trace.py reads)."""
    u = text.strip().upper().removesuffix("B")
    mult = {"K": 10**3, "M": 10**6, "G": 10**9}.get(u[-1:], 1)
    if u[-1:] in "KMG":
        u = u[:-1]
    try:
        value = float(u)
    except ValueError:
        die(f"--sizes: expected sizes such as 1G or 500M, not '{text}'")
    if value <= 0:
        die(f"--sizes: a size must be positive, not '{text}'")
    return int(value * mult)


def ensure_trace(data, size, seed):
    """The trace of SIZE in DATA, generated unless a matching one exists.

    Uses run_bench.sh's names and stamps (kineto_<SIZE>_s<SEED>.json and its
    .stamp), so that the two scripts share their traces.
    """
    gen = HERE / "gen_kineto_trace.py"
    gen_hash = hashlib.sha256(gen.read_bytes()).hexdigest()
    plain = data / f"kineto_{size.upper()}_s{seed}.json"
    stamp = Path(str(plain) + ".stamp")
    want = f"gen={gen_hash} seed={seed} size={parse_size(size)}"
    if plain.is_file() and stamp.is_file():
        lines = stamp.read_text().splitlines()
        if lines[:2] == [want, f"bytes={plain.stat().st_size}"]:
            note(f"reusing {plain}")
            return plain
    note(f"generating {plain} ({size}, seed {seed})")
    data.mkdir(parents=True, exist_ok=True)
    stamp.unlink(missing_ok=True)
    tmp = Path(str(plain) + ".tmp")
    subprocess.run(
        [sys.executable, str(gen), str(tmp), size, "--seed", str(seed),
         "--census-json", str(plain) + ".census.json", "--quiet"],
        check=True)
    tmp.replace(plain)
    stamp.write_text(f"{want}\nbytes={plain.stat().st_size}\n")
    return plain


def run(argv, timeout):
    """Runs argv once: wall s, CPU s (user + system) and lint's phase times
    ({phase: (wall s or None, CPU s)}) from its standard error."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    env = dict(os.environ, TRACELINT_TIMES="1")
    with open(os.devnull, "wb") as null:
        proc = subprocess.Popen(argv, stdout=null, stderr=subprocess.PIPE,
                                env=env)
    try:
        _, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        die(f"'{' '.join(argv)}' ran past --timeout {timeout} s")
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    text = err.decode(errors="replace")
    if proc.returncode not in (0, 1):
        sys.stderr.write(text[-2000:])
        die(f"'{' '.join(argv)}' failed with exit status {proc.returncode}")
    # The children's usage accumulates over the reaped children: this run's
    # is the difference.
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime -
                                                before.ru_stime)
    phases = {}
    for line in text.splitlines():
        m = TIME_LINE.match(line)
        if m:
            phases[m["what"]] = (float(m["wall"]) if m["wall"] else None,
                                 float(m["cpu"]))
    return wall, cpu, phases


def catalogue(tracelint, only):
    """The codes of the rules of a single trace (not the job rules)."""
    out = subprocess.run([str(tracelint), "rules", "--format", "json"],
                         check=True, capture_output=True, text=True).stdout
    codes = [r["code"] for r in json.loads(out) if r.get("input") != "job"]
    if only:
        wanted = [c.strip().upper() for c in only.split(",") if c.strip()]
        unknown = [c for c in wanted if c not in codes]
        if unknown:
            die(f"--rules: not rules of a single trace: {', '.join(unknown)}")
        codes = wanted
    return codes


def machine():
    model = "unknown CPU"
    try:
        for line in subprocess.run(["lscpu"], capture_output=True,
                                   text=True).stdout.splitlines():
            if line.startswith("Model name:"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{os.cpu_count()} CPUs, {model}"


def fmt(x, spec="{:.2f}"):
    if x is None:
        return "-"
    if x == float("inf"):
        return "inf"
    return spec.format(x)


def main():
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="1G,2G",
                    help="the smaller and the larger trace (default 1G,2G)")
    ap.add_argument("--traces", nargs=2, metavar=("SMALL", "LARGE"),
                    help="use these two traces instead of generating them")
    ap.add_argument("--build", default=str(ROOT / "build"),
                    help="build folder with cli/tracelint (default build)")
    ap.add_argument("--data", default=str(HERE / "data"),
                    help="where generated traces are kept (default bench/data)")
    ap.add_argument("--seed", type=int, default=1, help="generator seed")
    ap.add_argument("--runs", type=int, default=2,
                    help="runs of each command per trace (default 2); the "
                    "best counts")
    ap.add_argument("--rules", default="",
                    help="comma-separated rule codes (default: every rule "
                    "of a single trace)")
    ap.add_argument("--flag-factor", type=float, default=1.5,
                    help="flag a cost growing this many times faster than "
                    "the import (default 1.5)")
    ap.add_argument("--floor", type=float, default=0.05,
                    help="CPU seconds on the larger trace under which a "
                    "cost is within noise and never flagged (default 0.05)")
    ap.add_argument("--timeout", type=float, default=900,
                    help="limit for one run, seconds (default 900)")
    ap.add_argument("--json", metavar="FILE",
                    help="also write every measurement as JSON")
    ap.add_argument("--check", action="store_true",
                    help="exit with status 3 when a cost is flagged")
    args = ap.parse_args()
    if args.runs < 1:
        die("--runs must be at least 1")

    tracelint = Path(args.build) / "cli" / "tracelint"
    if not os.access(tracelint, os.X_OK):
        die(f"no tracelint at {tracelint}: build the 'tracelint' target, or "
            "pass --build with the folder that holds cli/tracelint")
    if args.traces:
        traces = [Path(t) for t in args.traces]
        for t in traces:
            if not t.is_file():
                die(f"--traces: no file {t}")
    else:
        sizes = [s.strip() for s in args.sizes.split(",") if s.strip()]
        if len(sizes) != 2:
            die("--sizes takes two sizes, the smaller first: 1G,2G")
        traces = [ensure_trace(Path(args.data), s, args.seed) for s in sizes]
    codes = catalogue(tracelint, args.rules)

    whole = [("stats", ["stats"]),
             ("lint --path-bounds=false",
              ["lint", "--path-bounds=false", "--fail-on", "none"]),
             ("lint", ["lint", "--fail-on", "none"]),
             ("path", ["path"])]
    alone = [(c, ["lint", "--select", c, "--path-bounds=false", "-j", "1",
                  "--fail-on", "none"]) for c in codes]

    load_before = os.getloadavg()
    # best[size][label] = {"wall": s, "cpu": s}; phase[size][name] = [CPU s]
    best = [{}, {}]
    phase = [{}, {}]

    def keep(t, label, wall, cpu):
        b = best[t].setdefault(label, {"wall": wall, "cpu": cpu, "runs": []})
        b["wall"], b["cpu"] = min(b["wall"], wall), min(b["cpu"], cpu)
        b["runs"].append([round(wall, 3), round(cpu, 3)])

    # Rounds over every command, so that a slow spell of the machine falls
    # on all of them alike.
    for t, trace in enumerate(traces):
        for r in range(args.runs):
            note(f"{trace.name}: round {r + 1} of {args.runs} "
                 f"({len(whole) + len(alone)} commands)")
            for label, argv in whole + alone:
                full = [str(tracelint), argv[0], str(trace)] + argv[1:] + [
                    "--format", "json", "-o", os.devnull]
                wall, cpu, phases = run(full, args.timeout)
                keep(t, label, wall, cpu)
                for name, (_, pcpu) in phases.items():
                    if label in codes and name != f"rule {label}" and \
                            name != "import":
                        continue  # a run alone reports that rule and import
                    if label == "lint" or label in codes:
                        phase[t].setdefault(name, []).append(pcpu)
    load_after = os.getloadavg()

    sizes_b = [tr.stat().st_size for tr in traces]
    ratio = sizes_b[1] / sizes_b[0]
    print(f"Machine: {machine()}; load average {load_before[0]:.2f} before, "
          f"{load_after[0]:.2f} after.")
    print(f"Traces: {traces[0].name} ({sizes_b[0] / 1e9:.2f} GB) and "
          f"{traces[1].name} ({sizes_b[1] / 1e9:.2f} GB), {ratio:.2f} x the "
          f"data; best of {args.runs} runs.")
    print()

    # Whole commands.
    print("| command | wall s | CPU s | wall / stats | CPU growth |")
    print("|---|---|---|---|---|")
    for label, _ in whole:
        w = [best[t][label]["wall"] for t in range(2)]
        c = [best[t][label]["cpu"] for t in range(2)]
        sw = [best[t]["stats"]["wall"] for t in range(2)]
        print(f"| `{label}` | {w[0]:.2f} / {w[1]:.2f} | {c[0]:.2f} / "
              f"{c[1]:.2f} | {w[0] / sw[0]:.2f} / {w[1] / sw[1]:.2f} | "
              f"{c[1] / c[0]:.1f} x |")
    print()

    # Phases and rules, from lint's own clocks: the median over the runs
    # (the import over every run of lint at that size).
    def cost(t, name):
        v = phase[t].get(name)
        return statistics.median(v) if v else None

    imp = [cost(t, "import") for t in range(2)]
    imp_growth = imp[1] / imp[0] if imp[0] else float("nan")
    print("| part of lint | CPU s | growth | / import's | |")
    print("|---|---|---|---|---|")
    rows, flagged = [], []
    names = ["import", "index", "statistics", "path graph",
             "findings and path bounds"] + [f"rule {c}" for c in codes]
    for name in names:
        c = [cost(0, name), cost(1, name)]
        if c[0] is None or c[1] is None:
            continue
        mark = ""
        if name == "import":
            growth, rel = imp_growth, 1.0
        elif c[1] < args.floor:
            growth = rel = None
            mark = "within noise"
        elif c[0] <= 0:
            growth = rel = float("inf")
        else:
            growth = c[1] / c[0]
            rel = growth / imp_growth
        if rel is not None and name != "import" and rel > args.flag_factor:
            mark = "FLAG"
            flagged.append(name)
        print(f"| {name} | {c[0]:.3f} / {c[1]:.3f} | {fmt(growth, '{:.1f} x')}"
              f" | {fmt(rel)} | {mark} |")
        rows.append({"part": name, "cpu": c, "growth": growth,
                     "relative_growth": rel, "flag": mark == "FLAG"})
    print()
    if flagged:
        print(f"Flagged (growing more than {args.flag_factor} x faster than "
              f"the import): {', '.join(flagged)}.")
    else:
        print(f"Nothing grows more than {args.flag_factor} x faster than the "
              "import.")
    if args.json:
        Path(args.json).write_text(json.dumps({
            "machine": machine(), "load": [load_before, load_after],
            "traces": [str(t) for t in traces], "bytes": sizes_b,
            "runs": args.runs, "commands": best, "parts": rows},
            indent=2) + "\n")
    return 3 if (args.check and flagged) else 0


if __name__ == "__main__":
    sys.exit(main())
