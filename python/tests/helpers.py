"""What the Python tests share: the CLI they compare against and a job of synthetic ranks."""

import os
import subprocess
import tempfile

BINARY = os.environ.get("STEPSTAT_BINARY", "stepstat")


def cli(*args, cwd=None, check=True):
    """Runs the stepstat CLI; returns its stdout (bytes decoded as UTF-8)."""
    done = subprocess.run([BINARY, *args], cwd=cwd, capture_output=True, text=True, timeout=120)
    if check and done.returncode != 0:
        raise AssertionError(f"stepstat {' '.join(args)}: exit {done.returncode}: {done.stderr}")
    return done.stdout


def make_job(ranks=3):
    """A folder job/ of synthetic ranks (CSV pairs, seeds 1..N; rank 2 a Kineto trace)."""
    folder = tempfile.mkdtemp(prefix="stepstat-python-")
    os.mkdir(os.path.join(folder, "job"))
    for rank in range(ranks):
        args = ["synth", "--out", f"job/rank{rank}", "--seed", str(rank + 1)]
        if rank == 2:
            args += ["--format", "kineto"]
        cli(*args, cwd=folder)
    return folder
