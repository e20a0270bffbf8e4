#!/usr/bin/python3
"""The stepstat summary (../shared/spec/step-stats.md) in vectorised pandas: a reference
for bench/compare. Prints one JSON object of integers.

    /usr/bin/python3 bench/pandas_summary.py GPU_TRACE.csv [KERN_EXEC_TRACE.csv] [--policy P.toml]

Only the 2024+ nanosecond layout (`Start (ns)`, `Duration (ns)`, `API Start (ns)`, ...)
is read; any other layout is an error, not a guess. No Python loop runs per row: only
per distinct kernel name (classification).
"""
import argparse
import json
import re
import sys
import tomllib
from pathlib import Path

import numpy as np
import pandas as pd

GPU_COLUMNS = ["Start (ns)", "Duration (ns)", "Name"]
API_COLUMNS = ["API Start (ns)", "API Dur (ns)"]
MEMORY_PREFIX = "[CUDA mem"


def fail(message):
    print(f"pandas_summary: {message}", file=sys.stderr)
    sys.exit(2)


def default_policy_path():
    root = Path(__file__).resolve().parent.parent
    for candidate in (root / "src/policy/presets/dit-nvfp4.toml",
                      root.parent / "shared/spec/dit-nvfp4.toml"):
        if candidate.exists():
            return candidate
    fail("no default policy found; pass --policy")


def load_policy(path):
    """[(name, [compiled pattern], [compiled exclude])] in policy order, `other` not included."""
    try:
        with open(path, "rb") as f:
            doc = tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError) as e:
        fail(f"{path}: {e}")
    flags = re.ASCII  # RE2's \w, \d, \b are ASCII; so are nsys kernel names
    if not doc.get("policy", {}).get("case_sensitive", False):
        flags |= re.IGNORECASE
    rules = []
    for component in doc.get("component", []):
        name = component["name"]
        try:
            patterns = [re.compile(p, flags) for p in component.get("patterns", [])]
            excludes = [re.compile(p, flags) for p in component.get("exclude", [])]
        except re.error as e:
            fail(f"{path}: component {name}: bad pattern: {e}")
        rules.append((name, patterns, excludes))
    return rules


def classify(name, rules):
    """Index of the first component that has a matching pattern and no matching exclude."""
    for index, (_, patterns, excludes) in enumerate(rules):
        if any(p.search(name) for p in patterns) and not any(x.search(name) for x in excludes):
            return index
    return len(rules)  # other


def header_line_index(path, required):
    """Row index of the header (nsys console output may put log lines first); fails on
    any layout that is not the 2024+ nanosecond one."""
    with open(path, encoding="utf-8-sig", errors="replace") as f:
        for index, line in enumerate(f):
            if index > 64:
                break
            fields = [field.strip().strip('"') for field in line.rstrip("\r\n").split(",")]
            if all(column in fields for column in required):
                return index
            if "Start(sec)" in fields or "Start (us)" in fields or "Duration(nsec)" in fields:
                break
    fail(f"{path}: not the 2024+ nsys layout (need header columns {', '.join(required)})")


def read_csv(path, columns, dtypes):
    skip = header_line_index(path, columns)
    try:
        frame = pd.read_csv(path, usecols=columns, dtype=dtypes, skiprows=skip,
                            encoding="utf-8-sig", engine="c", na_filter=True)
    except (ValueError, OSError, pd.errors.ParserError) as e:
        fail(f"{path}: {e}")
    for column in columns:
        if frame[column].isna().any():
            row = int(np.flatnonzero(frame[column].isna().to_numpy())[0])
            fail(f"{path}:{skip + row + 2}: empty {column}")
    return frame


def union_components(starts, ends):
    """Sorted disjoint [start, end) components of the union of the intervals."""
    if len(starts) == 0:
        return starts, ends
    order = np.lexsort((ends, starts))
    starts, ends = starts[order], ends[order]
    running_end = np.maximum.accumulate(ends)
    opens = np.empty(len(starts), dtype=bool)
    opens[0] = True
    opens[1:] = starts[1:] > running_end[:-1]
    first = np.flatnonzero(opens)
    last = np.append(first[1:] - 1, len(starts) - 1)
    return starts[first], running_end[last]


