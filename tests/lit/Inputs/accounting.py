#!/usr/bin/env python3
"""Checks that lint's report is one account of completion on each trace:

  - the target line's idle causes add up to its idle time;
  - every cause of at least 5 % of the target is claimed by its rule at half
    its size or more, or the target line says why not beside the rule's code
    (quiet, could not judge, not applicable, not run, or what it claims);
  - a claiming finding whose impact is under half its own figure says where
    the rest goes (its `bound:` line, JSON `rest_note`);
  - no finding that claims at least 25 % of the target at confidence 0.4 or
    more is info (severity follows impact);
  - every finding the summary counts appears in the default text report
    (its line in the ranked list, and a card, a folded line or a note).

    accounting.py TRACELINT TRACE...

TRACELINT is the command to run, split like a shell command line. Exits 1
at the first trace that breaks one, naming the trace, the rule and the
numbers; 0 when every trace holds.
"""

import json
import re
import shlex
import subprocess
import sys

MARK_SHARE = 0.05
WHY = {
    "claimed-less": "claims",
    "quiet": "quiet",
    "cannot-judge": "could not judge",
    "not-applicable": "not applicable",
    "not-run": "not run",
}


def run(tracelint, *args):
    p = subprocess.run([*shlex.split(tracelint), "lint", "--isolated",
                        "--fail-on", "none", *args],
                       capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"accounting: lint {' '.join(args)} failed "
                 f"({p.returncode}): {p.stderr.strip()}")
    return p.stdout


def fail(trace, what):
    sys.exit(f"accounting: {trace}: {what}")


def check(tracelint, trace):
    doc = json.loads(run(tracelint, "--format", "json", trace))
    if not doc["results"]:
        return
    res = doc["results"][0]
    text = run(tracelint, "--width", "0", trace)
    target = res["target"]
    findings = res["findings"]
    by_print = {f["fingerprint"]: f for f in findings}

    split = target.get("device_idle")
    if split:
        causes = sum(v for k, v in split.items()
                     if k.endswith("_ns") and k not in ("span_ns", "idle_ns"))
        if causes != split["idle_ns"]:
            fail(trace, f"the idle split's causes sum to {causes} ns, the "
                        f"idle time is {split['idle_ns']} ns")
        target_line = next((l for l in text.splitlines()
                            if l.startswith("target")), "")
        for claim in target.get("claims", []):
            if claim["ns"] < MARK_SHARE * target["ns"]:
                continue
            rule, status = claim["rule"], claim["status"]
            if status == "claimed":
                f = by_print.get(claim["fingerprint"])
                if f is None:
                    fail(trace, f"{rule} claims a cause with no finding")
                if 2 * claim["claimed_ns"] < claim["ns"]:
                    fail(trace, f"{rule} claims {claim['claimed_ns']} ns of "
                                f"{claim['ns']} ns and calls it claimed")
                continue
            marker = f"({rule} {WHY[status]}"
            if marker not in target_line:
                fail(trace, f"the target line names a cause of "
                            f"{claim['ns']} ns ({claim['cause']}) that "
                            f"{rule} does not claim ({status}), without "
                            f"saying so: {target_line}")

    for f in findings:
        share, conf = f["impact_share"], f["confidence"]
        if share >= 0.25 and conf >= 0.4 and f["severity"] == "info":
            fail(trace, f"{f['code']} claims {share:.1%} of the target at "
                        f"confidence {conf} and is info")
        if 2 * f["impact_ns"] < f["detector_impact_ns"] and \
                "rest_note" not in f:
            fail(trace, f"{f['code']}'s impact {f['impact_ns']} ns is under "
                        f"half its figure {f['detector_impact_ns']} ns and "
                        "the card does not say where the rest goes")

    for rank, f in enumerate(findings, 1):
        if not re.search(rf"(^|\s){rank}\. {f['code']} \[", text, re.M):
            fail(trace, f"finding {rank} ({f['code']}) is counted in the "
                        "summary but does not appear in the default text")


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    for trace in sys.argv[2:]:
        check(sys.argv[1], trace)
    return 0


if __name__ == "__main__":
    sys.exit(main())
