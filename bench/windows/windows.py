"""Where the noise of an A/B job's windows lies (issue 46: less noise per block).

    python3 bench/windows/windows.py DUMP... [--sampler FILE]

A DUMP is one job's windows, one JSON line per window and side (of each
phase too, sub > 0), as a build of tailgate with bench/windows/dump.patch
writes them where TG_DIAG_WINDOWS points (run.sh here does so for a
bench/blockshape probe). It prints, for CPU per iteration of the
windows that are whole runs of one closed phase (sub 0 where the job has one
phase, else the first phase's):

- the SD of a window pair's head-to-base log ratio by the window's index in
  its block (each job's mean at that index removed): does what follows a
  start spread wider?
- the blocks' SD of the mean pair log ratio, from all windows and from the
  later ones only, and the SD the windows explain (pair SD / sqrt(pairs));
- the correlation of a side's windows with those 1-6 windows later in the
  same block (each side's block mean removed): the time the noise lasts;
- with --sampler (bench/windows/sampler.py's file), the correlation of the
  pair log ratio with the difference of a CPU hog's share and of the
  runner's own CPU per iteration (the dump's "self") within blocks, and the
  head-to-base change with and without adjusting for each: on an injected
  build, whether the covariate moves with the change (and so would shrink
  it).
"""
import bisect
import collections
import datetime
import json
import math
import sys


def corr(a, b):
    ma, mb = sum(a) / len(a), sum(b) / len(b)
    num = sum((x - ma) * (y - mb) for x, y in zip(a, b))
    den = math.sqrt(sum((x - ma) ** 2 for x in a) * sum((y - mb) ** 2 for y in b))
    return num / den if den else float("nan")


def seconds(stamp):
    head, _, frac = stamp.rstrip("Z").partition(".")
    return datetime.datetime.fromisoformat(head + "+00:00").timestamp() + float("0." + (frac or "0"))


def load(paths):
    """windows[(job, block)][(k, side)] = dict of the window's figures"""
    windows = collections.defaultdict(dict)
    for job, path in enumerate(paths):
        lines = [json.loads(line) for line in open(path)]
        phases = any(d["sub"] > 0 for d in lines)
        for d in lines:
            if d["sub"] != (1 if phases else 0):
                continue
            cpu = (d.get("metrics") or {}).get("cpu_ms_per_iteration")
            done = (d.get("iterations") or {}).get("completed") or 0
            if not cpu:
                continue
            began = seconds(d["started"]) if d.get("started") else None  # the patch's first form kept no time
            windows[(job, d["blk"])][(d["k"], d["side"])] = {
                "cpu": math.log(cpu),
                "self": math.log(d["self"] * 1000 / done) if d.get("self") and done else None,
                "from": began, "to": began + d["window"] if began else None}
    return windows


def pair_logs(windows):
    """blocks[(job, block)] = [log ratio of pair k for k in order]"""
    blocks = {}
    for key, w in windows.items():
        ks = sorted({k for k, _ in w if (k, 0) in w and (k, 1) in w})
        if ks == list(range(len(ks))) and len(ks) > 1:
            blocks[key] = [w[(k, 1)]["cpu"] - w[(k, 0)]["cpu"] for k in ks]
    return blocks


