"""Samples, every 50 ms for at most SECONDS: the wall time, the machine's
total and idle jiffies (/proc/stat) and the jiffies of the CPU hogs
bench/blockshape/probe.sh starts, one line each, for windows.py --sampler.

    python3 bench/windows/sampler.py FILE SECONDS
"""
import subprocess
import sys
import time
out = open(sys.argv[1], "w")
hogs, last_scan = [], 0
end = time.time() + float(sys.argv[2])
while time.time() < end:
    now = time.time()
    if now - last_scan > 1:
        r = subprocess.run(["pgrep", "-f", "while :; do :; done"], capture_output=True, text=True)
        hogs = [int(p) for p in r.stdout.split()]
        last_scan = now
    f = open("/proc/stat").readline().split()[1:]
    v = list(map(int, f))
    total = sum(v[:8]); idle = v[3] + v[4]
    h = 0
    for p in hogs:
        try:
            st = open(f"/proc/{p}/stat").read().rsplit(")", 1)[1].split()
            h += int(st[11]) + int(st[12])
        except OSError:
            pass
    out.write(f"{time.time():.4f} {total} {idle} {h}\n")
    time.sleep(0.05)
