"""Per binary (a, b) of builds.sh: the blocks' SD of the head-to-base log
ratios of CPU per iteration and iterations/s over its jobs, each job's
first block, and a block's median time (a job's wall time / blocks)."""
import json
import math
import statistics
import sys

out = sys.argv[1]
wall = {}
for line in open(f"{out}/jobs.tsv"):
    b, i, w, _load = line.split("\t")
    wall[(b, int(i))] = float(w)
for b in ("a", "b"):
    ratios = {"cpu_ms_per_iteration": [], "iterations_per_s": []}
    first, block_s = [], []
    for (side, i), w in sorted(wall.items()):
        if side != b:
            continue
        runs = json.load(open(f"{out}/{b}-{i}.json"))["runs"]
        for key, xs in ratios.items():
            vals = [math.log(h[key] / s[key]) for s, h in zip(runs["base"], runs["head"]) if s.get(key) and h.get(key)]
            xs += vals
            if key == "cpu_ms_per_iteration" and vals:
                first.append(f"{100 * vals[0]:+.1f}")
        block_s.append(w / len(runs["base"]))
    sd = {k: 100 * statistics.stdev(v) for k, v in ratios.items() if len(v) > 1}
    print(f"{b}: {len(block_s)} jobs, block {statistics.median(block_s):.1f} s, SD CPU/iteration "
          f"{sd.get('cpu_ms_per_iteration', float('nan')):.1f} %, iterations/s {sd.get('iterations_per_s', float('nan')):.1f} %, "
          f"first blocks' CPU/iteration {', '.join(first)} %")
