#!/usr/bin/env python3
"""What counting progress costs: `summarize` on a large CSV pair with the binary before the
meter (REF), after it with stderr not a terminal (no meter installed: one atomic load per
open), and after it with stderr on a pseudo-terminal (the meter counting every chunk and
the ticker drawing the line). Rounds alternate the three, so load from other work spreads
over all; medians of wall and CPU (user + sys) time are printed as a Markdown table.

usage: bench/progress_overhead.py REF_BINARY NEW_BINARY BASE [--rounds N] [--command summarize]
   BASE: an nsys base (stepstat synth --out BASE --steps 300 writes ~574 MB)
"""
import argparse
import os
import pty
import statistics
import subprocess
import time


def run_once(binary, args, on_pty):
    master = slave = None
    stderr = subprocess.DEVNULL
    if on_pty:
        master, slave = pty.openpty()
        stderr = slave
    start = time.monotonic()
    # The line from the start (not after a second), so that a run of about a second draws:
    # the meter counts the same either way.
    env = dict(os.environ, STEPSTAT_PROGRESS_AFTER_MS="0", TERM="xterm")
    proc = subprocess.Popen([binary] + args, stdout=subprocess.DEVNULL, stderr=stderr,
                            stdin=subprocess.DEVNULL, env=env)
    if slave is not None:
        os.close(slave)
        drawn = b""
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break
            if not chunk:
                break
            drawn += chunk
        os.close(master)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{binary} {' '.join(args)} failed")
    if on_pty and b"stepstat: reading" not in drawn:
        raise SystemExit("no progress line on the pty: the meter was not measured")
    return wall, usage.ru_utime + usage.ru_stime


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("ref")
    parser.add_argument("new")
    parser.add_argument("base")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--command", default="summarize")
    options = parser.parse_args()
    args = [options.command, options.base, "--format", "json"]
    configs = [("before (REF)", options.ref, False), ("after, stderr a pipe", options.new, False),
               ("after, stderr a pty: counting and drawing", options.new, True)]
    times = {name: [] for name, _, _ in configs}
    run_once(options.new, args, False)  # warm the page cache
    for _ in range(options.rounds):
        for name, binary, on_pty in configs:
            times[name].append(run_once(binary, args, on_pty))
    print(f"`{' '.join(['stepstat'] + args)}`, {options.rounds} alternating rounds, medians:\n")
    print("| binary | wall s | CPU s (user+sys) | wall runs |")
    print("|---|---|---|---|")
    for name, _, _ in configs:
        walls = [w for w, _ in times[name]]
        cpus = [c for _, c in times[name]]
        print(f"| {name} | {statistics.median(walls):.3f} | {statistics.median(cpus):.3f} | "
              f"{' '.join(f'{w:.2f}' for w in walls)} |")


if __name__ == "__main__":
    main()