def covered_before(x, starts, ends, cumulative):
    """Length of the (sorted, disjoint) union that lies before each x."""
    k = np.searchsorted(starts, x, side="left")  # components starting before x
    inside = np.where(k > 0, np.maximum(ends[np.maximum(k - 1, 0)] - x, 0), 0)
    return cumulative[k] - inside


def intersection_length(a_starts, a_ends, b_starts, b_ends):
    if len(a_starts) == 0 or len(b_starts) == 0:
        return 0
    cumulative = np.concatenate(([0], np.cumsum(b_ends - b_starts)))
    return int((covered_before(a_ends, b_starts, b_ends, cumulative)
                - covered_before(a_starts, b_starts, b_ends, cumulative)).sum())


def summarize(gpu_path, exec_path, rules):
    gpu = read_csv(gpu_path, GPU_COLUMNS,
                   {"Start (ns)": "int64", "Duration (ns)": "int64", "Name": "category"})
    starts = gpu["Start (ns)"].to_numpy()
    durations = gpu["Duration (ns)"].to_numpy()
    ends = starts + durations
    names = gpu["Name"].cat
    # Per distinct name: is it memory, and which component (one regex pass per name).
    distinct = names.categories.astype(str)
    is_memory_name = np.asarray(distinct.str.startswith(MEMORY_PREFIX), dtype=bool)
    component_of_name = np.array([classify(n, rules) for n in distinct], dtype=np.int64)
    codes = names.codes.to_numpy()
    is_kernel = ~is_memory_name[codes]

    k_starts, k_ends, k_durations = starts[is_kernel], ends[is_kernel], durations[is_kernel]
    summary = {
        "span_ns": int(ends.max() - starts.min()) if len(starts) else 0,
        "gpu_operation_count": int(len(starts)),
        "kernel_count": int(len(k_starts)),
        "kernel_time_ns": int(k_durations.sum()),
    }

    gap_count = gap_total = gap_max = 0
    if len(k_starts) > 1:
        order = np.lexsort((k_ends, k_starts))
        sorted_starts = k_starts[order]
        frontier = np.maximum.accumulate(k_ends[order])[:-1]  # latest end before each next kernel
        gaps = sorted_starts[1:] - frontier
        gaps = gaps[gaps > 0]
        gap_count, gap_total = len(gaps), int(gaps.sum())
        gap_max = int(gaps.max()) if len(gaps) else 0
    summary.update(gap_count=int(gap_count), gap_total_ns=gap_total, gap_max_ns=gap_max)

    if exec_path is None:
        summary.update(launch_union_ns=None, launch_overlap_ns=None)
    else:
        api = read_csv(exec_path, API_COLUMNS, {c: "int64" for c in API_COLUMNS})
        a_starts = api["API Start (ns)"].to_numpy()
        a_ends = a_starts + api["API Dur (ns)"].to_numpy()
        launch_starts, launch_ends = union_components(a_starts, a_ends)
        kernel_starts, kernel_ends = union_components(k_starts, k_ends)
        summary["launch_union_ns"] = int((launch_ends - launch_starts).sum())
        summary["launch_overlap_ns"] = intersection_length(
            launch_starts, launch_ends, kernel_starts, kernel_ends)

    kernel_components = component_of_name[codes[is_kernel]]
    per_component = pd.Series(k_durations).groupby(kernel_components).agg(["size", "sum"])
    component_names = [name for name, _, _ in rules] + ["other"]
    summary["components"] = {}
    for index, name in enumerate(component_names):
        launches, time_ns = (per_component.loc[index] if index in per_component.index
                             else (0, 0))
        summary["components"][name] = {"launches": int(launches), "time_ns": int(time_ns)}
    return summary


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("gpu_trace")
    parser.add_argument("kern_exec_trace", nargs="?")
    parser.add_argument("--policy", type=Path)
    args = parser.parse_args()
    rules = load_policy(args.policy or default_policy_path())
    print(json.dumps(summarize(args.gpu_trace, args.kern_exec_trace, rules), indent=2))


if __name__ == "__main__":
    main()
