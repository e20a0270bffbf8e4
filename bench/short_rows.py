#!/usr/bin/python3
"""Writes a short-row copy of an nsys CSV trace pair: every kernel name cut to the function's
own name (20-40 characters, as many real traces print them), everything else unchanged. The
rows then average ~200 bytes, where per-row costs show more than per-byte ones.

    bench/short_rows.py IN_BASE OUT_BASE     # IN_BASE_cuda_gpu_trace.csv (+ _kern_exec) -> OUT_BASE_...

Standard library only; streams, so any size works (about 1 min per GB).
"""
import csv
import re
import sys

SUFFIXES = ("_cuda_gpu_trace.csv", "_cuda_kern_exec_trace.csv")
NAME_COLUMNS = ("Name", "Kernel Name")


def short_name(name, cache):
    """The function's own name without scope, template arguments or parameters, padded with
    the original's length so that two kernels of one name stay two names."""
    if name.startswith("[CUDA mem"):
        return name
    found = cache.get(name)
    if found is None:
        bare, depth = [], 0
        for c in name:
            if c in "<([":
                if depth == 0 and c == "(":
                    break
                depth += 1
            elif c in ">)]" and depth > 0:
                depth -= 1
            elif depth == 0:
                bare.append(c)
        words = re.split(r"[\s:]+", "".join(bare).strip())
        own = words[-1] if words and words[-1] else "kernel"
        found = f"{own[:32]}_{len(name) % 997}"
        cache[name] = found
    return found


def rewrite(source, target, cache):
    with open(source, newline="") as inp, open(target, "w", newline="") as out:
        reader = csv.reader(inp)
        writer = csv.writer(out, lineterminator="\n")
        header = next(reader)
        writer.writerow(header)
        column = next(i for i, h in enumerate(header) if h in NAME_COLUMNS)
        for row in reader:
            row[column] = short_name(row[column], cache)
            writer.writerow(row)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    cache = {}
    for suffix in SUFFIXES:
        rewrite(sys.argv[1] + suffix, sys.argv[2] + suffix, cache)
    print(f"{len(cache)} distinct kernel names shortened", file=sys.stderr)


if __name__ == "__main__":
    main()
