#!/usr/bin/env python3
"""Makes a slower copy of an nsys CSV capture, independently of `stepstat synth --slower`:
every GPU operation whose name matches REGEX takes PERCENT % longer, and every operation
that starts after a stretched one ended starts that much later (as a GPU-bound run would
shift). CPU times (launch calls, NVTX ranges) stay as they are.

usage: slow_down.py IN_BASE OUT_BASE REGEX PERCENT
  reads IN_BASE_cuda_gpu_trace.csv (and _cuda_kern_exec_trace.csv, _nvtx_pushpop_trace.csv
  when present), writes the same files under OUT_BASE.
"""
import bisect
import csv
import re
import shutil
import sys
from pathlib import Path


def stretch_plan(rows, name_column, pattern, percent):
    """(original end, added ns) of every stretched operation, by end; and the new durations."""
    added = []
    for row in rows:
        if pattern.search(row[name_column]):
            start, duration = int(row["Start (ns)"]), int(row["Duration (ns)"])
            extra = duration * percent // 100
            added.append((start + duration, extra))
    added.sort()
    ends = [end for end, _ in added]
    cumulative = [0]
    for _, extra in added:
        cumulative.append(cumulative[-1] + extra)
    return ends, cumulative


def read_csv(path):
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        return reader.fieldnames, list(reader)


def write_csv(path, columns, rows):
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=columns, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


def shift(ends, cumulative, start):
    """The added time of every stretched operation that ended at or before `start`."""
    return cumulative[bisect.bisect_right(ends, start)]


def main(in_base, out_base, regex, percent):
    pattern = re.compile(regex)
    percent = int(percent)
    gpu_in = Path(in_base + "_cuda_gpu_trace.csv")
    columns, rows = read_csv(gpu_in)
    ends, cumulative = stretch_plan(rows, "Name", pattern, percent)
    new_times = {}  # (start, name) -> (new start, new duration)
    for row in rows:
        start, duration = int(row["Start (ns)"]), int(row["Duration (ns)"])
        new_start = start + shift(ends, cumulative, start)
        if pattern.search(row["Name"]):
            duration += duration * percent // 100
        new_times[(start, row["Name"])] = (new_start, duration)
        row["Start (ns)"], row["Duration (ns)"] = str(new_start), str(duration)
    write_csv(out_base + "_cuda_gpu_trace.csv", columns, rows)

    kern_in = Path(in_base + "_cuda_kern_exec_trace.csv")
    if kern_in.exists():
        columns, launches = read_csv(kern_in)
        for row in launches:
            key = (int(row["Kernel Start (ns)"]), row["Kernel Name"])
            if key not in new_times:
                continue
            start, duration = new_times[key]
            queue_start = int(row["Queue Start (ns)"])
            row["Kernel Start (ns)"], row["Kernel Dur (ns)"] = str(start), str(duration)
            row["Queue Dur (ns)"] = str(max(0, start - queue_start))
            row["Total Dur (ns)"] = str(start + duration - int(row["API Start (ns)"]))
        write_csv(out_base + "_cuda_kern_exec_trace.csv", columns, launches)
    nvtx = Path(in_base + "_nvtx_pushpop_trace.csv")
    if nvtx.exists():
        shutil.copyfile(nvtx, out_base + "_nvtx_pushpop_trace.csv")


if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    main(*sys.argv[1:])
