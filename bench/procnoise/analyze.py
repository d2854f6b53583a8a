"""Per start mode: the spread of CPU per lifecycle between the processes
of one round, split into what their slices' own spread explains and what
is left, the process's own (issue 46). Reads probe.sh's slices.tsv."""
import collections
import math
import statistics
import sys

rows = collections.defaultdict(lambda: collections.defaultdict(list))  # (mode, round) -> proc -> [log ms]
for i, line in enumerate(open(sys.argv[1])):
    if i == 0:
        continue
    rnd, mode, _load, proc, _slice, ms = line.split("\t")
    rows[(mode, int(rnd))][int(proc)].append(math.log(float(ms)))

by_mode = collections.defaultdict(lambda: {"within": [], "wdf": 0, "between": [], "bdf": 0, "ms": []})
for (mode, _), procs in sorted(rows.items()):
    m = by_mode[mode]
    means = []
    for vals in procs.values():
        mu = statistics.fmean(vals)
        means.append(mu)
        m["within"].append(sum((v - mu) ** 2 for v in vals))
        m["wdf"] += len(vals) - 1
        m["ms"].append(math.exp(mu))
    mu = statistics.fmean(means)
    m["between"].append(sum((v - mu) ** 2 for v in means))
    m["bdf"] += len(means) - 1
    m["slices"] = len(next(iter(procs.values())))

print("mode     rounds procs  ms/lifecycle  slice SD  process-mean SD  process's own SD")
for mode in ("random", "noaslr", "fixed"):
    m = by_mode.get(mode)
    if not m or not m["bdf"] or not m["wdf"]:
        continue
    sw2 = sum(m["within"]) / m["wdf"]
    sb2 = sum(m["between"]) / m["bdf"]
    own2 = max(0.0, sb2 - sw2 / m["slices"])
    print(f"{mode:8s} {len(m['between']):6d} {len(m['ms']):5d}  {statistics.median(m['ms']):12.3f}  "
          f"{100 * math.sqrt(sw2):7.1f} %  {100 * math.sqrt(sb2):14.1f} %  {100 * math.sqrt(own2):15.1f} %")
