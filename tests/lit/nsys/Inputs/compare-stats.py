#!/usr/bin/env python3
"""compare-stats.py A.json B.json: the `tracelint stats --format json`
reports of one workload from two sources (an Nsight Systems export and a
Kineto trace, or two nsys schema versions) must give the same model
statistics. Compares every field the trace model defines alike whatever the
format -- window, steps, device busy/idle, kernels, runtime and driver calls,
copies, memsets and memory operations -- and ignores what is format-specific:
the producer, the hardware list, lane and event counts (nsys records OS
runtime calls and more threads), import counters, OS runtime calls.
Prints the fields compared; exits 1 on the first difference."""
import json
import sys

SAME = ["window.start_ns", "window.end_ns", "window.duration_ns", "steps",
        "device_activity", "launch_calls", "device_work_off_streams",
        "total_busy_ns", "devices", "top_kernels", "top_runtime_calls",
        "copies", "memsets", "memory_operations", "lanes.device_streams"]


def get(doc, path):
    for key in path.split("."):
        doc = doc[key]
    return doc


a, b = (json.load(open(p)) for p in sys.argv[1:3])
for path in SAME:
    va, vb = get(a, path), get(b, path)
    if va != vb:
        print("DIFFERENT %s:\n  %s\n  %s" % (path, json.dumps(va),
                                             json.dumps(vb)))
        sys.exit(1)
print("same: " + ", ".join(SAME))
