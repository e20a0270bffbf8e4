#!/usr/bin/python3
"""How far out of start order the GPU ops and launch calls of Kineto traces are, in file
order: the largest number of later-written events that start before an earlier one (the
reorder window a merge would need), the largest lag in µs, and the largest distance in file
position between a launch call and its kernel (the correlation join's window).

    bench/kineto_disorder.py TRACE.json [TRACE.json.gz ...]   # one tab-separated row each

Standard library only; loads each trace whole (meant for the small real traces and synth
output of a few steps, not for the 500 MB benchmark inputs)."""
import bisect
import gzip
import json
import sys

GPU = {"kernel", "gpu_memcpy", "gpu_memset", "Kernel", "Memcpy", "Memset"}
CPU = {"cuda_runtime", "cuda_driver", "Runtime"}

def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f)

def window(starts):
    # For each event: how many events written before it start after it (it must overtake
    # them: the reorder buffer must hold them); max over events.
    seen = []
    worst = 0
    lag_us = 0.0
    hi = float("-inf")
    for s in starts:
        k = len(seen) - bisect.bisect_right(seen, s)
        worst = max(worst, k)
        hi = max(hi, s)
        lag_us = max(lag_us, hi - s)
        bisect.insort(seen, s)
    return worst, lag_us

def main(path):
    doc = load(path)
    ev = doc["traceEvents"] if isinstance(doc, dict) else doc
    ev = [e for e in ev if e.get("ph") == "X"]
    gpu = [(i, e) for i, e in enumerate(ev) if e.get("cat") in GPU]
    cpu = [(i, e) for i, e in enumerate(ev) if e.get("cat") in CPU]
    g_win, g_lag = window([float(e["ts"]) for _, e in gpu])
    c_win, c_lag = window([float(e["ts"]) for _, e in cpu])
    # join distance: position of kernel in the GPU list vs position of its call in the CPU list
    pos_gpu = {}
    for n, (_, e) in enumerate(gpu):
        c = (e.get("args") or {}).get("correlation")
        if c is not None: pos_gpu.setdefault(c, n)
    far = 0
    far_events = 0
    for n, (i, e) in enumerate(cpu):
        c = (e.get("args") or {}).get("correlation")
        if c in pos_gpu:
            far = max(far, abs(pos_gpu[c] - n))
            far_events = max(far_events, abs(gpu[pos_gpu[c]][0] - i))
    print(f"{path.split('/')[-1]}\t{len(gpu)}\t{g_win}\t{g_lag:.0f}\t{len(cpu)}\t{c_win}\t{c_lag:.0f}\t{far}\t{far_events}")

print("file\tgpu ops\tgpu window\tgpu lag us\tcalls\tcall window\tcall lag us\tjoin distance (ops-calls)\tjoin distance (events)")
for p in sys.argv[1:]:
    main(p)
