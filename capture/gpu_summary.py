#!/usr/bin/env python3
"""Compares a GPU run of fixtures/workloads with what each workload predicts.

    gpu_summary.py RESULTS EXPECTED [--lint TRACELINT] [--strict]

RESULTS is a folder as capture/gpu-check.sh leaves it (and as fixtures/gpu
keeps it): step_times.jsonl (one JSON line per program run, with workload,
variant, mode and step_ms), traces/kineto/ and traces/capture/ holding
WORKLOAD-VARIANT*.json[.gz], and, unless --lint is given, lint/ holding each
trace's report as KIND-WORKLOAD-VARIANT*.json. With --lint, the traces are
linted here with that tracelint binary instead.

EXPECTED is fixtures/workloads/expected.json: per workload, the rule codes
the pathological variant should raise and the fixed one should not (rules
that need operator names apply to Kineto traces only), and the variant whose
measured step should be faster.

Prints two Markdown tables: what each run measured and raised, and each
expectation with its outcome ("yes", "NO", or "no trace"). With --strict,
exits 1 when an expectation is contradicted, or when nothing could be
checked at all.
"""
import argparse
import glob
import json
import os
import subprocess
import sys

MODES = ("kineto", "capture")
VARIANTS = ("pathological", "fixed")


def finding_codes(report):
    """Codes of the findings in a lint JSON report (not of skipped rules)."""
    codes = set()

    def walk(x):
        if isinstance(x, dict):
            for f in x.get("findings", []) or []:
                if isinstance(f, dict) and isinstance(f.get("code"), str):
                    codes.add(f["code"])
            for k, v in x.items():
                if k != "findings":
                    walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)

    walk(report)
    return codes


def traces_of(results, mode, workload, variant):
    pattern = os.path.join(results, "traces", mode, f"{workload}-{variant}*.json")
    return sorted(glob.glob(pattern) + glob.glob(pattern + ".gz"))


def lint(tracelint, trace, mode):
    cmd = [tracelint, "lint", "--isolated", "--format", "json",
           "--fail-on", "none"]
    if mode == "capture":
        cmd += ["--step", "step"]  # the workloads' NVTX step ranges
    done = subprocess.run(cmd + [trace], capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"{trace}: tracelint lint exited {done.returncode}: "
                 f"{done.stderr.strip()}")
    return json.loads(done.stdout)


def raised(results, mode, workload, variant, tracelint):
    """The codes raised on this run's traces, or None when it has none."""
    if tracelint:
        traces = traces_of(results, mode, workload, variant)
        if not traces:
            return None
        codes = set()
        for t in traces:
            codes |= finding_codes(lint(tracelint, t, mode))
        return codes
    reports = glob.glob(os.path.join(results, "lint",
                                     f"{mode}-{workload}-{variant}*.json"))
    if not reports:
        return None
    codes = set()
    for r in reports:
        try:
            with open(r) as f:
                codes |= finding_codes(json.load(f))
        except (OSError, ValueError) as e:
            print(f"{r}: unreadable lint report: {e}", file=sys.stderr)
    return codes


def step_times(results):
    times = {}
    path = os.path.join(results, "step_times.jsonl")
    if os.path.exists(path):
        with open(path) as f:
            for n, line in enumerate(f, 1):
                try:
                    r = json.loads(line)
                    times[(r["workload"], r["variant"], r["mode"])] = r["step_ms"]
                except (ValueError, KeyError) as e:
                    print(f"{path}:{n}: skipped: {e}", file=sys.stderr)
    return times


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("results")
    ap.add_argument("expected")
    ap.add_argument("--lint", metavar="TRACELINT",
                    help="lint the traces with this binary")
    ap.add_argument("--strict", action="store_true",
                    help="exit 1 on a contradicted expectation")
    args = ap.parse_args()

    try:
        with open(args.expected) as f:
            expected = {k: v for k, v in json.load(f).items()
                        if not k.startswith("_")}
    except (OSError, ValueError) as e:
        sys.exit(f"{args.expected}: cannot read the expectations: {e}")
    if not os.path.isdir(args.results):
        sys.exit(f"{args.results}: not a folder of GPU results")
    times = step_times(args.results)

    print("| workload | variant | step ms | under capture | kineto rules "
          "| capture rules |")
    print("|---|---|---|---|---|---|")
    outcomes = []
    for w, exp in expected.items():
        got = {}
        for v in VARIANTS:
            row = [w, v, times.get((w, v, "kineto"), "-"),
                   times.get((w, v, "capture"), "-")]
            for mode in MODES:
                codes = raised(args.results, mode, w, v, args.lint)
                got[(v, mode)] = codes
                row.append("no trace" if codes is None
                           else " ".join(sorted(codes)) or "none")
            print("| " + " | ".join(str(x) for x in row) + " |")
        for mode in MODES:
            want = set(exp["rules"])
            if mode == "kineto":
                want |= set(exp["kineto-only"])
            p, f = got[("pathological", mode)], got[("fixed", mode)]
            for code in sorted(want):
                outcomes.append((w, mode, code,
                                 None if p is None else code in p,
                                 None if f is None else code not in f))
        tp = times.get((w, "pathological", "kineto"))
        tf = times.get((w, "fixed", "kineto"))
        if tp is not None and tf is not None:
            faster = "fixed" if tf < tp else "pathological"
            outcomes.append((w, "time", f"faster={exp['faster']}",
                             faster == exp["faster"], True))

    print()
    print("| workload | trace | expectation | pathological fires "
          "| fixed silent |")
    print("|---|---|---|---|---|")

    def word(x):
        return "no trace" if x is None else "yes" if x else "NO"

    for w, mode, what, a, b in outcomes:
        print(f"| {w} | {mode} | {what} | {word(a)} | {word(b)} |")

    checked = [o for o in outcomes if o[3] is not None or o[4] is not None]
    failed = [o for o in outcomes if o[3] is False or o[4] is False]
    print()
    print(f"{len(checked)} of {len(outcomes)} expectations checked, "
          f"{len(failed)} contradicted")
    if args.strict and (failed or not checked):
        sys.exit(1)


if __name__ == "__main__":
    main()
