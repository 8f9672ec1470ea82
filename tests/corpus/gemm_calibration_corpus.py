#!/usr/bin/env python3
"""Calibrates `tracelint stats`'s matrix-product rates against a peer: for
the five MI300X inference traces in ../shared/traces/tracelens-hf-inference-
mi300, TraceLens's own reference figures (../shared/research/tracelens-perf-
mi300/<trace>/GEMM.csv) list every matrix-product op and argument set with
its median TFLOP/s. Every one of them must appear in tracelint's
`op_efficiency` with the same B, M, N and K, the same FLOPs and bytes per
call (within 0.1 %) and a median TFLOP/s within 5 % (docs/efficiency.md).

    gemm_calibration_corpus.py TRACELINT [SHARED]

SHARED defaults to the folder beside the checkout, whose traces/ folder
$TRACELINT_TRACES replaces. Exits 77 (skipped) when the traces or the
reference figures are absent.
"""

import csv
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOLERANCE = 0.05


def rows_of(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    tracelint = sys.argv[1]
    shared = (sys.argv[2] if len(sys.argv) > 2 else
              os.path.join(HERE, "..", "..", "..", "shared"))
    traces_root = os.path.join(shared, "traces")
    if len(sys.argv) <= 2:
        traces_root = os.environ.get("TRACELINT_TRACES", traces_root)
    traces = os.path.join(traces_root, "tracelens-hf-inference-mi300")
    figures = os.path.join(shared, "research", "tracelens-perf-mi300")
    if not os.path.isdir(traces) or not os.path.isdir(figures):
        print(f"gemm-calibration-corpus: no traces or figures in {shared}: "
              "skipped")
        return 77
    failures, checked = [], 0
    for name in sorted(os.listdir(figures)):
        reference = os.path.join(figures, name, "GEMM.csv")
        trace = os.path.join(traces, name + ".json.gz")
        if not os.path.isfile(reference) or not os.path.isfile(trace):
            continue
        out = subprocess.run([tracelint, "stats", "--format", "json", trace],
                             check=True, capture_output=True, text=True)
        ours = json.loads(out.stdout)["op_efficiency"]
        for row in rows_of(reference):
            key = (row["name"], int(row["param: B"]), int(row["param: M"]),
                   int(row["param: N"]), int(row["param: K"]))
            match = [e for e in ours
                     if (e["op"], e["params"]["B"], e["params"]["M"],
                         e["params"]["N"], e["params"]["K"]) == key]
            checked += 1
            if not match:
                failures.append(f"{name}: {key} is not in op_efficiency")
                continue
            e = match[0]
            theirs = float(row["TFLOPS/s_median"])
            # TraceLens writes GFLOPs and MiB ("MB").
            flops = float(row["GFLOPS_first"]) * 1e9
            nbytes = float(row["Data Moved (MB)_first"]) * 1024 * 1024
            if abs(e["flops"] - flops) > 1e-3 * flops:
                failures.append(f"{name}: {key}: {e['flops']} FLOPs per "
                                f"call, TraceLens {flops:.0f}")
            if abs(e["bytes"] - nbytes) > 1e-3 * nbytes:
                failures.append(f"{name}: {key}: {e['bytes']} bytes per "
                                f"call, TraceLens {nbytes:.0f}")
            if abs(e["tflops"] - theirs) > TOLERANCE * theirs:
                failures.append(f"{name}: {key}: {e['tflops']} TFLOP/s, "
                                f"TraceLens {theirs:.6f}")
    for f in failures:
        print(f)
    print(f"gemm-calibration-corpus: {checked} op and argument sets, "
          f"{len(failures)} off")
    return 1 if failures or not checked else 0


if __name__ == "__main__":
    sys.exit(main())
