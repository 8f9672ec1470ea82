#!/usr/bin/env python3
"""Calibrates `tracelint stats`'s achieved rates per op against a peer: for
the five MI300X inference traces in ../shared/traces/tracelens-hf-inference-
mi300, TraceLens's own reference figures (../shared/research/tracelens-perf-
mi300/<trace>/<category>.csv) list every op and argument set it models, with
its FLOPs, bytes and median rates. Every row is looked up in tracelint's
`op_efficiency` by op name and recorded arguments ("Input Dims", "Input
type", "Concrete Inputs") and must agree: FLOPs and bytes per call within
0.1 %, the median TFLOP/s within 5 %, and for the memory-bound categories
(elementwise, normalization, reduce) the median TB/s within 5 %.

Rows where the two tools differ on purpose are excluded, or compared on the
figures their convention shares, each for a reason docs/efficiency.md gives:

  no kernel time    TraceLens lists calls that launched no device work;
                    tracelint has nothing to rate for them.
  nested            every call runs inside another op that tracelint counts
                    (aten::add_ inside aten::convolution, native_layer_norm
                    inside layer_norm): its kernels are that op's.
  strides           TraceLens splits one argument set by input strides,
                    which tracelint does not read: FLOPs and bytes only.
  reduction output  TraceLens counts a reduction's output as one element:
                    no bytes or TB/s where the output has more.
  in-place type     TraceLens writes an in-place op's result in the promoted
                    type, tracelint in the type of the tensor written: no
                    bytes or TB/s where the two differ.
  bool size         TraceLens has no element size for bool: no bytes or TB/s.
  transfer          every call copies between host and device: tracelint
                    rates work on the device's own memory and leaves
                    transfers to the copies table.
  shapes merged     TraceLens groups reductions by element counts, so one
                    row can merge calls that tracelint keeps apart by
                    shape: FLOPs and bytes only.

Rates are compared within 5 % or within the JSON's rounding (six decimals),
for the tiny ops whose rates round to a few millionths.

    op_calibration_corpus.py TRACELINT [SHARED]

SHARED defaults to the folder beside the checkout. Exits 77 (skipped) when
the traces or the reference figures are absent. Prints one summary line per
category.
"""

import ast
import collections
import csv
import gzip
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
NAME = "op-calibration-corpus"
RATE_TOLERANCE = 0.05
SIZE_TOLERANCE = 1e-3
# TraceLens's file per category, and tracelint's name for it.
CATEGORIES = [
    ("GEMM.csv", "GEMM"),
    ("CONV_fwd.csv", "CONV"),
    ("SDPA_fwd.csv", "SDPA"),
    ("BinaryElementwise.csv", "elementwise"),
    ("UnaryElementwise.csv", "elementwise"),
    ("Normalization.csv", "normalization"),
    ("Reduce_fwd.csv", "reduce"),
]
MEMORY_BOUND = {"elementwise", "normalization", "reduce"}