def by_index(blocks):
    jobs = sorted({j for j, _ in blocks})
    n = min(len(v) for v in blocks.values())
    print("SD % of a pair's log ratio by its index in the block (job mean at the index removed):")
    cells = []
    for k in range(n):
        dev, df = 0.0, 0
        for j in jobs:
            xs = [v[k] for (jj, _), v in blocks.items() if jj == j]
            m = sum(xs) / len(xs)
            dev += sum((x - m) ** 2 for x in xs)
            df += len(xs) - 1
        cells.append(f"{k}: {100 * math.sqrt(dev / df):.1f}")
    print("  " + ", ".join(cells))
    for first in sorted({0, 1, 2, n // 4, n // 2}):
        dev, df = 0.0, 0
        for j in jobs:
            means = [sum(v[first:n]) / (n - first) for (jj, _), v in blocks.items() if jj == j]
            m = sum(means) / len(means)
            dev += sum((x - m) ** 2 for x in means)
            df += len(means) - 1
        print(f"blocks' SD from window {first} on: {100 * math.sqrt(dev / df):.2f} %")
    res, df = 0.0, 0
    for v in blocks.values():
        m = sum(v[:n]) / n
        res += sum((x - m) ** 2 for x in v[:n])
        df += n - 1
    within = math.sqrt(res / df)
    print(f"a pair's SD within its block {100 * within:.1f} %: the windows explain {100 * within / math.sqrt(n):.2f} % of a block's")


def lags(windows):
    """a side's deviation from its block mean against the windows after it, in the order they ran (ab.order abba)"""
    pairs = collections.defaultdict(lambda: ([], []))
    for (_, blk), w in windows.items():
        n = max(k for k, _ in w) + 1
        if any((k, s) not in w for k in range(n) for s in (0, 1)):
            continue
        seq = []
        for k in range(n):
            first = (blk + k) % 2
            seq += [(first, w[(k, first)]["cpu"]), (1 - first, w[(k, 1 - first)]["cpu"])]
        mean = {s: sum(x for ss, x in seq if ss == s) / n for s in (0, 1)}
        z = [x - mean[s] for s, x in seq]
        for lag in range(1, 7):
            for i in range(len(z) - lag):
                pairs[lag][0].append(z[i])
                pairs[lag][1].append(z[i + lag])
    print("a window against the one LAG windows later (any side): " +
          ", ".join(f"{lag}: {corr(*pairs[lag]):.2f}" for lag in sorted(pairs)))


def covariates(windows, sampler):
    rows = sorted(tuple(map(float, line.split())) for line in open(sampler))
    times = [r[0] for r in rows]

    def at(t):
        i = bisect.bisect_left(times, t)
        if i <= 0 or i >= len(rows):
            return None
        a, b = rows[i - 1], rows[i]
        f = (t - a[0]) / (b[0] - a[0])
        return [a[j] + f * (b[j] - a[j]) for j in range(1, 4)]

    def hog_share(w):
        if w["from"] is None:
            return None
        a, b = at(w["from"]), at(w["to"])
        return None if a is None or b is None else 2 * (b[2] - a[2]) / (b[0] - a[0])

    out = {"hog": ([], []), "runner": ([], [])}
    raw = {"hog": ([], []), "runner": ([], [])}  # the pairs' own differences: what the change moved
    for w in windows.values():
        ks = sorted({k for k, _ in w if (k, 0) in w and (k, 1) in w})
        diffs = {k: w[(k, 1)]["cpu"] - w[(k, 0)]["cpu"] for k in ks}
        for name, of in (("hog", hog_share), ("runner", lambda x: x["self"])):
            xs = {k: (of(w[(k, 1)]), of(w[(k, 0)])) for k in ks}
            ok = [k for k in ks if None not in xs[k]]
            if len(ok) < 2:
                continue
            dx = {k: xs[k][0] - xs[k][1] for k in ok}
            mx, my = sum(dx.values()) / len(ok), sum(diffs[k] for k in ok) / len(ok)
            out[name][0].extend(dx[k] - mx for k in ok)
            out[name][1].extend(diffs[k] - my for k in ok)
            raw[name][0].extend(dx[k] for k in ok)
            raw[name][1].extend(diffs[k] for k in ok)
    for name, (x, y) in out.items():
        r = corr(x, y) if len(x) > 2 else float("nan")
        if not math.isnan(r):
            print(f"pairs against the {name}'s difference within blocks: r = {r:.2f} over {len(x)} pairs, adjusting would leave {100 * math.sqrt(1 - r * r):.0f} % of a pair's SD")
            bx, by = raw[name]
            slope = sum(a * b for a, b in zip(x, y)) / sum(a * a for a in x)
            mx, my = sum(bx) / len(bx), sum(by) / len(by)
            print(f"  head against base: CPU per iteration {100 * my:+.1f} %, the {name}'s covariate {mx:+.3f}; adjusted (slope {slope:.2f} within blocks) {100 * (my - slope * mx):+.1f} %")


def main(argv):
    sampler = None
    if "--sampler" in argv:
        i = argv.index("--sampler")
        sampler = argv[i + 1]
        argv = argv[:i] + argv[i + 2:]
    windows = load(argv)
    blocks = pair_logs(windows)
    print(f"{len(argv)} jobs, {len(blocks)} blocks")
    by_index(blocks)
    lags(windows)
    if sampler:
        covariates(windows, sampler)


if __name__ == "__main__":
    main(sys.argv[1:])
