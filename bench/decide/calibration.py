"""Are the A/A jobs' t statistics as wide as the blocks say? (issue 46)

    python3 bench/decide/calibration.py bench/out/decide/*/

For every A/A job of the series given (their jobs/aa-N.report.json and
aa-N.noisy), the blocks' head-to-base log ratios of CPU per iteration and
of iterations/s give t = mean / (SD / sqrt(n)). Without a difference that
lasts a job (one the blocks cannot see), t follows Student's t on n - 1
degrees of freedom, whose mean square is (n - 1) / (n - 3): the script
prints the jobs' mean t² beside that, quiet and beside the hog, per service
and pooled, and how many jobs had |t| > 2.5. The jobs stopped when their
looks decided, which bends t a little; a mean t² well above the expected
one is what a lasting difference would show.
"""
import glob
import json
import math
import os
import statistics
import sys

METRICS = ("cpu_ms_per_iteration", "iterations_per_s")


def jobs(dirs):
    for d in dirs:
        service = os.path.basename(os.path.normpath(d)).split("-")[0]
        for f in sorted(glob.glob(os.path.join(d, "jobs", "aa-*.report.json"))):
            try:
                with open(f) as fh:
                    report = json.load(fh)
                with open(f.replace(".report.json", ".noisy")) as fh:
                    hog = fh.read().strip() == "1"
            except (OSError, ValueError):
                continue
            yield service, hog, report.get("runs", {})


def t_of(runs, metric):
    logs = [math.log(h[metric] / b[metric]) for b, h in zip(runs.get("base", []), runs.get("head", []))
            if b.get(metric) and h.get(metric)]
    n = len(logs)
    if n < 4:
        return None
    sd = statistics.stdev(logs)
    return (statistics.mean(logs) / (sd / math.sqrt(n)), n) if sd > 0 else None


def main(dirs):
    rows = []
    for service, hog, runs in jobs(dirs):
        for metric in METRICS:
            got = t_of(runs, metric)
            if got:
                rows.append((service, hog, metric, *got))
    for metric in METRICS:
        for hog in (False, True):
            sel = [r for r in rows if r[2] == metric and r[1] == hog]
            if not sel:
                continue
            t2 = statistics.mean(r[3] ** 2 for r in sel)
            want = statistics.mean((r[4] - 1) / (r[4] - 3) for r in sel)
            per = ", ".join(f"{s} {statistics.mean(r[3] ** 2 for r in sel if r[0] == s):.2f} ({sum(1 for r in sel if r[0] == s)})"
                            for s in sorted({r[0] for r in sel}))
            wide = sum(1 for r in sel if abs(r[3]) > 2.5)
            print(f"{metric} {'hog' if hog else 'quiet'}: {len(sel)} jobs, mean t² {t2:.2f}, expected {want:.2f}; |t| > 2.5 in {wide}; by service: {per}")


if __name__ == "__main__":
    main(sys.argv[1:])