def rows_of(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def number(text):
    return float(text) if text not in ("", None) else None


def argument_key(name, dims, types, values):
    """An op call's identity: its name and recorded arguments, with values
    that record nothing ("") spelled out for every argument."""
    values = list(values) if values else [""] * len(dims)
    return (name, json.dumps(dims), json.dumps(types), json.dumps(values))


def trace_ops(path):
    """The trace's framework ops, each call with the names of the ops
    around it on its thread and whether it moved data between host and
    device: {argument key: [{"around": names, "transfer": bool}]}."""
    with gzip.open(path, "rt", encoding="utf-8") as f:
        events = json.load(f)["traceEvents"]
    transfers = {e["args"].get("correlation") for e in events
                 if e.get("cat") == "gpu_memcpy" and
                 e.get("args", {}).get("kind") in ("HtoD", "DtoH")}
    lanes = collections.defaultdict(list)
    for e in events:
        if e.get("ph") == "X" and e.get("cat") in ("cpu_op", "cuda_runtime"):
            lanes[(e.get("pid"), e.get("tid"))].append(e)
    calls = collections.defaultdict(list)
    for lane in lanes.values():
        lane.sort(key=lambda e: (e["ts"], -e.get("dur", 0)))
        stack = []  # (op event, its call record)
        for e in lane:
            while stack and (stack[-1][0]["ts"] + stack[-1][0].get("dur", 0)
                             <= e["ts"]):
                stack.pop()
            args = e.get("args", {})
            if e["cat"] == "cuda_runtime":
                if args.get("correlation") in transfers:
                    for _, call in stack:
                        call["transfer"] = True
                continue
            call = {"around": {s["name"] for s, _ in stack},
                    "transfer": False}
            if "Input Dims" in args:
                key = argument_key(e["name"], args["Input Dims"],
                                   args.get("Input type", []),
                                   args.get("Concrete Inputs"))
                calls[key].append(call)
            stack.append((e, call))
    return calls


class Tally:
    def __init__(self):
        self.rows = self.compared = self.matched = 0
        self.excluded = collections.Counter()
        self.partly = collections.Counter()

    def line(self, category):
        text = (f"{NAME}: {category}: {self.rows} rows, {self.compared} "
                f"compared, {self.matched} matched, "
                f"{sum(self.excluded.values())} excluded")
        if self.excluded:
            text += " (" + ", ".join(f"{n} {why}" for why, n in
                                     sorted(self.excluded.items())) + ")"
        if self.partly:
            text += "; partly compared: " + ", ".join(
                f"{n} {why}" for why, n in sorted(self.partly.items()))
        return text


def within(ours, theirs, tolerance, rounding=0.0):
    """ours is theirs within a relative tolerance, or within the rounding
    of the JSON's figure (six decimals)."""
    return abs(ours - theirs) <= max(tolerance * abs(theirs), rounding)


def compare(name, row, category, entry, skip_bytes, failures):
    """Appends to failures each figure of entry that differs from row."""
    label = f"{name}: {row['name']} {row['Input Dims_first']}"
    flops = float(row["GFLOPS_first"]) * 1e9
    if not within(entry["flops"], flops, SIZE_TOLERANCE):
        failures.append(f"{label}: {entry['flops']} FLOPs per call, "
                        f"TraceLens {flops:.0f}")
    if not skip_bytes:
        # TraceLens writes MiB as "MB".
        nbytes = float(row["Data Moved (MB)_first"]) * 1024 * 1024
        if not within(entry["bytes"], nbytes, SIZE_TOLERANCE):
            failures.append(f"{label}: {entry['bytes']} bytes per call, "
                            f"TraceLens {nbytes:.0f}")
    if row.get("no rates"):
        return
    theirs = number(row["TFLOPS/s_median"])
    if theirs and not within(entry["tflops"], theirs, RATE_TOLERANCE, 5e-7):
        failures.append(f"{label}: {entry['tflops']} TFLOP/s, TraceLens "
                        f"{theirs:.6g}")
    theirs = number(row["TB/s_median"])
    if (category in MEMORY_BOUND and not skip_bytes and theirs and
            not within(entry["tbps"], theirs, RATE_TOLERANCE, 5e-7)):
        failures.append(f"{label}: {entry['tbps']} TB/s, TraceLens "
                        f"{theirs:.6g}")


def rates_reason(row, entry, repeated, ours):
    """Why the median rates of row cover other calls than entry's, or
    None."""
    if repeated > 1:
        return "strides (FLOPs and bytes only)"
    # TraceLens groups reductions by element counts: one row can hold
    # calls of several recorded shapes, which tracelint keeps apart.
    if entry["category"] == "reduce":
        same = [e for e in ours.values() if e["op"] == entry["op"] and
                e["dtype"] == entry["dtype"] and
                e["params"].get("elements") == entry["params"]["elements"]]
        if len(same) > 1 and (sum(e["calls"] for e in same) ==
                              int(row["name_count"])):
            return "shapes merged (FLOPs and bytes only)"
    return None


def bytes_reason(row, entry):
    """Why the bytes of row follow another convention than entry's, or
    None."""
    if not row["Data Moved (MB)_first"]:
        return "bool size"
    types = ast.literal_eval(row["Input type_first"])
    if (row["name"].endswith("_") and row["name"] != "aten::copy_" and
            len({t for t in types if t not in ("Scalar", "")}) > 1):
        return "in-place type"
    if (entry["category"] == "reduce" and
            entry["params"].get("out_elements", 1) > 1):
        return "reduction output"
    return None


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
        print(f"{NAME}: no traces or figures in {shared}: skipped")
        return 77
    failures = []
    tallies = collections.OrderedDict((c, Tally()) for _, c in CATEGORIES)
    for name in sorted(os.listdir(figures)):
        trace = os.path.join(traces, name + ".json.gz")
        if not os.path.isfile(trace):
            continue
        out = subprocess.run([tracelint, "stats", "--format", "json", trace],
                             check=True, capture_output=True, text=True)
        ours = {}
        for e in json.loads(out.stdout)["op_efficiency"]:
            key = argument_key(e["op"], e.get("input_dims", []),
                               e.get("input_types", []),
                               e.get("concrete_inputs"))
            ours[key] = e
        counted = {e["op"] for e in ours.values()}
        around = trace_ops(trace)
        for file, category in CATEGORIES:
            reference = os.path.join(figures, name, file)
            if not os.path.isfile(reference):
                continue
            rows = rows_of(reference)
            keys = [argument_key(r["name"],
                                 ast.literal_eval(r["Input Dims_first"]),
                                 ast.literal_eval(r["Input type_first"]),
                                 ast.literal_eval(r["Concrete Inputs_first"]))
                    for r in rows]
            repeated = collections.Counter(keys)
            tally = tallies[category]
            for row, key in zip(rows, keys):
                tally.rows += 1
                entry = ours.get(key)
                if not number(row["Kernel Time (µs)_median"]):
                    if entry:
                        failures.append(f"{name}: {key}: TraceLens has no "
                                        "kernel time, tracelint rates it")
                    tally.excluded["no kernel time"] += 1
                    continue
                if not entry:
                    calls = around.get(key, [])
                    if calls and all(c["around"] & counted for c in calls):
                        tally.excluded["nested"] += 1
                    elif calls and all(c["transfer"] for c in calls):
                        tally.excluded["transfer"] += 1
                    else:
                        failures.append(f"{name}: {key} is not in "
                                        "op_efficiency")
                    continue
                tally.compared += 1
                why = rates_reason(row, entry, repeated[key], ours)
                row["no rates"] = why is not None
                if why:
                    tally.partly[why] += 1
                why = bytes_reason(row, entry)
                if why:
                    tally.partly[why + " (no bytes or TB/s)"] += 1
                before = len(failures)
                compare(name, row, category, entry, why is not None, failures)
                if entry["category"] != category and category != "reduce":
                    failures.append(f"{name}: {key}: category "
                                    f"{entry['category']}, not {category}")
                if len(failures) == before:
                    tally.matched += 1
    for f in failures:
        print(f)
    for category, tally in tallies.items():
        print(tally.line(category))
    print(f"{NAME}: {sum(t.rows for t in tallies.values())} rows, "
          f"{len(failures)} off")
    compared = sum(t.compared for t in tallies.values())
    return 1 if failures or not compared else 0


if __name__ == "__main__":
    sys.exit(main())
