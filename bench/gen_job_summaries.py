#!/usr/bin/env python3
"""Writes the rank summaries of a simulated multi-rank job, for `lint --job`.

    bench/gen_job_summaries.py --ranks 10000 -o DIR [--from SUMMARY...]
                               [--straggler RANK --delay-us D] [--seed S]
                               [--single]

Each rank's summary (docs/summary-format.md) is a copy of a template rank
with its clock shifted by a random offset of up to 100 ms and every time
perturbed by up to 20 us of jitter; the straggler reaches every collective
D us late (its collectives start D later, the others' all end together).
The templates are the --from summaries (real ranks: `tracelint summarize`
of the PARAM DLRM traces), used in turn, or, without --from, a synthetic
rank of 4 steps with 16 collectives each. One file per rank under DIR
(rank-00000.summary, ...), or one concatenated DIR/job.summary with
--single. Standard library only; deterministic for a seed.
"""

import argparse
import json
import os
import random
import sys

MS = 1_000_000
US = 1_000


def synthetic_template():
    """4 steps of 20 ms; in each, 16 all-reduces of 200 us, 1 ms apart."""
    lines = [{"type": "header", "format": "tracelint-rank-summary",
              "version": 1},
             {"type": "rank", "input": "synthetic", "rank": 0,
              "world_size": 1, "rank_from": "distributedInfo",
              "backend": "nccl", "job_id": "", "producer": "synthetic",
              "device": 0, "target_ns": 20 * MS,
              "target": "median step time 20 ms (4 steps)",
              "truncated": False}]
    t0 = 1_700_000_000 * 1_000 * MS
    for k in range(4):
        s = t0 + k * 20 * MS
        lines.append({"type": "step", "number": k + 1, "start_ns": s,
                      "end_ns": s + 20 * MS, "steady": k > 0,
                      "idle_ns": 4 * MS, "launch_ns": 1 * MS,
                      "host_wait_ns": 0, "host_other_ns": 2 * MS,
                      "data_loading_ns": 0, "startup_ns": 0,
                      "profiler_ns": 0, "unrecorded_ns": 1 * MS,
                      "unlinked_ns": 0})
    for k in range(4):
        for c in range(16):
            start = t0 + k * 20 * MS + 2 * MS + c * MS
            lines.append({"type": "collective", "group": "", "seq": -1,
                          "kind": "AllReduce", "stream": 20,
                          "start_ns": start, "end_ns": start + 200 * US,
                          "bytes": 4 * 1024 * 1024, "step": k,
                          "compute_ns": 2 * MS if c == 0 else 800 * US})
    lines.append({"type": "finding", "code": "L002",
                  "name": "host-bound-gaps", "severity": "warning",
                  "impact_ns": 2 * MS, "confidence": 0.6,
                  "subject": "aten::index_select"})
    lines.append({"type": "end", "steps": 4, "collectives": 64,
                  "findings": 1})
    return lines


def read_template(path):
    with open(path) as f:
        return [json.loads(l) for l in f if l.strip()]


def make_rank(template, rank, world, rng, straggler, delay_ns):
    offset = rng.randrange(0, 100 * MS)
    out = []
    for line in template:
        line = dict(line)
        t = line["type"]
        if t == "rank":
            line.update(rank=rank, world_size=world,
                        input="rank-%05d.summary" % rank)
        elif t == "step":
            line["start_ns"] += offset
            line["end_ns"] += offset
        elif t == "collective":
            # Every rank's collective ends when the straggler has joined
            # it (within 2 us); each starts at its own arrival.
            late = delay_ns if straggler >= 0 else 0
            end = line["end_ns"] + offset + late + rng.randrange(0, 2 * US)
            start = line["start_ns"] + offset + rng.randrange(0, 20 * US)
            if rank == straggler:
                start += delay_ns
            line["start_ns"], line["end_ns"] = min(start, end), end
        out.append(json.dumps(line, separators=(",", ":")))
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ranks", type=int, default=1024)
    ap.add_argument("-o", "--out", required=True)
    ap.add_argument("--from", dest="templates", nargs="*", default=[])
    ap.add_argument("--straggler", type=int, default=-1)
    ap.add_argument("--delay-us", type=int, default=0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--single", action="store_true")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    templates = ([read_template(p) for p in args.templates]
                 or [synthetic_template()])
    os.makedirs(args.out, exist_ok=True)
    single = (open(os.path.join(args.out, "job.summary"), "w")
              if args.single else None)
    for rank in range(args.ranks):
        text = make_rank(templates[rank % len(templates)], rank, args.ranks,
                         rng, args.straggler, args.delay_us * US)
        if single:
            single.write(text)
        else:
            with open(os.path.join(args.out, "rank-%05d.summary" % rank),
                      "w") as f:
                f.write(text)
    if single:
        single.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
