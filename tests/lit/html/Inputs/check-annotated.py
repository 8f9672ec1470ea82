#!/usr/bin/env python3
"""Checks a `lint --annotate` trace against the input and the JSON report.

    check-annotated.py ANNOTATED.json[.gz] LINT.json [--original IN.json]

Fails (exit 1, one line per problem) unless:
  - the trace holds a process named "tracelint" (process_name and
    process_sort_index 'M' events) whose pid no other event uses;
  - it has one 'X' slice per finding, in rank order on its own thread (with
    a thread_name), named "CODE name", with the hypothesis, impact and
    experiment in args;
  - each finding's example events have a flow: an 's' on the slice's
    thread at the slice's start and an 'f' with "bp": "e" and the same id
    at the example's pid/tid and start;
  - with --original: every event of the original comes through unchanged,
    in order, before the added ones.
Prints one summary line otherwise.
"""
import argparse
import gzip
import json
import sys

ap = argparse.ArgumentParser()
ap.add_argument("annotated")
ap.add_argument("lint")
ap.add_argument("--original")
a = ap.parse_args()


def load(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    doc = json.loads(data)
    return doc["traceEvents"] if isinstance(doc, dict) else doc


events = load(a.annotated)
findings = [f for r in json.load(open(a.lint))["results"] for f in r["findings"]]
problems = []
mine = [e for e in events if e.get("cat") == "tracelint"]
others = [e for e in events if e.get("cat") != "tracelint"]
names = [e for e in mine if e.get("ph") == "M" and e.get("name") == "process_name"]
if len(names) != 1 or names[0]["args"]["name"] != "tracelint":
    problems.append("no single tracelint process_name")
    sys.exit("\n".join(problems))
pid = names[0]["pid"]
if any(e.get("pid") == pid for e in others):
    problems.append("pid %s is used by the trace's own events" % pid)
if not any(e.get("ph") == "M" and e.get("name") == "process_sort_index"
           for e in mine):
    problems.append("no process_sort_index")
slices = [e for e in mine if e.get("ph") == "X"]
if len(slices) != len(findings):
    problems.append("%d slices for %d findings" % (len(slices), len(findings)))
threads = {e["tid"]: e["args"]["name"] for e in mine
           if e.get("ph") == "M" and e.get("name") == "thread_name"}
flows = 0
for rank, (s, f) in enumerate(zip(slices, findings), 1):
    want = f["code"] + " " + f["name"]
    if s["name"] != want:
        problems.append("slice %d is %r, not %r" % (rank, s["name"], want))
    if s["pid"] != pid or s["tid"] not in threads:
        problems.append("slice %d is not on a named tracelint thread" % rank)
    for key in ("hypothesis", "impact", "experiment"):
        if key not in s["args"]:
            problems.append("slice %d has no %s" % (rank, key))
    if s["args"].get("hypothesis") != f["hypothesis"]:
        problems.append("slice %d: another hypothesis" % rank)
    starts = {e["id"]: e for e in mine if e.get("ph") == "s" and e["tid"] == s["tid"]}
    ends = {e["id"]: e for e in mine if e.get("ph") == "f" and e["id"] in starts}
    if len(ends) != len(f["examples"]):
        problems.append("slice %d: %d flows for %d examples"
                        % (rank, len(ends), len(f["examples"])))
    for i, st in starts.items():
        end = ends.get(i)
        if not end or end.get("bp") != "e":
            problems.append("slice %d: flow %s has no bound end" % (rank, i))
            continue
        if st["ts"] != s["ts"]:
            problems.append("slice %d: flow %s starts off the slice" % (rank, i))
        # The end is on an example event: same start, an event of the trace.
        if not any(e.get("pid") == end["pid"] and e.get("tid") == end["tid"]
                   and abs(e.get("ts", -1) - end["ts"]) < 0.002
                   for e in others if e.get("ph") == "X"):
            problems.append("slice %d: flow %s ends on no event" % (rank, i))
        if not (s["ts"] - 0.002 <= end["ts"] <= s["ts"] + s["dur"] + 0.002):
            problems.append("slice %d: flow %s ends outside the slice" % (rank, i))
        flows += 1
if a.original:
    original = load(a.original)
    if others[:len(original)] != original or len(others) != len(original):
        problems.append("the original events did not come through unchanged")
for p in problems:
    print("check-annotated: " + p)
if not problems:
    print("check-annotated: %d slices, %d flows, pid %s"
          % (len(slices), flows, pid))
sys.exit(1 if problems else 0)
