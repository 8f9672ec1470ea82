#!/usr/bin/env python3
"""compare-findings.py A.json B.json: the `tracelint lint --format json`
reports of one workload from two sources (a Kineto trace and an Nsight
Systems export) must hold the same findings: the same rules, severities,
confidences, impacts, subjects, fingerprints and hypothesis texts, and the
same rules skipped. Example events are left out (their timestamps and thread
names are the source's own). Prints the codes; exits 1 on a difference."""
import json
import sys

KEYS = ["code", "severity", "confidence", "impact_ns", "impact_share",
        "subject", "fingerprint", "hypothesis"]


def summary(path):
    doc = json.load(open(path))
    (result,) = doc["results"]
    return ([{k: f.get(k) for k in KEYS} for f in result["findings"]],
            result.get("skipped"))


a, b = summary(sys.argv[1]), summary(sys.argv[2])
if a != b:
    print("DIFFERENT:\n  %s\n  %s" % (json.dumps(a), json.dumps(b)))
    sys.exit(1)
print("same findings: " + " ".join(f["code"] for f in a[0]))
