"""Blocks' spread per shape of a bench/blockshape/probe.sh run.

For each shape: the SD of the blocks' head-to-base log ratio (each job's
mean removed, pooled over the jobs, with its degrees of freedom), the
measured and the wall seconds per block, and the variance times the wall
seconds (the lower, the more a second of the job buys). Where the jobs'
reports split each spread (tailgate's note since the stop of 2026-12-08),
the root mean square of what the windows explain and of the rest, which
lies between blocks, over the jobs.
"""
import glob
import json
import math
import os
import re
import sys

METRICS = ("cpu_ms_per_iteration", "iterations_per_s")


def main(out):
    by = {}
    for f in sorted(glob.glob(os.path.join(out, "*.report.json"))):
        shape = os.path.basename(f).rsplit("-", 1)[0]
        with open(f) as fh:
            r = json.load(fh)
        text = open(f.replace(".report.json", ".out")).read()
        m = re.search(r"measured ([0-9.]+) s", text)
        wall = re.search(r"blocks of at most \d+ in (?:(\d+)m)?([0-9.]+)s", text)
        runs = r.get("runs", {})
        pairs = list(zip(runs.get("base", []), runs.get("head", [])))
        if not pairs or not m or not wall:
            continue
        d = by.setdefault(shape, {"jobs": 0, "blocks": 0, "measured": 0.0, "wall": 0.0, "split": [], **{k: [0.0, 0] for k in METRICS}})
        note = next((n for n in r.get("notes", []) if n.startswith("what a block's change spread by")), "")
        m_split = re.search(r"CPU/iteration [0-9.]+ % \(windows ([0-9.]+) %, between blocks ([0-9.]+) %\)", note)
        if m_split:
            d["split"].append((float(m_split.group(1)), float(m_split.group(2))))
        d["jobs"] += 1
        d["blocks"] += len(pairs)
        d["measured"] += float(m.group(1))
        d["wall"] += 60 * float(wall.group(1) or 0) + float(wall.group(2))
        for k in METRICS:
            logs = [math.log(h[k] / b[k]) for b, h in pairs if b.get(k) and h.get(k)]
            if len(logs) > 1:
                mean = sum(logs) / len(logs)
                d[k][0] += sum((x - mean) ** 2 for x in logs)
                d[k][1] += len(logs) - 1
    print(f"{'shape':16} {'jobs':>4} {'blocks':>6} {'measured s':>10} {'wall s':>6}  " + "  ".join(f"{k + ' SD % (df)':>31} {'var×wall':>8}" for k in METRICS))
    for shape, d in sorted(by.items(), key=lambda kv: order(kv[0])):
        per, wall = d["measured"] / d["blocks"], d["wall"] / d["blocks"]
        cells = []
        for k in METRICS:
            ss, df = d[k]
            sd = math.sqrt(ss / df) * 100 if df else float("nan")
            cells.append(f"{sd:>26.2f} ({df:>2}) {sd * sd * wall:>8.0f}")
        print(f"{shape:16} {d['jobs']:>4} {d['blocks']:>6} {per:>10.1f} {wall:>6.1f}  " + "  ".join(cells))
        if d["split"]:
            rms = [math.sqrt(sum(x[i] ** 2 for x in d["split"]) / len(d["split"])) for i in (0, 1)]
            print(f"{'':16} CPU/iteration, as the {len(d['split'])} jobs' notes split it: windows {rms[0]:.2f} %, between blocks {rms[1]:.2f} % (root mean square)")


def order(shape):
    key, _, length = shape.partition("=")
    m = re.fullmatch(r"([0-9.]+)(ms|s)", length)
    return key, float(m.group(1)) / (1000 if m.group(2) == "ms" else 1) if m else 0


if __name__ == "__main__":
    main(sys.argv[1])
